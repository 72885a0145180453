//! Names in HAVING, resolved as MariaDB resolves them.
//!
//! Outside an aggregate's arguments a name in HAVING means an item of the select list (by its
//! name or alias, or a select-list column named `t.c`) or a plain column of the GROUP BY list;
//! the FROM tables are not searched, so a column that is neither selected nor grouped is 1054
//! `Unknown column 'c' in 'HAVING'`. An alias wins over a FROM column of the same name
//! (`SELECT a+1 AS b ... HAVING b = 3` compares `a+1`). Inside an aggregate's arguments names
//! resolve in the FROM tables as anywhere else (names.rs).
//!
//! Invariants: a name that is found both as a select-list item and as a different GROUP BY
//! column is 1052 (ambiguous); a name found in neither is looked up in the enclosing queries
//! (a HAVING of a correlated subquery), then 1054.

use super::Compiler;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::Expr;

/// The column `e` reads when it is that column and nothing else (a TIMESTAMP column read in
/// the session's zone included).
pub fn plain_column(e: &Expr) -> Option<usize> {
    match e {
        Expr::Col(i) => Some(*i),
        Expr::InZone(inner, _, _) => match inner.as_ref() {
            Expr::Col(i) => Some(*i),
            _ => None,
        },
        _ => None,
    }
}

impl Compiler<'_> {
    /// `parts` (`c`, `t.c` or `db.t.c`) named in HAVING outside an aggregate; `groups` are the
    /// GROUP BY list's plain columns.
    pub(super) fn having_name(&mut self, parts: &[String], groups: &[usize]) -> DbResult<Expr> {
        let name = parts.last().map(String::as_str).unwrap_or_default();
        let (db, table) = match parts.len() {
            1 => (None, None),
            2 => (None, Some(parts[0].as_str())),
            _ => (Some(parts[0].as_str()), Some(parts[1].as_str())),
        };
        // The FROM column the name would be, used only to match selected and grouped columns.
        let col = self
            .scope
            .resolve(db, table, name, self.place)
            .ok()
            .flatten();
        let mut selected: Option<&Expr> = None;
        for (item, e) in self.aliases {
            let by_name = parts.len() == 1 && item.eq_ignore_ascii_case(name);
            if !by_name && (col.is_none() || plain_column(e) != col) {
                continue;
            }
            match selected {
                Some(prev) if prev != e => return Err(DbError::ambiguous(name, self.place)),
                _ => selected = Some(e),
            }
        }
        let grouped = col.filter(|i| groups.contains(i));
        match (selected, grouped) {
            (Some(e), Some(i)) if plain_column(e) != Some(i) => {
                Err(DbError::ambiguous(name, self.place))
            }
            (Some(e), _) => Ok(e.clone()),
            (None, Some(i)) => Ok(self.read_in_zone(self.scope, i, Expr::Col(i))),
            (None, None) => {
                if let Some((v, c)) = self.env.outer_column(db, table, name, self.place)? {
                    return self.outer_value(v, &c);
                }
                Err(DbError::bad_field(&parts.join("."), self.place))
            }
        }
    }
}
