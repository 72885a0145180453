//! The column name of a select item without an alias ([`item_name`]): its text as written, as
//! MariaDB names it.
//!
//! Invariants: the text runs from the item's leftmost operand's unary operators and opening
//! parentheses to the item's end (sqlparser's spans start at the operand); a column or string
//! literal is named as itself, also inside parentheses (`(1)` is `1`, `(-1)` is `(-1)`); calls
//! whose span starts at an argument (CAST, SUBSTRING, EXTRACT, TRIM, ...) are named from their
//! function name.

use sqlparser::ast::{self as ast, Spanned};

use crate::context::Context;

/// The operand an expression's text starts with: the leftmost operand of infix and postfix
/// operators, the operand of a unary operator or parentheses (whose text unary_start takes
/// back in), down to one that is none of these.
fn leftmost(e: &ast::Expr) -> &ast::Expr {
    use ast::Expr as E;
    match e {
        E::RLike { expr, .. }
        | E::BinaryOp { left: expr, .. }
        | E::UnaryOp { expr, .. }
        | E::Nested(expr)
        | E::Like { expr, .. }
        | E::IsNull(expr)
        | E::IsNotNull(expr)
        | E::IsTrue(expr)
        | E::IsNotTrue(expr)
        | E::IsFalse(expr)
        | E::IsNotFalse(expr)
        | E::IsUnknown(expr)
        | E::IsNotUnknown(expr)
        | E::InList { expr, .. }
        | E::Between { expr, .. } => leftmost(expr),
        other => other,
    }
}

/// The byte offset where `e`'s text starts in the statement: sqlparser's spans start at an
/// operand, after any unary operator or parenthesis before it, and a call such as
/// `CAST(x AS ...)` or `EXTRACT(u FROM x)` spans from `x`.
fn text_start(cx: &Context, e: &ast::Expr) -> Option<usize> {
    use ast::Expr as E;
    let leaf = leftmost(e);
    let off = match leaf {
        E::Substring { .. }
        | E::Cast { .. }
        | E::Convert { .. }
        | E::Ceil { .. }
        | E::Floor { .. }
        | E::Position { .. } => {
            let off = cx.offset_of(leaf.span())?;
            // `BINARY x` is a CAST written without a call.
            cx.call_start(off).unwrap_or(off)
        }
        E::Extract { expr, .. } => {
            let off = text_start(cx, expr)?;
            cx.enclosing_call_start(off).unwrap_or(off)
        }
        E::Trim { .. } => {
            let off = cx.offset_of(leaf.span())?;
            cx.enclosing_call_start(off).unwrap_or(off)
        }
        other => cx.offset_of(other.span())?,
    };
    Some(cx.unary_start(off))
}

/// The text a select item shows as its column name: its text as written, from its leftmost
/// operand's unary operators and parentheses on; a literal or a column in parentheses is named
/// as itself (MariaDB names `(1)` `1`, `(-1)` `(-1)`).
pub(super) fn item_name(cx: &Context, e: &ast::Expr) -> String {
    let mut inner = e;
    let mut parens = 0;
    while let ast::Expr::Nested(x) = inner {
        inner = x;
        parens += 1;
    }
    if !matches!(
        inner,
        ast::Expr::Value(_) | ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
    ) {
        parens = 0;
    }
    let e = inner;
    if let ast::Expr::Identifier(i) = e {
        return i.value.clone();
    }
    if let ast::Expr::CompoundIdentifier(ids) = e {
        if !ids[0].value.starts_with('@') {
            return ids.last().map(|i| i.value.clone()).unwrap_or_default();
        }
    }
    if let ast::Expr::Value(v) = e {
        if let ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) = &v.value {
            return s.clone();
        }
    }
    match text_start(cx, e).and_then(|off| cx.text_at(off)) {
        Some(t) => strip_parens(&t, parens).to_string(),
        None => e.to_string(),
    }
}

/// `t` without `n` pairs of parentheses around all of it.
fn strip_parens(mut t: &str, n: usize) -> &str {
    for _ in 0..n {
        let Some(body) = t.strip_prefix('(').and_then(|b| b.strip_suffix(')')) else {
            break;
        };
        // `(a) + (b)` is not one parenthesized item.
        let mut depth = 0i32;
        if body.chars().any(|c| {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            depth < 0
        }) {
            break;
        }
        t = body.trim();
    }
    t
}
