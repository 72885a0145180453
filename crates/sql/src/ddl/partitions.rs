//! ALTER TABLE's partition operations (design.md "Partitioned tables", PRT3-PRT4): ADD, DROP,
//! TRUNCATE, REORGANIZE and COALESCE PARTITION ([`manage`]; EXCHANGE is exchange.rs), and the
//! switch every layout change ends with ([`publish`]).
//!
//! Invariants: each operation writes the table's catalog entry once; the trees the new entry
//! names exist and are complete before it (new partitions take new ids, PRT3), and the trees
//! only the old entry named are dropped after the log holding the entry is synced. DROP and
//! TRUNCATE PARTITION never read a row: their cost is a catalog write and a few tree drops or
//! creations whatever the partitions hold. REORGANIZE copies only the rows of the partitions it
//! names; ADD and COALESCE on HASH / KEY redistribute every row (a rebuild, rebuild.rs).

use std::sync::Arc;

use crate::catalog::create_table::render_stored;
use crate::catalog::partition::{
    check_layout, new_parts, retention, Method, PartBound, PartDef, PartDefClause, Partitioning,
};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::ddl::rebuild::{copy_rows, Plan};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::alter::AlterOp;

/// Whether `op` is a partition operation that must be alone in its ALTER TABLE.
pub fn is_management(op: &AlterOp) -> bool {
    matches!(
        op,
        AlterOp::AddPartitions { .. }
            | AlterOp::DropPartitions(_)
            | AlterOp::TruncatePartitions(_)
            | AlterOp::ReorganizePartitions { .. }
            | AlterOp::CoalescePartitions(_)
            | AlterOp::ExchangePartition { .. }
    )
}

fn err(code: ErrorCode, msg: impl Into<String>) -> DbError {
    DbError::new(code, msg)
}

/// The partitioning of `t` (1505 when it has none).
pub fn partitioning_of(t: &TableDef) -> DbResult<&Partitioning> {
    t.partitioning.as_deref().ok_or_else(|| {
        err(
            ErrorCode::PartitionMgmtOnNonpartitioned,
            "Partition management on a not partitioned table is not possible",
        )
    })
}

/// Runs one partition operation on `db`.`t` (under the exclusive schema lock).
pub fn manage(cx: &mut Context, db: &str, t: &str, op: AlterOp) -> DbResult<()> {
    cx.check_db_access(db)?;
    cx.begin_ddl()?;
    let old = cx.get_table(db, t)?;
    let p = partitioning_of(&old)?.clone();
    match op {
        AlterOp::AddPartitions { defs, count } => add(cx, &old, &p, defs, count),
        AlterOp::DropPartitions(names) => drop_parts(cx, &old, &p, &names),
        AlterOp::TruncatePartitions(names) => truncate(cx, &old, &p, names),
        AlterOp::ReorganizePartitions { from, into } => reorganize(cx, &old, &p, &from, into),
        AlterOp::CoalescePartitions(n) => coalesce(cx, &old, &p, n),
        AlterOp::ExchangePartition {
            name,
            table,
            validate,
        } => crate::ddl::exchange::exchange(cx, &old, &name, &table, validate),
        _ => Err(DbError::internal("not a partition operation")),
    }
}

/// Writes `new` as the table's definition, then drops the trees only `old` named (PRT4).
pub fn publish(cx: &mut Context, old: &TableDef, new: TableDef) -> DbResult<Arc<TableDef>> {
    let sql = render_stored(&new);
    let new = cx.store_table(new, &sql)?;
    let keep = new.all_trees();
    let gone: Vec<String> = old
        .all_trees()
        .into_iter()
        .filter(|tr| !keep.contains(tr))
        .collect();
    if !gone.is_empty() {
        // The switch is durable before the old trees go.
        cx.engine.store.env().sync()?;
        for tree in gone {
            cx.engine.store.drop_tree(&tree)?;
        }
    }
    Ok(new)
}

