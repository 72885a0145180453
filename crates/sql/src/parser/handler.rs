//! The grammar of HANDLER statements (executed by exec/handler.rs):
//!
//! ```text
//! HANDLER t OPEN [[AS] alias]
//! HANDLER h READ {FIRST | NEXT} [WHERE ...] [LIMIT ...]
//! HANDLER h READ key {FIRST | NEXT | PREV | LAST} [WHERE ...] [LIMIT ...]
//! HANDLER h READ key {= | >= | <= | > | <} (v, ...) [WHERE ...] [LIMIT ...]
//! HANDLER h CLOSE
//! ```
//!
//! Invariants: the key values and the WHERE / LIMIT tail are read by sqlparser (as a select
//! list and as the tail of `SELECT 1 FROM dual`), so they are expressions as anywhere else;
//! PREV and LAST need a key.

use sqlparser::ast;

use crate::error::db_error::{DbError, DbResult};
use crate::parser::tokens::{lex, Cursor, Tok};

/// One HANDLER statement.
#[derive(Debug, Clone)]
pub enum HandlerStmt {
    Open {
        table: Vec<String>,
        alias: Option<String>,
    },
    Close {
        alias: String,
    },
    Read {
        alias: String,
        /// The key read (`None`: natural order).
        key: Option<String>,
        dir: Dir,
        /// `SELECT 1 FROM dual [WHERE ...] [LIMIT ...]` holding the statement's tail (its body
        /// is a SELECT).
        tail: Option<Box<ast::Query>>,
    },
}

/// Where a READ goes.
#[derive(Debug, Clone)]
pub enum Dir {
    First,
    Last,
    Next,
    Prev,
    /// A comparison with key values.
    Cmp(String, Vec<ast::Expr>),
}

/// Parses a HANDLER statement.
pub fn parse(sql: &str) -> DbResult<HandlerStmt> {
    let mut c = Cursor::new(sql);
    c.kw("HANDLER");
    let name = c.qualified().ok_or_else(|| DbError::syntax(c.rest()))?;
    if c.kw("OPEN") {
        c.kw("AS");
        let alias = c.name();
        if !c.at_end() && !c.sym(';') {
            return Err(DbError::syntax(c.rest()));
        }
        return Ok(HandlerStmt::Open { table: name, alias });
    }
    let alias = name.last().cloned().unwrap_or_default();
    if c.kw("CLOSE") {
        return Ok(HandlerStmt::Close { alias });
    }
    if !c.kw("READ") {
        return Err(DbError::syntax(c.rest()));
    }
    // `READ FIRST|NEXT` (natural order) or `READ key ...`.
    let natural = matches!(c.peek_kw(), Some("FIRST" | "NEXT"));
    let key = if natural {
        None
    } else {
        Some(c.name().ok_or_else(|| DbError::syntax(c.rest()))?)
    };
    let dir = if c.kw("FIRST") {
        Dir::First
    } else if c.kw("LAST") && key.is_some() {
        Dir::Last
    } else if c.kw("NEXT") {
        Dir::Next
    } else if c.kw("PREV") && key.is_some() {
        Dir::Prev
    } else if key.is_some() {
        let mut op = String::new();
        while let Some(Tok::Sym(s @ ('=' | '<' | '>'))) = c.peek().cloned() {
            op.push(s);
            c.sym(s);
        }
        if !matches!(op.as_str(), "=" | ">=" | "<=" | ">" | "<") {
            return Err(DbError::syntax(c.rest()));
        }
        Dir::Cmp(op, values(&mut c)?)
    } else {
        return Err(DbError::syntax(c.rest()));
    };
    Ok(HandlerStmt::Read {
        alias,
        key,
        dir,
        tail: tail(c.rest())?,
    })
}

/// `(v, ...)` after a comparison.
fn values(c: &mut Cursor<'_>) -> DbResult<Vec<ast::Expr>> {
    let rest = c.rest();
    let toks = lex(rest);
    let mut depth = 0;
    let mut end = None;
    for (t, off) in &toks {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => {
                depth -= 1;
                if depth == 0 {
                    end = Some(off + 1);
                    break;
                }
            }
            _ => {}
        }
    }
    let end = end.ok_or_else(|| DbError::syntax(rest))?;
    let inner = rest[..end]
        .trim()
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .ok_or_else(|| DbError::syntax(rest))?;
    let q = match crate::parser::parse(&format!("SELECT {inner}"))?
        .into_iter()
        .next()
    {
        Some(ast::Statement::Query(q)) => q,
        _ => return Err(DbError::syntax(inner)),
    };
    let ast::SetExpr::Select(s) = *q.body else {
        return Err(DbError::syntax(inner));
    };
    let mut out = Vec::new();
    for item in s.projection {
        match item {
            ast::SelectItem::UnnamedExpr(e) => out.push(e),
            _ => return Err(DbError::syntax(inner)),
        }
    }
    // Move the cursor past the list.
    while !c.at_end() && c.rest().len() > rest.len() - end {
        c.pos += 1;
    }
    Ok(out)
}

/// `[WHERE expr] [LIMIT [offset,] n]` as the tail of a query (`None`: no tail).
fn tail(rest: &str) -> DbResult<Option<Box<ast::Query>>> {
    let rest = rest.trim().trim_end_matches(';');
    if rest.trim().is_empty() {
        return Ok(None);
    }
    match crate::parser::parse(&format!("SELECT 1 FROM dual {rest}"))?
        .into_iter()
        .next()
    {
        Some(ast::Statement::Query(q)) if matches!(*q.body, ast::SetExpr::Select(_)) => Ok(Some(q)),
        _ => Err(DbError::syntax(rest)),
    }
}
