//! A fast parser for the statement that carries nearly all ingest:
//! `INSERT|REPLACE [IGNORE] [INTO] name [(col, ...)] VALUES (literal, ...), ... [ON DUPLICATE KEY
//! UPDATE ...]` with literal values only.
//!
//! Drivers send bulk inserts as long multi-row VALUES lists; tokenizing them into a general AST
//! and compiling every literal cost a third of the server's CPU per row. This parser reads the
//! literals straight into values. It accepts only what it can reproduce exactly as the general
//! path (sqlparser's MySQL dialect, then `expr::number_literal` and literal negation) would:
//! NULL, DEFAULT, TRUE/FALSE, decimal numbers with an optional leading minus, and single-quoted
//! strings with MySQL's standard escapes. Anything else (placeholders, expressions, comments,
//! hex or introducer literals, double-quoted strings, unusual escapes) makes it decline, and the
//! statement takes the general path: the fast path never changes a statement's meaning or its
//! error. The ON DUPLICATE KEY UPDATE clause, short and rich in expressions, is parsed by
//! sqlparser.

use sqlparser::ast;

use crate::expr::eval::negate_literal;
use crate::expr::{literal_overflows, number_literal};
use crate::parser::num_text::NumText;
use crate::types::value::Value;

/// One value of an inserted row before defaults and coercion.
#[derive(Debug, Clone)]
pub enum Slot {
    Unset,
    Default,
    Val(Value),
    /// A numeric literal, read when its column is known (`exec::dml::complete_row`).
    Num(NumText),
}

/// An INSERT statement read by the fast parser.
#[derive(Debug, Clone)]
pub struct FastInsert {
    pub table: Vec<String>,
    pub replace: bool,
    pub ignore: bool,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Slot>>,
    pub on_duplicate: Vec<ast::Assignment>,
}

/// Parses `sql` if it is a literal-only INSERT/REPLACE; `None` means "use the general parser".
pub fn parse(sql: &str) -> Option<FastInsert> {
    let mut p = Cursor {
        s: sql.as_bytes(),
        i: 0,
    };
    p.ws();
    let replace = if p.keyword("INSERT") {
        false
    } else if p.keyword("REPLACE") {
        true
    } else {
        return None;
    };
    let ignore = p.keyword("IGNORE");
    p.keyword("INTO");
    let mut table = vec![p.ident()?];
    if p.eat(b'.') {
        p.ws();
        table.push(p.ident()?);
    }
    let mut columns = Vec::new();
    if p.eat(b'(') {
        loop {
            columns.push(p.ident()?);
            if p.eat(b',') {
                continue;
            }
            if p.eat(b')') {
                break;
            }
            return None;
        }
    }
    if !(p.keyword("VALUES") || p.keyword("VALUE")) {
        return None;
    }
    let mut rows = Vec::new();
    loop {
        if !p.eat(b'(') {
            return None;
        }
        let mut row = Vec::with_capacity(columns.len().max(4));
        if !p.eat(b')') {
            loop {
                row.push(p.value()?);
                if p.eat(b',') {
                    continue;
                }
                if p.eat(b')') {
                    break;
                }
                return None;
            }
        }
        rows.push(row);
        if !p.eat(b',') {
            break;
        }
    }
    let mut on_duplicate = Vec::new();
    if p.keyword("ON") {
        if !(p.keyword("DUPLICATE") && p.keyword("KEY") && p.keyword("UPDATE")) {
            return None;
        }
        on_duplicate = assignments(std::str::from_utf8(&p.s[p.i..]).ok()?)?;
        p.i = p.s.len();
    }
    p.eat(b';');
    if p.i != p.s.len() {
        return None;
    }
    Some(FastInsert {
        table,
        replace,
        ignore,
        columns,
        rows,
        on_duplicate,
    })
}

