//! The grammar of partitioning (MariaDB's) and of Betula's RETENTION option, which sqlparser
//! does not read:
//!
//! ```text
//! PARTITION BY { [LINEAR] HASH (expr) | [LINEAR] KEY [ALGORITHM = n] ([col, ...])
//!              | RANGE (expr) | RANGE COLUMNS (col, ...) | LIST (expr) | LIST COLUMNS (col, ...) }
//!   [PARTITIONS n] [(PARTITION name [VALUES {LESS THAN {(v, ...) | MAXVALUE} | IN (v, ...)}]
//!                    [[STORAGE] ENGINE [=] e] [COMMENT [=] 's'] [MAX_ROWS [=] n] [MIN_ROWS [=] n]
//!                    [DATA DIRECTORY [=] 's'] [INDEX DIRECTORY [=] 's'] [TABLESPACE [=] t]
//!                    [NODEGROUP [=] n], ...)]
//! RETENTION [=] n {HOUR | DAY | WEEK | MONTH}
//! ALTER TABLE t ADD PARTITION (defs) | ADD PARTITION PARTITIONS n | DROP PARTITION p, ...
//!   | TRUNCATE PARTITION {p, ... | ALL} | REORGANIZE PARTITION [p, ... INTO (defs)]
//!   | COALESCE PARTITION n | EXCHANGE PARTITION p WITH TABLE t [{WITH | WITHOUT} VALIDATION]
//!   | REMOVE PARTITIONING | PARTITION BY ... | RETENTION [=] {n unit | NONE}
//! ```
//!
//! [`split_create`] takes these clauses out of a CREATE TABLE text (the rest goes to sqlparser,
//! SQL2: each part is read by one grammar); the expressions inside them are read by sqlparser.
//! Subpartitions are refused with 1235; the other checks are the catalog's
//! (catalog/partition/define.rs).

use crate::expr::dialect::dialect;
use sqlparser::ast;
use sqlparser::parser::Parser;

use crate::catalog::partition::{
    Method, PartDefClause, PartitionClause, Retention, RetentionUnit, TableExtras, ValuesClause,
};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::alter::AlterOp;
use crate::parser::tokens::{syntax, Cursor, Tok};

/// A CREATE TABLE text without its PARTITION BY and RETENTION clauses, and those clauses;
/// `None` when it has neither.
pub fn split_create(sql: &str) -> DbResult<Option<(String, TableExtras)>> {
    let mut c = Cursor::new(sql);
    if !c.kw("CREATE") {
        return Ok(None);
    }
    c.kws(&["OR", "REPLACE"]);
    c.kw("TEMPORARY");
    if !c.kw("TABLE") {
        return Ok(None);
    }
    c.kws(&["IF", "NOT", "EXISTS"]);
    if c.qualified().is_none() {
        return Ok(None);
    }
    let mut extras = TableExtras::default();
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0i32;
    while let Some(t) = c.peek().cloned() {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            _ if depth != 0 => {}
            Tok::Word {
                quoted: false,
                ref upper,
                ..
            } if upper == "RETENTION" => {
                let start = c.offset();
                c.pos += 1;
                extras.retention = retention(&mut c)?;
                cut.push((start, c.offset()));
                continue;
            }
            Tok::Word {
                quoted: false,
                ref upper,
                ..
            } if upper == "PARTITION" => {
                let start = c.offset();
                c.pos += 1;
                if !c.kw("BY") {
                    return Err(syntax(&c));
                }
                extras.partitioning = Some(clause(&mut c)?);
                cut.push((start, c.offset()));
                continue;
            }
            _ => {}
        }
        c.pos += 1;
    }
    if extras.is_empty() {
        return Ok(None);
    }
    let mut rest = String::with_capacity(sql.len());
    let mut at = 0;
    for (a, b) in cut {
        rest.push_str(&sql[at..a]);
        rest.push(' ');
        at = b;
    }
    rest.push_str(&sql[at..]);
    Ok(Some((rest, extras)))
}

/// `[=] n unit` after RETENTION (`NONE` only in ALTER TABLE: `None`).
fn retention(c: &mut Cursor<'_>) -> DbResult<Option<Retention>> {
    c.sym('=');
    if c.kw("NONE") {
        return Ok(None);
    }
    let amount = match c.peek() {
        Some(Tok::Num(n)) => n.parse::<u32>().map_err(|_| syntax(c))?,
        _ => return Err(syntax(c)),
    };
    c.pos += 1;
    let unit = c
        .name()
        .and_then(|u| RetentionUnit::parse(&u))
        .ok_or_else(|| syntax(c))?;
    Ok(Some(Retention { amount, unit }))
}

