//! The planning side of window functions: a SELECT block's WINDOW clause, compiling the select
//! list and ORDER BY with window calls allowed, and the result column a window call gives.
//! The calls themselves are compiled in expr/compile/window.rs and computed in exec/window.rs.
//!
//! Invariants: window calls are compiled only in the select list and ORDER BY (WHERE, GROUP BY
//! and HAVING compile without a window list, so a call there is 4015; a GROUP BY position or
//! HAVING alias naming a window item is 4015 too); WINDOW clause names are unique (4010).

use sqlparser::ast;

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::window::{WinCall, WinFunc, WindowCtx};
use crate::expr::{AggFunc, AggSpec, Compiler, Expr, Scope};
use crate::result::OutCol;
use crate::types::{IntWidth, SqlType};

/// 4015: a window function outside the select list and ORDER BY.
pub fn misplaced() -> DbError {
    DbError::new(
        ErrorCode::WrongPlacementOfWindowFunction,
        "Window function is allowed only in SELECT list and ORDER BY clause",
    )
}

/// The WINDOW clause: each name and its definition (a definition that is only another window's
/// name becomes a specification naming it).
pub fn named_windows(sel: &ast::Select) -> DbResult<Vec<(String, ast::WindowSpec)>> {
    let mut out: Vec<(String, ast::WindowSpec)> = Vec::new();
    for ast::NamedWindowDefinition(name, def) in &sel.named_window {
        if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name.value)) {
            return Err(DbError::new(
                ErrorCode::DupWindowName,
                format!(
                    "Multiple window specifications with the same name '{}'",
                    name.value
                ),
            ));
        }
        let spec = match def {
            ast::NamedWindowExpr::WindowSpec(s) => s.clone(),
            ast::NamedWindowExpr::NamedWindow(other) => ast::WindowSpec {
                window_name: Some(other.clone()),
                partition_by: vec![],
                order_by: vec![],
                window_frame: None,
            },
        };
        out.push((name.value.clone(), spec));
    }
    Ok(out)
}

/// The select list's aliased items, which a window's PARTITION BY and ORDER BY may name.
pub fn select_aliases(sel: &ast::Select) -> Vec<(String, ast::Expr)> {
    sel.projection
        .iter()
        .filter_map(|item| match item {
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                Some((alias.value.clone(), expr.clone()))
            }
            _ => None,
        })
        .collect()
}

/// A select-list or ORDER BY expression: aggregates go to `aggs`, window calls to `wins`.
pub fn compile_item(
    cx: &mut Context,
    scope: &Scope,
    e: &ast::Expr,
    (aggs, wins): (&mut Vec<AggSpec>, &mut WindowCtx),
    aliases: &[(String, Expr)],
    place: &'static str,
) -> DbResult<Expr> {
    Compiler {
        scope,
        env: cx,
        aggs: Some(aggs),
        windows: Some(wins),
        insert_scope: None,
        aliases,
        having_groups: None,
        place,
    }
    .compile(e)
}

/// Every expression a window call evaluates on its input rows.
pub fn exprs(w: &WinCall) -> impl Iterator<Item = &Expr> {
    let agg_args: &[Expr] = match &w.func {
        WinFunc::Agg(spec) => &spec.arg,
        _ => &[],
    };
    w.args
        .iter()
        .chain(agg_args)
        .chain(&w.partition)
        .chain(w.order.iter().map(|(e, _)| e))
}

/// The result column of a select item that is a window call: BIGINT for the numbering
/// functions and COUNT, DOUBLE for PERCENT_RANK, CUME_DIST and PERCENTILE_CONT, the argument
/// column's type for functions that return an argument's value (LAG, FIRST_VALUE, MIN, ...) and
/// the key column's for PERCENTILE_DISC, as MariaDB.
pub fn column_meta(scope: &Scope, name: &str, w: &WinCall) -> OutCol {
    let bigint = SqlType::Int {
        width: IntWidth::Big,
        unsigned: false,
    };
    let arg_col = |e: Option<&Expr>| -> OutCol {
        match e.and_then(Expr::col_index) {
            Some(c) => OutCol {
                name: name.to_string(),
                ty: scope.cols[c].ty,
                collation: scope.cols[c].collation,
                length: scope.cols[c].length,
                members: scope.cols[c].members.clone(),
                ..Default::default()
            },
            None => OutCol {
                collation: e.map(|e| scope.collation_of(e)).unwrap_or_default(),
                ..OutCol::named(name, None)
            },
        }
    };
    match &w.func {
        WinFunc::RowNumber | WinFunc::Rank | WinFunc::DenseRank | WinFunc::Ntile => {
            OutCol::named(name, Some(bigint))
        }
        WinFunc::PercentRank | WinFunc::CumeDist | WinFunc::PercentileCont => {
            OutCol::named(name, Some(SqlType::DOUBLE))
        }
        // The key's value, of the key's type.
        WinFunc::PercentileDisc => arg_col(w.order.first().map(|(e, _)| e)),
        WinFunc::Lag | WinFunc::Lead | WinFunc::FirstValue | WinFunc::LastValue => {
            arg_col(w.args.first())
        }
        WinFunc::NthValue => arg_col(w.args.first()),
        WinFunc::Agg(spec) => match spec.func {
            AggFunc::Count | AggFunc::CountStar => OutCol::named(name, Some(bigint)),
            AggFunc::Min | AggFunc::Max => arg_col(spec.arg.first()),
            _ => OutCol::named(name, None),
        },
    }
}
