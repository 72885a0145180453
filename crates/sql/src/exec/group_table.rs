//! The group table of a GROUP BY (select.rs `grouped_bases`): each group's first row and its
//! accumulators, held in memory within the session's temporary-table budget,
//! min(`tmp_table_size`, `max_heap_table_size`), as MariaDB holds an in-memory temporary table
//! before it converts it to an on-disk one.
//!
//! While the groups held stay under the budget every row goes to its group's accumulators. Once
//! a new group takes the table past the budget the table is full: its groups stay and keep taking
//! their rows, and every row of a group not in the table is pushed, with its number in the input,
//! into an external sort (external_sort.rs, run files in a `#sort-tmp-` directory) keyed by its
//! group key. At the end the sorted rows come out group after group, each group's rows in input
//! order, and each group is aggregated from them as the in-memory path aggregates its rows.
//!
//! Invariants (design.md GSP1-GSP5): a group is aggregated by one set of accumulators from all of
//! its rows in input order, whether it stayed in memory or spilled, so the answer does not depend
//! on the budget; groups come out in the order of their first rows; the groups held stay under
//! the budget plus one group; the temporary directory goes when the table or its sort drops.

use std::collections::HashMap;

use crate::codec::spill_value;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::exec::external_sort::{RowSorter, SortBudget, SortedRows};
use crate::exec::window::Base;
use crate::expr::aggregate::Accumulator;
use crate::expr::correlated::SubqueryRunner;
use crate::expr::eval::EvalCtx;
use crate::expr::AggSpec;
use crate::types::value::Value;

/// Bytes counted for a held group beyond its key, row and accumulators (index entry, vectors).
const GROUP_OVERHEAD_BYTES: usize = 96;

/// How much a group table may hold, and where its rows spill.
#[derive(Clone, Debug)]
pub struct GroupBudget {
    /// min(`tmp_table_size`, `max_heap_table_size`), bytes.
    pub memory_bytes: usize,
    /// The spilled rows' sort: `sort_buffer_size` and the data directory.
    pub sort: SortBudget,
}

impl GroupBudget {
    pub fn of(cx: &Context) -> GroupBudget {
        let var = |name| {
            cx.sysvar_value(name, false)
                .and_then(|v| v.to_f64_lenient())
                .map_or(16 << 20, |b| b.clamp(0.0, usize::MAX as f64) as usize)
        };
        GroupBudget {
            memory_bytes: var("tmp_table_size").min(var("max_heap_table_size")),
            sort: SortBudget::of(cx),
        }
    }
}

/// A group held in memory.
struct Group {
    /// The input number of its first row.
    seq: u64,
    row: Vec<Value>,
    accs: Vec<Accumulator>,
}

/// One GROUP BY's groups; see the module docs.
pub struct GroupTable<'a> {
    aggs: &'a [AggSpec],
    budget: GroupBudget,
    index: HashMap<Vec<u8>, usize>,
    groups: Vec<Group>,
    held_bytes: usize,
    /// The rows of the groups that did not fit, once the table is full.
    spill: Option<RowSorter<'static>>,
    rows_seen: u64,
}

impl<'a> GroupTable<'a> {
    pub fn new(aggs: &'a [AggSpec], budget: GroupBudget) -> GroupTable<'a> {
        GroupTable {
            aggs,
            budget,
            index: HashMap::new(),
            groups: Vec::new(),
            held_bytes: 0,
            spill: None,
            rows_seen: 0,
        }
    }

    /// Whether rows went to disk (the table became an on-disk one: `Created_tmp_disk_tables`).
    pub fn spilled(&self) -> bool {
        self.spill.is_some()
    }

    /// Adds the row of `ecx` to the group of `key` (a `group_key`).
    pub fn add(&mut self, key: &[u8], ecx: &EvalCtx<'_>) -> DbResult<()> {
        let seq = self.rows_seen;
        self.rows_seen += 1;
        if let Some(&i) = self.index.get(key) {
            return add_row(&mut self.groups[i].accs, self.aggs, ecx);
        }
        if self.held_bytes > self.budget.memory_bytes {
            let sort = self.budget.sort.clone();
            let sorter = self
                .spill
                .get_or_insert_with(|| RowSorter::new(Box::new(key_order), sort, None));
            let mut vals = Vec::with_capacity(ecx.row.len() + 1);
            vals.extend_from_slice(ecx.row);
            vals.push(Value::UInt(seq));
            return sorter.push((vec![Value::Bytes(key.to_vec())], vals));
        }
        let mut g = Group {
            seq,
            row: ecx.row.to_vec(),
            accs: self.aggs.iter().map(Accumulator::new).collect(),
        };
        add_row(&mut g.accs, self.aggs, ecx)?;
        self.held_bytes += key.len()
            + spill_value::memory_bytes(&g.row)
            + g.accs.len() * std::mem::size_of::<Accumulator>()
            + GROUP_OVERHEAD_BYTES;
        self.index.insert(key.to_vec(), self.groups.len());
        self.groups.push(g);
        Ok(())
    }

    /// Ends the input: every group (its first row and aggregate values), in the order their
    /// first rows arrived. `subq` runs correlated subqueries of aggregate arguments. Spilled
    /// groups are aggregated here, and sorted by their first rows' numbers (a second external
    /// sort), so nothing beyond the budgets is held while the groups are read.
    pub fn finish(self, subq: Option<&dyn SubqueryRunner>) -> DbResult<Groups<'a>> {
        let aggs = self.aggs;
        let spilled = match self.spill {
            None => None,
            Some(sorter) => {
                drop(self.index);
                let mut by_seq = RowSorter::new(Box::new(seq_order), self.budget.sort, None);
                aggregate_sorted(sorter, aggs, subq, &mut by_seq)?;
                Some(by_seq.finish()?.peekable())
            }
        };
        Ok(Groups {
            aggs,
            held: self.groups.into_iter().peekable(),
            spilled,
        })
    }
}

