//! The grammar of the stored-routine statements (design.md "Stored routines"); the body's own
//! grammar is routine_body.rs.
//!
//! ```text
//! CREATE [OR REPLACE] [DEFINER = user] FUNCTION [IF NOT EXISTS] [db.]f ([p type, ...])
//!     RETURNS type [characteristic ...] body
//! CREATE [OR REPLACE] [DEFINER = user] PROCEDURE [IF NOT EXISTS] [db.]p
//!     ([[IN | OUT | INOUT] p type, ...]) [characteristic ...] body
//! characteristic = LANGUAGE SQL | [NOT] DETERMINISTIC | CONTAINS SQL | NO SQL
//!     | READS SQL DATA | MODIFIES SQL DATA | SQL SECURITY {DEFINER | INVOKER} | COMMENT 'text'
//! DROP {FUNCTION | PROCEDURE} [IF EXISTS] [db.]name
//! CALL [db.]p [([arg, ...])]
//! ```
//!
//! Invariants: the parameter list, the RETURNS type and the body are kept as written (what the
//! catalog stores, RTN1) and also parsed here, so a CREATE that is accepted parses again at
//! every call (RTN2); a type's text ends at the first characteristic or body keyword.

use sqlparser::ast;

use crate::catalog::routine_def::{Characteristics, DataAccess, RoutineKind};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::routine_body::{parse_body, parse_expr, sends_result_set, Step};
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, syntax, Cursor, Tok};

/// How a parameter passes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamMode {
    In,
    Out,
    InOut,
}

impl ParamMode {
    pub fn name(self) -> &'static str {
        match self {
            ParamMode::In => "IN",
            ParamMode::Out => "OUT",
            ParamMode::InOut => "INOUT",
        }
    }
}

/// One parameter: its mode, name and type text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub mode: ParamMode,
    pub name: String,
    pub ty: String,
}

/// CREATE FUNCTION / PROCEDURE as written.
#[derive(Debug, Clone)]
pub struct RoutineStmt {
    pub kind: RoutineKind,
    pub name: Vec<String>,
    pub or_replace: bool,
    pub if_not_exists: bool,
    /// DEFINER = user@host (`None`: not given, or CURRENT_USER).
    pub definer: Option<(String, String)>,
    /// The parameter list's text, as written.
    pub params_text: String,
    pub params: Vec<Param>,
    pub returns: Option<String>,
    pub traits: Characteristics,
    /// The body's text, as written.
    pub body_text: String,
    pub body: Vec<Step>,
}

/// Whether `sql` is CREATE [OR REPLACE] [DEFINER = u] FUNCTION / PROCEDURE.
pub fn is_routine_statement(sql: &str) -> bool {
    let mut c = Cursor::new(sql);
    if !c.kw("CREATE") {
        return false;
    }
    c.kws(&["OR", "REPLACE"]);
    if c.kw("DEFINER") {
        c.sym('=');
        if definer_clause(&mut c).is_err() {
            return false;
        }
    }
    // CREATE FUNCTION f RETURNS ... SONAME (a UDF) is not a stored function; MariaDB's own
    // CREATE AGGREGATE FUNCTION is not read either.
    matches!(c.peek_kw(), Some("FUNCTION" | "PROCEDURE"))
}

