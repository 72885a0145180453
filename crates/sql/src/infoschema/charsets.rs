//! Character sets and collations: information_schema.CHARACTER_SETS and COLLATIONS, and the
//! rows SHOW CHARACTER SET / SHOW COLLATION share with them.
//!
//! Invariant: the rows list every `Charset::ALL` / `Collation::ALL` entry, in that order.

use super::{names, t, ViewRows};
use crate::types::value::Value;

/// information_schema.CHARACTER_SETS.
pub(super) fn character_sets_view() -> ViewRows {
    (
        names(&[
            "CHARACTER_SET_NAME",
            "DEFAULT_COLLATE_NAME",
            "DESCRIPTION",
            "MAXLEN",
        ]),
        charset_rows(),
    )
}

/// information_schema.COLLATIONS.
pub(super) fn collations_view() -> ViewRows {
    (
        names(&[
            "COLLATION_NAME",
            "CHARACTER_SET_NAME",
            "ID",
            "IS_DEFAULT",
            "IS_COMPILED",
            "SORTLEN",
            "PAD_ATTRIBUTE",
        ]),
        collation_rows(),
    )
}

/// SHOW CHARACTER SET / information_schema.CHARACTER_SETS rows: name, default collation,
/// description, maximum bytes per character.
pub fn charset_rows() -> Vec<Vec<Value>> {
    crate::types::charset::Charset::ALL
        .iter()
        .map(|c| {
            vec![
                t(c.name()),
                t(c.default_collation().name()),
                t(c.description()),
                Value::Int(c.max_bytes() as i64),
            ]
        })
        .collect()
}

/// SHOW COLLATION / information_schema.COLLATIONS rows: name, character set, id, default,
/// compiled, sort length, pad attribute.
pub fn collation_rows() -> Vec<Vec<Value>> {
    crate::types::collation::Collation::ALL
        .iter()
        .map(|co| {
            vec![
                t(co.name()),
                t(co.charset().name()),
                Value::Int(co.id() as i64),
                t(if co.is_default() { "Yes" } else { "" }),
                t("Yes"),
                Value::Int(1),
                t(if co.pad_space() {
                    "PAD SPACE"
                } else {
                    "NO PAD"
                }),
            ]
        })
        .collect()
}
