//! SHOW CREATE TABLE text of a table definition ([`render_create`]), the form the catalog
//! stores ([`render_stored`]), and SQL quoting.
//!
//! Invariant: the text parses back (mod.rs, [`super::table_from_create`]) into the same
//! definition: every property of a `TableDef` appears in it. Layout follows MariaDB: one line
//! per column, then the primary key, then the indexes in order, then the FOREIGN KEY and CHECK
//! constraints, then the table options.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::options::SHOWN_OPTIONS;
use crate::catalog::charset_clause;
use crate::catalog::key_parts::render_parts;
use crate::catalog::{Counters, TableDef};
use crate::types::value::Value;
use crate::types::{Column, SqlType};

/// `s` as a backquoted identifier.
pub fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// `s` as a single-quoted string literal, escaped as SHOW CREATE TABLE writes it.
pub fn quote_str(s: &str) -> String {
    crate::types::quote_literal(s)
}

/// The text after DEFAULT of a column without a DEFAULT CURRENT_TIMESTAMP (`None`: no clause).
fn default_text(col: &Column) -> Option<String> {
    match &col.default {
        Some(Value::UInt(b)) if matches!(col.sql_type, SqlType::Bit { .. }) => {
            Some(crate::types::text_format::bit_literal(*b))
        }
        Some(Value::UInt(y)) if col.sql_type == SqlType::Year && col.display_width == Some(2) => {
            Some(quote_str(&format!("{:02}", y % 100)))
        }
        Some(v) => {
            let t = v
                .to_text(Some(&col.sql_type))
                .map(|b| String::from_utf8_lossy(&b).into_owned())?;
            // MariaDB shows a number's default as a number literal.
            let numeric = matches!(
                col.sql_type,
                SqlType::Int { .. }
                    | SqlType::Decimal { .. }
                    | SqlType::Float { .. }
                    | SqlType::Double { .. }
            );
            Some(if numeric { t } else { quote_str(&t) })
        }
        None if col.nullable => Some("NULL".into()),
        None => None,
    }
}

/// MySQL-style `SHOW CREATE TABLE` text.
pub fn render_create(t: &TableDef) -> String {
    let mut lines: Vec<String> = (0..t.columns.len()).map(|i| column_line(t, i)).collect();
    lines.extend(key_lines(t));
    // InnoDB lists a table's foreign keys in the byte order of their names.
    let mut fks: Vec<_> = t.foreign_keys.iter().collect();
    fks.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    lines.extend(fks.iter().map(|fk| format!("  {}", fk.line(&t.db))));
    for ch in t.checks.iter().filter(|ch| ch.column.is_none()) {
        lines.push(format!(
            "  CONSTRAINT {}{}",
            quote_ident(&ch.name),
            check_text(ch)
        ));
    }
    let mut s = format!(
        "CREATE {}TABLE {} (\n{}\n) ENGINE={}",
        if t.temporary.is_some() {
            "TEMPORARY "
        } else {
            ""
        },
        quote_ident(&t.name),
        lines.join(",\n"),
        t.engine.as_deref().unwrap_or("Betula")
    );
    push_table_options(t, &mut s);
    s.push_str(&partition_text(t));
    s
}

/// The RETENTION option and the PARTITION BY clause that end a table's text (each only when
/// the table has it).
pub fn partition_text(t: &TableDef) -> String {
    let mut s = t
        .retention
        .map(|r| format!(" RETENTION={r}"))
        .unwrap_or_default();
    if let Some(p) = &t.partitioning {
        s.push_str(&crate::catalog::partition::render_clause(p, t));
    }
    s
}

