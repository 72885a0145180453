//! ANALYZE, OPTIMIZE and CHECK TABLE: one result row per table, as MySQL gives them.
//!
//! Invariants: a missing table is a row of the result (Error, then `Operation failed`), not an
//! error of the statement; OPTIMIZE rebuilds the table (ALTER TABLE ... FORCE: every pending
//! message applied, the rows packed into new trees, the old ones dropped); ANALYZE counts the
//! table's rows (the one statistic kept, for SHOW TABLE STATUS of big tables); CHECK reads every
//! tree of the table (check.rs) and answers `Corrupt` with an `error` row per problem, or `OK`.

use crate::context::Context;
use crate::ddl::{alter, check};
use crate::error::db_error::DbResult;
use crate::parser::alter::AlterOp;
use crate::parser::statement::MaintenanceOp;
use crate::result::Output;
use crate::types::value::Value;

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// ANALYZE / OPTIMIZE / CHECK TABLE t, ...
pub fn run(cx: &mut Context, op: MaintenanceOp, tables: &[Vec<String>]) -> DbResult<Output> {
    let mut rows = Vec::new();
    for parts in tables {
        let (db, t) = cx.resolve_table_name(parts)?;
        let name = Value::Text(format!("{db}.{t}"));
        let op_name = text(op.name());
        let found = cx.get_table(&db, &t);
        if let (Ok(def), MaintenanceOp::Check) = (&found, op) {
            let problems = check::problems(cx, def);
            let clean = problems.as_ref().is_ok_and(|p| p.is_empty());
            let problems = problems.unwrap_or_else(|e| vec![e.message]);
            for p in problems {
                rows.push(vec![
                    name.clone(),
                    op_name.clone(),
                    text("error"),
                    Value::Text(p),
                ]);
            }
            let status = if clean { "OK" } else { "Corrupt" };
            rows.push(vec![name, op_name, text("status"), text(status)]);
            continue;
        }
        let done = match found.map(|_| ()) {
            Ok(()) if op == MaintenanceOp::Optimize => {
                rows.push(vec![
                    name.clone(),
                    op_name.clone(),
                    text("note"),
                    text("Table does not support optimize, doing recreate + analyze instead"),
                ]);
                alter::execute(cx, &db, &t, vec![AlterOp::Force], false)
            }
            // Nothing to gather: row counts and cardinality are sampled from the trees whenever
            // they are asked for (infoschema/estimates.rs, design.md STA1-STA5).
            Ok(()) if op == MaintenanceOp::Analyze => Ok(()),
            r => r,
        };
        match done {
            Ok(_) => rows.push(vec![name, op_name, text("status"), text("OK")]),
            Err(e) => {
                let msg = Value::Text(e.message.clone());
                rows.push(vec![name.clone(), op_name.clone(), text("Error"), msg]);
                rows.push(vec![
                    name,
                    op_name,
                    text("status"),
                    text("Operation failed"),
                ]);
            }
        }
    }
    Ok(Output::text(&["Table", "Op", "Msg_type", "Msg_text"], rows))
}
