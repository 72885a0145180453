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

/// Where an infix or postfix expression starts: at its leftmost operand (down to one that is
/// not such an expression).
fn start_span(e: &ast::Expr) -> sqlparser::tokenizer::Span {
    use ast::Expr as E;
    match e {
        E::RLike { expr, .. }
        | E::BinaryOp { left: expr, .. }
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
        | E::Between { expr, .. } => start_span(expr),
        other => other.span(),
    }
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
    if let ast::Expr::Substring { .. }
    | ast::Expr::Cast { .. }
    | ast::Expr::Convert { .. }
    | ast::Expr::Ceil { .. }
    | ast::Expr::Floor { .. }
    | ast::Expr::Position { .. } = e
    {
        if let Some(t) = cx.call_text(e.span()) {
            return t;
        }
    }
    if let ast::Expr::Extract { .. } | ast::Expr::Trim { .. } = e {
        if let Some(t) = cx.enclosing_call_text(e.span()) {
            return t;
        }
    }
    // sqlparser's spans start at an item's leftmost operand, after any unary operator or
    // parenthesis before it (and `x REGEXP p` has no span of its own).
    match cx.operand_text(start_span(e)) {
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
