//! A stored function called in an expression, expanded in place (design.md RTN6): the body's
//! `RETURN expr` with each parameter replaced by its argument converted to the parameter's type,
//! the whole converted to the RETURNS type, compiled as if the caller had written it.
//!
//! Invariants: the expansion is text handed to the one expression grammar (the body's stored text
//! was parsed at CREATE, RTN2); a parameter name is replaced only where it is a whole name (not
//! after or before a `.`, not a function's name); a function being expanded is on
//! [`Context::routine_stack`] until its expansion is compiled, so meeting it again is 1424; a body
//! other than one RETURN is refused (1235), as is a function of another database whose body reads
//! tables (its names would resolve in the caller's database), as is a call whose argument names a
//! column the body's own tables could capture ([`may_capture`]: it would be compared with the
//! body's row, not the caller's).

use sqlparser::ast;

use crate::catalog::routine_def::{RoutineDef, RoutineKind};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::routine_body::{parse_body, parse_expr, Step};
use crate::parser::routines::{parse_params, type_column};
use crate::parser::tokens::{Lexer, Tok};
use crate::types::SqlType;

/// The expansion of a call of stored function `db.name` (the current database's when `db` is
/// `None`), or `None` when there is no such function. On success the function is pushed on
/// the routine stack: the compiler pops it once the expansion is compiled.
pub fn expand(
    cx: &mut Context,
    db: Option<&str>,
    name: &str,
    args: &[ast::Expr],
) -> Option<DbResult<ast::Expr>> {
    let db = db.map(str::to_string).or_else(|| cx.db.clone())?;
    let def = cx
        .engine
        .catalog
        .routine(&db, RoutineKind::Function, name)?;
    let r = expansion(cx, &def, args);
    if r.is_ok() {
        cx.routine_stack.push((
            RoutineKind::Function,
            def.db.clone(),
            def.name.to_lowercase(),
        ));
    }
    Some(r)
}

fn expansion(cx: &Context, def: &RoutineDef, args: &[ast::Expr]) -> DbResult<ast::Expr> {
    let lower = def.name.to_lowercase();
    if cx
        .routine_stack
        .iter()
        .any(|(k, d, n)| *k == RoutineKind::Function && *d == def.db && *n == lower)
    {
        return Err(DbError::new(
            ErrorCode::SpNoRecursion,
            "Recursive stored functions and triggers are not allowed",
        ));
    }
    let params = parse_params(&def.params, RoutineKind::Function)?;
    if params.len() != args.len() {
        return Err(DbError::new(
            ErrorCode::SpWrongNoOfArgs,
            format!(
                "Incorrect number of arguments for FUNCTION {}.{}; expected {}, got {}",
                def.db,
                def.name,
                params.len(),
                args.len()
            ),
        ));
    }
    let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    let body = parse_body(&def.body, &names, true)?;
    let Some(ret) = single_return(&body) else {
        return Err(DbError::unsupported(
            "a stored function whose body is not one RETURN, in an expression",
        ));
    };
    let text = ret.to_string();
    if cx.db.as_deref() != Some(def.db.as_str()) && text.to_ascii_uppercase().contains("SELECT") {
        return Err(DbError::unsupported(
            "a stored function of another database that reads tables",
        ));
    }
    if args.iter().any(|a| may_capture(cx, &text, &a.to_string())) {
        return Err(DbError::unsupported(
            "a stored function reading a table that has a column named as in its argument",
        ));
    }
    let mut replacements = Vec::with_capacity(params.len());
    for (p, a) in params.iter().zip(args) {
        let target = cast_target(&type_column(&p.name, &p.ty)?.sql_type);
        replacements.push((p.name.to_lowercase(), converted(&a.to_string(), target)));
    }
    let body_text = substitute(&text, &replacements);
    let returns = def.returns.as_deref().unwrap_or("");
    let target = cast_target(&type_column("return", returns)?.sql_type);
    parse_expr(&converted(&body_text, target))
}

