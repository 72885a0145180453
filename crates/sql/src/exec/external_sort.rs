//! The sort of a query's rows under a memory budget (`sort_buffer_size`), spilling sorted runs
//! to disk past it as MariaDB's filesort does: ORDER BY (select.rs, query.rs) and the sort of each
//! window (window.rs), and the rows of groups a full GROUP BY table spills (group_table.rs).
//! DISTINCT hashes its rows and does not sort.
//!
//! Rows are pushed with their sort keys; each gets a sequence number in push order. While the
//! rows held stay under the budget nothing touches the disk. Past it the rows held are sorted
//! (stably) and written as one run file (codec/run_file.rs, values as codec/spill_value.rs) in a
//! `#sort-tmp-` directory under the data directory, created at the first spill. At the end the
//! last rows are written too, and runs are merged: while there are more than
//! [`MERGE_RUNS_MAX`], groups of [`MERGE_GROUP_RUNS`] are merged into one run (one merge pass
//! each), then the last merge streams the rows out (one more pass), as MariaDB's merge_many_buff
//! and merge_index do. A sort with a row limit (ORDER BY ... LIMIT) first keeps only the first
//! `limit` rows when over budget, as MariaDB's priority queue does.
//!
//! Invariants (design.md XSR1-XSR4): the rows come out exactly as a stable in-memory sort by the
//! comparator gives them (ties in push order: runs hold ascending sequence numbers and the merge
//! breaks ties by them); the rows held in memory stay under the budget plus one row; the temp
//! directory goes when the sorter or its output drops, on every path; I/O errors are 1021/1026.

use std::cmp::Ordering;
use std::path::PathBuf;
use std::rc::Rc;

use crate::codec::run_file::{RunReader, RunWriter};
use crate::codec::spill_value;
use crate::codec::temp_dir::{TempDir, SORT_TEMP_PREFIX};
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::exec::sort::Keyed;
use crate::types::value::Value;

/// More runs than this are merged in passes of [`MERGE_GROUP_RUNS`] first (MariaDB's MERGEBUFF2).
pub const MERGE_RUNS_MAX: usize = 15;
/// Runs merged into one by an intermediate pass (MariaDB's MERGEBUFF).
pub const MERGE_GROUP_RUNS: usize = 7;
const _: () = assert!(MERGE_GROUP_RUNS >= 2 && MERGE_GROUP_RUNS <= MERGE_RUNS_MAX);

/// Bytes counted for a held row beyond its values (sequence number, vectors).
const ROW_OVERHEAD_BYTES: usize = 64;
/// Write buffer of a run file.
const RUN_WRITE_BUFFER_BYTES: usize = 1 << 16;

/// Compares two rows' sort keys.
pub type KeyOrder<'a> = Box<dyn Fn(&[Value], &[Value]) -> Ordering + 'a>;

/// Where a sort may spill and how much it may hold: the session's `sort_buffer_size` and the data
/// directory.
#[derive(Clone, Debug)]
pub struct SortBudget {
    pub memory_bytes: usize,
    pub datadir: PathBuf,
}

impl SortBudget {
    pub fn of(cx: &Context) -> SortBudget {
        let memory_bytes = cx
            .sysvar_value("sort_buffer_size", false)
            .and_then(|v| v.to_f64_lenient())
            .map_or(2 << 20, |b| b.min(usize::MAX as f64) as usize);
        SortBudget {
            memory_bytes,
            datadir: cx.engine.config.datadir.clone(),
        }
    }
}

pub use crate::context::status::SortCounts as SortStats;

/// One sort; see the module docs.
pub struct RowSorter<'a> {
    order: Rc<KeyOrder<'a>>,
    budget: SortBudget,
    /// ORDER BY ... LIMIT: only the first `keep` rows are wanted.
    keep: Option<usize>,
    held: Vec<(u64, Keyed)>,
    held_bytes: usize,
    next_seq: u64,
    dir: Option<Rc<TempDir>>,
    runs: Vec<PathBuf>,
    runs_made: usize,
    pub stats: SortStats,
}

fn row_bytes(k: &Keyed) -> usize {
    spill_value::memory_bytes(&k.0) + spill_value::memory_bytes(&k.1) + ROW_OVERHEAD_BYTES
}