/// After `CREATE`: a routine's header, up to its body.
fn header(c: &mut Cursor<'_>) -> DbResult<Header> {
    let or_replace = c.kws(&["OR", "REPLACE"]);
    let definer = if c.kw("DEFINER") {
        c.sym('=');
        definer_clause(c)?
    } else {
        None
    };
    let kind = if c.kw("FUNCTION") {
        RoutineKind::Function
    } else if c.kw("PROCEDURE") {
        RoutineKind::Procedure
    } else {
        return Err(syntax(c));
    };
    let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
    if if_not_exists && or_replace {
        return Err(DbError::new(
            ErrorCode::WrongUsage,
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    let name = c.qualified().ok_or_else(|| syntax(c))?;
    if !c.sym('(') {
        return Err(syntax(c));
    }
    let params_text = parenthesized(c)?.trim().to_string();
    let params = parse_params(&params_text, kind)?;
    let returns = match kind {
        RoutineKind::Function => {
            if !c.kw("RETURNS") {
                return Err(syntax(c));
            }
            Some(type_text(c)?)
        }
        RoutineKind::Procedure => None,
    };
    let traits = characteristics(c)?;
    Ok((
        kind,
        or_replace,
        if_not_exists,
        definer,
        name,
        params_text,
        params,
        returns,
        traits,
    ))
}

/// The length of the CREATE FUNCTION / PROCEDURE statement that starts `sql` (its body ends
/// where its one step ends), so a multi-statement text splits after it and not at the `;`s
/// inside its body; `None` when it does not parse.
pub fn statement_len(sql: &str) -> Option<usize> {
    let mut c = Cursor::new(sql);
    if !c.kw("CREATE") {
        return None;
    }
    let h = header(&mut c).ok()?;
    let names: Vec<String> = h.6.iter().map(|p| p.name.clone()).collect();
    let start = c.offset();
    let len =
        crate::parser::routine_body::step_len(&sql[start..], &names, h.0 == RoutineKind::Function)
            .ok()?;
    Some(start + len)
}

/// A routine's header: kind, OR REPLACE, IF NOT EXISTS, DEFINER, name, the parameter list's
/// text and parameters, RETURNS, the characteristics.
type Header = (
    RoutineKind,
    bool,
    bool,
    Option<(String, String)>,
    Vec<String>,
    String,
    Vec<Param>,
    Option<String>,
    Characteristics,
);

/// After `CREATE`: a routine's header and body.
pub fn parse_create(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let (kind, or_replace, if_not_exists, definer, name, params_text, params, returns, traits) =
        header(c)?;
    let body_text = c
        .rest()
        .trim_end()
        .trim_end_matches(';')
        .trim_end()
        .to_string();
    let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    // 1320 names the function as written (MariaDB qualifies an unqualified name with the
    // current database, which the parser does not know)
    let body = parse_body(&body_text, &names, kind == RoutineKind::Function).map_err(|e| {
        if e.code == ErrorCode::SpNoreturn {
            DbError::new(e.code, format!("{} {}", e.message, name.join(".")))
        } else {
            e
        }
    })?;
    if kind == RoutineKind::Function && sends_result_set(&body) {
        return Err(DbError::new(
            ErrorCode::SpNoRetset,
            "Not allowed to return a result set from a function",
        ));
    }
    Ok(Statement::CreateRoutine(Box::new(RoutineStmt {
        kind,
        name,
        or_replace,
        if_not_exists,
        definer,
        params_text,
        params,
        returns,
        traits,
        body_text,
        body,
    })))
}

/// `user@host`, `CURRENT_USER` or `CURRENT_USER()` (None).
fn definer_clause(c: &mut Cursor<'_>) -> DbResult<Option<(String, String)>> {
    if c.kw("CURRENT_USER") {
        if c.sym('(') && !c.sym(')') {
            return Err(syntax(c));
        }
        return Ok(None);
    }
    Ok(Some(c.user().ok_or_else(|| syntax(c))?))
}

/// After `(`: the text up to the matching `)`, which is consumed.
fn parenthesized<'a>(c: &mut Cursor<'a>) -> DbResult<&'a str> {
    let start = c.offset();
    let mut depth = 0;
    loop {
        match c.peek() {
            None => return Err(syntax(c)),
            Some(Tok::Sym('(')) => depth += 1,
            Some(Tok::Sym(')')) if depth == 0 => break,
            Some(Tok::Sym(')')) => depth -= 1,
            _ => {}
        }
        c.pos += 1;
    }
    let text = &c.src[start..c.offset()];
    c.pos += 1;
    Ok(text)
}

/// A parameter list's text (between the parentheses) as parameters.
pub fn parse_params(text: &str, kind: RoutineKind) -> DbResult<Vec<Param>> {
    let mut c = Cursor::new(text);
    let mut out: Vec<Param> = Vec::new();
    while !c.at_end() {
        let mode = if kind == RoutineKind::Function {
            ParamMode::In
        } else if c.kw("INOUT") {
            ParamMode::InOut
        } else if c.kw("OUT") {
            ParamMode::Out
        } else {
            c.kw("IN");
            ParamMode::In
        };
        let name = c.name().ok_or_else(|| syntax(&c))?;
        let ty = c.clause().trim().to_string();
        if ty.is_empty() {
            return Err(syntax(&c));
        }
        if out.iter().any(|p| p.name.eq_ignore_ascii_case(&name)) {
            return Err(DbError::new(
                ErrorCode::SpDupVar,
                format!("Duplicate variable: {name}"),
            ));
        }
        out.push(Param { mode, name, ty });
        if !c.sym(',') {
            expect_end(&c)?;
        }
    }
    Ok(out)
}

/// Words that end a RETURNS type: the characteristics' and the body's first words.
const AFTER_TYPE: &[&str] = &[
    "LANGUAGE",
    "NOT",
    "DETERMINISTIC",
    "CONTAINS",
    "NO",
    "READS",
    "MODIFIES",
    "SQL",
    "COMMENT",
    "RETURN",
    "BEGIN",
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "IF",
    "CASE",
    "WHILE",
    "REPEAT",
    "LOOP",
    "CALL",
    "DO",
    "WITH",
];

/// A RETURNS type's text (SET is the body's unless it follows CHARACTER).
fn type_text(c: &mut Cursor<'_>) -> DbResult<String> {
    let start = c.offset();
    let mut depth = 0;
    let mut first = true;
    while let Some(t) = c.peek() {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            Tok::Word {
                upper,
                quoted: false,
                ..
            } if depth == 0 && !first => {
                let set_of_body = upper == "SET" && c.toks_back(1) != Some("CHARACTER");
                if AFTER_TYPE.contains(&upper.as_str()) || set_of_body {
                    break;
                }
                if c.peek_at(1) == Some(&Tok::Sym(':')) {
                    break;
                }
            }
            _ => {}
        }
        first = false;
        c.pos += 1;
    }
    let text = c.src[start..c.offset()].trim().to_string();
    if text.is_empty() {
        return Err(syntax(c));
    }
    Ok(text)
}