/// Whether a name in argument `arg`, put in place of a parameter in `body` (a RETURN that reads
/// tables), could resolve to one of the body's own tables instead of the caller's (`f(id)` with
/// `(SELECT ... FROM t1 WHERE t1.id = p)` would compare t1.id with itself): a name of the
/// argument is a word of the body (an alias, a table, a column), a column of a table the body
/// names, or the body names a view. Over-approximates: a false alarm only refuses the call.
fn may_capture(cx: &Context, body: &str, arg: &str) -> bool {
    if !body.to_ascii_uppercase().contains("SELECT") {
        return false;
    }
    let words = |t: &str| -> Vec<String> {
        let toks = crate::parser::tokens::lex(t);
        toks.iter()
            .enumerate()
            .filter_map(|(i, (tok, _))| match tok {
                Tok::Word { text, .. } if !matches!(toks.get(i + 1), Some((Tok::Sym('('), _))) => {
                    Some(text.to_lowercase())
                }
                _ => None,
            })
            .collect()
    };
    let names = words(arg);
    if names.is_empty() {
        return false;
    }
    let body_words = words(body);
    if names.iter().any(|n| body_words.contains(n)) {
        return true;
    }
    let db = cx.db.clone().unwrap_or_default();
    if body_words
        .iter()
        .any(|w| cx.engine.catalog.view(&db, w).is_some())
    {
        return true;
    }
    cx.engine.catalog.all_tables().iter().any(|t| {
        body_words.contains(&t.name.to_lowercase())
            && t.columns
                .iter()
                .any(|c| names.contains(&c.name.to_lowercase()))
    })
}

/// The expression of a body that is one RETURN (alone, or the only step of BEGIN ... END).
fn single_return(steps: &[Step]) -> Option<&ast::Expr> {
    match steps {
        [Step::Return(e)] => Some(e),
        [Step::Block { steps, .. }] => single_return(steps),
        _ => None,
    }
}

/// `text` converted by CAST to `target` (as it is when there is no CAST for the type).
fn converted(text: &str, target: Option<String>) -> String {
    match target {
        Some(t) => format!("CAST(({text}) AS {t})"),
        None => format!("({text})"),
    }
}

/// The CAST type that converts a value to a column of `ty`, where there is one.
fn cast_target(ty: &SqlType) -> Option<String> {
    Some(match *ty {
        SqlType::Int {
            unsigned: false, ..
        } => "SIGNED".into(),
        SqlType::Int { unsigned: true, .. } => "UNSIGNED".into(),
        SqlType::Decimal {
            precision, scale, ..
        } => format!("DECIMAL({precision},{scale})"),
        SqlType::Float { .. } | SqlType::Double { .. } => "DOUBLE".into(),
        SqlType::Char { len } | SqlType::VarChar { len } => format!("CHAR({len})"),
        SqlType::Text(_) => "CHAR".into(),
        SqlType::Date => "DATE".into(),
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => format!("DATETIME({fsp})"),
        SqlType::Time { fsp } => format!("TIME({fsp})"),
        _ => return None,
    })
}

/// `text` with every whole name of `replacements` replaced by its text.
fn substitute(text: &str, replacements: &[(String, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lexer = Lexer::new(text);
    let mut from = 0;
    while let Some((tok, at)) = lexer.next() {
        let end = lexer.offset();
        let Tok::Word { text: word, .. } = &tok else {
            continue;
        };
        let before = text[..at].trim_end().ends_with('.');
        let after = text[end..].trim_start();
        if before || after.starts_with('.') || after.starts_with('(') {
            continue;
        }
        let lower = word.to_lowercase();
        if let Some((_, r)) = replacements.iter().find(|(n, _)| *n == lower) {
            out.push_str(&text[from..at]);
            out.push_str(r);
            from = end;
        }
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_replaced_only_as_whole_names() {
        let r = vec![("x".to_string(), "CAST((5) AS SIGNED)".to_string())];
        assert_eq!(
            substitute("x + t.x + X * x(1) + `x` + 'x'", &r),
            "CAST((5) AS SIGNED) + t.x + CAST((5) AS SIGNED) * x(1) + CAST((5) AS SIGNED) + 'x'"
        );
    }

    #[test]
    fn types_convert_by_cast() {
        assert_eq!(
            cast_target(&SqlType::Decimal {
                precision: 10,
                scale: 2,
                unsigned: false
            })
            .as_deref(),
            Some("DECIMAL(10,2)")
        );
        assert_eq!(cast_target(&SqlType::Year), None);
    }
}