impl<'a> RowSorter<'a> {
    pub fn new(order: KeyOrder<'a>, budget: SortBudget, keep: Option<usize>) -> RowSorter<'a> {
        RowSorter {
            order: Rc::new(order),
            budget,
            keep,
            held: Vec::new(),
            held_bytes: 0,
            next_seq: 0,
            dir: None,
            runs: Vec::new(),
            runs_made: 0,
            stats: SortStats {
                sorts: 1,
                ..SortStats::default()
            },
        }
    }

    pub fn push(&mut self, row: Keyed) -> DbResult<()> {
        self.held_bytes += row_bytes(&row);
        self.held.push((self.next_seq, row));
        self.next_seq += 1;
        if self.held_bytes > self.budget.memory_bytes {
            self.over_budget()?;
        }
        Ok(())
    }

    fn sort_held(&mut self) {
        let order = &self.order;
        self.held.sort_by(|a, b| order(&a.1 .0, &b.1 .0));
    }

    fn over_budget(&mut self) -> DbResult<()> {
        if let Some(keep) = self.keep.filter(|k| *k < self.held.len()) {
            if self.runs.is_empty() {
                self.sort_held();
                self.held.truncate(keep);
                self.held_bytes = self.held.iter().map(|(_, r)| row_bytes(r)).sum();
                if self.held_bytes <= self.budget.memory_bytes {
                    return Ok(());
                }
            }
        }
        self.sort_held();
        let rows = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        self.write_run(rows.into_iter().map(Ok))
    }

    fn dir(&mut self) -> DbResult<Rc<TempDir>> {
        if self.dir.is_none() {
            let dir = TempDir::new(&self.budget.datadir, SORT_TEMP_PREFIX, "a sort")?;
            self.dir = Some(Rc::new(dir));
        }
        Ok(self.dir.clone().expect("just made"))
    }

    /// Writes sorted rows as a new run.
    fn write_run(&mut self, rows: impl Iterator<Item = DbResult<(u64, Keyed)>>) -> DbResult<()> {
        let n = self.runs_made;
        self.runs_made += 1;
        let dir = self.dir()?;
        let path = dir.path.join(format!("run-{n}"));
        let err = |what: &str, e| dir.error(&path, what, e);
        let mut w =
            RunWriter::create(&path, RUN_WRITE_BUFFER_BYTES).map_err(|e| err("create", e))?;
        let (mut k, mut v) = (Vec::new(), Vec::new());
        for row in rows {
            let (seq, (keys, values)) = row?;
            k.clear();
            v.clear();
            spill_value::encode(&keys, &mut k);
            spill_value::encode(&values, &mut v);
            w.write(&k, seq, &v).map_err(|e| err("write", e))?;
        }
        w.finish().map_err(|e| err("write", e))?;
        self.runs.push(path);
        Ok(())
    }

    /// Ends the input: the rows in order (the first `keep` of them with a limit).
    pub fn finish(mut self) -> DbResult<SortedRows<'a>> {
        if self.runs.is_empty() {
            self.sort_held();
            if let Some(keep) = self.keep {
                if keep < self.held.len() || self.next_seq > self.held.len() as u64 {
                    self.stats.priority_queue_sorts = 1;
                }
                self.held.truncate(keep);
            }
            self.stats.rows = self.held.len() as u64;
            let held = std::mem::take(&mut self.held);
            return Ok(SortedRows {
                source: Source::Memory(held.into_iter()),
                stats: self.stats,
            });
        }
        if !self.held.is_empty() {
            self.sort_held();
            let rows = std::mem::take(&mut self.held);
            self.write_run(rows.into_iter().map(Ok))?;
        }
        while self.runs.len() > MERGE_RUNS_MAX {
            let runs = std::mem::take(&mut self.runs);
            for group in runs.chunks(MERGE_GROUP_RUNS) {
                let merge = self.open_merge(group)?;
                self.stats.merge_passes += 1;
                self.write_run(merge)?;
            }
        }
        let runs = std::mem::take(&mut self.runs);
        let merge = self.open_merge(&runs)?;
        self.stats.merge_passes += 1;
        self.stats.rows = self.next_seq.min(self.keep.map_or(u64::MAX, |k| k as u64));
        Ok(SortedRows {
            source: Source::Merge {
                merge,
                left: self.keep.unwrap_or(usize::MAX),
            },
            stats: self.stats,
        })
    }

    fn open_merge(&self, runs: &[PathBuf]) -> DbResult<Merge<'a>> {
        let dir = self.dir.clone().expect("runs are in the directory");
        let mut heads = Vec::with_capacity(runs.len());
        for path in runs {
            let reader = RunReader::open(path.clone()).map_err(|e| dir.error(path, "read", e))?;
            heads.push(Head { reader, next: None });
        }
        let mut m = Merge {
            order: self.order.clone(),
            heads,
            dir,
        };
        for i in 0..m.heads.len() {
            m.advance(i)?;
        }
        Ok(m)
    }
}

struct Head {
    reader: RunReader,
    /// The run's next row: keys, sequence number, encoded values.
    next: Option<(Vec<Value>, u64, Vec<u8>)>,
}