/// The text inside the parentheses at the cursor (consumed with them).
fn group<'a>(c: &mut Cursor<'a>) -> DbResult<&'a str> {
    if !c.sym('(') {
        return Err(syntax(c));
    }
    let start = c.offset();
    let mut depth = 1;
    while let Some(t) = c.peek() {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => {
                depth -= 1;
                if depth == 0 {
                    let end = c.offset();
                    c.pos += 1;
                    return Ok(&c.src[start..end]);
                }
            }
            _ => {}
        }
        c.pos += 1;
    }
    Err(syntax(c))
}

/// One expression read by sqlparser, which must take the whole text. MySQL's `a MOD b`
/// operator (which sqlparser does not read, and mariadb-dump writes) is read as `a % b`.
fn expression(text: &str) -> DbResult<ast::Expr> {
    let mut rewritten = String::with_capacity(text.len());
    let mut at = 0;
    let toks = crate::parser::tokens::lex(text);
    for (i, (t, off)) in toks.iter().enumerate() {
        let is_mod = matches!(t, Tok::Word { upper, quoted: false, .. } if upper == "MOD")
            && !matches!(toks.get(i + 1), Some((Tok::Sym('('), _)));
        if is_mod {
            rewritten.push_str(&text[at..*off]);
            rewritten.push('%');
            at = off + 3;
        }
    }
    rewritten.push_str(&text[at..]);
    let mut p = Parser::new(dialect()).try_with_sql(&rewritten)?;
    let e = p.parse_expr()?;
    if p.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return Err(DbError::syntax(text));
    }
    Ok(e)
}

/// `(a, b, ...)`: column names.
fn names(c: &mut Cursor<'_>) -> DbResult<Vec<String>> {
    if !c.sym('(') {
        return Err(syntax(c));
    }
    let mut out = Vec::new();
    if c.sym(')') {
        return Ok(out);
    }
    loop {
        out.push(c.name().ok_or_else(|| syntax(c))?);
        if c.sym(')') {
            return Ok(out);
        }
        if !c.sym(',') {
            return Err(syntax(c));
        }
    }
}

fn no_subpartitions() -> DbError {
    DbError::unsupported("subpartitions")
}

/// The clause after `PARTITION BY`.
pub fn clause(c: &mut Cursor<'_>) -> DbResult<PartitionClause> {
    let linear = c.kw("LINEAR");
    let method = match c.peek_kw() {
        Some("HASH") => Method::Hash,
        Some("KEY") => Method::Key,
        Some("RANGE") if !linear => Method::Range,
        Some("LIST") if !linear => Method::List,
        _ => return Err(syntax(c)),
    };
    c.pos += 1;
    let mut p = PartitionClause {
        method,
        linear,
        columns_form: false,
        expr: None,
        columns: Vec::new(),
        count: None,
        defs: Vec::new(),
    };
    match method {
        Method::Key => {
            if c.kw("ALGORITHM") {
                c.sym('=');
                c.name().ok_or_else(|| syntax(c))?;
            }
            p.columns = names(c)?;
        }
        Method::Range | Method::List if c.kw("COLUMNS") => {
            p.columns_form = true;
            p.columns = names(c)?;
            if p.columns.is_empty() {
                return Err(syntax(c));
            }
        }
        _ => p.expr = Some(expression(group(c)?)?),
    }
    if c.kw("PARTITIONS") {
        p.count = Some(count(c)?);
    }
    if c.kws(&["SUBPARTITION", "BY"]) {
        return Err(no_subpartitions());
    }
    if matches!(c.peek(), Some(Tok::Sym('('))) {
        p.defs = definitions(c)?;
    }
    Ok(p)
}

fn count(c: &mut Cursor<'_>) -> DbResult<u64> {
    match c.peek().cloned() {
        Some(Tok::Num(n)) => {
            c.pos += 1;
            n.parse().map_err(|_| syntax(c))
        }
        _ => Err(syntax(c)),
    }
}

