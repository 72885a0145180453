//! INSERT and REPLACE however they were parsed ([`run_insert`]): the target columns, the source
//! rows (VALUES expressions, values from the fast parser, or a SELECT), the ON DUPLICATE KEY
//! UPDATE program, then each row completed (complete.rs) and written (insert_row.rs). A VALUES
//! expression may name the table's columns, as in MariaDB: it reads the row being built (a
//! column given earlier in the row, else the column's default or implicit value).
//!
//! Invariants: a single-row INSERT of NULL into a NOT NULL column fails even in non-strict mode
//! (MySQL/MariaDB); the blind upsert path is taken only when no read is needed to decide the
//! row (primary key, no secondary index, no ON UPDATE CURRENT_TIMESTAMP column, no assignment
//! to a key column).

use sqlparser::ast::{self as ast};

use super::complete::{complete_row, Slot};
use super::insert_batch::{batch_kind, insert_batch};
use super::insert_row::{insert_row, RowPolicy};
use super::{is_default_kw, table_scope};
use crate::catalog::TableDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::exec::query::run_query;
use crate::exec::subqueries::Subqueries;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{object_name_parts, Expr, Scope};
use crate::result::Output;
use crate::types::value::Value;
use crate::types::SqlType;

/// Rows between two checks for a KILL of the connection (a check per row would cost the bulk
/// INSERT path more than it gains).
pub(super) const KILL_CHECK_ROWS: usize = 1024;

/// Where an INSERT's rows come from.
pub enum InsertSource<'a> {
    /// VALUES rows (or the SET form as one row) as expressions, compiled per row.
    Exprs(Vec<Vec<&'a ast::Expr>>),
    /// VALUES rows already reduced to values (the fast INSERT parser's output).
    Values(Vec<Vec<Slot>>),
    /// INSERT ... SELECT.
    Query(&'a ast::Query),
}

/// An INSERT or REPLACE statement, from sqlparser's AST or from the fast parser.
pub struct InsertSpec<'a> {
    pub table: Vec<String>,
    pub replace: bool,
    pub ignore: bool,
    /// Target column names (empty: every column in order).
    pub columns: Vec<String>,
    pub source: InsertSource<'a>,
    /// ON DUPLICATE KEY UPDATE assignments.
    pub on_duplicate: &'a [ast::Assignment],
}

/// INSERT / REPLACE from sqlparser's AST.
pub fn insert(cx: &mut Context, ins: &ast::Insert) -> DbResult<Output> {
    let table = match &ins.table {
        ast::TableObject::TableName(n) => object_name_parts(n),
        other => return Err(DbError::unsupported(format!("INSERT INTO {other}"))),
    };
    if ins.partitioned.is_some() {
        return Err(DbError::unsupported("INSERT ... PARTITION (...)"));
    }
    let columns: Vec<String> = if !ins.assignments.is_empty() {
        ins.assignments
            .iter()
            .map(|a| match &a.target {
                ast::AssignmentTarget::ColumnName(n) => {
                    Ok(object_name_parts(n).last().cloned().unwrap_or_default())
                }
                _ => Err(DbError::unsupported("tuple assignment")),
            })
            .collect::<DbResult<_>>()?
    } else {
        ins.columns
            .iter()
            .map(|c| object_name_parts(c).last().cloned().unwrap_or_default())
            .collect()
    };
    let source = if !ins.assignments.is_empty() {
        InsertSource::Exprs(vec![ins.assignments.iter().map(|a| &a.value).collect()])
    } else if let Some(q) = &ins.source {
        match &*q.body {
            ast::SetExpr::Values(v) => {
                InsertSource::Exprs(v.rows.iter().map(|r| r.content.iter().collect()).collect())
            }
            _ => InsertSource::Query(q),
        }
    } else {
        return Err(DbError::syntax("INSERT without values"));
    };
    let on_duplicate: &[ast::Assignment] = match &ins.on {
        Some(ast::OnInsert::DuplicateKeyUpdate(assigns)) => assigns,
        _ => &[],
    };
    run_insert(
        cx,
        InsertSpec {
            table,
            replace: ins.replace_into || matches!(ins.or, Some(ast::SqliteOnConflict::Replace)),
            ignore: ins.ignore,
            columns,
            source,
            on_duplicate,
        },
    )
}

