//! HANDLER statements: per-session cursors over a table's rows or one of its keys.
//!
//! `HANDLER t OPEN [AS h]`, `HANDLER h READ FIRST|NEXT`, `HANDLER h READ key FIRST|NEXT|PREV|
//! LAST`, `HANDLER h READ key =|>=|<=|>|< (v, ...)`, each with optional `WHERE` and `LIMIT`
//! (default 1 row), and `HANDLER h CLOSE`.
//!
//! Invariants: a handler holds only its table's name and the byte key of the last entry it
//! examined (rows that fail WHERE move the cursor too, as in MariaDB); each READ is a fresh
//! range scan of the primary tree (natural order: primary key, or insertion order for a table
//! without one) or of the index tree from that key, through the session's read view, so a
//! handler never pins storage. A NEXT/PREV that ran off the end stays there until FIRST/LAST or
//! a key read. This session's TRUNCATE, DROP, ALTER or RENAME of the table closes its handlers;
//! a handler whose table no longer exists reads as closed (1109).

use std::ops::Bound;

use sqlparser::ast::{self as ast};

use crate::catalog::TableDef;
use crate::codec::key::{encode_key_value, prefix_successor, KeyDecoder};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::Scope;
use crate::parser::handler::{Dir, HandlerStmt};
use crate::plan::access::exact;
use crate::result::{OutCol, Output};
use crate::types::value::Value;

use crate::context::handlers::{Handler, Pos};

/// A READ's direction, key values evaluated.
enum Move {
    First,
    Last,
    Next,
    Prev,
    Cmp(String, Vec<Value>),
}

fn unknown(alias: &str) -> DbError {
    DbError::new(
        ErrorCode::UnknownTable,
        format!("Unknown table '{alias}' in HANDLER"),
    )
}

/// Closes this session's handlers of the tables named `tables` (a statement is about to
/// truncate, drop, alter or rename them).
pub fn close_tables(cx: &mut Context, tables: &[String]) {
    let names: Vec<String> = tables.iter().map(|t| t.to_ascii_lowercase()).collect();
    cx.handlers
        .retain(|_, h| !names.contains(&h.table.to_ascii_lowercase()));
}

/// Closes this session's handlers of the tables of database `db` (which is about to be dropped).
pub fn close_database(cx: &mut Context, db: &str) {
    cx.handlers.retain(|_, h| h.db != db);
}

/// Runs a HANDLER statement.
pub fn run(cx: &mut Context, stmt: HandlerStmt) -> DbResult<Output> {
    match stmt {
        HandlerStmt::Open { table, alias } => open(cx, &table, alias),
        HandlerStmt::Close { alias } => match cx.handlers.remove(&alias.to_ascii_lowercase()) {
            Some(_) => Ok(Output::done(0)),
            None => Err(unknown(&alias)),
        },
        HandlerStmt::Read {
            alias,
            key,
            dir,
            tail,
        } => read(cx, &alias, key.as_deref(), dir, tail.as_deref()),
    }
}

fn open(cx: &mut Context, name: &[String], alias: Option<String>) -> DbResult<Output> {
    let (db, table) = cx.resolve_table_name(name)?;
    cx.check_db_access(&db)?;
    if cx.get_table(&db, &table)?.partitioning.is_some() {
        return Err(DbError::unsupported("HANDLER on a partitioned table"));
    }
    let alias = alias.unwrap_or_else(|| table.clone());
    let k = alias.to_ascii_lowercase();
    if cx.handlers.contains_key(&k) {
        return Err(DbError::new(
            ErrorCode::NonuniqTable,
            format!("Not unique table/alias: '{alias}'"),
        ));
    }
    cx.handlers.insert(
        k,
        Handler {
            db,
            table,
            alias,
            key: None,
            pos: Pos::Start,
        },
    );
    Ok(Output::done(0))
}

