//! The operands of a parsed expression, reachable mutably: the walk a view's SELECT is
//! resolved (view_text.rs) and shortened for SHOW CREATE VIEW (view_shown.rs) by.
//!
//! Invariant: a form not listed here is `None`, never an empty list, so a caller that must see
//! every name refuses it instead of missing one.

use sqlparser::ast::{self, Expr as E};

/// The operands of `e`, for the expressions a view's names are resolved in; None for a form
/// not known here.
pub(super) fn children(e: &mut ast::Expr) -> Option<Vec<&mut ast::Expr>> {
    Some(match e {
        E::Value(_) | E::TypedString(_) => vec![],
        E::BinaryOp { left, right, .. }
        | E::IsDistinctFrom(left, right)
        | E::IsNotDistinctFrom(left, right) => {
            vec![&mut **left, &mut **right]
        }
        E::UnaryOp { expr, .. }
        | E::Nested(expr)
        | E::IsNull(expr)
        | E::IsNotNull(expr)
        | E::IsTrue(expr)
        | E::IsNotTrue(expr)
        | E::IsFalse(expr)
        | E::IsNotFalse(expr)
        | E::IsUnknown(expr)
        | E::IsNotUnknown(expr)
        | E::Cast { expr, .. }
        | E::Convert { expr, .. }
        | E::Extract { expr, .. }
        | E::Ceil { expr, .. }
        | E::Floor { expr, .. }
        | E::Collate { expr, .. } => vec![&mut **expr],
        E::Interval(i) => vec![&mut *i.value],
        E::Position { expr, r#in } => vec![&mut **expr, &mut **r#in],
        E::AtTimeZone {
            timestamp,
            time_zone,
        } => vec![&mut **timestamp, &mut **time_zone],
        E::Like {
            expr,
            pattern,
            escape_char,
            ..
        } => {
            let mut v = vec![&mut **expr, &mut **pattern];
            v.extend(escape_char.as_deref_mut());
            v
        }
        E::RLike { expr, pattern, .. } => vec![&mut **expr, &mut **pattern],
        E::Between {
            expr, low, high, ..
        } => vec![&mut **expr, &mut **low, &mut **high],
        E::InList { expr, list, .. } => {
            let mut v = vec![&mut **expr];
            v.extend(list.iter_mut());
            v
        }
        E::Tuple(items) => items.iter_mut().collect(),
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let mut v = vec![&mut **expr];
            v.extend(substring_from.as_deref_mut());
            v.extend(substring_for.as_deref_mut());
            v
        }
        E::Trim {
            expr, trim_what, ..
        } => {
            let mut v = vec![&mut **expr];
            v.extend(trim_what.as_deref_mut());
            v
        }
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let mut v: Vec<&mut ast::Expr> = operand.as_deref_mut().into_iter().collect();
            for w in conditions {
                v.push(&mut w.condition);
                v.push(&mut w.result);
            }
            v.extend(else_result.as_deref_mut());
            v
        }
        _ => return None,
    })
}
