//! The `RETENTION = n unit` table option (design.md "Retention"): which tables may carry it
//! ([`check`]) and, for a table that is not partitioned, what has expired at a given moment
//! ([`expired`]): the key range at the start of each of its trees whose rows are older than
//! `now - n units`. Partitioned tables expire whole partitions (partition/retention.rs).
//!
//! Invariants: RET4 (a table without partitions carries a retention only when its primary key
//! and every secondary index start with the same DATE, DATETIME or TIMESTAMP column, so the
//! expired rows are one key range at the start of every tree); an expired range ends at the key
//! of the cutoff itself, so a row exactly at the cutoff is kept; for a DATE column the cutoff is
//! the day holding `now - n units`, so a day is removed only when all of it has expired.

use super::partition::{retention as by_parts, Retention, RetentionUnit};
use super::TableDef;
use crate::codec::key::encode_key_value;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::temporal::DateTime;
use crate::types::value::Value;
use crate::types::SqlType;

/// The error for a RETENTION on a table without partitions that cannot carry it (RET4).
pub fn needs_leading_column() -> DbError {
    DbError::new(
        ErrorCode::IllegalHaCreateOption,
        "RETENTION on a table without partitions needs a PRIMARY KEY whose first column is a \
         DATE, DATETIME or TIMESTAMP column that every other index starts with too",
    )
}

/// The error for a RETENTION on a temporary table.
pub fn not_for_temporary() -> DbError {
    DbError::new(
        ErrorCode::IllegalHaCreateOption,
        "RETENTION is not available for temporary tables",
    )
}

/// The column whose age expires rows of `t` (not partitioned), when RET4 allows one.
pub fn column(t: &TableDef) -> Option<usize> {
    let c = *t.pk.first()?;
    let temporal = matches!(
        t.columns[c].sql_type,
        SqlType::Date | SqlType::DateTime { .. } | SqlType::Timestamp { .. }
    );
    let whole = t.pk_prefix.first().copied().flatten().is_none();
    let indexes_lead = t
        .indexes
        .iter()
        .all(|ix| ix.columns.first() == Some(&c) && ix.prefix.first().copied().flatten().is_none());
    (temporal && whole && indexes_lead).then_some(c)
}

/// Refuses a retention `t` cannot carry: RET2's partitioning rules for a partitioned table,
/// RET4 for another, and a temporary table.
pub fn check(t: &TableDef, r: Retention) -> DbResult<()> {
    if t.temporary.is_some() {
        return Err(not_for_temporary());
    }
    match &t.partitioning {
        Some(p) => by_parts::check(p, t, r),
        None => {
            let c = column(t).ok_or_else(needs_leading_column)?;
            let by_days = t.columns[c].sql_type == SqlType::Date;
            if r.amount == 0 || (by_days && r.unit == RetentionUnit::Hour) {
                return Err(needs_leading_column());
            }
            Ok(())
        }
    }
}

/// What has expired in a table without partitions at one moment.
#[derive(Debug, PartialEq)]
pub struct Expired {
    /// The column whose age expires rows.
    pub column: usize,
    /// Rows whose column is below this value have expired.
    pub cutoff: Value,
    /// For each tree of the table (primary first, then the secondary indexes in order): the
    /// exclusive end of the expired keys, which start at the tree's first key.
    pub ends: Vec<(String, Vec<u8>)>,
}

/// What the retention of `t` (not partitioned) has expired at instant `now` (None: the table
/// has no such retention).
pub fn expired(t: &TableDef, now: DateTime) -> DbResult<Option<Expired>> {
    let (Some(r), None) = (t.retention, &t.partitioning) else {
        return Ok(None);
    };
    let Some(c) = column(t) else {
        return Ok(None);
    };
    let at = by_parts::shift(now, r.unit, -i64::from(r.amount));
    let cutoff = match t.columns[c].sql_type {
        SqlType::Date => Value::Date(at.date),
        _ => Value::DateTime(at),
    };
    let end_of = |ix: Option<usize>| -> DbResult<Vec<u8>> {
        let mut k = Vec::new();
        encode_key_value(&t.key_column(ix, 0), &cutoff, &mut k)?;
        Ok(k)
    };
    let mut ends = vec![(t.primary_tree(), end_of(None)?)];
    for i in 0..t.indexes.len() {
        ends.push((t.index_tree(i), end_of(Some(i))?));
    }
    Ok(Some(Expired {
        column: c,
        cutoff,
        ends,
    }))
}
