//! CREATE INDEX and DROP INDEX: ALTER TABLE with one operation (alter.rs).

use crate::context::Context;
use crate::ddl::alter;
use crate::error::db_error::DbResult;
use crate::parser::alter::{AlterOp, IndexSpec};
use crate::result::Output;

/// CREATE [UNIQUE] INDEX name ON table (spec).
pub fn create_index(
    cx: &mut Context,
    name: String,
    table: &[String],
    spec: IndexSpec,
    unique: bool,
) -> DbResult<Output> {
    let (db, t) = cx.resolve_table_name(table)?;
    cx.get_table(&db, &t)?;
    let op = AlterOp::AddIndex {
        name: Some(name),
        spec,
        unique,
        if_not_exists: false,
    };
    alter::execute(cx, &db, &t, vec![op], false)?;
    Ok(Output::done(0))
}

/// DROP INDEX name ON table.
pub fn drop_index(cx: &mut Context, name: String, table: &[String]) -> DbResult<Output> {
    let (db, t) = cx.resolve_table_name(table)?;
    cx.get_table(&db, &t)?;
    let op = AlterOp::DropIndex {
        name,
        if_exists: false,
    };
    alter::execute(cx, &db, &t, vec![op], false)?;
    Ok(Output::done(0))
}