/// A merge of runs, smallest `(keys, seq)` first. Runs are few (at most [`MERGE_RUNS_MAX`]), so
/// the smallest head is found by a scan. The directory goes when the last merge drops.
struct Merge<'a> {
    order: Rc<KeyOrder<'a>>,
    heads: Vec<Head>,
    dir: Rc<TempDir>,
}

impl Merge<'_> {
    fn advance(&mut self, i: usize) -> DbResult<()> {
        let h = &mut self.heads[i];
        let read = h.reader.next_entry().and_then(|e| {
            e.map(|(k, seq, v)| Ok((spill_value::decode(&k)?, seq, v)))
                .transpose()
        });
        h.next = read.map_err(|e| self.dir.error(&h.reader.path, "read", e))?;
        Ok(())
    }

    fn smallest(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, h) in self.heads.iter().enumerate() {
            let Some((k, seq, _)) = &h.next else { continue };
            let better = best.is_none_or(|b| {
                let (bk, bseq, _) = self.heads[b].next.as_ref().expect("a head");
                (self.order)(k, bk).then(seq.cmp(bseq)) == Ordering::Less
            });
            if better {
                best = Some(i);
            }
        }
        best
    }
}

impl Iterator for Merge<'_> {
    type Item = DbResult<(u64, Keyed)>;
    fn next(&mut self) -> Option<Self::Item> {
        let i = self.smallest()?;
        let (keys, seq, v) = self.heads[i].next.take().expect("the smallest head");
        if let Err(e) = self.advance(i) {
            return Some(Err(e));
        }
        let path = &self.heads[i].reader.path;
        Some(
            spill_value::decode(&v)
                .map(|values| (seq, (keys, values)))
                .map_err(|e| self.dir.error(path, "read", e)),
        )
    }
}

enum Source<'a> {
    Memory(std::vec::IntoIter<(u64, Keyed)>),
    Merge { merge: Merge<'a>, left: usize },
}

/// A sorter's output: rows in order. Dropping it removes the sort's temporary files.
pub struct SortedRows<'a> {
    source: Source<'a>,
    pub stats: SortStats,
}

impl Iterator for SortedRows<'_> {
    type Item = DbResult<Keyed>;
    fn next(&mut self) -> Option<DbResult<Keyed>> {
        match &mut self.source {
            Source::Memory(rows) => rows.next().map(|(_, r)| Ok(r)),
            Source::Merge { merge, left, .. } => {
                if *left == 0 {
                    return None;
                }
                *left -= 1;
                merge.next().map(|r| r.map(|(_, row)| row))
            }
        }
    }
}