/// `(PARTITION ..., PARTITION ...)`.
pub fn definitions(c: &mut Cursor<'_>) -> DbResult<Vec<PartDefClause>> {
    if !c.sym('(') {
        return Err(syntax(c));
    }
    let mut defs = Vec::new();
    loop {
        defs.push(definition(c)?);
        if c.sym(')') {
            return Ok(defs);
        }
        if !c.sym(',') {
            return Err(syntax(c));
        }
    }
}

fn definition(c: &mut Cursor<'_>) -> DbResult<PartDefClause> {
    if !c.kw("PARTITION") {
        return Err(syntax(c));
    }
    let mut d = PartDefClause {
        name: c.name().ok_or_else(|| syntax(c))?,
        ..Default::default()
    };
    if c.kw("VALUES") {
        d.values = Some(if c.kws(&["LESS", "THAN"]) {
            if c.kw("MAXVALUE") {
                ValuesClause::LessThan(vec![None])
            } else {
                ValuesClause::LessThan(less_than(group(c)?)?)
            }
        } else if c.kw("IN") {
            ValuesClause::In(in_list(group(c)?)?)
        } else {
            return Err(syntax(c));
        });
    }
    let mut opts: [Option<String>; 4] = Default::default();
    loop {
        if c.kw("STORAGE") || c.peek_kw() == Some("ENGINE") {
            c.kw("ENGINE");
            c.sym('=');
            c.name().ok_or_else(|| syntax(c))?;
        } else if c.kw("COMMENT") {
            c.sym('=');
            d.comment = Some(c.string().ok_or_else(|| syntax(c))?);
        } else if c.kw("TABLESPACE") || c.kw("NODEGROUP") {
            c.sym('=');
            c.name().ok_or_else(|| syntax(c))?;
        } else if let Some(i) = option_slot(c) {
            c.sym('=');
            let v = match c.peek().cloned() {
                Some(Tok::Num(n)) if i < 2 => n,
                Some(Tok::Str(s)) if i >= 2 => crate::catalog::create_table::quote_str(&s),
                _ => return Err(syntax(c)),
            };
            c.pos += 1;
            opts[i] = Some(v);
        } else {
            break;
        }
    }
    const NAMES: [&str; 4] = ["MAX_ROWS", "MIN_ROWS", "DATA DIRECTORY", "INDEX DIRECTORY"];
    d.options = NAMES
        .iter()
        .zip(opts)
        .filter_map(|(n, v)| Some((n.to_string(), v?)))
        .collect();
    if matches!(c.peek(), Some(Tok::Sym('('))) {
        return Err(no_subpartitions());
    }
    Ok(d)
}

/// Which kept option is at the cursor (consumed): MAX_ROWS, MIN_ROWS, DATA / INDEX DIRECTORY.
fn option_slot(c: &mut Cursor<'_>) -> Option<usize> {
    if c.kw("MAX_ROWS") {
        Some(0)
    } else if c.kw("MIN_ROWS") {
        Some(1)
    } else if c.kws(&["DATA", "DIRECTORY"]) {
        Some(2)
    } else if c.kws(&["INDEX", "DIRECTORY"]) {
        Some(3)
    } else {
        None
    }
}

/// The items of a comma-separated list, split at top-level commas.
fn items(text: &str) -> Vec<&str> {
    let mut c = Cursor::new(text);
    let mut out = Vec::new();
    while !c.at_end() {
        out.push(c.clause().trim());
        if !c.sym(',') {
            break;
        }
    }
    out
}

fn is_maxvalue(item: &str) -> bool {
    item.eq_ignore_ascii_case("MAXVALUE")
}

fn less_than(text: &str) -> DbResult<Vec<Option<ast::Expr>>> {
    items(text)
        .into_iter()
        .map(|i| {
            if is_maxvalue(i) {
                Ok(None)
            } else {
                expression(i).map(Some)
            }
        })
        .collect()
}

fn in_list(text: &str) -> DbResult<Vec<(bool, Vec<ast::Expr>)>> {
    let maxvalue = || {
        DbError::new(
            ErrorCode::MaxvalueInValuesIn,
            "Cannot use MAXVALUE as value in VALUES IN",
        )
    };
    let mut out = Vec::new();
    for item in items(text) {
        if is_maxvalue(item) {
            return Err(maxvalue());
        }
        let mut c = Cursor::new(item);
        let row = if matches!(c.peek(), Some(Tok::Sym('('))) {
            let inner = group(&mut c)?;
            c.at_end().then_some(inner)
        } else {
            None
        };
        match row {
            Some(inner) => {
                let mut vals = Vec::new();
                for v in items(inner) {
                    if is_maxvalue(v) {
                        return Err(maxvalue());
                    }
                    vals.push(expression(v)?);
                }
                out.push((true, vals));
            }
            None => out.push((false, vec![expression(item)?])),
        }
    }
    Ok(out)
}

