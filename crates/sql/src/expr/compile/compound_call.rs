//! The calls the parser writes for the compound INTERVAL units (parser/mariadb_forms.rs, where
//! sqlparser has no grammar for them): `__IV_<letter>(x)` for `INTERVAL x DAY_HOUR` and
//! `__EX_<letter>(x)` for `EXTRACT(DAY_HOUR FROM x)`, the letter being the unit's place in
//! [`IntervalUnit::COMPOUND`].
//!
//! Invariant: a call is read as a compound unit only with exactly one plain argument and a
//! letter of a unit; anything else is an ordinary (unknown) function call.

use crate::expr::IntervalUnit;

/// The start of the name of a call standing for a compound interval (`__IV_A` .. `__IV_K`).
pub const COMPOUND_INTERVAL_MARK: &str = "__IV_";
/// The start of the name of a call standing for EXTRACT of a compound unit (`__EX_A` ..).
pub const COMPOUND_EXTRACT_MARK: &str = "__EX_";

/// The compound interval a call written by the parser (parser/mariadb_forms.rs) denotes: its unit
/// and amount.
pub(super) fn compound_interval_call(
    e: &sqlparser::ast::Expr,
) -> Option<(IntervalUnit, &sqlparser::ast::Expr)> {
    match e {
        sqlparser::ast::Expr::Function(f) => marked_call(f, COMPOUND_INTERVAL_MARK),
        _ => None,
    }
}

/// The compound unit and argument of `EXTRACT(unit FROM x)` as the parser (parser/mariadb_forms.rs)
/// wrote it, when `f` is that call.
pub(super) fn compound_extract_call(
    f: &sqlparser::ast::Function,
) -> Option<(IntervalUnit, &sqlparser::ast::Expr)> {
    marked_call(f, COMPOUND_EXTRACT_MARK)
}

fn marked_call<'a>(
    f: &'a sqlparser::ast::Function,
    mark: &str,
) -> Option<(IntervalUnit, &'a sqlparser::ast::Expr)> {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let name = f.name.to_string();
    let letter = name.strip_prefix(mark)?.as_bytes();
    let &[l] = letter else {
        return None;
    };
    let unit = IntervalUnit::COMPOUND
        .get(usize::from(l.checked_sub(b'A')?))?
        .1;
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => Some((unit, x)),
        _ => None,
    }
}