/// The definition line of column `i` of `t`.
fn column_line(t: &TableDef, i: usize) -> String {
    let c = &t.columns[i];
    let mut s = format!("  {} {}", quote_ident(&c.name), c.column_type());
    if c.sql_type.is_text() {
        s.push_str(&charset_clause::column_clause(c.collation, t.collation));
    }
    if let Some(g) = &t.generated[i] {
        // MariaDB prints no NULL-ness or DEFAULT for a generated column.
        s.push_str(&g.clause());
    } else if !c.nullable {
        s.push_str(" NOT NULL");
    }
    if t.generated[i].is_some() {
    } else if c.auto_increment {
        s.push_str(" AUTO_INCREMENT");
    } else if t.default_now[i] {
        s.push_str(" DEFAULT CURRENT_TIMESTAMP");
    } else if let Some(d) = default_text(c) {
        s.push_str(&format!(" DEFAULT {d}"));
    }
    if t.on_update_now[i] {
        s.push_str(" ON UPDATE CURRENT_TIMESTAMP");
    }
    if let Some(cm) = &t.comments[i] {
        s.push_str(&format!(" COMMENT {}", quote_str(cm)));
    }
    for ch in t
        .checks
        .iter()
        .filter(|ch| ch.column.as_deref() == Some(&c.name))
    {
        s.push_str(&check_text(ch));
    }
    s
}

/// ` CHECK (e)`, with MySQL's ` NOT ENFORCED` when it is not.
fn check_text(ch: &crate::catalog::CheckDef) -> String {
    let tail = if ch.enforced { "" } else { " NOT ENFORCED" };
    format!(" CHECK ({}){tail}", ch.text)
}

/// The PRIMARY KEY line, then one line per index.
fn key_lines(t: &TableDef) -> Vec<String> {
    let mut lines = Vec::new();
    if !t.pk.is_empty() {
        lines.push(format!(
            "  PRIMARY KEY ({})",
            render_parts(t, &t.pk, &t.pk_prefix)
        ));
    }
    for ix in &t.indexes {
        lines.push(format!(
            "  {}KEY {} ({}){}{}{}",
            if ix.unique { "UNIQUE " } else { "" },
            quote_ident(&ix.name),
            render_parts(t, &ix.columns, &ix.prefix),
            ix.using
                .as_ref()
                .map(|u| format!(" USING {u}"))
                .unwrap_or_default(),
            ix.comment
                .as_ref()
                .map(|c| format!(" COMMENT {}", quote_str(c)))
                .unwrap_or_default(),
            // MariaDB's form of an engine-defined index option (as its TokuDB showed it).
            if ix.clustering {
                " `clustering`=yes"
            } else {
                ""
            }
        ));
    }
    lines
}

/// Appends the table options after `ENGINE=...`, in MariaDB's order.
fn push_table_options(t: &TableDef, s: &mut String) {
    let next = t.counters.auto_inc.load(Ordering::SeqCst);
    if t.auto_inc_col().is_some() && next > 1 {
        s.push_str(&format!(" AUTO_INCREMENT={next}"));
    }
    s.push(' ');
    s.push_str(&charset_clause::table_clause(t.collation));
    let shown = |s: &mut String, names: &[&str]| {
        for (k, v) in t
            .options
            .iter()
            .filter(|(k, _)| names.contains(&k.as_str()))
        {
            s.push_str(&format!(" {k}={v}"));
        }
    };
    shown(s, &SHOWN_OPTIONS[..6]);
    if let Some(c) = &t.compression {
        s.push_str(&format!(" COMPRESSION={}", quote_str(c)));
    }
    if let Some(r) = &t.row_format {
        s.push_str(&format!(" ROW_FORMAT={r}"));
    }
    shown(s, &["KEY_BLOCK_SIZE"]);
    // An empty comment is no comment (ALTER TABLE t COMMENT '' drops it), as MariaDB shows it.
    if let Some(c) = t.comment.as_ref().filter(|c| !c.is_empty()) {
        s.push_str(&format!(" COMMENT={}", quote_str(c)));
    }
    shown(s, &["CONNECTION"]);
}

/// The stored form (no AUTO_INCREMENT counter: it is recomputed from the data at start-up).
pub fn render_stored(t: &TableDef) -> String {
    let saved = t.counters.auto_inc.load(Ordering::SeqCst);
    let tmp = TableDef {
        counters: Arc::new(Counters::default()),
        ..t.clone()
    };
    let _ = saved;
    render_create(&tmp)
}
