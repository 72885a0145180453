//! Generated columns ([`GeneratedDef`]): `col type [GENERATED ALWAYS] AS (expr) [VIRTUAL |
//! PERSISTENT | STORED]`, read from CREATE TABLE, shown again by SHOW CREATE TABLE (so stored
//! with the table's text, in MariaDB's printed form: expr_print.rs) and compiled once against
//! the table's columns for the writers that compute them (exec/dml/generated.rs).
//!
//! Invariants (design.md GEN1-GEN3): the expression reads only the row: no variables, no
//! subqueries, no aggregates and no function whose value depends on anything but its
//! arguments ([`check_expression`] refuses them with 1901, for VIRTUAL columns too, since
//! Betula stores every generated value); it reads no generated column at or after its own
//! (4029), so computing the columns in column order sees every value it reads; a STORED column
//! does not read the AUTO_INCREMENT column (1901, as MariaDB).

use std::sync::{Arc, OnceLock};

use sqlparser::ast;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{Expr, Scope};
use crate::types::Column;

/// Where error 1054 says an unknown column was read.
pub const GENERATED_PLACE: &str = "GENERATED ALWAYS AS";

/// How a generated column is kept.
#[derive(Clone, Debug)]
pub struct GeneratedDef {
    /// The expression as SHOW CREATE TABLE prints it.
    pub text: String,
    /// STORED / PERSISTENT (shown `STORED`); VIRTUAL otherwise.
    pub stored: bool,
    /// The compiled expression, made on first use.
    compiled: Arc<OnceLock<Expr>>,
}

impl GeneratedDef {
    pub fn new(expr: &ast::Expr, stored: bool) -> GeneratedDef {
        GeneratedDef {
            text: crate::catalog::expr_print::mariadb_text(expr),
            stored,
            compiled: Arc::default(),
        }
    }

    /// ` GENERATED ALWAYS AS (e) VIRTUAL` / `STORED`, as SHOW CREATE TABLE ends the column's type.
    pub fn clause(&self) -> String {
        let kind = if self.stored { "STORED" } else { "VIRTUAL" };
        format!(" GENERATED ALWAYS AS ({}) {kind}", self.text)
    }

    /// information_schema.COLUMNS' and SHOW COLUMNS' EXTRA.
    pub fn extra(&self) -> &'static str {
        if self.stored {
            "STORED GENERATED"
        } else {
            "VIRTUAL GENERATED"
        }
    }

    /// The expression compiled against the table's columns (`scope` makes them), compiled once.
    pub fn expr(&self, scope: impl FnOnce() -> Scope) -> DbResult<&Expr> {
        if let Some(e) = self.compiled.get() {
            return Ok(e);
        }
        let e = compile(&self.text, &scope())?;
        Ok(self.compiled.get_or_init(|| e))
    }
}

/// The generated column option of a column definition: the expression and whether it is stored.
pub fn generated_option(cd: &ast::ColumnDef) -> Option<(&ast::Expr, bool)> {
    cd.options.iter().find_map(|o| match &o.option {
        ast::ColumnOption::Generated {
            generation_expr: Some(e),
            generation_expr_mode,
            ..
        } => Some((
            e,
            *generation_expr_mode == Some(ast::GeneratedExpressionMode::Stored),
        )),
        _ => None,
    })
}

/// A generated column takes no NULL / NOT NULL, DEFAULT, AUTO_INCREMENT or PRIMARY KEY: MariaDB's
/// grammar refuses them (1064).
pub fn refuse_options(cd: &ast::ColumnDef) -> DbResult<()> {
    for o in &cd.options {
        let refused = match &o.option {
            ast::ColumnOption::Null | ast::ColumnOption::NotNull => Some("NULL"),
            ast::ColumnOption::Default(_) => Some("DEFAULT"),
            ast::ColumnOption::PrimaryKey(_) => Some("PRIMARY KEY"),
            ast::ColumnOption::DialectSpecific(toks)
                if toks
                    .iter()
                    .any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
            {
                Some("AUTO_INCREMENT")
            }
            _ => None,
        };
        if let Some(near) = refused {
            return Err(DbError::syntax(near));
        }
    }
    Ok(())
}

