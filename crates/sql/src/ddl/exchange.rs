//! ALTER TABLE t EXCHANGE PARTITION p WITH TABLE nt (design.md PRT5): the rows of partition p
//! and of table nt trade places by swapping the names of their trees in one atomic group
//! (`Store::swap_trees`); no catalog entry changes.
//!
//! Invariants: the two tables have the same columns, keys, key format and full-column count
//! (1736 otherwise), nt is neither partitioned (1732) nor temporary (1733); WITH VALIDATION (the
//! default) every row of nt is checked to belong to p first (1737). Both tables need a primary
//! key: hidden row ids of nt could repeat those of t's other partitions (PRT2), so a table
//! without one is refused (1235). After the swap both tables' AUTO_INCREMENT counters are raised
//! to their new data.

use crate::catalog::TableDef;
use crate::codec::row::decode_row;
use crate::context::Context;
use crate::ddl::partitions::partitioning_of;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

fn err(code: ErrorCode, msg: impl Into<String>) -> DbError {
    DbError::new(code, msg)
}

/// Exchanges partition `name` of `t` with table `other` (under the exclusive schema lock).
pub fn exchange(
    cx: &mut Context,
    t: &TableDef,
    name: &str,
    other: &[String],
    validate: bool,
) -> DbResult<()> {
    let p = partitioning_of(t)?;
    let part = p.position(name).ok_or_else(|| {
        err(
            ErrorCode::UnknownPartition,
            format!("Unknown partition '{name}' in table '{}'", t.name),
        )
    })?;
    let (db2, t2) = cx.resolve_table_name(other)?;
    cx.check_db_access(&db2)?;
    let nt = cx.get_table(&db2, &t2)?;
    if nt.temporary.is_some() {
        return Err(err(
            ErrorCode::PartitionExchangeTempTable,
            format!("Table to exchange with partition is temporary: '{t2}'"),
        ));
    }
    if nt.rollup.is_some() || !cx.engine.catalog.rollups_of(&db2, &t2).is_empty() {
        // Its rows would change without its roll-ups' messages (design.md RUP1).
        return Err(DbError::unsupported(
            "EXCHANGE PARTITION with a roll-up or a table with roll-ups",
        ));
    }
    if nt.partitioning.is_some() {
        return Err(err(
            ErrorCode::PartitionExchangePartTable,
            format!("Table to exchange with partition is partitioned: '{t2}'"),
        ));
    }
    if !same_shape(t, &nt) {
        return Err(err(
            ErrorCode::TablesDifferentMetadata,
            "Tables have different definitions",
        ));
    }
    if t.pk.is_empty() {
        return Err(DbError::unsupported(
            "EXCHANGE PARTITION of a table without a primary key",
        ));
    }
    if validate {
        check_rows(cx, t, part, &nt)?;
    }
    let pairs: Vec<(String, String)> = t
        .trees_of(Some(part))
        .into_iter()
        .zip(nt.trees_of(None))
        .collect();
    cx.engine.store.swap_trees(&pairs)?;
    cx.engine.store.set_column_layouts(t.column_layouts())?;
    cx.engine.store.set_column_layouts(nt.column_layouts())?;
    cx.engine.init_counters(t)?;
    cx.engine.init_counters(&nt)?;
    Ok(())
}

/// Whether the rows and keys of `a` are stored exactly as those of `b`.
fn same_shape(a: &TableDef, b: &TableDef) -> bool {
    let cols = a.columns.len() == b.columns.len()
        && a.columns.iter().zip(&b.columns).all(|(x, y)| {
            x.name.eq_ignore_ascii_case(&y.name)
                && x.sql_type == y.sql_type
                && x.nullable == y.nullable
                && x.collation == y.collation
                && x.members == y.members
                && x.default == y.default
                && x.auto_increment == y.auto_increment
        });
    cols && a.pk == b.pk
        && a.pk_prefix == b.pk_prefix
        && a.indexes.len() == b.indexes.len()
        && a.indexes.iter().zip(&b.indexes).all(|(x, y)| {
            x.name == y.name
                && x.columns == y.columns
                && x.prefix == y.prefix
                && x.unique == y.unique
        })
        && a.key_format == b.key_format
        && a.full_columns == a.columns.len()
        && b.full_columns == b.columns.len()
        && a.layout.is_plain()
        && b.layout.is_plain()
}

/// 1737 unless every row of `nt` belongs to partition `part` of `t`.
fn check_rows(cx: &Context, t: &TableDef, part: usize, nt: &TableDef) -> DbResult<()> {
    let tree = cx.engine.store.tree(&nt.primary_tree())?;
    for item in tree.range(
        std::ops::Bound::Unbounded,
        std::ops::Bound::Unbounded,
        false,
    ) {
        let (_, v) = item?;
        cx.check_interrupted()?;
        let row = decode_row(&nt.layout, &v)?;
        if t.part_of_row(&row).ok().flatten() != Some(part) {
            return Err(err(
                ErrorCode::RowDoesNotMatchPartition,
                "Found a row that does not match the partition",
            ));
        }
    }
    Ok(())
}
