//! Row estimates and key samples of a tree that read a few basements, not the whole tree
//! (design.md "Statistics", STA1-STA3).
//!
//! A descent is steered by a fraction `u` in [0, 1): at an internal node of `n` children it takes
//! child `⌊u·n⌋` and goes on with the rest `u·n − ⌊u·n⌋`; at a leaf it cuts [0, 1) among the
//! basements in proportion to their bytes instead (`part_sizes`). The basements so tile [0, 1),
//! each over an interval of length `1 / weight`, its weight being the product over its path of the
//! inverse share of each part taken (`n` for a child, the leaf's bytes over the basement's for a
//! basement). The basement reached is materialized as a range scan materializes it (the
//! pending messages of its path applied, so rows still buffered in internal nodes count, and rows
//! they delete do not), and its visible entries times its weight estimate the tree's rows: Knuth's
//! estimate of a tree's size, unbiased for a uniform `u`. [`SampleOptions::descents`] fractions,
//! one in each of as many equal strata, average it.
//!
//! Exact answers for small trees (STA2): a tree whose root is a leaf, or whose estimate is at most
//! [`SampleOptions::exact_up_to_rows`], is counted by a full scan instead (the scan gives up, and
//! the estimate stands, past [`EXACT_SCAN_FACTOR`] times that many rows).
//!
//! Locks (STA1): each descent holds the tree's read lock only while it materializes its basement,
//! as one step of a range scan does, and evicts afterwards as reads do; writers wait no longer than
//! for a scan's step. A descent that lands in the basement the previous one read reuses it.

use super::read::Batch;
use crate::error::Result;
use crate::tree::in_memory::mvcc::ReadView;
use crate::tree::in_memory::node::Node;
use crate::tree::operations::cursor::ViewGuard;
use crate::tree::Tree;
use std::ops::Bound;

/// The exact scan of a tree whose estimate is small reads at most this many times
/// [`SampleOptions::exact_up_to_rows`] entries before it gives up (the estimate was far off).
pub const EXACT_SCAN_FACTOR: u64 = 4;

/// What [`Tree::sample`] reads and returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleOptions {
    /// Descents to basements (each reads one basement; more give a closer estimate).
    pub descents: u32,
    /// A tree whose estimate is at most this many rows is counted exactly (0: only trees whose
    /// root is a leaf).
    pub exact_up_to_rows: u64,
    /// Keep the keys of the basements read (for estimates of distinct key prefixes).
    pub keys: bool,
    /// With `keys`: a descent whose basement holds fewer keys reads on into the basements after
    /// it until it has this many (a run of consecutive keys long enough to see a key prefix that
    /// repeats for hundreds of rows change).
    pub run_keys: usize,
}

impl Default for SampleOptions {
    /// 64 descents (a few milliseconds of basement reads on a cold tree), exact up to 20,000 rows
    /// (about as many entries as the descents read), no keys (runs of at least 256 when asked).
    fn default() -> SampleOptions {
        SampleOptions {
            descents: 64,
            exact_up_to_rows: 20_000,
            keys: false,
            run_keys: 256,
        }
    }
}

/// The consecutive entries of one basement read by a sample (or, for an exact count, of the whole
/// tree).
#[derive(Debug, Clone, PartialEq)]
pub struct SampledRun {
    /// How many basements of the tree these entries stand for (1 for an exact count): the tree has
    /// about `Σ weight × entries` rows.
    pub weight: f64,
    /// Visible entries of the basement the descent reached.
    pub entries: u64,
    /// Their keys in order, when [`SampleOptions::keys`] asked for them, and those of the
    /// basements after it that [`SampleOptions::run_keys`] asked for.
    pub keys: Vec<Vec<u8>>,
}

/// A tree's row count (estimated or exact) and the runs of entries it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeSample {
    /// Visible (committed) rows: exact when `exact`, else estimated.
    pub rows: u64,
    /// Whether every entry was read: then `runs` is one run holding every key (with keys asked for).
    pub exact: bool,
    pub runs: Vec<SampledRun>,
}

impl TreeSample {
    fn from_runs(runs: Vec<SampledRun>, exact: bool) -> TreeSample {
        let rows: f64 = runs.iter().map(|r| r.weight * r.entries as f64).sum();
        TreeSample {
            rows: rows.round() as u64,
            exact,
            runs,
        }
    }
}

/// One descent's basement: its weight, where its interval starts in [0, 1), and its entries.
struct Landing {
    weight: f64,
    start: f64,
    batch: Batch,
}

/// The fraction of descent `i` of `k`: in stratum `i`, offset by the fractional part of a multiple of
/// the golden ratio (deterministic, so an unchanged tree gives the same estimate, and not in step
/// with the trees' regular shapes as midpoints would be).
fn fraction(i: u32, k: u32) -> f64 {
    let offset = ((i as f64 + 1.0) * 0.618_033_988_749_895).fract();
    ((i as f64 + offset) / k as f64).min(1.0 - f64::EPSILON)
}