/// A partition operation of ALTER TABLE at the cursor (consumed), if there is one.
pub fn alter_op(c: &mut Cursor<'_>) -> DbResult<Option<AlterOp>> {
    let save = c.pos;
    let op = if c.kws(&["ADD", "PARTITION"]) {
        if c.kw("PARTITIONS") {
            AlterOp::AddPartitions {
                defs: Vec::new(),
                count: Some(count(c)?),
            }
        } else {
            AlterOp::AddPartitions {
                defs: definitions(c)?,
                count: None,
            }
        }
    } else if c.kws(&["DROP", "PARTITION"]) {
        AlterOp::DropPartitions(name_list(c)?)
    } else if c.kws(&["TRUNCATE", "PARTITION"]) {
        AlterOp::TruncatePartitions(if c.kw("ALL") {
            None
        } else {
            Some(name_list(c)?)
        })
    } else if c.kws(&["REORGANIZE", "PARTITION"]) {
        if c.at_end() || matches!(c.peek(), Some(Tok::Sym(','))) {
            AlterOp::ReorganizePartitions {
                from: Vec::new(),
                into: Vec::new(),
            }
        } else {
            let from = name_list(c)?;
            if !c.kw("INTO") {
                return Err(syntax(c));
            }
            AlterOp::ReorganizePartitions {
                from,
                into: definitions(c)?,
            }
        }
    } else if c.kws(&["COALESCE", "PARTITION"]) {
        AlterOp::CoalescePartitions(count(c)?)
    } else if c.kws(&["EXCHANGE", "PARTITION"]) {
        let name = c.name().ok_or_else(|| syntax(c))?;
        if !c.kws(&["WITH", "TABLE"]) {
            return Err(syntax(c));
        }
        let table = c.qualified().ok_or_else(|| syntax(c))?;
        let validate = !c.kws(&["WITHOUT", "VALIDATION"]);
        c.kws(&["WITH", "VALIDATION"]);
        AlterOp::ExchangePartition {
            name,
            table,
            validate,
        }
    } else if c.kws(&["REMOVE", "PARTITIONING"]) {
        AlterOp::RemovePartitioning
    } else if c.kws(&["PARTITION", "BY"]) {
        AlterOp::PartitionBy(Box::new(clause(c)?))
    } else if c.kw("RETENTION") {
        AlterOp::Retention(retention(c)?)
    } else if matches!(
        c.peek_kw(),
        Some("ANALYZE" | "CHECK" | "OPTIMIZE" | "REBUILD" | "REPAIR" | "DISCARD" | "IMPORT")
    ) {
        let what = c.peek_kw().unwrap_or_default().to_string();
        c.pos += 1;
        if !c.kw("PARTITION") {
            c.pos = save;
            return Ok(None);
        }
        return Err(DbError::unsupported(format!(
            "ALTER TABLE ... {what} PARTITION"
        )));
    } else {
        return Ok(None);
    };
    Ok(Some(op))
}

/// `p1, p2, ...` (stops before a `,` that is not followed by a name, as in `DROP PARTITION p1,
/// DROP ...`).
fn name_list(c: &mut Cursor<'_>) -> DbResult<Vec<String>> {
    let mut out = vec![c.name().ok_or_else(|| syntax(c))?];
    loop {
        let save = c.pos;
        if !c.sym(',') {
            break;
        }
        match c.peek() {
            Some(Tok::Word { quoted, upper, .. })
                if *quoted
                    || !matches!(
                        upper.as_str(),
                        "ADD"
                            | "DROP"
                            | "TRUNCATE"
                            | "REORGANIZE"
                            | "COALESCE"
                            | "ALGORITHM"
                            | "LOCK"
                            | "ENGINE"
                            | "FORCE"
                    ) =>
            {
                out.push(c.name().ok_or_else(|| syntax(c))?);
            }
            _ => {
                c.pos = save;
                break;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "partition_tests.rs"]
mod tests;
