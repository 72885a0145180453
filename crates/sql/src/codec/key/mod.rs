//! Memcomparable key encoding: tuples of values → byte strings whose bytewise order is the SQL
//! order of the tuples.
//!
//! Owns: [`KeyColumn`], [`encode_key`], [`KeyDecoder`] / [`decode_key`] and [`prefix_successor`].
//! A primary-key tree key is `encode_key(pk columns)`; a secondary index key is
//! `encode_key(index columns ++ pk columns)`, which makes duplicates distinct.
//!
//! Byte layout of one column (then the next column follows directly; there is no header):
//! * marker: `0x00` NULL (nothing follows), `0x01` not NULL. NULL sorts first.
//! * integers: the type's width (1, 2, 3, 4, 8 bytes) big-endian; signed types store `v - MIN`
//!   (two's complement with the sign bit flipped). YEAR: 1 byte, `0` for year 0 else `year - 1900`.
//! * FLOAT / DOUBLE: IEEE bits big-endian; non-negative: sign bit set; negative: all bits inverted.
//!   `-0.0` is encoded as `0.0`; NaN is rejected.
//! * DECIMAL(p,s): the mantissa at scale `s` as a signed integer of 1 (p<=2), 2 (p<=4), 4 (p<=9),
//!   8 (p<=18), 16 (p<=38) or 32 bytes (p<=65), offset like signed integers (`codec/decimal.rs`).
//! * strings: the collation's sort key (collation.rs: bytes for `binary` and `_bin`, case-folded
//!   UTF-8 for `_ci`, trailing spaces dropped for PAD SPACE) with every `0x00` written as
//!   `0x00 0xFF`, terminated by `0x00 0x01`. This preserves order and is prefix-free: a string that
//!   is a prefix of another ends with `0x00 0x01`, which is below both `0x00 0xFF` and any byte >= 1.
//! * ENUM / SET, key format 1 ([`KeyColumn::members`] `None`): their text, as strings (so they
//!   order by text and do not decode under a case-insensitive collation). Key format 2: the
//!   ENUM member number (0 = the error value `''`) or the SET bitmask (member_codes.rs),
//!   unsigned big-endian in the row codec's width (ENUM 1 byte up to 255 members, else 2; SET
//!   one byte per 8 members): MariaDB's order, and it decodes back to the text.
//! * BIT: 8 bytes big-endian.
//! * prefix columns (`KEY (c(n))`, [`KeyColumn::prefix`]): the same encoding of the value's first
//!   n characters (text; bytes for binary types). Truncation keeps order non-strictly
//!   (`a <= b` implies `key(a) <= key(b)`), so range bounds on such a column must be inclusive and
//!   every row read re-checked; the key does not decode (`None`).
//! * DATE: `Date::packed` in 3 bytes; DATETIME/TIMESTAMP: `DateTime::packed_for_fsp` (5 bytes of
//!   packed seconds for fsp 0, else 8 bytes of packed microseconds); TIME: `micros + 2^47` in 6 bytes.
//! * DESC columns: every byte of the column's encoding (marker included) is inverted, which reverses
//!   the order because each column's encoding is prefix-free. NULLs then sort last, as in MySQL.
//!
//! Invariant (tested by property tests): for values already coerced to the column types,
//! `encode(a).cmp(encode(b)) == ` tuple comparison with [`crate::types::value::cmp_nulls_first`]
//! under each column's collation (ENUM/SET of format 2: member number / bitmask order). Every
//! column type decodes back except prefix parts and character columns whose collation is
//! case-insensitive or PAD SPACE (ENUM/SET of format 1 included): their keys hold sort keys, not
//! the text; the row holds the original (and, in key format 2, the index entry's value:
//! catalog/index_entry.rs). Decoding such a column skips it (`None`).
//!
//! Map: this file holds [`KeyColumn`] and the marks every column starts with; encode.rs writes
//! keys, decode.rs reads them back.

mod decode;
mod encode;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::error::sql_error::SqlError;
use crate::types::collation::Collation;
use crate::types::{Column, SqlType};

pub use decode::{decode_key, KeyDecoder};
pub use encode::{char_prefix, encode_key, encode_key_value};

/// First byte of a NULL column.
const NULL_MARK: u8 = 0x00;
/// First byte of a non-NULL column.
const VALUE_MARK: u8 = 0x01;
/// TIME is keyed as microseconds plus this offset (always non-negative).
const TIME_OFFSET: i64 = 1 << 47;

/// How one key column is encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyColumn {
    pub sql_type: SqlType,
    pub collation: Collation,
    pub descending: bool,
    /// Index prefix length (`KEY (c(10))`): only the first n characters (text) or bytes
    /// (binary) of the value are encoded. Such a key holds a prefix, so it is not reversible and
    /// equal keys do not mean equal values.
    pub prefix: Option<u32>,
    /// Set for an ENUM or SET column keyed by member number / bitmask (key format 2, see
    /// catalog/table_def.rs): the column's members. `None`: ENUM and SET are keyed by their text
    /// (key format 1).
    pub members: Option<Arc<[String]>>,
}

impl KeyColumn {
    /// An ascending key column with the column's type and collation.
    pub fn from_column(c: &Column) -> KeyColumn {
        KeyColumn {
            sql_type: c.sql_type,
            collation: c.collation,
            descending: false,
            prefix: None,
            members: None,
        }
    }
    /// The same column keyed on its first `n` characters (bytes for binary types).
    pub fn with_prefix(self, n: Option<u32>) -> KeyColumn {
        KeyColumn { prefix: n, ..self }
    }
    /// An ENUM or SET column keyed by member number / bitmask (key format 2); other types are
    /// returned unchanged.
    pub fn by_member_code(self, members: &Arc<[String]>) -> KeyColumn {
        if !self.sql_type.has_members() {
            return self;
        }
        KeyColumn {
            members: Some(members.clone()),
            ..self
        }
    }
    /// True if [`KeyDecoder::next`] returns this column's value (not a sort key or a prefix).
    pub fn is_reversible(&self) -> bool {
        self.prefix.is_none()
            && (self.members.is_some()
                || !self.sql_type.is_text()
                || self.collation.key_is_reversible())
    }
    /// True if the key orders the column's values as ORDER BY does: not a prefix, and not an
    /// ENUM or SET keyed by its text (ORDER BY sorts them by member number / bitmask).
    pub fn orders_as_sql(&self) -> bool {
        self.prefix.is_none() && (self.members.is_some() || !self.sql_type.has_members())
    }
}

fn bad(what: impl Into<String>) -> SqlError {
    SqlError::Internal(what.into())
}

pub use crate::codec::decimal::{decimal_mantissa, decimal_width};

/// The smallest byte string greater than every string that starts with `prefix`, i.e. the exclusive
/// upper bound of a prefix scan. `None` when there is none (empty prefix or all `0xFF`): scan to
/// the end.
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut out = prefix[..=last].to_vec();
    out[last] += 1;
    Some(out)
}