/// Compiles the printed expression: MariaDB's infix `MOD` is read as `%` (sqlparser does not
/// know it), and the whole text must be the expression.
fn compile(text: &str, scope: &Scope) -> DbResult<Expr> {
    let mut readable = String::with_capacity(text.len());
    let mut from = 0;
    for (tok, at) in lex(text) {
        if let Tok::Word {
            upper,
            quoted: false,
            ..
        } = &tok
        {
            if upper == "MOD" && !text[at + 3..].trim_start().starts_with('(') {
                readable.push_str(&text[from..at]);
                readable.push('%');
                from = at + 3;
            }
        }
    }
    readable.push_str(&text[from..]);
    let mut parser = sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
        .try_with_sql(&readable)
        .map_err(|e| DbError::syntax(e.to_string()))?;
    let ast = parser
        .parse_expr()
        .map_err(|e| DbError::syntax(e.to_string()))?;
    if parser.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return Err(DbError::syntax(text));
    }
    crate::expr::compile_standalone(scope, &ast, GENERATED_PLACE)
}

/// Functions whose value depends on more than their arguments (or that act), by the name
/// MariaDB's 1901 message gives them.
const NOT_ALLOWED: &[(&str, &str)] = &[
    ("RAND", "rand"),
    ("NOW", "current_timestamp"),
    ("CURRENT_TIMESTAMP", "current_timestamp"),
    ("LOCALTIME", "current_timestamp"),
    ("LOCALTIMESTAMP", "current_timestamp"),
    ("CURDATE", "curdate"),
    ("CURRENT_DATE", "curdate"),
    ("CURTIME", "curtime"),
    ("CURRENT_TIME", "curtime"),
    ("SYSDATE", "sysdate"),
    ("UTC_TIMESTAMP", "utc_timestamp"),
    ("UTC_DATE", "utc_date"),
    ("UTC_TIME", "utc_time"),
    ("UUID", "uuid"),
    ("UUID_SHORT", "uuid_short"),
    ("CONNECTION_ID", "connection_id"),
    ("LAST_INSERT_ID", "last_insert_id"),
    ("ROW_COUNT", "row_count"),
    ("FOUND_ROWS", "found_rows"),
    ("USER", "user"),
    ("SESSION_USER", "user"),
    ("SYSTEM_USER", "user"),
    ("CURRENT_USER", "current_user"),
    ("CURRENT_ROLE", "current_role"),
    ("DATABASE", "database"),
    ("SCHEMA", "database"),
    ("VERSION", "version"),
    ("BENCHMARK", "benchmark"),
    ("SLEEP", "sleep"),
    ("GET_LOCK", "get_lock"),
    ("RELEASE_LOCK", "release_lock"),
    ("IS_FREE_LOCK", "is_free_lock"),
    ("IS_USED_LOCK", "is_used_lock"),
    ("LOAD_FILE", "load_file"),
    ("MASTER_POS_WAIT", "master_pos_wait"),
    ("FROM_UNIXTIME", "from_unixtime"),
    ("DATE_FORMAT", "date_format"),
    ("NEXTVAL", "nextval"),
    ("LASTVAL", "lastval"),
    ("SETVAL", "setval"),
    ("COUNT", "count"),
    ("SUM", "sum"),
    ("AVG", "avg"),
    ("MIN", "min"),
    ("MAX", "max"),
    ("GROUP_CONCAT", "group_concat"),
    ("STD", "std"),
    ("STDDEV", "std"),
    ("STDDEV_POP", "std"),
    ("STDDEV_SAMP", "stddev_samp"),
    ("VARIANCE", "variance"),
    ("VAR_POP", "variance"),
    ("VAR_SAMP", "var_samp"),
    ("BIT_AND", "bit_and"),
    ("BIT_OR", "bit_or"),
    ("BIT_XOR", "bit_xor"),
];

/// Functions written without parentheses that are calls all the same.
const NILADIC: &[&str] = &[
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_USER",
    "CURRENT_ROLE",
    "UTC_TIMESTAMP",
    "UTC_DATE",
    "UTC_TIME",
];

fn not_allowed(what: &str, column: &str) -> DbError {
    DbError::new(
        ErrorCode::GeneratedColumnFunctionIsNotAllowed,
        format!(
            "Function or expression '{what}' cannot be used in the GENERATED ALWAYS AS clause of `{column}`"
        ),
    )
}

/// A token of an expression's text, as far as [`check_expression`] needs to tell them apart.
#[derive(Debug, PartialEq)]
enum Tok {
    /// A name or keyword: its text, and whether it was in backquotes.
    Word {
        text: String,
        upper: String,
        quoted: bool,
    },
    /// A string or number literal.
    Lit,
    Sym(char),
}

