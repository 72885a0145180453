//! Select-list aliases named in a window's PARTITION BY and ORDER BY, resolved as MariaDB
//! resolves them (it sets up a window's lists as GROUP BY and ORDER BY, after the select list):
//! an ORDER BY key that is only a name is the select item of that alias first (`-a AS b ...
//! OVER (ORDER BY b)` orders by `-a`); any other name is a column first, and the item of that
//! alias when no column has it. The item's expression is compiled in the window's place, so an
//! alias of a window call there is 4016 and an alias of an aggregate is that aggregate.
//!
//! Invariant: an item's expression is compiled with the aliases out of reach, so an alias
//! naming itself (`a + x AS x`) cannot recurse: it is then an unknown column, as in MariaDB's
//! select list.

use sqlparser::ast;

use super::Compiler;
use crate::error::code::ErrorCode;
use crate::error::db_error::DbResult;
use crate::expr::Expr;

impl Compiler<'_> {
    /// The select item a window ORDER BY key names by its alias, if it is only such a name.
    pub(super) fn window_order_alias(&self, key: &ast::Expr) -> Option<ast::Expr> {
        let ast::Expr::Identifier(id) = key else {
            return None;
        };
        self.select_alias(&id.value)
    }

    /// A name no column has, inside a window's PARTITION BY or ORDER BY: the select item of
    /// that alias, compiled there.
    pub(super) fn window_alias(&mut self, name: &str) -> DbResult<Option<Expr>> {
        let in_spec = Some(ErrorCode::WindowFunctionInWindowSpec);
        if self.windows.as_ref().map(|w| w.blocked) != Some(in_spec) {
            return Ok(None);
        }
        let Some(item) = self.select_alias(name) else {
            return Ok(None);
        };
        let w = self
            .windows
            .as_mut()
            .expect("select_alias found a window list");
        let saved = std::mem::take(&mut w.select_aliases);
        let res = self.compile(&item);
        if let Some(w) = self.windows.as_mut() {
            w.select_aliases = saved;
        }
        res.map(Some)
    }

    /// The expression of the select item aliased `name`.
    fn select_alias(&self, name: &str) -> Option<ast::Expr> {
        self.windows
            .as_ref()?
            .select_aliases
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(name))
            .map(|(_, e)| e.clone())
    }
}