fn characteristics(c: &mut Cursor<'_>) -> DbResult<Characteristics> {
    let mut t = Characteristics::default();
    loop {
        if c.kws(&["LANGUAGE", "SQL"]) {
        } else if c.kws(&["NOT", "DETERMINISTIC"]) {
            t.deterministic = false;
        } else if c.kw("DETERMINISTIC") {
            t.deterministic = true;
        } else if c.kws(&["CONTAINS", "SQL"]) {
            t.access = DataAccess::ContainsSql;
        } else if c.kws(&["NO", "SQL"]) {
            t.access = DataAccess::NoSql;
        } else if c.kws(&["READS", "SQL", "DATA"]) {
            t.access = DataAccess::ReadsSqlData;
        } else if c.kws(&["MODIFIES", "SQL", "DATA"]) {
            t.access = DataAccess::ModifiesSqlData;
        } else if c.kws(&["SQL", "SECURITY"]) {
            t.invoker = match c.name().map(|n| n.to_ascii_uppercase()).as_deref() {
                Some("INVOKER") => true,
                Some("DEFINER") => false,
                _ => return Err(syntax(c)),
            };
        } else if c.kw("COMMENT") {
            t.comment = c.string().ok_or_else(|| syntax(c))?;
        } else {
            return Ok(t);
        }
    }
}

/// After `DROP FUNCTION` / `DROP PROCEDURE`.
pub fn parse_drop(c: &mut Cursor<'_>, kind: RoutineKind) -> DbResult<Statement> {
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let name = c.qualified().ok_or_else(|| syntax(c))?;
    expect_end(c)?;
    Ok(Statement::DropRoutine {
        kind,
        name,
        if_exists,
    })
}

/// After `CALL`: the procedure and its arguments.
pub fn parse_call(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let name = c.qualified().ok_or_else(|| syntax(c))?;
    let mut args = Vec::new();
    if c.sym('(') {
        let inner = parenthesized(c)?;
        let mut ic = Cursor::new(inner);
        while !ic.at_end() {
            let text = ic.clause();
            args.push(parse_expr(text)?);
            if !ic.sym(',') && !ic.at_end() {
                return Err(syntax(&ic));
            }
        }
    }
    expect_end(c)?;
    Ok(Statement::Call { name, args })
}

/// An argument that names a user variable (`@v`), as OUT and INOUT parameters need.
pub fn user_var_of(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Identifier(id) if id.quote_style.is_none() => {
            id.value.strip_prefix('@').map(str::to_string)
        }
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Placeholder(p) => p.strip_prefix('@').map(str::to_string),
            _ => None,
        },
        _ => None,
    }
}

/// The column a parameter, variable or RETURNS type `ty` describes (named `name`), read by the
/// same code as a column of CREATE TABLE (`ty` may carry CHARACTER SET and COLLATE).
pub fn type_column(name: &str, ty: &str) -> DbResult<crate::types::Column> {
    let sql = format!(
        "CREATE TABLE `routine_type` (`{}` {ty})",
        name.replace('`', "``")
    );
    let (ct, extras) = crate::parser::parse_create_table(&sql)?;
    let def = crate::catalog::create_table::table_from_create("", &ct, &extras)?;
    def.columns
        .into_iter()
        .next()
        .ok_or_else(|| DbError::syntax(ty))
}