fn read(
    cx: &mut Context,
    alias: &str,
    key_name: Option<&str>,
    dir: Dir,
    tail: Option<&ast::Query>,
) -> DbResult<Output> {
    let k = alias.to_ascii_lowercase();
    let Some(h) = cx.handlers.get(&k).cloned() else {
        return Err(unknown(alias));
    };
    let Some(t) = cx.find_table(&h.db, &h.table) else {
        cx.handlers.remove(&k);
        return Err(unknown(alias));
    };
    if t.partitioning.is_some() {
        return Err(DbError::unsupported("HANDLER on a partitioned table"));
    }
    let key = match key_name {
        None => None,
        Some(n) => Some(key_named(&t, n)?),
    };
    let dir = match dir {
        Dir::First => Move::First,
        Dir::Last => Move::Last,
        Dir::Next => Move::Next,
        Dir::Prev => Move::Prev,
        Dir::Cmp(op, exprs) => {
            let mut vals = Vec::new();
            for e in exprs {
                let x = cx.compile(&Scope::default(), &e, "field list")?;
                vals.push(eval(&x, &EvalCtx::default())?);
            }
            Move::Cmp(op, vals)
        }
    };
    let (selection, limit) = tail_of(cx, tail)?;
    let mut h = h;
    if h.key != key {
        // Another key (or natural order): the position restarts.
        h.key = key;
        h.pos = Pos::Start;
    }
    let scope = crate::exec::dml::table_scope(&t, &h.alias);
    let where_c = match &selection {
        Some(w) => Some(cx.compile(&scope, w, "WHERE")?),
        None => None,
    };
    let range = bounds(&t, key, &h.pos, &dir)?;
    let mut rows = Vec::new();
    let mut pos = h.pos.clone();
    if let Some((tree, lo, hi, reverse)) = range.filter(|_| limit > 0) {
        pos = Pos::End(!reverse);
        let store = &cx.engine.store;
        let snap = cx.snapshot.as_ref();
        let mut scan = cx.ws.scan(store, &tree, lo, hi, reverse, snap)?;
        while let Some((k, v)) = scan.next_entry()? {
            let row = match key {
                Some(Some(ix)) => {
                    let kcols = t.index_key_columns(ix);
                    let mut d = KeyDecoder::new(&k);
                    for kc in &kcols[..t.indexes[ix].columns.len()] {
                        d.next(kc)?;
                    }
                    match cx
                        .ws
                        .get(store, &t.primary_tree(), &k[d.position()..], snap)?
                    {
                        Some(v) => crate::codec::row::decode_row(&t.layout, &v)?,
                        None => continue,
                    }
                }
                _ => crate::codec::row::decode_row(&t.layout, &v)?,
            };
            pos = Pos::At(k);
            let ok = match &where_c {
                Some(w) => truth(&eval(w, &EvalCtx::row(&row))?) == Some(true),
                None => true,
            };
            if ok {
                rows.push(in_session_zone(cx, &t, row));
                if rows.len() as u64 >= limit {
                    break;
                }
            }
        }
    }
    h.pos = pos;
    cx.handlers.insert(k, h);
    let cols = t
        .columns
        .iter()
        .map(|c| {
            let mut o = OutCol::named(&c.name, Some(c.sql_type));
            o.table = alias.to_string();
            o.org_table = t.name.clone();
            o.db = t.db.clone();
            o.collation = c.collation;
            o.flags = c.protocol_flags();
            o
        })
        .collect();
    Ok(Output::Rows { cols, rows })
}

fn key_named(t: &TableDef, name: &str) -> DbResult<Option<usize>> {
    if name.eq_ignore_ascii_case("PRIMARY") && !t.pk.is_empty() {
        return Ok(None);
    }
    t.indexes
        .iter()
        .position(|ix| ix.name.eq_ignore_ascii_case(name))
        .map(Some)
        .ok_or_else(|| {
            DbError::new(
                ErrorCode::KeyDoesNotExists,
                format!("Key '{name}' doesn't exist in table '{}'", t.name),
            )
        })
}