/// The share of the fractions each part of `node` takes: a leaf's basements in proportion to
/// their bytes (rows per byte vary far less between basements than rows per basement do, so the
/// estimate varies less), an internal node's children equally (their sizes are not known without
/// reading them). A leaf's bytes are its block's raw partition lengths while it is clean, else the
/// sizes of its basements in memory (a dirty leaf has them all); never 0.
fn part_sizes(node: &Node) -> Vec<f64> {
    let parts = node.parts();
    let Node::Leaf { basements, .. } = node else {
        return vec![1.0; parts];
    };
    let stored: Option<Vec<f64>> = basements
        .iter()
        .map(|b| b.part.map(|p| p.raw_len as f64))
        .collect();
    let loaded = || -> Option<Vec<f64>> {
        basements
            .iter()
            .map(|b| b.loaded.as_ref().map(|l| l.bytes() as f64))
            .collect()
    };
    match stored.or_else(loaded) {
        Some(sizes) => sizes.into_iter().map(|s| s.max(1.0)).collect(),
        None => vec![1.0; parts],
    }
}

impl Tree {
    /// The tree's committed rows, estimated from a few basements or counted exactly when the tree
    /// is small (module docs), with the keys read if `opts.keys`.
    pub fn sample(&self, opts: &SampleOptions) -> Result<TreeSample> {
        let (view, id, root_is_leaf) = {
            let st = self.state.read();
            let root_is_leaf = self.load(&st, st.root)?.is_leaf();
            let (view, id) = self.mvcc.view(0, || st.max_msn + 1, true);
            (view, id, root_is_leaf)
        };
        let guard = id.map(|id| ViewGuard::new(self.mvcc.clone(), id));
        if root_is_leaf {
            let all = self.count_exactly(view, guard, None, opts.keys)?;
            return Ok(all.expect("a scan without a cap ends"));
        }
        let estimate = self.sample_descents(opts, &view)?;
        if estimate.rows > opts.exact_up_to_rows {
            return Ok(estimate);
        }
        let cap = opts.exact_up_to_rows.saturating_mul(EXACT_SCAN_FACTOR);
        Ok(self
            .count_exactly(view, guard, Some(cap), opts.keys)?
            .unwrap_or(estimate))
    }

    /// Every visible entry as `view` sees it, counted (and its keys kept if `keys`); `None` once more
    /// than `cap` are found.
    fn count_exactly(
        &self,
        view: ReadView,
        guard: Option<ViewGuard>,
        cap: Option<u64>,
        keys: bool,
    ) -> Result<Option<TreeSample>> {
        let mut run = SampledRun {
            weight: 1.0,
            entries: 0,
            keys: Vec::new(),
        };
        let scan = self.range_with_view(Bound::Unbounded, Bound::Unbounded, false, view, guard);
        for item in scan {
            let (k, _) = item?;
            run.entries += 1;
            if cap.is_some_and(|c| run.entries > c) {
                return Ok(None);
            }
            if keys {
                run.keys.push(k);
            }
        }
        Ok(Some(TreeSample::from_runs(vec![run], true)))
    }

    /// The estimate of `opts.descents` stratified descents (module docs).
    fn sample_descents(&self, opts: &SampleOptions, view: &ReadView) -> Result<TreeSample> {
        let k = opts.descents.max(1);
        let mut runs: Vec<SampledRun> = Vec::new();
        // The interval [start, end) of the basement the last descent read, and its weight.
        let mut last: Option<(f64, f64, f64)> = None;
        for i in 0..k {
            let u = fraction(i, k);
            if let Some((start, end, weight)) = last {
                if (start..end).contains(&u) {
                    let run = runs.last_mut().expect("a run per landing");
                    run.weight += weight / k as f64;
                    continue;
                }
            }
            let landing = self.descend_by_fraction(u, view)?;
            let end = landing.start + 1.0 / landing.weight;
            last = Some((landing.start, end, landing.weight));
            let entries = landing.batch.entries.len() as u64;
            let keys = match opts.keys {
                true => self.run_of_keys(landing.batch, opts.run_keys, view)?,
                false => Vec::new(),
            };
            runs.push(SampledRun {
                weight: landing.weight / k as f64,
                entries,
                keys,
            });
        }
        Ok(TreeSample::from_runs(runs, false))
    }

    /// The keys of `batch`, and of the basements after it until there are `at_least` (or the tree
    /// ends).
    fn run_of_keys(&self, batch: Batch, at_least: usize, view: &ReadView) -> Result<Vec<Vec<u8>>> {
        let mut keys: Vec<Vec<u8>> = batch.entries.into_iter().map(|(k, _)| k).collect();
        let mut next = batch.next_lo;
        while keys.len() < at_least {
            let Some(lo) = next else { break };
            let b = self.batch_at(Some(&lo), false, view, (None, None))?;
            keys.extend(b.entries.into_iter().map(|(k, _)| k));
            next = b.next_lo;
        }
        Ok(keys)
    }

    /// The basement the fraction `u` leads to, materialized under the read lock.
    fn descend_by_fraction(&self, u: f64, view: &ReadView) -> Result<Landing> {
        let (mut rest, mut weight) = (u, 1.0f64);
        let mut choose = |node: &Node| {
            let sizes = part_sizes(node);
            let total: f64 = sizes.iter().sum();
            let scaled = rest * total;
            let (mut i, mut before) = (0, 0.0);
            while i + 1 < sizes.len() && before + sizes[i] <= scaled {
                before += sizes[i];
                i += 1;
            }
            rest = ((scaled - before) / sizes[i]).clamp(0.0, 1.0);
            weight *= total / sizes[i];
            i
        };
        let batch = {
            let st = self.state.read();
            self.batch_locked(&st, &mut choose, view, (None, None))?
        };
        self.evict_after_read()?;
        Ok(Landing {
            start: u - rest / weight,
            weight,
            batch,
        })
    }
}
