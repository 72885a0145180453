//! INSERT (with IGNORE, REPLACE, ON DUPLICATE KEY UPDATE), UPDATE and DELETE.
//!
//! Every change goes through the session's write set (store.rs), which locks each row it
//! changes; rows are locked before they are read to decide a change (duplicate checks, UPDATE,
//! DELETE, REPLACE, ON DUPLICATE KEY UPDATE's read path), so concurrent writers serialize per
//! row, not per table.
//! Per row: coercion to the column types (strict unless IGNORE or non-strict sql_mode), the
//! AUTO_INCREMENT value, a point read of the primary key to detect duplicates (a known cost: a
//! Bε-tree insert would not need to read; TokuDB had the same check), a prefix scan of each
//! UNIQUE index, then blind puts/deletes of the row and of secondary index entries
//! (index key = index columns ++ primary key, empty value).
//!
//! ON DUPLICATE KEY UPDATE is sent as one blind upsert message (no read at all) when the table
//! has a primary key and no secondary index, no ON UPDATE CURRENT_TIMESTAMP column, and every
//! assignment targets a non-key column with an expression of the upsert subset (upsert.rs);
//! otherwise it reads, then updates like UPDATE. The blind path reports 1 affected row per row.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlparser::ast::{self as ast};

use crate::catalog::TableDef;
use crate::codec::key::prefix_successor;
use crate::codec::row::encode_row;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::exec::scan::{read_rows, Output};
use crate::exec::select::{cmp_values, run_query};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::{object_name_parts, Expr, Scope, ScopeCol};
pub use crate::parser::fast_insert::Slot;
use crate::plan::access::{choose_access, conjuncts};
use crate::store::upsert;
use crate::types::coerce::{coerce_to_column, coerce_to_table_column};
use crate::types::value::Value;
use crate::types::SqlType;

type KeyedRow = (Vec<u8>, Vec<Value>);

pub fn table_scope(t: &TableDef, alias: &str) -> Scope {
    Scope {
        cols: t
            .columns
            .iter()
            .map(|c| ScopeCol {
                table: alias.to_string(),
                db: t.db.clone(),
                org_table: t.name.clone(),
                name: c.name.clone(),
                ty: Some(c.sql_type),
                collation: c.collation,
                flags: c.protocol_flags(),
                length: c.display_length(),
                members: c.members.clone(),
            })
            .collect(),
    }
}

pub(crate) fn encode(t: &TableDef, row: &[Value]) -> DbResult<Vec<u8>> {
    let mut out = Vec::new();
    encode_row(&t.layout, row, &mut out)?;
    Ok(out)
}

/// A conflicting existing row: its primary key bytes and the key name.
pub(crate) struct Conflict {
    pub pk: Vec<u8>,
    pub key: String,
    pub cols: Vec<usize>,
}

pub(crate) fn find_conflict(
    cx: &mut Context,
    t: &TableDef,
    row: &[Value],
    pk: &[u8],
    check_pk: bool,
) -> DbResult<Option<Conflict>> {
    let engine = cx.engine.clone();
    let store = &engine.store;
    // Lock, then read: a concurrent insert of the same key waits for this one to end.
    if check_pk && !t.pk.is_empty() {
        cx.ws.lock(store, &t.primary_tree(), pk)?;
    }
    if check_pk && !t.pk.is_empty() && cx.ws.get(store, &t.primary_tree(), pk, None)?.is_some() {
        return Ok(Some(Conflict {
            pk: pk.to_vec(),
            key: "PRIMARY".into(),
            cols: t.pk.clone(),
        }));
    }
    for (i, ix) in t.indexes.iter().enumerate() {
        if !ix.unique || ix.columns.iter().any(|&c| row[c].is_null()) {
            continue;
        }
        let prefix = t.encode_index_prefix(i, row)?;
        // The unique value itself is locked (as a key of the index tree), so two sessions
        // inserting it with different primary keys are serialized.
        cx.ws.lock(store, &t.index_tree(i), &prefix)?;
        let hi = match prefix_successor(&prefix) {
            Some(s) => std::ops::Bound::Excluded(s),
            None => std::ops::Bound::Unbounded,
        };
        let mut scan = cx.ws.scan(
            store,
            &t.index_tree(i),
            std::ops::Bound::Included(prefix.clone()),
            hi,
            false,
            None,
        )?;
        while let Some((k, _)) = scan.next_entry()? {
            let other = &k[prefix.len()..];
            if other != pk {
                return Ok(Some(Conflict {
                    pk: other.to_vec(),
                    key: ix.name.clone(),
                    cols: ix.columns.clone(),
                }));
            }
        }
    }
    Ok(None)
}