/// Runs an INSERT/REPLACE however it was parsed.
pub fn run_insert(cx: &mut Context, mut spec: InsertSpec<'_>) -> DbResult<Output> {
    let _div_zero = cx.storing_values(spec.ignore);
    let (db, tname) = cx.resolve_table_name(&spec.table)?;
    cx.check_db_access(&db)?;
    let kind = if spec.replace {
        super::view_target::WriteKind::Replace
    } else {
        super::view_target::WriteKind::Insert
    };
    let Some(view) = super::view_target::resolve_target(cx, &db, &tname, kind)? else {
        return insert_into(cx, &db, &tname, spec);
    };
    // Through a view: its columns named as the base table's, its check option on every row.
    if !spec.on_duplicate.is_empty() {
        return Err(DbError::unsupported(
            "ON DUPLICATE KEY UPDATE through a view",
        ));
    }
    let names: Vec<String> = if spec.columns.is_empty() {
        view.cols.iter().map(|(n, _)| n.clone()).collect()
    } else {
        std::mem::take(&mut spec.columns)
    };
    spec.columns = names
        .iter()
        .map(|n| match view.column(n) {
            Some(i) => Ok(view.base.columns[i].name.clone()),
            None => Err(DbError::bad_field(n, "INSERT INTO")),
        })
        .collect::<DbResult<_>>()?;
    cx.view_check = view
        .check
        .clone()
        .map(|e| (e, view.db.clone(), view.name.clone()));
    let r = insert_into(cx, &view.base.db, &view.base.name, spec);
    cx.view_check = None;
    r
}

