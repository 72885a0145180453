//! The `LOAD DATA` statement: its grammar (MySQL 8's, parsed here because sqlparser does not
//! accept it) and [`LoadStmt`], the parsed form (executed by load/).
//!
//! ```text
//! LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file'
//!     [REPLACE | IGNORE] INTO TABLE tbl
//!     [CHARACTER SET utf8mb4 | utf8mb3 | utf8 | latin1 | binary | ascii]
//!     [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
//!     [LINES [STARTING BY 's'] [TERMINATED BY 's']]
//!     [IGNORE n {LINES | ROWS}]
//!     [(col_or_@var, ...)]
//!     [SET col = expr | DEFAULT, ...]
//! ```
//!
//! Invariants: ENCLOSED BY and ESCAPED BY are at most one byte (else 1083, as MySQL); empty
//! FIELDS TERMINATED BY together with empty ENCLOSED BY (MySQL's fixed-width format) is refused
//! with 1235; `@name` references in SET expressions are rewritten to the pseudo-column
//! `` `@name` `` (lower case) so they resolve per line (see `convert.rs`). PARTITION and LOAD XML
//! are refused with 1235.

use sqlparser::ast;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::tokens::{syntax, Cursor, Lexer, Tok};

/// What to do with a row whose key is already present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDuplicate {
    /// Error 1062 (server-side file); LOCAL defaults to `Ignore`, as in MySQL.
    Error,
    Replace,
    Ignore,
}

/// CHARACTER SET of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// utf8mb4 / utf8mb3 / utf8 / ascii: fields must be valid UTF-8 for text columns.
    Utf8,
    /// latin1: every byte is one character (mapped as ISO-8859-1).
    Latin1,
    /// binary: bytes as they are (invalid UTF-8 into a text column is an error, as for utf8).
    Binary,
}

/// FIELDS / LINES options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    pub field_term: Vec<u8>,
    pub enclosed: Option<u8>,
    pub optionally: bool,
    pub escape: Option<u8>,
    pub line_start: Vec<u8>,
    pub line_term: Vec<u8>,
}

impl Default for Format {
    /// MySQL's defaults: tab-separated, no quotes, backslash escapes, newline-terminated.
    fn default() -> Format {
        Format {
            field_term: b"\t".to_vec(),
            enclosed: None,
            optionally: false,
            escape: Some(b'\\'),
            line_start: Vec::new(),
            line_term: b"\n".to_vec(),
        }
    }
}

/// One entry of the column list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Column(String),
    /// A user variable (`@name`, stored lower case without the `@`).
    Var(String),
}

/// A `SET col = ...` assignment.
#[derive(Debug, Clone)]
pub enum SetValue {
    Default,
    Expr(Box<ast::Expr>),
}

#[derive(Debug, Clone)]
pub struct LoadStmt {
    pub local: bool,
    pub file: String,
    pub on_duplicate: OnDuplicate,
    pub table: Vec<String>,
    pub charset: Option<Charset>,
    pub format: Format,
    pub ignore_lines: u64,
    /// Empty: every column in table order.
    pub targets: Vec<Target>,
    pub set: Vec<(String, SetValue)>,
}

/// Whether `sql` is a LOAD statement (LOAD DATA or LOAD XML), from its first two words.
pub fn is_load(sql: &str) -> bool {
    let mut words = Lexer::new(sql).map(|(t, _)| t);
    let mut word = |k: &[&str]| matches!(words.next(), Some(Tok::Word { upper, quoted: false, .. }) if k.contains(&upper.as_str()));
    word(&["LOAD"]) && word(&["DATA", "XML"])
}

fn one_byte(s: &str, what: &str) -> DbResult<Option<u8>> {
    match s.as_bytes() {
        [] => Ok(None),
        [b] => Ok(Some(*b)),
        _ => Err(DbError::new(
            ErrorCode::WrongFieldTerminators,
            format!("Field separator argument is not what is expected; check the manual ({what} takes one character)"),
        )),
    }
}

fn charset(name: &str) -> DbResult<Charset> {
    match name.to_ascii_lowercase().as_str() {
        "utf8mb4" | "utf8mb3" | "utf8" | "ascii" | "default" => Ok(Charset::Utf8),
        "latin1" => Ok(Charset::Latin1),
        "binary" => Ok(Charset::Binary),
        other => Err(DbError::new(
            ErrorCode::UnknownCharacterSet,
            format!("Unknown character set: '{other}'"),
        )),
    }
}

