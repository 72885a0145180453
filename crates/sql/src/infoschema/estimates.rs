//! Row counts and index cardinality, as SHOW TABLE STATUS, SHOW INDEX, information_schema (TABLES,
//! PARTITIONS, STATISTICS), EXPLAIN's rows and ALTER TABLE's progress show them: from the storage
//! engine's samples of the trees (`TreeHandle::sample`, design.md STA1-STA5), never a full scan of
//! a large table.
//!
//! Rows: the sum over the table's partitions of their primary trees' samples (exact for small
//! trees, STA2). Cardinality of a key's first j columns: the number of distinct values of that
//! prefix in the key's tree. An exact sample gives one more than the number of neighbouring keys
//! whose prefixes differ; an estimated one scales that share among the neighbours of each sampled
//! basement (weighted by how many basements it stands for) by the tree's rows (STA4). A primary
//! or UNIQUE key's whole prefix has as many values as the table has rows. NULLs count as one value
//! (their key bytes are equal), as InnoDB's default `innodb_stats_method = nulls_equal` does.
//!
//! Tuning (session variables): `betula_stats_sample_basements` (descents per tree, default 64)
//! and `betula_stats_exact_rows` (trees estimated at no more rows are counted exactly, default
//! 20,000).

use betula_storage::{SampleOptions, TreeSample};

use crate::catalog::TableDef;
use crate::codec::key::{KeyColumn, KeyDecoder};
use crate::context::Context;

/// The sample options of this session's variables; `keys`: keep the keys read.
fn sample_options(cx: &Context, keys: bool) -> SampleOptions {
    let d = SampleOptions::default();
    let var = |name: &str, default: u64| {
        cx.vars
            .get(name)
            .and_then(|v| v.to_f64_lenient())
            .map_or(default, |v| v.max(0.0) as u64)
    };
    SampleOptions {
        descents: var("betula_stats_sample_basements", d.descents.into()).clamp(1, 65_536) as u32,
        exact_up_to_rows: var("betula_stats_exact_rows", d.exact_up_to_rows),
        keys,
        run_keys: d.run_keys,
    }
}

/// The sample of tree `name` (None: the tree is missing or unreadable; statistics show 0 then).
fn sample(cx: &Context, name: &str, keys: bool) -> Option<TreeSample> {
    let tree = cx.engine.store.tree(name).ok()?;
    tree.sample(&sample_options(cx, keys)).ok()
}

/// The committed rows of partition `part`'s primary tree (estimated past a small size).
pub fn part_rows(cx: &Context, t: &TableDef, part: Option<usize>) -> u64 {
    sample(cx, &t.primary_tree_of(part), false).map_or(0, |s| s.rows)
}

/// The committed rows of `t` (every partition's), estimated past a small size.
pub fn row_count(cx: &Context, t: &TableDef) -> u64 {
    t.parts().into_iter().map(|p| part_rows(cx, t, p)).sum()
}

/// The cardinality of each prefix of key `ix` (`None`: the primary key) of `t`: one number per
/// key column, as SHOW INDEX lists them; `rows` is the table's row count.
pub fn key_cardinality(cx: &Context, t: &TableDef, ix: Option<usize>, rows: u64) -> Vec<u64> {
    let (columns, unique, cols): (usize, bool, Vec<KeyColumn>) = match ix {
        None => (t.pk.len(), true, t.pk_key_columns()),
        Some(i) => (
            t.indexes[i].columns.len(),
            t.indexes[i].unique,
            t.index_key_columns(i),
        ),
    };
    // Prefixes to sample: all but a unique key's whole key, which has `rows` values.
    let sampled = columns.saturating_sub(usize::from(unique));
    let mut distinct = vec![0u64; sampled];
    if sampled > 0 {
        for part in t.parts() {
            let tree = match ix {
                None => t.primary_tree_of(part),
                Some(i) => t.index_tree_of(part, i),
            };
            if let Some(s) = sample(cx, &tree, true) {
                let found = prefix_distinct(&s, &cols[..sampled]);
                distinct.iter_mut().zip(found).for_each(|(d, f)| *d += f);
            }
        }
    }
    if unique {
        distinct.push(rows);
    }
    // A longer prefix has at least as many values as a shorter one, and no more than the rows.
    let mut floor = 0;
    for d in &mut distinct {
        *d = (*d).max(floor).min(rows.max(floor));
        floor = *d;
    }
    distinct
}

/// Where each of the first `cols.len()` columns of `key` ends (None: the key does not decode).
fn prefix_ends(cols: &[KeyColumn], key: &[u8]) -> Option<Vec<usize>> {
    let mut d = KeyDecoder::new(key);
    cols.iter()
        .map(|c| d.next(c).ok().map(|_| d.position()))
        .collect()
}

/// The estimated number of distinct values of each prefix of `cols` among the keys of the tree
/// `s` sampled (module docs).
fn prefix_distinct(s: &TreeSample, cols: &[KeyColumn]) -> Vec<u64> {
    let n = cols.len();
    // Per prefix: weighted neighbour pairs whose prefixes differ, and weighted pairs.
    let (mut changes, mut pairs) = (vec![0f64; n], 0f64);
    for run in &s.runs {
        let mut prev: Option<(&[u8], Vec<usize>)> = None;
        for key in &run.keys {
            let Some(ends) = prefix_ends(cols, key) else {
                prev = None;
                continue;
            };
            if let Some((pk, pe)) = &prev {
                pairs += run.weight;
                for j in 0..n {
                    if pk[..pe[j]] != key[..ends[j]] {
                        changes[j] += run.weight;
                    }
                }
            }
            prev = Some((key, ends));
        }
    }
    changes
        .iter()
        .map(|&c| match (s.rows, s.exact) {
            (0, _) => 0,
            (_, true) => 1 + c as u64,
            (rows, false) if pairs > 0.0 => ((rows as f64 * c / pairs).round() as u64).max(1),
            (rows, false) => rows,
        })
        .collect()
}
