//! Blind INSERT ... ON DUPLICATE KEY UPDATE: the upsert program, its byte encoding, and
//! [`apply`], the function registered in the storage engine's `UpdateRegistry`.
//!
//! The argument of one upsert message is self-contained (recovery re-runs it without the
//! catalog):
//! ```text
//! u8 version (1)
//! varint schema version; varint n; n × (column type, u8 nullable, u8 collation)
//! varint len + encoded row to insert when the key is absent
//! varint m; m × (varint column, expression)
//! ```
//! A collation is its index in `COLLATIONS` (0 binary, 1 utf8mb4_bin, 2 utf8mb4_general_ci,
//! 3 utf8mb4_0900_ai_ci, 4 utf8mb4_0900_bin; appended with character sets: 5 utf8mb4_unicode_ci,
//! 6 utf8mb3_general_ci, 7 utf8mb3_bin, 8 utf8mb3_unicode_ci, 9 latin1_swedish_ci,
//! 10 latin1_general_ci, 11 latin1_general_cs, 12 latin1_bin, 13 ascii_general_ci, 14 ascii_bin,
//! 15 koi8r_general_ci, 16 koi8r_bin).
//! A column type is a tag byte and its parameters; ENUM (15) and SET (16) carry their members
//! (varint count, then varint length + UTF-8 each), BIT (17) its length. FLOAT (1) and DOUBLE (2)
//! are the plain signed types; FLOAT(M,D) / DOUBLE(M,D) / UNSIGNED are 18 / 19 followed by
//! `u8 flags (1 = has M,D; 2 = unsigned), u8 M, u8 D`; DECIMAL UNSIGNED is 20 with `u8 p, u8 s`
//! (DECIMAL is 3). A DECIMAL value (tag 5) is an i128 mantissa; one beyond i128 (more than 38
//! digits) is tag 11 with 32 bytes of two's complement, then the scale.
//! Expressions use a subset of [`Expr`]: literals, the old row's columns (`Col`), the inserted
//! row's columns (`InsertValue`, i.e. `VALUES(col)`), unary/binary operators, IS NULL, CASE,
//! CAST and deterministic scalar functions. Assignments run left to right, each seeing the
//! previous ones, and results are coerced to the column type non-strictly (a blind upsert cannot
//! report an error; out-of-range values clamp as in non-strict mode — documented divergence).
//! Invariants: [`apply`] never panics and is deterministic; on undecodable input it keeps the
//! old row unchanged.
//!
//! Map: the byte encoding in wire.rs (varints, strings, the collation numbers),
//! column_types.rs (column type tags), values.rs (value tags), expr.rs (expressions) and arg.rs
//! (the whole argument); apply.rs runs a decoded program on the old row, in_place.rs the
//! accumulating forms on the old row's bytes.

mod apply;
mod arg;
mod column_types;
mod expr;
mod in_place;
#[cfg(test)]
mod in_place_tests;
#[cfg(test)]
mod tests;
mod values;
mod wire;

use crate::expr::Expr;

pub use apply::apply;
pub use arg::{encode_arg, ArgTemplate};
pub use expr::encode_expr;

/// One assignment: column index and expression.
pub type Assignment = (usize, Expr);
