//! Index hints of a table reference: `USE INDEX (...)`, `IGNORE INDEX (...)`, `FORCE INDEX
//! (...)` (also spelled KEY), turned into which keys the planner may read a table through.
//!
//! Invariants: hints only narrow the planner's choice, never the result. `USE INDEX ()` allows
//! no key (a full scan of the rows); `FORCE INDEX` also makes a full scan read the forced key
//! instead of the rows. Hints scoped `FOR ORDER BY` / `FOR GROUP BY` are accepted and have no
//! effect (Betula sorts and groups without choosing a key for it). An unknown key name is error
//! 1176, as in MariaDB; a
//! unique prefix of a key name names that key (MariaDB's find_type).

use sqlparser::ast::{self as ast};

use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// A key of a table: `None` the primary key, `Some(i)` secondary index `i`.
pub type Key = Option<usize>;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexHints {
    /// USE / FORCE: only these keys (None: no restriction).
    pub only: Option<Vec<Key>>,
    pub ignored: Vec<Key>,
    pub force: bool,
}

impl IndexHints {
    pub fn from_ast(t: &TableDef, hints: &[ast::TableIndexHints]) -> DbResult<IndexHints> {
        let mut h = IndexHints::default();
        for hint in hints {
            if matches!(
                hint.for_clause,
                Some(ast::TableIndexHintForClause::OrderBy | ast::TableIndexHintForClause::GroupBy)
            ) {
                continue;
            }
            let mut keys = Vec::new();
            for n in &hint.index_names {
                keys.push(key_named(t, &n.value)?);
            }
            match hint.hint_type {
                ast::TableIndexHintType::Ignore => h.ignored.extend(keys),
                ast::TableIndexHintType::Use | ast::TableIndexHintType::Force => {
                    h.force |= matches!(hint.hint_type, ast::TableIndexHintType::Force);
                    h.only.get_or_insert_with(Vec::new).extend(keys);
                }
            }
        }
        Ok(h)
    }

    pub fn allows(&self, k: Key) -> bool {
        !self.ignored.contains(&k) && self.only.as_ref().is_none_or(|o| o.contains(&k))
    }

    /// The key a forced full scan reads: the first forced key still allowed.
    pub fn forced_scan(&self) -> Option<Key> {
        if !self.force {
            return None;
        }
        self.only
            .as_ref()?
            .iter()
            .copied()
            .find(|k| self.allows(*k))
    }
}

fn key_named(t: &TableDef, name: &str) -> DbResult<Key> {
    if name.eq_ignore_ascii_case("PRIMARY") && !t.pk.is_empty() {
        return Ok(None);
    }
    if let Some(i) = t
        .indexes
        .iter()
        .position(|ix| ix.name.eq_ignore_ascii_case(name))
    {
        return Ok(Some(i));
    }
    // As MariaDB (find_type): a unique prefix of a key name names that key.
    let lower = name.to_ascii_lowercase();
    let mut by_prefix =
        t.indexes.iter().enumerate().filter(|(_, ix)| {
            !lower.is_empty() && ix.name.to_ascii_lowercase().starts_with(&lower)
        });
    match (by_prefix.next(), by_prefix.next()) {
        (Some((i, _)), None) => Some(Some(i)),
        _ => None,
    }
    .ok_or_else(|| {
        DbError::new(
            ErrorCode::KeyDoesNotExists,
            format!("Key '{name}' doesn't exist in table '{}'", t.name),
        )
    })
}
