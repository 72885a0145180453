//! ORDER BY over ENUM and SET columns: MariaDB sorts an ENUM column by member number and a SET
//! column by bitmask, not by their text (comparisons with strings, MIN/MAX and expressions over
//! the column still use the text).
//!
//! Owns: [`MemberOrder`], built once per query from the ORDER BY expressions, which turns the
//! sort values of plain ENUM/SET column references into their numbers (member_codes.rs) before
//! rows are sorted. Keys of key format 2 are in the same order (key_codec.rs), so an index can
//! serve such an ORDER BY; ENUM/SET keys of format 1 hold text and never do (select.rs
//! `key_order`).

use std::sync::Arc;

use crate::expr::Expr;
use crate::plan::from::{From, SrcKind};
use crate::types::member_codes::member_code;
use crate::types::value::Value;
use crate::types::SqlType;

/// For each ORDER BY expression: the type and members of the ENUM/SET column it names, if any.
pub struct MemberOrder(Vec<Option<(SqlType, Arc<[String]>)>>);

impl MemberOrder {
    pub fn new(from: &From, order: &[(Expr, bool)]) -> MemberOrder {
        MemberOrder(
            order
                .iter()
                .map(|(e, _)| {
                    let Expr::Col(c) = e else { return None };
                    let s = from
                        .sources
                        .iter()
                        .find(|s| *c >= s.offset && *c < s.offset + s.ncols)?;
                    let SrcKind::Table(t) = &s.kind else {
                        return None;
                    };
                    let col = t.columns.get(*c - s.offset)?;
                    col.sql_type
                        .has_members()
                        .then(|| (col.sql_type, col.members.clone()))
                })
                .collect(),
        )
    }

    /// Replaces the sort values of ENUM/SET columns by their member number / bitmask.
    pub fn apply(&self, keys: &mut [Value]) {
        for (k, m) in keys.iter_mut().zip(&self.0) {
            let (Some((ty, members)), Value::Text(s)) = (m, &*k) else {
                continue;
            };
            if let Some(n) = member_code(*ty, members, s) {
                *k = Value::UInt(n);
            }
        }
    }
}
