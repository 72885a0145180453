//! What EXPLAIN FORMAT=JSON prints from the statement's text because the plan does not keep
//! it: whether a window is named or framed (a window function prints its OVER as written), and
//! HAVING as MariaDB prints it (having.rs).

use sqlparser::ast;

use super::having::having_text;

/// What the statement writes that the plan does not keep.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// A WINDOW clause, a window named in OVER or an explicit frame: window functions are not
    /// printed.
    pub named_or_framed_windows: bool,
    /// HAVING as `having_condition` prints it; `None` without HAVING or when not printable.
    pub having: Option<String>,
}

impl Written {
    /// What `sel` and its ORDER BY (`order`) write.
    pub fn of(sel: &ast::Select, order: &[ast::OrderByExpr]) -> Written {
        let framed = |e: &ast::Expr| match e {
            ast::Expr::Function(f) => match &f.over {
                Some(ast::WindowType::WindowSpec(spec)) => {
                    spec.window_frame.is_some() || spec.window_name.is_some()
                }
                Some(ast::WindowType::NamedWindow(_)) => true,
                None => false,
            },
            _ => false,
        };
        let items = sel.projection.iter().filter_map(|i| match i {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                Some(e)
            }
            _ => None,
        });
        let named_or_framed_windows =
            !sel.named_window.is_empty() || items.chain(order.iter().map(|o| &o.expr)).any(framed);
        let having = sel
            .having
            .as_ref()
            .and_then(|h| having_text(h, &sel.projection));
        Written {
            named_or_framed_windows,
            having,
        }
    }
}