/// INSERT / REPLACE into table `db`.`tname`.
fn insert_into(cx: &mut Context, db: &str, tname: &str, spec: InsertSpec<'_>) -> DbResult<Output> {
    let (db, tname) = (db.to_string(), tname.to_string());
    // The schema lock before the definition is read: no DDL publishes another one until the
    // transaction ends (design.md SES3, OIX1).
    cx.begin_write()?;
    let t = cx.get_table(&db, &tname)?;
    let replace = spec.replace;
    let ignore = spec.ignore;
    let strict = cx.strict() && !ignore;
    let names = spec.columns;
    let targets = target_columns(&t, &names)?;
    let from_select = matches!(spec.source, InsertSource::Query(_));
    let all_columns = names.is_empty() && targets.len() == t.columns.len();
    let source = source_rows(cx, &t, &targets, all_columns, spec.source)?;
    if !ignore && !from_select && source.len() == 1 {
        check_single_row_nulls(&t, &source[0])?;
    }
    let program = on_duplicate_program(cx, &t, spec.on_duplicate)?;
    let blind = !program.is_empty()
        && !replace
        && !t.pk.is_empty()
        // An index entry (a clustering one's is the whole row: design.md CIX2) needs the row.
        && t.indexes.is_empty()
        && !t.on_update_now.iter().any(|b| *b)
        && program.iter().all(|(c, _)| !t.pk.contains(c))
        && t.checks.is_empty()
        // A foreign key is checked on the written row (design.md FKC6).
        && !super::foreign_keys::involved(cx, &t)
        // Generated columns are computed from the whole row (design.md GEN1).
        && !t.has_generated()
        // A roll-up must see the row's old values (design.md RUP3).
        && crate::exec::rollup::of(cx, &t).is_empty()
        // The message carries its own layout, which reads only rows of its version (INS6).
        && t.layout.is_plain()
        && t.full_columns == t.columns.len()
        // The message is applied in UTC: a TIMESTAMP assigned in another zone is read first.
        && (cx.time_zone.is_utc() || !program.iter().any(|(c, _)| t.columns[*c].sql_type.is_timestamp()));
    let policy = RowPolicy {
        replace,
        ignore,
        strict,
        program: &program,
        blind,
    };
    cx.begin_write()?;
    if let Some(kind) = batch_kind(cx, &t, &policy) {
        return insert_batch(cx, &t, source, strict, kind);
    }
    let mut warnings = Vec::new();
    let mut affected = 0u64;
    let mut first_id = None;
    for (n, slots) in source.into_iter().enumerate() {
        if n % KILL_CHECK_ROWS == KILL_CHECK_ROWS - 1 {
            cx.check_interrupted()?;
        }
        let rownum = n as u64 + 1;
        let row = match complete_row(cx, &t, slots, rownum, strict, &mut first_id, &mut warnings) {
            Ok(r) => r,
            // A failed CHECK is an error under IGNORE too (MariaDB).
            Err(e)
                if ignore
                    && e.code != ErrorCode::NoDefaultForField
                    && e.code != ErrorCode::ConstraintFailed =>
            {
                warnings.push(Warning {
                    level: crate::error::sql_error::WarningLevel::Warning,
                    code: e.code,
                    message: e.message,
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        affected += insert_row(cx, &t, &row, rownum, &policy, &mut warnings)?;
    }
    Ok(finish_insert(cx, affected, first_id, warnings))
}

/// The statement's result after its rows were written: LAST_INSERT_ID, the warnings, and the
/// affected-rows packet's count and info text.
pub(super) fn finish_insert(
    cx: &mut Context,
    affected: u64,
    first_id: Option<u64>,
    warnings: Vec<Warning>,
) -> Output {
    if let Some(id) = first_id {
        cx.last_insert_id = id;
    }
    let nwarn = warnings.len();
    cx.warnings.extend(warnings);
    let info = if affected > 1 || nwarn > 0 {
        format!("Records: {affected}  Duplicates: 0  Warnings: {nwarn}")
    } else {
        String::new()
    };
    Output::Done {
        affected,
        last_insert_id: first_id.unwrap_or(0),
        info,
    }
}

/// The columns the statement names, in its order (none named: every column in order).
fn target_columns(t: &TableDef, names: &[String]) -> DbResult<Vec<usize>> {
    if names.is_empty() {
        return Ok((0..t.columns.len()).collect());
    }
    let mut v = Vec::new();
    for n in names {
        let i = t
            .col_index(n)
            .ok_or_else(|| DbError::bad_field(n, "INSERT INTO"))?;
        if v.contains(&i) {
            return Err(DbError::dup_field(n));
        }
        v.push(i);
    }
    Ok(v)
}

/// The source rows as slot vectors, one slot per table column (columns not named: `Unset`). An
/// empty row (`VALUES ()`) is every column's DEFAULT when `all_columns` are targets.
fn source_rows(
    cx: &mut Context,
    t: &TableDef,
    targets: &[usize],
    all_columns: bool,
    source: InsertSource<'_>,
) -> DbResult<Vec<Vec<Slot>>> {
    let mut rows: Vec<Vec<Slot>> = Vec::new();
    match source {
        InsertSource::Exprs(exprs) => {
            let scope = Scope {
                one_row: true,
                ..table_scope(t, &t.name)
            };
            let initial = initial_record(t);
            for (n, r) in exprs.iter().enumerate() {
                let mut vals = values_row(cx, t, (&scope, &initial), targets, r)?;
                if r.is_empty() && all_columns {
                    vals = (0..targets.len()).map(|_| Slot::Default).collect();
                }
                rows.push(place(t, targets, vals, n as u64 + 1)?);
            }
        }
        InsertSource::Values(values) => {
            for (n, mut vals) in values.into_iter().enumerate() {
                if vals.is_empty() && all_columns {
                    vals = (0..targets.len()).map(|_| Slot::Default).collect();
                }
                rows.push(place(t, targets, vals, n as u64 + 1)?);
            }
        }
        InsertSource::Query(q) => {
            if let Output::Rows { rows: got, .. } = run_query(cx, q)? {
                for (n, r) in got.into_iter().enumerate() {
                    rows.push(place(
                        t,
                        targets,
                        r.into_iter().map(Slot::Val).collect(),
                        n as u64 + 1,
                    )?);
                }
            }
        }
    }
    Ok(rows)
}

/// What a VALUES expression reads of a column not assigned yet: its literal default, else NULL
/// or, for a NOT NULL column, its type's implicit value (MariaDB's record of default values).
fn initial_record(t: &TableDef) -> Vec<Value> {
    t.columns
        .iter()
        .map(|c| match &c.default {
            Some(d) => d.clone(),
            None if c.nullable => Value::Null,
            None => c.implicit_value(),
        })
        .collect()
}

/// One VALUES row's values. As in MariaDB, an expression may name the table's columns
/// (`VALUES (5, a + 1)`, also inside a subquery): a column assigned earlier in the row gives its
/// new value, any other its value in `initial`.
fn values_row(
    cx: &mut Context,
    t: &TableDef,
    (scope, initial): (&Scope, &[Value]),
    targets: &[usize],
    r: &[&ast::Expr],
) -> DbResult<Vec<Slot>> {
    let compiled = r
        .iter()
        .enumerate()
        .map(|(k, e)| {
            if is_default_kw(e) {
                return Ok(None);
            }
            let numeric = targets
                .get(k)
                .is_some_and(|&c| t.columns[c].sql_type.is_numeric());
            match hex_number(cx, e).filter(|_| numeric) {
                Some(n) => Ok(Some(Expr::Lit(n))),
                None => cx.compile(scope, e, "VALUES").map(Some),
            }
        })
        .collect::<DbResult<Vec<_>>>()?;
    let mut record = initial.to_vec();
    let sub = Subqueries::new(cx);
    let mut vals = Vec::with_capacity(r.len());
    for (k, c) in compiled.iter().enumerate() {
        let Some(c) = c else {
            vals.push(Slot::Default);
            continue;
        };
        let ecx = EvalCtx {
            subq: Some(&sub),
            ..EvalCtx::row(&record)
        };
        let v = eval(c, &ecx)?;
        if let Some(slot) = targets.get(k).and_then(|&col| record.get_mut(col)) {
            *slot = v.clone();
        }
        vals.push(Slot::Val(v));
    }
    Ok(vals)
}

/// A hybrid literal (`0x41`, `b'1000001'`: expr/compile/hybrid.rs) of at most 8 bytes as the
/// number MariaDB stores into a numeric column (a longer one is out of range there).
fn hex_number(cx: &Context, e: &ast::Expr) -> Option<Value> {
    crate::expr::hybrid_number(e, &|span| cx.source_text(span))
        .and_then(|(n, len)| (len <= 8).then_some(n))
}

/// Row `rownum`'s values `vals` (one per target) placed at their columns.
fn place(t: &TableDef, targets: &[usize], vals: Vec<Slot>, rownum: u64) -> DbResult<Vec<Slot>> {
    if vals.len() != targets.len() {
        return Err(DbError::value_count(rownum));
    }
    if targets.len() == t.columns.len() && targets.iter().enumerate().all(|(i, &c)| i == c) {
        return Ok(vals);
    }
    let mut slots: Vec<Slot> = (0..t.columns.len()).map(|_| Slot::Unset).collect();
    for (s, &c) in vals.into_iter().zip(targets) {
        slots[c] = s;
    }
    Ok(slots)
}

/// A single-row INSERT of NULL into a NOT NULL column fails even in non-strict mode (as in
/// MySQL/MariaDB); multi-row inserts, INSERT ... SELECT and IGNORE store the implicit default.
/// A TIMESTAMP NOT NULL column takes NULL as the current time (`complete_row`).
fn check_single_row_nulls(t: &TableDef, row: &[Slot]) -> DbResult<()> {
    for (c, s) in t.columns.iter().zip(row) {
        let takes_null =
            c.nullable || c.auto_increment || matches!(c.sql_type, SqlType::Timestamp { .. });
        if matches!(s, Slot::Val(v) if v.is_null()) && !takes_null {
            return Err(crate::error::sql_error::SqlError::NotNull {
                column: c.name.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// The ON DUPLICATE KEY UPDATE assignments, compiled over the table's columns (and VALUES()).
fn on_duplicate_program(
    cx: &mut Context,
    t: &TableDef,
    assignments: &[ast::Assignment],
) -> DbResult<Vec<(usize, Expr)>> {
    let scope = table_scope(t, &t.name);
    let mut program: Vec<(usize, Expr)> = Vec::new();
    for a in assignments {
        let n = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => {
                object_name_parts(n).last().cloned().unwrap_or_default()
            }
            _ => return Err(DbError::unsupported("tuple assignment")),
        };
        let c = t
            .col_index(&n)
            .ok_or_else(|| DbError::bad_field(&n, "UPDATE"))?;
        let e = cx.compile_insert(&scope, &a.value)?;
        program.push((c, e));
    }
    Ok(program)
}