/// Sorts `rows` by `order` within `budget`; the rows in order (the first `keep` with a limit)
/// and what the sort did.
pub fn sort_rows(
    rows: impl IntoIterator<Item = Keyed>,
    order: KeyOrder<'_>,
    budget: SortBudget,
    keep: Option<usize>,
) -> DbResult<(Vec<Keyed>, SortStats)> {
    let mut s = RowSorter::new(order, budget, keep);
    for r in rows {
        s.push(r)?;
    }
    let out = s.finish()?;
    let stats = out.stats;
    let rows = out.collect::<DbResult<Vec<_>>>()?;
    Ok((rows, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 KiB budget: a few rows make a run.
    fn tiny_budget(datadir: &std::path::Path) -> SortBudget {
        SortBudget {
            memory_bytes: 1024,
            datadir: datadir.to_path_buf(),
        }
    }
    use crate::types::collation::Collation;
    use crate::types::value::cmp_nulls_first;

    /// A little generator, so a failing seed can be replayed.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// A value of kind `kind` (0-4), NULL one time in six. Each key column has one kind: values
    /// of mixed types do not compare in a total order, so no sort of them is the one answer.
    fn random_value(r: &mut Lcg, kind: u64) -> Value {
        if r.next(6) == 0 {
            return Value::Null;
        }
        match kind {
            0 => Value::Null,
            1 => Value::Int(r.next(20) as i64 - 10),
            2 => Value::Double(r.next(8) as f64 / 4.0),
            3 => Value::Text(["a", "A", "b", "ab", "B ", ""][r.next(6) as usize].into()),
            _ => Value::Bytes(vec![r.next(3) as u8; r.next(4) as usize]),
        }
    }

    fn order<'a>(desc: &'a [bool]) -> KeyOrder<'a> {
        Box::new(move |a: &[Value], b: &[Value]| {
            for (i, d) in desc.iter().enumerate() {
                let o = cmp_nulls_first(&a[i], &b[i], Collation::default());
                if o != Ordering::Equal {
                    return if *d { o.reverse() } else { o };
                }
            }
            Ordering::Equal
        })
    }

    fn sort_dirs(datadir: &std::path::Path) -> usize {
        std::fs::read_dir(datadir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with(SORT_TEMP_PREFIX)
            })
            .count()
    }

    /// Random rows (ties, NULLs, strings of several kinds) sorted under budgets from tiny to
    /// ample, with and without a limit, against a stable in-memory sort of the same rows.
    #[test]
    fn spilled_sorts_give_the_rows_and_order_of_the_in_memory_sort() {
        let datadir = tempfile::tempdir().unwrap();
        for seed in 0..40u64 {
            let mut r = Lcg(seed);
            let n = r.next(3000) as usize;
            let nkeys = 1 + r.next(3) as usize;
            let desc: Vec<bool> = (0..nkeys).map(|_| r.next(2) == 1).collect();
            let kinds: Vec<u64> = (0..nkeys).map(|_| r.next(5)).collect();
            let rows: Vec<Keyed> = (0..n)
                .map(|i| {
                    let keys = kinds.iter().map(|k| random_value(&mut r, *k)).collect();
                    let kind = r.next(5);
                    (
                        keys,
                        vec![Value::UInt(i as u64), random_value(&mut r, kind)],
                    )
                })
                .collect();
            let mut model = rows.clone();
            let o = order(&desc);
            model.sort_by(|a, b| o(&a.0, &b.0));
            let keep = match r.next(3) {
                0 => Some(r.next(n as u64 + 10) as usize),
                _ => None,
            };
            if let Some(k) = keep {
                model.truncate(k);
            }
            let memory_bytes = [1024, 4096, 100_000, 1 << 30][r.next(4) as usize];
            let budget = SortBudget {
                memory_bytes,
                datadir: datadir.path().to_path_buf(),
            };
            let (got, stats) = sort_rows(rows, order(&desc), budget, keep).unwrap();
            assert_eq!(
                got, model,
                "seed {seed}, budget {memory_bytes}, keep {keep:?}"
            );
            assert_eq!(stats.rows, model.len() as u64, "seed {seed}");
            if memory_bytes == 1 << 30 {
                assert_eq!(stats.merge_passes, 0, "seed {seed}");
            }
            assert_eq!(
                sort_dirs(datadir.path()),
                0,
                "seed {seed}: runs left behind"
            );
        }
    }

    #[test]
    fn many_runs_merge_in_passes_and_leave_nothing_behind() {
        let datadir = tempfile::tempdir().unwrap();
        let budget = tiny_budget(datadir.path());
        let desc = [false];
        let mut s = RowSorter::new(order(&desc), budget, None);
        for i in 0..5000i64 {
            s.push((vec![Value::Int((i * 7919) % 1000)], vec![Value::Int(i)]))
                .unwrap();
        }
        let runs = s.runs.len();
        assert!(runs > 100, "{runs} runs");
        let out = s.finish().unwrap();
        // 100+ runs: intermediate passes of 7 until at most 15 remain, then the last.
        assert!(out.stats.merge_passes > runs as u64 / 7, "{:?}", out.stats);
        assert_eq!(sort_dirs(datadir.path()), 1);
        let mut last: Option<(i64, i64)> = None;
        let mut count = 0;
        for row in out {
            let (k, v) = row.unwrap();
            let (Value::Int(k), Value::Int(v)) = (&k[0], &v[0]) else {
                panic!("ints")
            };
            assert!(last < Some((*k, *v)), "stable order");
            last = Some((*k, *v));
            count += 1;
        }
        assert_eq!(count, 5000);
        assert_eq!(sort_dirs(datadir.path()), 0);
    }

    #[test]
    fn an_abandoned_sort_removes_its_runs() {
        let datadir = tempfile::tempdir().unwrap();
        let budget = tiny_budget(datadir.path());
        let desc = [false];
        let mut s = RowSorter::new(order(&desc), budget, None);
        for i in 0..500i64 {
            s.push((vec![Value::Int(-i)], vec![])).unwrap();
        }
        let mut out = s.finish().unwrap();
        assert!(out.next().is_some());
        assert_eq!(sort_dirs(datadir.path()), 1);
        drop(out);
        assert_eq!(sort_dirs(datadir.path()), 0);
    }

    #[test]
    fn an_unwritable_data_directory_is_error_1026() {
        let datadir = tempfile::tempdir().unwrap();
        let missing = datadir.path().join("file");
        std::fs::write(&missing, b"not a directory").unwrap();
        let budget = SortBudget {
            memory_bytes: 1024,
            datadir: missing,
        };
        let desc = [false];
        let rows = (0..500i64).map(|i| (vec![Value::Int(i)], vec![]));
        let err = sort_rows(rows, order(&desc), budget, None).unwrap_err();
        assert_eq!(
            err.code,
            crate::error::code::ErrorCode::ErrorOnWrite,
            "{err:?}"
        );
    }
}