/// The WHERE condition and the row count (default 1) of the statement's tail.
fn tail_of(cx: &mut Context, tail: Option<&ast::Query>) -> DbResult<(Option<ast::Expr>, u64)> {
    let Some(q) = tail else {
        return Ok((None, 1));
    };
    let (limit, offset) = crate::plan::select::limit_of(cx, q)?;
    if offset > 0 {
        return Err(DbError::unsupported("HANDLER ... LIMIT with an offset"));
    }
    let ast::SetExpr::Select(s) = &*q.body else {
        return Err(DbError::syntax(q.to_string()));
    };
    Ok((s.selection.clone(), limit.unwrap_or(1)))
}

type Range = (String, Bound<Vec<u8>>, Bound<Vec<u8>>, bool);

/// The tree, byte range and direction of one READ (None: nothing to read).
fn bounds(
    t: &TableDef,
    key: Option<Option<usize>>,
    pos: &Pos,
    dir: &Move,
) -> DbResult<Option<Range>> {
    use Bound::{Excluded, Included, Unbounded};
    let (tree, cols) = match key.flatten() {
        Some(ix) => (t.index_tree(ix), t.indexes[ix].columns.clone()),
        None => (t.primary_tree(), t.pk.clone()),
    };
    let after = |forward: bool| match pos {
        Pos::At(k) if forward => Some((Excluded(k.clone()), Unbounded)),
        Pos::At(k) => Some((Unbounded, Excluded(k.clone()))),
        // Off the end in this direction: nothing more.
        Pos::End(f) if *f == forward => None,
        _ => Some((Unbounded, Unbounded)),
    };
    Ok(Some(match dir {
        Move::First => (tree, Unbounded, Unbounded, false),
        Move::Last => (tree, Unbounded, Unbounded, true),
        Move::Next => match after(true) {
            Some((lo, hi)) => (tree, lo, hi, false),
            None => return Ok(None),
        },
        Move::Prev => match after(false) {
            Some((lo, hi)) => (tree, lo, hi, true),
            None => return Ok(None),
        },
        Move::Cmp(op, vals) => {
            if vals.len() > cols.len() || vals.is_empty() {
                return Err(DbError::new(
                    ErrorCode::TooManyKeyParts,
                    format!(
                        "Too many key parts specified; max {} parts allowed",
                        cols.len()
                    ),
                ));
            }
            let mut prefix = Vec::new();
            for (p, (v, &c)) in vals.iter().zip(&cols).enumerate() {
                let col = &t.columns[c];
                match exact(col, v) {
                    Some(v) => encode_key_value(&t.key_column(key.flatten(), p), &v, &mut prefix)?,
                    // A value no key entry can hold: nothing to read.
                    None => return Ok(None),
                }
            }
            let succ = || prefix_successor(&prefix).map_or(Unbounded, Included);
            match op.as_str() {
                "=" => (tree, Included(prefix.clone()), succ_excl(&prefix), false),
                ">=" => (tree, Included(prefix.clone()), Unbounded, false),
                ">" => (tree, succ(), Unbounded, false),
                "<=" => (tree, Unbounded, succ_excl(&prefix), true),
                _ => (tree, Unbounded, Excluded(prefix.clone()), true),
            }
        }
    }))
}

fn succ_excl(prefix: &[u8]) -> Bound<Vec<u8>> {
    prefix_successor(prefix).map_or(Bound::Unbounded, Bound::Excluded)
}

/// A row as the session reads it: TIMESTAMP columns (stored as UTC) in its time zone.
fn in_session_zone(cx: &Context, t: &TableDef, mut row: Vec<Value>) -> Vec<Value> {
    for (v, c) in row.iter_mut().zip(&t.columns) {
        if let (true, Value::DateTime(dt)) = (c.sql_type.is_timestamp(), &*v) {
            *v = Value::DateTime(cx.time_zone.utc_to_local(*dt));
        }
    }
    row
}