/// Parses a LOAD DATA statement.
pub fn parse(sql: &str) -> DbResult<LoadStmt> {
    let mut c = Cursor::new(sql);
    if !c.kw("LOAD") {
        return Err(syntax(&c));
    }
    if c.kw("XML") {
        return Err(DbError::unsupported("LOAD XML"));
    }
    if !c.kw("DATA") {
        return Err(syntax(&c));
    }
    let _ = c.kw("LOW_PRIORITY") || c.kw("CONCURRENT");
    let local = c.kw("LOCAL");
    if !c.kw("INFILE") {
        return Err(syntax(&c));
    }
    let file = c.string().ok_or_else(|| syntax(&c))?;
    let mut on_duplicate = if c.kw("REPLACE") {
        OnDuplicate::Replace
    } else if c.kw("IGNORE") {
        OnDuplicate::Ignore
    } else {
        OnDuplicate::Error
    };
    if on_duplicate == OnDuplicate::Error && local {
        // MySQL: the server cannot stop the client's transfer, so LOCAL implies IGNORE.
        on_duplicate = OnDuplicate::Ignore;
    }
    if !c.kws(&["INTO", "TABLE"]) {
        return Err(syntax(&c));
    }
    let table = c.qualified().ok_or_else(|| syntax(&c))?;
    if c.kw("PARTITION") {
        return Err(DbError::unsupported("LOAD DATA ... PARTITION"));
    }
    let mut stmt = LoadStmt {
        local,
        file,
        on_duplicate,
        table,
        charset: None,
        format: Format::default(),
        ignore_lines: 0,
        targets: Vec::new(),
        set: Vec::new(),
    };
    if c.kws(&["CHARACTER", "SET"]) || c.kw("CHARSET") {
        let name = c.name().ok_or_else(|| syntax(&c))?;
        stmt.charset = Some(charset(&name)?);
    }
    if c.kw("FIELDS") || c.kw("COLUMNS") {
        let mut any = false;
        loop {
            if c.kws(&["TERMINATED", "BY"]) {
                stmt.format.field_term = c.string().ok_or_else(|| syntax(&c))?.into_bytes();
            } else if c.kws(&["OPTIONALLY", "ENCLOSED", "BY"]) {
                stmt.format.optionally = true;
                let s = c.string().ok_or_else(|| syntax(&c))?;
                stmt.format.enclosed = one_byte(&s, "ENCLOSED BY")?;
            } else if c.kws(&["ENCLOSED", "BY"]) {
                let s = c.string().ok_or_else(|| syntax(&c))?;
                stmt.format.enclosed = one_byte(&s, "ENCLOSED BY")?;
            } else if c.kws(&["ESCAPED", "BY"]) {
                let s = c.string().ok_or_else(|| syntax(&c))?;
                stmt.format.escape = one_byte(&s, "ESCAPED BY")?;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(syntax(&c));
        }
    }
    if c.kw("LINES") {
        let mut any = false;
        loop {
            if c.kws(&["STARTING", "BY"]) {
                stmt.format.line_start = c.string().ok_or_else(|| syntax(&c))?.into_bytes();
            } else if c.kws(&["TERMINATED", "BY"]) {
                stmt.format.line_term = c.string().ok_or_else(|| syntax(&c))?.into_bytes();
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(syntax(&c));
        }
    }
    if c.kw("IGNORE") {
        let n = match c.peek().cloned() {
            Some(Tok::Num(n)) => n.parse::<u64>().map_err(|_| syntax(&c))?,
            _ => return Err(syntax(&c)),
        };
        c.pos += 1;
        if !(c.kw("LINES") || c.kw("ROWS")) {
            return Err(syntax(&c));
        }
        stmt.ignore_lines = n;
    }
    if c.sym('(') && !c.sym(')') {
        loop {
            let tok = c.peek().cloned();
            let name = c.name().ok_or_else(|| syntax(&c))?;
            let quoted = matches!(tok, Some(Tok::Word { quoted: true, .. }));
            stmt.targets.push(match name.strip_prefix('@') {
                Some(v) if !quoted && !v.is_empty() => Target::Var(v.to_ascii_lowercase()),
                _ => Target::Column(name),
            });
            if c.sym(')') {
                break;
            }
            if !c.sym(',') {
                return Err(syntax(&c));
            }
        }
    }
    if c.kw("SET") {
        stmt.set = parse_set(c.rest())?;
    } else if !c.at_end() {
        return Err(syntax(&c));
    }
    if stmt.format.field_term.is_empty() && stmt.format.enclosed.is_none() {
        return Err(DbError::unsupported(
            "LOAD DATA with empty FIELDS TERMINATED BY and ENCLOSED BY (fixed-width rows)",
        ));
    }
    if stmt.format.line_term.is_empty() {
        return Err(DbError::unsupported(
            "LOAD DATA with empty LINES TERMINATED BY",
        ));
    }
    Ok(stmt)
}

/// The assignments of the SET clause, parsed by sqlparser as those of an UPDATE.
fn parse_set(text: &str) -> DbResult<Vec<(String, SetValue)>> {
    let sql = format!("UPDATE t SET {}", vars_to_columns(text));
    let stmts = crate::parser::parse(&sql)?;
    let Some(ast::Statement::Update(u)) = stmts.first() else {
        return Err(DbError::syntax(text));
    };
    let mut out = Vec::new();
    for a in &u.assignments {
        let name = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => crate::expr::object_name_parts(n)
                .last()
                .cloned()
                .unwrap_or_default(),
            _ => return Err(DbError::unsupported("tuple assignment in LOAD DATA SET")),
        };
        let v = match &a.value {
            ast::Expr::Identifier(i)
                if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT") =>
            {
                SetValue::Default
            }
            e => SetValue::Expr(Box::new(e.clone())),
        };
        out.push((name, v));
    }
    Ok(out)
}

/// Rewrites user variables `@name` (not `@@system`) outside quotes to `` `@name` `` (lower case).
pub fn vars_to_columns(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    let mut quote: Option<char> = None;
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    while i < b.len() {
        let ch = b[i];
        if let Some(q) = quote {
            out.push(ch);
            if ch == '\\' && q != '`' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if ch == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match ch {
            '\'' | '"' | '`' => {
                quote = Some(ch);
                out.push(ch);
                i += 1;
            }
            '@' if b.get(i + 1) == Some(&'@') => {
                out.push_str("@@");
                i += 2;
                while i < b.len() && word(b[i]) {
                    out.push(b[i]);
                    i += 1;
                }
            }
            '@' if b.get(i + 1).is_some_and(|c| word(*c)) => {
                let st = i + 1;
                i += 1;
                while i < b.len() && word(b[i]) {
                    i += 1;
                }
                let name: String = b[st..i].iter().collect();
                out.push_str(&format!("`@{}`", name.to_ascii_lowercase()));
            }
            _ => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_statement() {
        let s = parse(
            "LOAD DATA LOCAL INFILE '/tmp/x.csv' REPLACE INTO TABLE db.t CHARACTER SET latin1 \
             FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' \
             LINES STARTING BY 'xx' TERMINATED BY '\\r\\n' IGNORE 2 LINES (a, @v, `b`) \
             SET c = @v * 2, d = DEFAULT",
        )
        .unwrap();
        assert!(s.local);
        assert_eq!(s.file, "/tmp/x.csv");
        assert_eq!(s.on_duplicate, OnDuplicate::Replace);
        assert_eq!(s.table, vec!["db".to_string(), "t".to_string()]);
        assert_eq!(s.charset, Some(Charset::Latin1));
        assert_eq!(s.format.field_term, b",");
        assert_eq!(s.format.enclosed, Some(b'"'));
        assert!(s.format.optionally);
        assert_eq!(s.format.escape, Some(b'\\'));
        assert_eq!(s.format.line_start, b"xx");
        assert_eq!(s.format.line_term, b"\r\n");
        assert_eq!(s.ignore_lines, 2);
        assert_eq!(
            s.targets,
            vec![
                Target::Column("a".into()),
                Target::Var("v".into()),
                Target::Column("b".into())
            ]
        );
        assert_eq!(s.set.len(), 2);
        assert!(matches!(&s.set[0], (n, SetValue::Expr(_)) if n == "c"));
        assert!(matches!(&s.set[1], (n, SetValue::Default) if n == "d"));
    }

    #[test]
    fn defaults_and_local_implies_ignore() {
        let s = parse("load data local infile 'f' into table t").unwrap();
        assert_eq!(s.on_duplicate, OnDuplicate::Ignore);
        assert_eq!(s.format, Format::default());
        let s = parse("LOAD DATA INFILE 'f' INTO TABLE t").unwrap();
        assert_eq!(s.on_duplicate, OnDuplicate::Error);
        assert!(is_load("  load data infile 'x' into table t"));
        assert!(!is_load("loaded"));
    }

    #[test]
    fn bad_statements() {
        assert_eq!(
            parse("LOAD DATA INFILE 'f' INTO TABLE t FIELDS ENCLOSED BY 'ab'")
                .unwrap_err()
                .code,
            ErrorCode::WrongFieldTerminators
        );
        assert_eq!(
            parse("LOAD DATA INFILE 'f' INTO TABLE t CHARACTER SET klingon")
                .unwrap_err()
                .code,
            ErrorCode::UnknownCharacterSet
        );
        assert_eq!(
            parse("LOAD DATA INFILE INTO TABLE t").unwrap_err().code,
            ErrorCode::ParseError
        );
        assert_eq!(
            parse("LOAD DATA INFILE 'f' INTO TABLE t IGNORE x LINES")
                .unwrap_err()
                .code,
            ErrorCode::ParseError
        );
        assert_eq!(
            parse("LOAD XML INFILE 'f' INTO TABLE t").unwrap_err().code,
            ErrorCode::NotSupportedYet
        );
        assert_eq!(
            parse("LOAD DATA INFILE 'f' INTO TABLE t FIELDS TERMINATED BY ''")
                .unwrap_err()
                .code,
            ErrorCode::NotSupportedYet
        );
    }

    #[test]
    fn variables_become_pseudo_columns() {
        assert_eq!(
            vars_to_columns("a = @X + @@sql_mode, b = '@y'"),
            "a = `@x` + @@sql_mode, b = '@y'"
        );
    }
}