/// The tokens of `text` (sqlparser's printing of an expression) with their byte offsets.
fn lex(text: &str) -> Vec<(Tok, usize)> {
    let mut out = Vec::new();
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    let ch = |i: usize| cs.get(i).map(|&(_, c)| c);
    let mut i = 0;
    while let Some(c) = ch(i) {
        let (start, begin) = (cs[i].0, i);
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' || c == '"' {
            i += 1;
            while ch(i).is_some_and(|x| x != c) {
                i += if ch(i) == Some('\\') { 2 } else { 1 };
            }
            i += 1;
            out.push((Tok::Lit, start));
        } else if c == '`' {
            let mut name = String::new();
            i += 1;
            while let Some(x) = ch(i) {
                if x == '`' && ch(i + 1) != Some('`') {
                    break;
                }
                if x == '`' {
                    i += 1;
                }
                name.push(x);
                i += 1;
            }
            i += 1;
            let upper = name.to_ascii_uppercase();
            out.push((
                Tok::Word {
                    text: name,
                    upper,
                    quoted: true,
                },
                start,
            ));
        } else if c.is_ascii_digit() {
            while ch(i).is_some_and(|x| x.is_alphanumeric() || x == '.') {
                i += 1;
            }
            out.push((Tok::Lit, start));
        } else if c.is_alphanumeric() || matches!(c, '_' | '$' | '@') {
            while ch(i).is_some_and(|x| x.is_alphanumeric() || matches!(x, '_' | '$' | '@')) {
                i += 1;
            }
            let w: String = cs[begin..i].iter().map(|&(_, c)| c).collect();
            let upper = w.to_ascii_uppercase();
            out.push((
                Tok::Word {
                    text: w,
                    upper,
                    quoted: false,
                },
                start,
            ));
        } else {
            i += 1;
            out.push((Tok::Sym(c), start));
        }
    }
    out
}

/// Checks the expression `text` of generated column `i` (`stored` or not) of `columns` (the
/// table's, in order; `generated[j]` says whether column j is generated): 1901 for what it may
/// not use, 4029 for a generated column at or after `i`. `text` is the expression as written
/// (sqlparser's printing keeps `@v` and unquoted names as they were).
pub fn check_expression(
    text: &str,
    i: usize,
    stored: bool,
    columns: &[Column],
    generated: &[bool],
) -> DbResult<()> {
    let name = &columns[i].name;
    let toks = lex(text);
    for (k, (tok, _)) in toks.iter().enumerate() {
        let Tok::Word {
            text: w,
            upper,
            quoted,
        } = tok
        else {
            continue;
        };
        let call = matches!(toks.get(k + 1), Some((Tok::Sym('('), _)));
        let after_dot = k > 0 && matches!(toks[k - 1].0, Tok::Sym('.'));
        if !quoted {
            if let Some(var) = upper.strip_prefix("@@") {
                let var = match (var, toks.get(k + 2)) {
                    ("SESSION" | "GLOBAL" | "LOCAL", Some((Tok::Word { text, .. }, _)))
                        if matches!(toks.get(k + 1), Some((Tok::Sym('.'), _))) =>
                    {
                        text.clone()
                    }
                    _ => w[2..].to_string(),
                };
                return Err(not_allowed(&format!("@@{var}"), name));
            }
            if w.starts_with('@') {
                return Err(not_allowed(w, name));
            }
            if upper == "SELECT" {
                return Err(not_allowed("select ...", name));
            }
            let zero_args = matches!(toks.get(k + 2), Some((Tok::Sym(')'), _)));
            if call && upper == "UNIX_TIMESTAMP" && zero_args {
                return Err(not_allowed("unix_timestamp()", name));
            }
            if call || NILADIC.contains(&upper.as_str()) {
                if let Some((_, shown)) = NOT_ALLOWED.iter().find(|(f, _)| f == upper) {
                    return Err(not_allowed(&format!("{shown}()"), name));
                }
                if call {
                    continue;
                }
            }
        }
        if after_dot || call {
            continue;
        }
        let Some(j) = columns.iter().position(|c| c.name.eq_ignore_ascii_case(w)) else {
            continue;
        };
        if j >= i && generated[j] {
            return Err(DbError::new(
                ErrorCode::ExpressionRefersToUninitField,
                format!(
                    "Expression for field `{name}` is referring to uninitialized field `{}`",
                    columns[j].name
                ),
            ));
        }
        if stored && columns[j].auto_increment {
            return Err(not_allowed("AUTO_INCREMENT", &columns[j].name));
        }
    }
    Ok(())
}