/// Locks the row at `pk`, then reads its latest committed version (with this session's changes).
pub(crate) fn load(cx: &mut Context, t: &TableDef, pk: &[u8]) -> DbResult<Option<Vec<Value>>> {
    cx.ws.lock(&cx.engine.store, &t.primary_tree(), pk)?;
    match cx.ws.get(&cx.engine.store, &t.primary_tree(), pk, None)? {
        Some(v) => Ok(Some(crate::codec::row::decode_row(&t.layout, &v)?)),
        None => Ok(None),
    }
}

pub(crate) fn put_row(cx: &mut Context, t: &TableDef, pk: &[u8], row: &[Value]) -> DbResult<()> {
    let bytes = encode(t, row)?;
    let store = &cx.engine.store;
    cx.ws.put(store, &t.primary_tree(), pk.to_vec(), bytes)?;
    for i in 0..t.indexes.len() {
        let k = t.encode_index_key(i, row, pk)?;
        let v = crate::catalog::index_entry::entry_value(t, i, row)?;
        cx.ws.put(store, &t.index_tree(i), k, v)?;
    }
    Ok(())
}

pub fn delete_row(cx: &mut Context, t: &TableDef, pk: &[u8], row: &[Value]) -> DbResult<()> {
    let store = &cx.engine.store;
    cx.ws.delete(store, &t.primary_tree(), pk.to_vec())?;
    for i in 0..t.indexes.len() {
        let k = t.encode_index_key(i, row, pk)?;
        cx.ws.delete(store, &t.index_tree(i), k)?;
    }
    Ok(())
}

/// Replaces `old` (at `old_pk`) by `new`; returns whether anything changed.
pub(crate) fn update_row(
    cx: &mut Context,
    t: &TableDef,
    old_pk: &[u8],
    old: &[Value],
    new: &[Value],
) -> DbResult<bool> {
    if old == new {
        return Ok(false);
    }
    let new_pk = if t.pk.is_empty() || t.pk.iter().all(|&c| old[c] == new[c]) {
        old_pk.to_vec()
    } else {
        t.encode_pk(new)?
    };
    let pk_changed = new_pk != old_pk;
    if let Some(c) = find_conflict(cx, t, new, &new_pk, pk_changed)? {
        return Err(DbError::duplicate(&t.dup_entry(&c.cols, new), &c.key));
    }
    let store = &cx.engine.store;
    if pk_changed {
        cx.ws.delete(store, &t.primary_tree(), old_pk.to_vec())?;
    }
    cx.ws
        .put(store, &t.primary_tree(), new_pk.clone(), encode(t, new)?)?;
    for i in 0..t.indexes.len() {
        let ok = t.encode_index_key(i, old, old_pk)?;
        let nk = t.encode_index_key(i, new, &new_pk)?;
        let nv = crate::catalog::index_entry::entry_value(t, i, new)?;
        if ok != nk {
            cx.ws.delete(store, &t.index_tree(i), ok)?;
            cx.ws.put(store, &t.index_tree(i), nk, nv)?;
        } else if crate::catalog::index_entry::entry_value(t, i, old)? != nv {
            // Same key, other text carried ('a' -> 'A' under a case-insensitive collation).
            cx.ws.put(store, &t.index_tree(i), nk, nv)?;
        }
    }
    Ok(true)
}

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

