//! The PARTITION BY clause as MariaDB's SHOW CREATE TABLE prints it ([`render_clause`]), and a
//! partition's bound as information_schema.PARTITIONS shows it ([`render_bound`]).
//!
//! Invariant: the text parses back into the same partitioning (catalog: the stored CREATE TABLE
//! text is this text): RANGE bounds are the evaluated integers, LIST values as written with NULL
//! first, COLUMNS values as literals of their column's type.

use super::{Method, PartBound, PartDef, Partitioning};
use crate::catalog::create_table::{quote_ident, quote_str};
use crate::catalog::TableDef;
use crate::types::value::Value;

/// `\n PARTITION BY ...` for the end of `t`'s CREATE TABLE text.
pub fn render_clause(p: &Partitioning, t: &TableDef) -> String {
    let cols = || {
        p.columns
            .iter()
            .map(|&c| quote_ident(&t.columns[c].name))
            .collect::<Vec<_>>()
            .join(",")
    };
    let linear = if p.linear { "LINEAR " } else { "" };
    let head = match (&p.func, p.method) {
        (Some(f), m) => format!("{linear}{} ({})", m.keyword(), f.text),
        (None, Method::Key) if p.key_listed => format!("{linear}KEY ({})", cols()),
        (None, Method::Key) => format!("{linear}KEY ()"),
        (None, m) => format!("{}  COLUMNS({})", m.keyword(), cols()),
    };
    let mut s = format!("\n PARTITION BY {head}");
    if p.auto {
        s.push_str(&format!("\nPARTITIONS {}", p.parts.len()));
        return s;
    }
    let engine = t.engine.as_deref().unwrap_or("Betula");
    let defs: Vec<String> = p
        .parts
        .iter()
        .map(|d| part_text(p, t, d) + &format!(" ENGINE = {engine}"))
        .collect();
    s.push_str(&format!("\n({})", defs.join(",\n ")));
    s
}

/// One partition's definition as an ALTER TABLE ... ADD PARTITION names it (no ENGINE clause).
pub fn part_text(p: &Partitioning, t: &TableDef, d: &PartDef) -> String {
    let mut s = format!("PARTITION {}", quote_ident(&d.name));
    match &d.bound {
        PartBound::None => {}
        PartBound::IntLessThan(_) | PartBound::ColumnsLessThan(_) => {
            s.push_str(" VALUES LESS THAN ");
            s.push_str(&less_than(p, t, &d.bound));
        }
        PartBound::IntIn(_) | PartBound::ColumnsIn(_) => {
            s.push_str(&format!(" VALUES IN ({})", render_bound(p, t, &d.bound)));
        }
    }
    for (k, v) in &d.options {
        s.push_str(&format!(" {k} = {v}"));
    }
    if let Some(c) = &d.comment {
        s.push_str(&format!(" COMMENT = {}", quote_str(c)));
    }
    s
}

/// `(v)`, `MAXVALUE` or `(v1,MAXVALUE)`.
fn less_than(p: &Partitioning, t: &TableDef, b: &PartBound) -> String {
    match b {
        PartBound::IntLessThan(None) => "MAXVALUE".into(),
        _ => format!("({})", render_bound(p, t, b)),
    }
}

/// The values of a bound without the outer parentheses, as information_schema's
/// PARTITION_DESCRIPTION shows them (`MAXVALUE`, `739251`, `NULL,1,2`, `'a','b'`, `(1,2),(3,4)`).
pub fn render_bound(p: &Partitioning, t: &TableDef, b: &PartBound) -> String {
    let lit = |i: usize, v: &Value| literal(t, p.columns.get(i).copied(), v);
    match b {
        PartBound::None => String::new(),
        PartBound::IntLessThan(None) => "MAXVALUE".into(),
        PartBound::IntLessThan(Some(v)) => v.to_string(),
        PartBound::ColumnsLessThan(vals) => vals
            .iter()
            .enumerate()
            .map(|(i, v)| v.as_ref().map_or("MAXVALUE".into(), |v| lit(i, v)))
            .collect::<Vec<_>>()
            .join(","),
        // As written, NULL first (MariaDB's order).
        PartBound::IntIn(vals) => vals
            .iter()
            .filter(|v| v.is_none())
            .chain(vals.iter().filter(|v| v.is_some()))
            .map(|x| x.map_or("NULL".into(), |x| x.to_string()))
            .collect::<Vec<_>>()
            .join(","),
        PartBound::ColumnsIn(tuples) => tuples
            .iter()
            .map(|tuple| {
                let items: Vec<String> = tuple.iter().enumerate().map(|(i, v)| lit(i, v)).collect();
                if tuple.len() == 1 {
                    items.join(",")
                } else {
                    format!("({})", items.join(","))
                }
            })
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// A value as an SQL literal of column `c`'s type.
fn literal(t: &TableDef, c: Option<usize>, v: &Value) -> String {
    let ty = c.map(|c| &t.columns[c].sql_type);
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        _ => {
            let text = v
                .to_text(ty)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            quote_str(&text)
        }
    }
}