/// `old` with partitioning `p`.
fn with_parts(old: &TableDef, p: Partitioning) -> TableDef {
    TableDef {
        partitioning: Some(Arc::new(p)),
        ..old.clone()
    }
}

/// Creates the empty trees of partitions `parts` of `t` and hands them their layouts.
fn create_part_trees(cx: &mut Context, t: &TableDef, parts: &[usize]) -> DbResult<()> {
    let opts = crate::ddl::tables::tree_opts(cx, t);
    let trees: Vec<String> = parts.iter().flat_map(|&p| t.trees_of(Some(p))).collect();
    for tree in &trees {
        // A tree of this name can only be an orphan of a crashed DDL (ids only grow, PRT3).
        cx.engine.store.drop_tree(tree)?;
        cx.engine.store.create_tree(tree, Some(opts))?;
    }
    cx.engine.store.set_column_layouts(
        t.column_layouts()
            .into_iter()
            .filter(|(n, _)| trees.contains(n))
            .collect(),
    )
}

/// The positions of the partitions named (1507 for an unknown or repeated one).
fn positions(p: &Partitioning, names: &[String]) -> DbResult<Vec<usize>> {
    let mut out = Vec::new();
    for n in names {
        match p.position(n) {
            Some(i) if !out.contains(&i) => out.push(i),
            _ => {
                return Err(err(
                    ErrorCode::PartitionDoesNotExist,
                    "Wrong partition name or partition list",
                ))
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

fn range_list_only(p: &Partitioning, what: &str) -> DbResult<()> {
    if matches!(p.method, Method::Range | Method::List) {
        Ok(())
    } else {
        Err(err(
            ErrorCode::OnlyOnRangeListPartition,
            format!("{what} PARTITION can only be used on RANGE/LIST partitions"),
        ))
    }
}

/// ADD PARTITION: new empty partitions at the top of a RANGE / LIST table; on HASH / KEY, more
/// partitions and every row redistributed.
fn add(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    defs: Vec<PartDefClause>,
    count: Option<u64>,
) -> DbResult<()> {
    if count == Some(0) || (count.is_none() && defs.is_empty()) {
        return Err(err(
            ErrorCode::AddPartitionNoNewPartition,
            "At least one partition must be added",
        ));
    }
    if matches!(p.method, Method::Hash | Method::Key) {
        let n = p.parts.len() + count.map_or(defs.len(), |c| c as usize);
        let names: Vec<PartDefClause> = if count.is_some() {
            let mut v: Vec<PartDefClause> = p.parts.iter().map(plain_def).collect();
            let mut k = p.parts.len();
            while v.len() < n {
                let name = format!("p{k}");
                k += 1;
                if p.position(&name).is_none() {
                    v.push(PartDefClause {
                        name,
                        ..Default::default()
                    });
                }
            }
            v
        } else {
            p.parts.iter().map(plain_def).chain(defs).collect()
        };
        return redistribute(cx, old, p, &names, p.auto && count.is_some());
    }
    if count.is_some() {
        return Err(DbError::syntax("PARTITIONS"));
    }
    if p.method == Method::Range && p.parts.last().is_some_and(|d| retention::is_max(&d.bound)) {
        return Err(err(
            ErrorCode::PartitionMaxvalueError,
            "MAXVALUE can only be used in last partition definition",
        ));
    }
    let added = new_parts(p, old, &defs)?;
    append_parts(cx, old, p, added)
}

/// New empty partitions `added` at the top of `old` (their ids are given here).
pub fn append_parts(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    added: Vec<PartDef>,
) -> DbResult<()> {
    let mut np = p.clone();
    let first = np.parts.len();
    for mut d in added {
        d.id = np.next_id;
        np.next_id += 1;
        np.parts.push(d);
    }
    check_layout(&np)?;
    let new = with_parts(old, np);
    let created: Vec<usize> = (first..new.parts().len()).collect();
    create_part_trees(cx, &new, &created)?;
    publish(cx, old, new)?;
    Ok(())
}

/// A HASH / KEY partition's definition as a clause (name, comment, options).
fn plain_def(d: &PartDef) -> PartDefClause {
    PartDefClause {
        name: d.name.clone(),
        values: None,
        comment: d.comment.clone(),
        options: d.options.clone(),
    }
}

/// A HASH / KEY table with partitions `defs`, all new (fresh ids), every row copied.
fn redistribute(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    defs: &[PartDefClause],
    auto: bool,
) -> DbResult<()> {
    let mut np = p.clone();
    np.parts = new_parts(p, old, defs)?;
    np.next_id += np.parts.len() as u64;
    np.auto = auto;
    check_layout(&np)?;
    let new = with_parts(old, np);
    copy_all(cx, old, new)
}

/// Copies every row of `old` into the trees of `new` (same columns), then switches to it.
pub fn copy_all(cx: &mut Context, old: &TableDef, new: TableDef) -> DbResult<()> {
    copy_parts(cx, old, new, None, None)
}

/// Copies the rows of `old`'s partitions `from` (None: all) into `new`'s partitions `into` (None:
/// wherever they route), then switches to `new` (same columns).
fn copy_parts(
    cx: &mut Context,
    old: &TableDef,
    new: TableDef,
    from: Option<&[usize]>,
    into: Option<&[usize]>,
) -> DbResult<()> {
    let origin: Vec<Option<usize>> = (0..old.columns.len()).map(Some).collect();
    copy_rows(
        cx,
        &Plan {
            old,
            new: &new,
            origin: &origin,
            order: &[],
            from_parts: from,
            into_parts: into,
        },
    )?;
    publish(cx, old, new).map(drop)
}

/// DROP PARTITION: the partitions and every row in them go, at the cost of a catalog write and
/// their trees' drops.
fn drop_parts(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    names: &[String],
) -> DbResult<()> {
    range_list_only(p, "DROP")?;
    let gone = positions(p, names)?;
    if gone.len() == p.parts.len() {
        return Err(err(
            ErrorCode::DropLastPartition,
            "Cannot remove all partitions, use DROP TABLE instead",
        ));
    }
    let mut np = p.clone();
    np.parts = p
        .parts
        .iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, d)| d.clone())
        .collect();
    publish(cx, old, with_parts(old, np))?;
    Ok(())
}

/// TRUNCATE PARTITION: the partitions take new ids (new, empty trees); the old trees go.
fn truncate(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    names: Option<Vec<String>>,
) -> DbResult<()> {
    let which = match names {
        None => (0..p.parts.len()).collect(),
        Some(n) => positions(p, &n)?,
    };
    let mut np = p.clone();
    for &i in &which {
        np.parts[i].id = np.next_id;
        np.next_id += 1;
    }
    let new = with_parts(old, np);
    create_part_trees(cx, &new, &which)?;
    publish(cx, old, new)?;
    Ok(())
}

/// REORGANIZE PARTITION from INTO (defs): RANGE / LIST partitions replaced by new ones holding
/// their rows; on HASH / KEY, the partitions renamed or rebuilt (their number cannot change).
fn reorganize(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    from: &[String],
    into: Vec<PartDefClause>,
) -> DbResult<()> {
    if matches!(p.method, Method::Hash | Method::Key) {
        if from.is_empty() {
            if !p.auto {
                return Err(err(
                    ErrorCode::ReorgNoParamError,
                    "REORGANIZE PARTITION without parameters can only be used on auto-partitioned tables using HASH PARTITIONs",
                ));
            }
            let defs: Vec<PartDefClause> = p.parts.iter().map(plain_def).collect();
            return redistribute(cx, old, p, &defs, true);
        }
        let at = positions(p, from)?;
        if at.len() != into.len() {
            return Err(err(
                ErrorCode::ReorgHashOnlyOnSameNo,
                "REORGANIZE PARTITION can only be used to reorganize partitions not to change their numbers",
            ));
        }
        let mut defs: Vec<PartDefClause> = p.parts.iter().map(plain_def).collect();
        for (i, d) in at.iter().zip(into) {
            defs[*i] = d;
        }
        return redistribute(cx, old, p, &defs, false);
    }
    if from.is_empty() {
        return Err(err(
            ErrorCode::ReorgNoParamError,
            "REORGANIZE PARTITION without parameters can only be used on auto-partitioned tables using HASH PARTITIONs",
        ));
    }
    let at = positions(p, from)?;
    if at.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err(err(
            ErrorCode::ConsecutiveReorgPartitions,
            "When reorganizing a set of partitions they must be in consecutive order",
        ));
    }
    let added = new_parts(p, old, &into)?;
    let last = at[at.len() - 1];
    if p.method == Method::Range {
        check_same_range(p, &p.parts[last].bound, &added, last + 1 == p.parts.len())?;
    }
    replace_parts(cx, old, p, &at, added)
}

/// The consecutive partitions `at` of `old` replaced by `added` (ids given here), which receive
/// their rows.
pub fn replace_parts(
    cx: &mut Context,
    old: &TableDef,
    p: &Partitioning,
    at: &[usize],
    added: Vec<PartDef>,
) -> DbResult<()> {
    let (first, last) = (at[0], at[at.len() - 1]);
    let mut np = p.clone();
    let n_new = added.len();
    let added: Vec<PartDef> = added
        .into_iter()
        .map(|mut d| {
            d.id = np.next_id;
            np.next_id += 1;
            d
        })
        .collect();
    np.parts.splice(first..=last, added);
    check_layout(&np)?;
    let new = with_parts(old, np);
    let into_parts: Vec<usize> = (first..first + n_new).collect();
    copy_parts(cx, old, new, Some(at), Some(&into_parts))
}

/// RANGE: the new partitions end where the old ones did, except that the last partition may
/// extend its range (1520).
fn check_same_range(
    p: &Partitioning,
    old_top: &PartBound,
    added: &[PartDef],
    is_last: bool,
) -> DbResult<()> {
    let new_top = &added.last().expect("INTO lists partitions").bound;
    let same = new_top == old_top;
    let extends = is_last
        && match (old_top, new_top) {
            (PartBound::IntLessThan(Some(a)), PartBound::IntLessThan(b)) => {
                b.is_none_or(|b| b > *a)
            }
            (PartBound::ColumnsLessThan(a), PartBound::ColumnsLessThan(b)) => {
                p.cmp_bound_pair(b, a).is_gt()
            }
            _ => false,
        };
    if same || extends {
        Ok(())
    } else {
        Err(err(
            ErrorCode::ReorgOutsideRange,
            "Reorganize of range partitions cannot change total ranges except for last partition where it can extend the range",
        ))
    }
}

/// COALESCE PARTITION n: n fewer HASH / KEY partitions, every row redistributed.
fn coalesce(cx: &mut Context, old: &TableDef, p: &Partitioning, n: u64) -> DbResult<()> {
    if !matches!(p.method, Method::Hash | Method::Key) {
        return Err(err(
            ErrorCode::CoalesceOnlyOnHashPartition,
            "COALESCE PARTITION can only be used on HASH/KEY partitions",
        ));
    }
    if n == 0 {
        return Err(err(
            ErrorCode::CoalescePartitionNoPartition,
            "At least one partition must be coalesced",
        ));
    }
    if n as usize >= p.parts.len() {
        return Err(err(
            ErrorCode::DropLastPartition,
            "Cannot remove all partitions, use DROP TABLE instead",
        ));
    }
    let keep = p.parts.len() - n as usize;
    let defs: Vec<PartDefClause> = p.parts[..keep].iter().map(plain_def).collect();
    redistribute(cx, old, p, &defs, p.auto)
}