fn is_default_kw(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

/// Builds, defaults and coerces one row.
pub(crate) fn complete_row(
    cx: &mut Context,
    t: &TableDef,
    slots: Vec<Slot>,
    rownum: u64,
    strict: bool,
    first_id: &mut Option<u64>,
    warnings: &mut Vec<Warning>,
) -> DbResult<Vec<Value>> {
    let mode = crate::types::coerce::SqlMode { strict };
    let mut row = Vec::with_capacity(t.columns.len());
    let zero_is_value = cx.sql_mode_has("NO_AUTO_VALUE_ON_ZERO");
    for (i, (c, s)) in t.columns.iter().zip(slots).enumerate() {
        let v = match s {
            // MariaDB: NULL into a TIMESTAMP NOT NULL column stores the current time
            Slot::Val(Value::Null)
                if !c.nullable && matches!(c.sql_type, SqlType::Timestamp { .. }) =>
            {
                coerce_to_column(&Value::DateTime(cx.now), c, rownum, mode, warnings)?
            }
            Slot::Val(v)
                if !(c.auto_increment && (v.is_null() || (is_zero(&v) && !zero_is_value))) =>
            {
                let v = coerce_to_table_column(&v, c, (&t.db, &t.name), rownum, mode, warnings)?;
                if c.auto_increment {
                    let n = match &v {
                        Value::Int(i) if *i > 0 => *i as u64,
                        Value::UInt(u) => *u,
                        _ => 0,
                    };
                    if n > 0 {
                        let (inc, off) = auto_inc_vars(cx);
                        let next = auto_inc_after(n, inc, off);
                        t.counters.auto_inc.fetch_max(next, Ordering::SeqCst);
                    }
                }
                v
            }
            _ if c.auto_increment => {
                let (inc, off) = auto_inc_vars(cx);
                let id = next_auto_id(&t.counters.auto_inc, inc, off);
                // A generated value the column cannot hold is an error in every SQL mode
                // (MariaDB's HA_ERR_AUTOINC_ERANGE).
                let strict = crate::types::coerce::SqlMode { strict: true };
                let v = coerce_to_column(&Value::UInt(id), c, rownum, strict, warnings)?;
                if first_id.is_none() {
                    *first_id = Some(id);
                }
                v
            }
            _ if t.default_now[i] => {
                coerce_to_column(&Value::DateTime(cx.now), c, rownum, mode, warnings)?
            }
            _ => match &c.default {
                Some(d) => d.clone(),
                None if c.nullable => Value::Null,
                None => {
                    if strict {
                        return Err(DbError::no_default(&c.name));
                    }
                    warnings.push(Warning {
                        level: crate::error::sql_error::WarningLevel::Warning,
                        code: 1364,
                        message: format!("Field '{}' doesn't have a default value", c.name),
                    });
                    c.implicit_value()
                }
            },
        };
        row.push(v);
    }
    Ok(row)
}

/// auto_increment_increment (1..=65535) and auto_increment_offset, with an offset above the
/// increment counted as 0 (MySQL documents such an offset as ignored; InnoDB computes with 0).
fn auto_inc_vars(cx: &Context) -> (u64, u64) {
    let inc = cx.int_var("auto_increment_increment").clamp(1, 65_535);
    let off = cx.int_var("auto_increment_offset");
    (inc, if off > inc { 0 } else { off })
}

/// The next AUTO_INCREMENT value: the smallest `offset + k * increment` (k >= 0, at least 1) at
/// or above the counter. The counter moves to [`auto_inc_after`] it.
fn next_auto_id(counter: &AtomicU64, inc: u64, off: u64) -> u64 {
    let mut cur = counter.load(Ordering::SeqCst);
    loop {
        let from = cur.max(1);
        let id = if from <= off {
            off.max(1)
        } else {
            off.saturating_add((from - off).div_ceil(inc).saturating_mul(inc))
        };
        match counter.compare_exchange(
            cur,
            auto_inc_after(id, inc, off),
            Ordering::SeqCst,
            Ordering::SeqCst,
        ) {
            Ok(_) => return id,
            Err(now) => cur = now,
        }
    }
}

/// The counter after value `v` was stored, as InnoDB keeps it (`innobase_next_autoinc`): `v`
/// rounded down to the series `offset + k * increment`, plus one increment. So after 200, 500,
/// 800 with increment 300 and offset 200 the next value is 1100, also if the increment changes
/// before the next insert (1100 with increment 50).
pub fn auto_inc_after(v: u64, inc: u64, off: u64) -> u64 {
    let d = v.abs_diff(off);
    (d - d % inc).saturating_add(off).saturating_add(inc)
}

fn is_zero(v: &Value) -> bool {
    matches!(v, Value::Int(0) | Value::UInt(0))
}

pub fn insert(cx: &mut Context, ins: &ast::Insert) -> DbResult<Output> {
    let table = match &ins.table {
        ast::TableObject::TableName(n) => object_name_parts(n),
        other => return Err(DbError::unsupported(format!("INSERT INTO {other}"))),
    };
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
pub fn run_insert(cx: &mut Context, spec: InsertSpec<'_>) -> DbResult<Output> {
    let (db, tname) = cx.resolve_table_name(&spec.table)?;
    cx.check_db_access(&db)?;
    let t = cx.get_table(&db, &tname)?;
    let replace = spec.replace;
    let ignore = spec.ignore;
    let strict = cx.strict() && !ignore;
    let names = spec.columns;
    let targets: Vec<usize> = if names.is_empty() {
        (0..t.columns.len()).collect()
    } else {
        let mut v = Vec::new();
        for n in &names {
            let i = t
                .col_index(n)
                .ok_or_else(|| DbError::bad_field(n, "field list"))?;
            if v.contains(&i) {
                return Err(DbError::dup_field(n));
            }
            v.push(i);
        }
        v
    };
    // Source rows as slot vectors.
    let empty = Scope::default();
    let mut source: Vec<Vec<Slot>> = Vec::new();
    let mut push_row = |vals: Vec<Slot>, rownum: u64| -> DbResult<()> {
        if vals.len() != targets.len() {
            return Err(DbError::value_count(rownum));
        }
        let mut slots: Vec<Slot> = (0..t.columns.len()).map(|_| Slot::Unset).collect();
        for (s, &c) in vals.into_iter().zip(&targets) {
            slots[c] = s;
        }
        source.push(slots);
        Ok(())
    };
    let from_select = matches!(spec.source, InsertSource::Query(_));
    match spec.source {
        InsertSource::Exprs(rows) => {
            for (n, r) in rows.iter().enumerate() {
                let mut vals = Vec::with_capacity(r.len());
                for e in r {
                    vals.push(if is_default_kw(e) {
                        Slot::Default
                    } else {
                        let c = cx.compile(&empty, e, "field list")?;
                        Slot::Val(eval(&c, &EvalCtx::default())?)
                    });
                }
                if r.is_empty() && targets.len() == t.columns.len() && names.is_empty() {
                    vals = (0..targets.len()).map(|_| Slot::Default).collect();
                }
                push_row(vals, n as u64 + 1)?;
            }
        }
        InsertSource::Values(rows) => {
            for (n, mut vals) in rows.into_iter().enumerate() {
                if vals.is_empty() && targets.len() == t.columns.len() && names.is_empty() {
                    vals = (0..targets.len()).map(|_| Slot::Default).collect();
                }
                push_row(vals, n as u64 + 1)?;
            }
        }
        InsertSource::Query(q) => {
            if let Output::Rows { rows, .. } = run_query(cx, q)? {
                for (n, r) in rows.into_iter().enumerate() {
                    push_row(r.into_iter().map(Slot::Val).collect(), n as u64 + 1)?;
                }
            }
        }
    }
    // A single-row INSERT of NULL into a NOT NULL column fails even in non-strict mode (as in
    // MySQL/MariaDB); multi-row inserts, INSERT ... SELECT and IGNORE store the implicit default.
    // A TIMESTAMP NOT NULL column takes NULL as the current time (`complete_row`).
    if !ignore && !from_select && source.len() == 1 {
        for (c, s) in t.columns.iter().zip(&source[0]) {
            let takes_null =
                c.nullable || c.auto_increment || matches!(c.sql_type, SqlType::Timestamp { .. });
            if matches!(s, Slot::Val(v) if v.is_null()) && !takes_null {
                return Err(crate::error::sql_error::SqlError::NotNull {
                    column: c.name.clone(),
                }
                .into());
            }
        }
    }
    // ON DUPLICATE KEY UPDATE program.
    let scope = table_scope(&t, &t.name);
    let mut program: Vec<(usize, Expr)> = Vec::new();
    {
        for a in spec.on_duplicate {
            let n = match &a.target {
                ast::AssignmentTarget::ColumnName(n) => {
                    object_name_parts(n).last().cloned().unwrap_or_default()
                }
                _ => return Err(DbError::unsupported("tuple assignment")),
            };
            let c = t
                .col_index(&n)
                .ok_or_else(|| DbError::bad_field(&n, "field list"))?;
            let e = cx.compile_insert(&scope, &a.value)?;
            program.push((c, e));
        }
    }
    let blind = !program.is_empty()
        && !replace
        && !t.pk.is_empty()
        && t.indexes.is_empty()
        && !t.on_update_now.iter().any(|b| *b)
        && program.iter().all(|(c, _)| !t.pk.contains(c));
    cx.begin_write()?;
    let mut warnings = Vec::new();
    let mut affected = 0u64;
    let mut first_id = None;
    for (n, slots) in source.into_iter().enumerate() {
        let rownum = n as u64 + 1;
        let row = match complete_row(cx, &t, slots, rownum, strict, &mut first_id, &mut warnings) {
            Ok(r) => r,
            Err(e) if ignore && e.code != 1364 => {
                warnings.push(Warning {
                    level: crate::error::sql_error::WarningLevel::Warning,
                    code: e.code,
                    message: e.message,
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        let pk = t.encode_pk(&row)?;
        if blind {
            let bytes = encode(&t, &row)?;
            if let Some(arg) = upsert::encode_arg(&t.layout, &bytes, &program) {
                cx.ws.upsert(&cx.engine.store, &t.primary_tree(), pk, arg)?;
                affected += 1;
                continue;
            }
        }
        let mut skip = false;
        while let Some(c) = find_conflict(cx, &t, &row, &pk, true)? {
            if replace {
                match load(cx, &t, &c.pk)? {
                    Some(old) => {
                        delete_row(cx, &t, &c.pk, &old)?;
                        affected += 1;
                        continue;
                    }
                    None => break,
                }
            }
            skip = true;
            if !program.is_empty() {
                let Some(old) = load(cx, &t, &c.pk)? else {
                    break;
                };
                let mut new = old.clone();
                for (col, e) in &program {
                    let v = eval(
                        e,
                        &EvalCtx {
                            row: &new,
                            aggs: &[],
                            insert: &row,
                        },
                    )?;
                    let mode = crate::types::coerce::SqlMode { strict };
                    let c = &t.columns[*col];
                    new[*col] = coerce_to_table_column(
                        &v,
                        c,
                        (&t.db, &t.name),
                        rownum,
                        mode,
                        &mut warnings,
                    )?;
                }
                if new != old {
                    for (i, on) in t.on_update_now.iter().enumerate() {
                        if *on && !program.iter().any(|(c, _)| *c == i) {
                            new[i] = Value::DateTime(cx.now);
                        }
                    }
                }
                if update_row(cx, &t, &c.pk, &old, &new)? {
                    affected += 2;
                }
                break;
            }
            let e = DbError::duplicate(&t.dup_entry(&c.cols, &row), &c.key);
            if ignore {
                warnings.push(Warning {
                    level: crate::error::sql_error::WarningLevel::Warning,
                    code: 1062,
                    message: e.message,
                });
                break;
            }
            return Err(e);
        }
        if !skip {
            put_row(cx, &t, &pk, &row)?;
            affected += 1;
        }
    }
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
    Ok(Output::Done {
        affected,
        last_insert_id: first_id.unwrap_or(0),
        info,
    })
}

fn single_table(
    cx: &mut Context,
    twj: &ast::TableWithJoins,
) -> DbResult<(std::sync::Arc<TableDef>, String)> {
    if !twj.joins.is_empty() {
        return Err(DbError::unsupported("multi-table UPDATE/DELETE"));
    }
    match &twj.relation {
        ast::TableFactor::Table { name, alias, .. } => {
            let parts = object_name_parts(name);
            let (db, tname) = cx.resolve_table_name(&parts)?;
            cx.check_db_access(&db)?;
            let t = cx.get_table(&db, &tname)?;
            let alias = alias
                .as_ref()
                .map(|a| a.name.value.clone())
                .unwrap_or(tname);
            Ok((t, alias))
        }
        other => Err(DbError::unsupported(format!("UPDATE/DELETE of {other}"))),
    }
}

/// The rows matching WHERE, ordered and limited: (pk bytes, row).
fn matching_rows(
    cx: &mut Context,
    t: &TableDef,
    scope: &Scope,
    selection: Option<&ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
) -> DbResult<Vec<(Vec<u8>, Vec<Value>)>> {
    let where_c = match selection {
        Some(w) => Some(cx.compile(scope, w, "where clause")?),
        None => None,
    };
    let mut order = Vec::new();
    for o in order_by {
        order.push((
            cx.compile(scope, &o.expr, "order clause")?,
            matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
        ));
    }
    let limit = match limit {
        Some(l) => {
            let e = cx.compile(&Scope::default(), l, "limit")?;
            match eval(&e, &EvalCtx::default())? {
                Value::Int(i) if i >= 0 => Some(i as usize),
                Value::UInt(u) => Some(u as usize),
                _ => return Err(DbError::syntax(l)),
            }
        }
        None => None,
    };
    let mut conj = Vec::new();
    if let Some(w) = &where_c {
        conjuncts(w, &mut conj);
    }
    let access = choose_access(t, 0, &conj, &|e| e.is_const());
    // Inside a transaction, a primary-key range is locked before it is read, gaps included: no
    // other session can insert into it until this transaction ends (design.md S5).
    // (A point key is locked as its row is; ranges of a secondary index or full scans are not.)
    if cx.in_explicit_or_implicit_txn()
        && access.index.is_none()
        && !access.is_full_scan()
        && !access.is_point(t)
    {
        let ranges = access.key_ranges(t, &[])?;
        crate::plan::locks::lock_primary_ranges(cx, t, &ranges)?;
    }
    let needed = vec![true; t.columns.len()];
    let mut out = Vec::new();
    let stop = if order.is_empty() { limit } else { None };
    let sref: &Context = cx;
    read_rows(
        sref,
        t,
        &access,
        &[],
        &needed,
        false,
        None,
        &mut |pk, row| {
            let ok = match &where_c {
                Some(w) => truth(&eval(w, &EvalCtx::row(&row))?) == Some(true),
                None => true,
            };
            if ok {
                out.push((pk, row));
            }
            Ok(stop.is_none_or(|s| out.len() < s))
        },
    )?;
    if !order.is_empty() {
        let mut keyed: Vec<(Vec<Value>, KeyedRow)> = out
            .into_iter()
            .map(|r| {
                let k = order
                    .iter()
                    .map(|(e, _)| eval(e, &EvalCtx::row(&r.1)).unwrap_or(Value::Null))
                    .collect();
                (k, r)
            })
            .collect();
        keyed.sort_by(|a, b| {
            for (i, (_, d)) in order.iter().enumerate() {
                let o = cmp_values(&a.0[i], &b.0[i]);
                if o != std::cmp::Ordering::Equal {
                    return if *d { o.reverse() } else { o };
                }
            }
            std::cmp::Ordering::Equal
        });
        out = keyed.into_iter().map(|(_, r)| r).collect();
        if let Some(l) = limit {
            out.truncate(l);
        }
    }
    lock_and_recheck(cx, t, where_c.as_ref(), out)
}

/// Locks each row about to be changed, then reads it again: a row changed by a session that
/// committed between the scan and the lock is taken in its new version (dropped if it no
/// longer matches WHERE), so no committed change is overwritten unseen.
fn lock_and_recheck(
    cx: &mut Context,
    t: &TableDef,
    where_c: Option<&Expr>,
    rows: Vec<KeyedRow>,
) -> DbResult<Vec<KeyedRow>> {
    let mut out = Vec::with_capacity(rows.len());
    for (pk, row) in rows {
        let Some(now) = load(cx, t, &pk)? else {
            continue;
        };
        if now != row {
            let still = match where_c {
                Some(w) => truth(&eval(w, &EvalCtx::row(&now))?) == Some(true),
                None => true,
            };
            if !still {
                continue;
            }
        }
        out.push((pk, now));
    }
    Ok(out)
}

pub fn update(cx: &mut Context, u: &ast::Update) -> DbResult<Output> {
    update_with(cx, u, false)
}

/// UPDATE; with `ignore` (UPDATE IGNORE) duplicate-key and conversion errors become warnings
/// and the row is left as it was.
pub fn update_with(cx: &mut Context, u: &ast::Update, ignore: bool) -> DbResult<Output> {
    if u.from.is_some() {
        return Err(DbError::unsupported("UPDATE ... FROM"));
    }
    let (t, alias) = single_table(cx, &u.table)?;
    let scope = table_scope(&t, &alias);
    let mut assigns = Vec::new();
    for a in &u.assignments {
        let n = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => object_name_parts(n),
            _ => return Err(DbError::unsupported("tuple assignment")),
        };
        let col = n.last().cloned().unwrap_or_default();
        let c = t
            .col_index(&col)
            .ok_or_else(|| DbError::bad_field(&n.join("."), "field list"))?;
        let e = if is_default_kw(&a.value) {
            Expr::Lit(t.columns[c].default_value())
        } else {
            cx.compile(&scope, &a.value, "field list")?
        };
        assigns.push((c, e));
    }
    // Lock before reading: the rows read are the rows changed (no lost updates).
    cx.begin_write()?;
    let rows = matching_rows(
        cx,
        &t,
        &scope,
        u.selection.as_ref(),
        &u.order_by,
        u.limit.as_ref(),
    )?;
    let strict = cx.strict() && !ignore;
    let mut warnings = Vec::new();
    let (mut matched, mut changed) = (0u64, 0u64);
    'rows: for (n, (pk, old)) in rows.into_iter().enumerate() {
        matched += 1;
        let mut new = old.clone();
        for (c, e) in &assigns {
            let v = eval(e, &EvalCtx::row(&new))?;
            new[*c] = match coerce_to_table_column(
                &v,
                &t.columns[*c],
                (&t.db, &t.name),
                n as u64 + 1,
                crate::types::coerce::SqlMode { strict },
                &mut warnings,
            ) {
                Ok(v) => v,
                Err(e) if ignore => {
                    let e = DbError::from(e);
                    warnings.push(Warning {
                        level: crate::error::sql_error::WarningLevel::Warning,
                        code: e.code,
                        message: e.message,
                    });
                    continue 'rows;
                }
                Err(e) => return Err(e.into()),
            };
        }
        if new != old {
            for (i, on) in t.on_update_now.iter().enumerate() {
                if *on && !assigns.iter().any(|(c, _)| *c == i) {
                    new[i] = Value::DateTime(cx.now);
                }
            }
        }
        match update_row(cx, &t, &pk, &old, &new) {
            Ok(true) => changed += 1,
            Ok(false) => {}
            Err(e) if ignore && e.code == 1062 => warnings.push(Warning {
                level: crate::error::sql_error::WarningLevel::Warning,
                code: e.code,
                message: e.message,
            }),
            Err(e) => return Err(e),
        }
    }
    let nwarn = warnings.len();
    cx.warnings.extend(warnings);
    Ok(Output::Done {
        affected: changed,
        last_insert_id: 0,
        info: format!("Rows matched: {matched}  Changed: {changed}  Warnings: {nwarn}"),
    })
}

pub fn delete(cx: &mut Context, d: &ast::Delete) -> DbResult<Output> {
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    };
    if from.len() != 1 || !d.tables.is_empty() || d.using.is_some() {
        return Err(DbError::unsupported("multi-table DELETE"));
    }
    let (t, alias) = single_table(cx, &from[0])?;
    let scope = table_scope(&t, &alias);
    cx.begin_write()?;
    let rows = matching_rows(
        cx,
        &t,
        &scope,
        d.selection.as_ref(),
        &d.order_by,
        d.limit.as_ref(),
    )?;
    let n = rows.len() as u64;
    for (pk, row) in rows {
        delete_row(cx, &t, &pk, &row)?;
    }
    Ok(Output::done(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_increment_follows_innodb_series() {
        // storage_engine/autoinc_vars: increment 1 then 300 (offset 200), then 50.
        let c = AtomicU64::new(1);
        let ids: Vec<u64> = (0..3).map(|_| next_auto_id(&c, 1, 0)).collect();
        assert_eq!(ids, [1, 2, 3]);
        let ids: Vec<u64> = (0..3).map(|_| next_auto_id(&c, 300, 200)).collect();
        assert_eq!(ids, [200, 500, 800]);
        assert_eq!(c.load(Ordering::SeqCst), 1100);
        let ids: Vec<u64> = (0..3).map(|_| next_auto_id(&c, 50, 0)).collect();
        assert_eq!(ids, [1100, 1150, 1200]);
        // Defaults: the counter is the last value + 1.
        assert_eq!(auto_inc_after(41, 1, 1), 42);
        // An explicit value below the offset (InnoDB's rounding).
        assert_eq!(auto_inc_after(1, 10, 5), 15);
    }
}