/// The assignments of an ON DUPLICATE KEY UPDATE clause, parsed by sqlparser.
fn assignments(tail: &str) -> Option<Vec<ast::Assignment>> {
    let sql = format!("INSERT INTO t VALUES (0) ON DUPLICATE KEY UPDATE {tail}");
    let mut stmts = crate::parser::parse(&sql).ok()?;
    match stmts.pop() {
        Some(ast::Statement::Insert(ins)) if stmts.is_empty() => match ins.on {
            Some(ast::OnInsert::DuplicateKeyUpdate(a)) => Some(a),
            _ => None,
        },
        _ => None,
    }
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// Skips spaces (comments are not skipped: a statement with comments declines).
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Consumes `c` (after spaces), then spaces.
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            self.ws();
            true
        } else {
            false
        }
    }

    /// Consumes the keyword `kw` (case-insensitive, a whole word), then spaces.
    fn keyword(&mut self, kw: &str) -> bool {
        self.ws();
        let end = self.i + kw.len();
        if end <= self.s.len()
            && self.s[self.i..end].eq_ignore_ascii_case(kw.as_bytes())
            && !self.s.get(end).copied().is_some_and(is_word_byte)
        {
            self.i = end;
            self.ws();
            true
        } else {
            false
        }
    }

    /// A table or column name: a plain word that is not a keyword this grammar uses next, or a
    /// backquoted name.
    fn ident(&mut self) -> Option<String> {
        self.ws();
        if self.peek() == Some(b'`') {
            self.i += 1;
            let mut out = Vec::new();
            loop {
                match self.peek()? {
                    b'`' if self.s.get(self.i + 1) == Some(&b'`') => {
                        out.push(b'`');
                        self.i += 2;
                    }
                    b'`' => {
                        self.i += 1;
                        break;
                    }
                    b => {
                        out.push(b);
                        self.i += 1;
                    }
                }
            }
            self.ws();
            return String::from_utf8(out).ok().filter(|n| !n.is_empty());
        }
        let start = self.i;
        while self.peek().is_some_and(is_word_byte) {
            self.i += 1;
        }
        let word = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        if word.is_empty()
            || word.as_bytes()[0].is_ascii_digit()
            || ["VALUES", "VALUE", "SET", "SELECT", "INTO", "IGNORE", "ON"]
                .iter()
                .any(|k| word.eq_ignore_ascii_case(k))
        {
            return None;
        }
        self.ws();
        Some(word.to_string())
    }

    /// One literal value.
    fn value(&mut self) -> Option<Slot> {
        self.ws();
        let v = match self.peek()? {
            b'\'' => Slot::Val(Value::Text(self.string()?)),
            b'-' | b'0'..=b'9' => self.number()?,
            _ => {
                if self.keyword("NULL") {
                    Slot::Val(Value::Null)
                } else if self.keyword("DEFAULT") {
                    Slot::Default
                } else if self.keyword("TRUE") {
                    Slot::Val(Value::Int(1))
                } else if self.keyword("FALSE") {
                    Slot::Val(Value::Int(0))
                } else {
                    return None;
                }
            }
        };
        self.ws();
        Some(v)
    }

    /// [-] digits [. digits] [e [+-] digits], followed by a delimiter: kept as text when short.
    fn number(&mut self) -> Option<Slot> {
        let signed = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let start = self.i;
        let digits = |c: &mut Self| {
            let s = c.i;
            while c.peek().is_some_and(|b| b.is_ascii_digit()) {
                c.i += 1;
            }
            c.i > s
        };
        if !digits(self) {
            return None;
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !digits(self) {
                return None;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        if self.peek().is_some_and(|b| is_word_byte(b) || b == b'.') {
            return None;
        }
        if let Some(n) = std::str::from_utf8(&self.s[signed..self.i])
            .ok()
            .and_then(NumText::new)
        {
            return Some(Slot::Num(n));
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        // a literal with a warning (1916) takes the general path
        if literal_overflows(text) {
            return None;
        }
        let v = number_literal(text).ok()?;
        Some(Slot::Val(if signed < start {
            negate_literal(&v)?
        } else {
            v
        }))
    }

    /// A single-quoted string with the escapes MySQL and the general parser agree on.
    fn string(&mut self) -> Option<String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let b = self.peek()?;
            self.i += 1;
            match b {
                b'\'' if self.peek() == Some(b'\'') => {
                    out.push(b'\'');
                    self.i += 1;
                }
                b'\'' => break,
                b'\\' => {
                    let e = self.peek()?;
                    self.i += 1;
                    out.push(match e {
                        b'0' => 0,
                        b'b' => 8,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'Z' => 0x1a,
                        b'\\' | b'\'' | b'"' => e,
                        _ => return None,
                    });
                }
                b => out.push(b),
            }
        }
        String::from_utf8(out).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(sql: &str) -> Vec<Vec<String>> {
        parse(sql)
            .unwrap_or_else(|| panic!("declined: {sql}"))
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|s| match s {
                        Slot::Val(v) => format!("{v:?}"),
                        Slot::Num(n) => format!("{:?}", n.value().unwrap()),
                        Slot::Default => "DEFAULT".into(),
                        Slot::Unset => "UNSET".into(),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn reads_rows_names_and_flags() {
        let f = parse("insert ignore into db.`my``t` (a, `b c`) values (1,'x'),(2, 'y');").unwrap();
        assert_eq!(f.table, vec!["db", "my`t"]);
        assert_eq!(f.columns, vec!["a", "b c"]);
        assert!(f.ignore && !f.replace);
        assert_eq!(f.rows.len(), 2);
        let f = parse("REPLACE t VALUE ()").unwrap();
        assert!(f.replace && f.rows[0].is_empty() && f.columns.is_empty());
    }

    #[test]
    fn literals_match_the_general_path() {
        assert_eq!(
            vals("INSERT INTO t VALUES (-5, 20.5, -0.25, 1e3, 18446744073709551615, NULL, DEFAULT, true)"),
            vec![vec![
                format!("{:?}", Value::Int(-5)),
                format!("{:?}", number_literal("20.5").unwrap()),
                format!("{:?}", negate_literal(&number_literal("0.25").unwrap()).unwrap()),
                format!("{:?}", Value::Double(1000.0)),
                format!("{:?}", Value::UInt(u64::MAX)),
                format!("{:?}", Value::Null),
                "DEFAULT".to_string(),
                format!("{:?}", Value::Int(1)),
            ]]
        );
        assert_eq!(
            vals(r"INSERT INTO t VALUES ('it''s \'q\' \\ \n é')"),
            vec![vec![format!(
                "{:?}",
                Value::Text("it's 'q' \\ \n é".into())
            )]]
        );
    }

    #[test]
    fn declines_what_it_cannot_reproduce_exactly() {
        for sql in [
            "INSERT INTO t VALUES (?)",
            "INSERT INTO t VALUES (1 + 1)",
            "INSERT INTO t VALUES (NOW())",
            "INSERT INTO t VALUES (0x10)",
            "INSERT INTO t VALUES (X'10')",
            "INSERT INTO t VALUES (_utf8mb4'a')",
            "INSERT INTO t VALUES (\"a\")",
            r"INSERT INTO t VALUES ('a\%')",
            "INSERT INTO t VALUES (1) /* c */",
            "INSERT INTO t VALUES ('a' 'b')",
            "INSERT INTO t VALUES (1), (2",
            "INSERT INTO t VALUES (1.)",
            "INSERT INTO t VALUES (- -1)",
            "INSERT INTO t SET a = 1",
            "INSERT INTO t SELECT 1",
            "INSERT LOW_PRIORITY INTO t VALUES (1)",
            "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)",
            "UPDATE t SET a = 1",
            "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE",
        ] {
            assert!(parse(sql).is_none(), "accepted: {sql}");
        }
    }

    #[test]
    fn on_duplicate_key_update_is_parsed_by_sqlparser() {
        let f =
            parse("INSERT INTO t (k, n) VALUES (1, 2) ON DUPLICATE KEY UPDATE n = n + VALUES(n)")
                .unwrap();
        assert_eq!(f.on_duplicate.len(), 1);
        assert_eq!(f.on_duplicate[0].to_string(), "n = n + VALUES(n)");
    }
}
