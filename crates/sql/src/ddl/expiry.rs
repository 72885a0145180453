//! The retention of a table without partitions, carried out (design.md RET4-RET7): the rows
//! whose leading key column is below `now - retention` are removed by one range-delete message
//! per tree, in one storage transaction, without reading a row (what expired is decided by
//! catalog/retention.rs).
//!
//! Invariants: RET5 (the shared schema lock and the key-range locks, never the exclusive
//! schema lock; the definition is read under that lock, so the ranges are those of the trees
//! the table has until the commit; a table with an online index build in progress is left for
//! the next round);
//! RET6 (roll-ups of the table are not touched); RET7 (with the binary log on, the statement
//! the expiry stands for is its transaction's binlog group, written in the same commit).

use crate::catalog::create_table::quote_ident;
use crate::catalog::retention::{expired, Expired};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::types::temporal::DateTime;
use crate::types::value::Value;
use crate::types::SqlType;

/// What an expiry did.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The expired ranges are deleted; rows older than this value (as text) are gone.
    Expired(String),
    /// An online index build is in progress on the table: nothing was done.
    Busy,
}

/// Deletes what has expired in table `db`.`name` at instant `now`; None when it has no
/// retention of its rows (or is gone).
pub fn expire(cx: &mut Context, db: &str, name: &str, now: DateTime) -> DbResult<Option<Outcome>> {
    cx.begin_write()?;
    // Read under the shared schema lock: no DDL changes the definition until the commit.
    let found = cx.engine.catalog.table(db, name);
    let planned = match &found {
        Some(t) => expired(t, now).map(|x| x.map(|x| (t.clone(), x))),
        None => Ok(None),
    };
    let (t, x) = match planned {
        Ok(Some(p)) => p,
        other => {
            cx.rollback();
            return other.map(|_| None);
        }
    };
    let primary = t.primary_tree();
    if cx
        .engine
        .store
        .online
        .enter(std::iter::once(primary.as_str()))
        .is_some()
    {
        cx.rollback();
        return Ok(Some(Outcome::Busy));
    }
    let r = delete_ranges(cx, &x);
    if let Err(e) = r {
        cx.rollback();
        return Err(e);
    }
    cx.binlog_statement = Some((t.db.clone(), statement(&t, &x)));
    cx.commit()?;
    Ok(Some(Outcome::Expired(cutoff_text(&x.cutoff))))
}

fn delete_ranges(cx: &mut Context, x: &Expired) -> DbResult<()> {
    for (tree, end) in &x.ends {
        cx.ws
            .range_delete_through(&cx.engine.store, tree, &[], end)?;
    }
    Ok(())
}

/// The statement an expiry stands for, as a replica runs it (RET7): a TIMESTAMP cutoff as
/// FROM_UNIXTIME, so the replica's session time zone cannot move it.
pub fn statement(t: &TableDef, x: &Expired) -> String {
    let col = quote_ident(&t.columns[x.column].name);
    let bound = match (&x.cutoff, t.columns[x.column].sql_type) {
        (Value::DateTime(dt), SqlType::Timestamp { .. }) => match dt.unix_micros() {
            Some(us) => format!("FROM_UNIXTIME({})", us / 1_000_000),
            None => format!("'{}'", dt.format(0)),
        },
        (v, _) => format!("'{}'", cutoff_text(v)),
    };
    format!(
        "DELETE FROM {}.{} WHERE {col} < {bound}",
        quote_ident(&t.db),
        quote_ident(&t.name)
    )
}

/// A cutoff's text: `YYYY-MM-DD` for a DATE column's, `YYYY-MM-DD hh:mm:ss` otherwise.
fn cutoff_text(v: &Value) -> String {
    match v {
        Value::Date(d) => DateTime::from_date(*d).format(0)[..10].to_string(),
        Value::DateTime(dt) => dt.format(0),
        _ => String::new(),
    }
}