/// A finished group table's groups, in the order of their first rows.
pub struct Groups<'a> {
    aggs: &'a [AggSpec],
    held: std::iter::Peekable<std::vec::IntoIter<Group>>,
    /// Spilled groups: keys `[first row's number]`, values the row then the aggregate values.
    spilled: Option<std::iter::Peekable<SortedRows<'static>>>,
}

impl Iterator for Groups<'_> {
    type Item = DbResult<Base>;
    fn next(&mut self) -> Option<DbResult<Base>> {
        let held_first = match (
            self.held.peek(),
            self.spilled.as_mut().and_then(|s| s.peek()),
        ) {
            (Some(g), Some(Ok((k, _)))) => matches!(&k[0], Value::UInt(s) if g.seq < *s),
            (Some(_), _) => true,
            (None, _) => false,
        };
        if held_first {
            let g = self.held.next()?;
            return Some(Ok(finish(g.row, g.accs, self.aggs)));
        }
        let (_, mut row) = match self.spilled.as_mut()?.next()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let aggs = row.split_off(row.len() - self.aggs.len());
        Some(Ok(Base { row, aggs }))
    }
}

/// Spilled rows sort by their group key's bytes: equal bytes are one group (`group_key`).
fn key_order(a: &[Value], b: &[Value]) -> std::cmp::Ordering {
    match (&a[0], &b[0]) {
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        _ => unreachable!("spilled rows are keyed by group key bytes"),
    }
}

/// Spilled groups sort by their first rows' numbers.
fn seq_order(a: &[Value], b: &[Value]) -> std::cmp::Ordering {
    match (&a[0], &b[0]) {
        (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
        _ => unreachable!("spilled groups are keyed by their first rows' numbers"),
    }
}

/// Aggregates the spilled rows, which come out group after group, each group's in input order,
/// and pushes each group to `out` keyed by its first row's number.
fn aggregate_sorted(
    sorter: RowSorter<'_>,
    aggs: &[AggSpec],
    subq: Option<&dyn SubqueryRunner>,
    out: &mut RowSorter<'_>,
) -> DbResult<()> {
    let mut cur: Option<(Vec<u8>, Group)> = None;
    let mut emit = |g: Group| {
        let Base {
            mut row,
            aggs: vals,
        } = finish(g.row, g.accs, aggs);
        row.extend(vals);
        out.push((vec![Value::UInt(g.seq)], row))
    };
    for r in sorter.finish()? {
        let (mut keys, mut row) = r?;
        let Some(Value::Bytes(key)) = keys.pop() else {
            unreachable!("spilled rows are keyed by group key bytes")
        };
        let Some(Value::UInt(seq)) = row.pop() else {
            unreachable!("spilled rows end with their input number")
        };
        if cur.as_ref().is_none_or(|(k, _)| *k != key) {
            if let Some((_, g)) = cur.take() {
                emit(g)?;
            }
            let accs = aggs.iter().map(Accumulator::new).collect();
            let row = row.clone();
            cur = Some((key, Group { seq, row, accs }));
        }
        let g = &mut cur.as_mut().expect("a current group").1;
        let ecx = EvalCtx {
            row: &row,
            subq,
            ..EvalCtx::default()
        };
        add_row(&mut g.accs, aggs, &ecx)?;
    }
    if let Some((_, g)) = cur {
        emit(g)?;
    }
    Ok(())
}

fn finish(row: Vec<Value>, accs: Vec<Accumulator>, aggs: &[AggSpec]) -> Base {
    let aggs = accs
        .into_iter()
        .zip(aggs)
        .map(|(a, s)| a.finish(s))
        .collect();
    Base { row, aggs }
}

/// Adds one row to a group's accumulators.
pub fn add_row(accs: &mut [Accumulator], aggs: &[AggSpec], ecx: &EvalCtx) -> DbResult<()> {
    for (acc, spec) in accs.iter_mut().zip(aggs) {
        acc.add(spec, ecx)?;
    }
    Ok(())
}
