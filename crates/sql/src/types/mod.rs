//! SQL column types and column definitions (the catalog's per-column shape).
//!
//! Owns: [`SqlType`] (every MySQL column type Betula supports), [`Column`] (name, type, nullability,
//! default, AUTO_INCREMENT, collation), the integer range limits, and the facts the MySQL protocol
//! needs for result-set column definitions: type code, display length, flags and decimals.
//!
//! Map: sql_type.rs (SqlType, IntWidth, LobSize, validation), type_names.rs (SQL spelling),
//! column.rs (Column, implicit defaults), protocol.rs (type codes, flags, display lengths,
//! decimals); values and their conversions in the modules below.
//!
//! Invariants (enforced by [`SqlType::validate`], which DDL must call):
//! * DECIMAL(p,s): 1 <= p <= 65, s <= 38, s <= p (MariaDB's limits; checked in MariaDB's order:
//!   scale 1425, precision 1426, M >= D 1427).
//! * FLOAT(M,D) / DOUBLE(M,D): D <= M, D <= 30; M <= 255 is checked by the parser (1439).
//! * fsp of DATETIME/TIMESTAMP/TIME <= 6.
//! * CHAR(n) n <= 255, BINARY(n) n <= 255, VARCHAR(n) n <= 16383 characters (utf8mb4 under MySQL's
//!   65535-byte row limit; DDL allows up to 65532 / bytes per character for the narrower
//!   character sets: `catalog/type_text.rs`), VARBINARY(n) n <= 65535 bytes.
//! * A text type's `collation` is never `Collation::Binary`; a binary type's is always `Binary`
//!   ([`Column::new`] sets it).

pub mod charset;
pub mod coerce;
pub mod collation;
pub mod decimal;
pub mod koi8r;
pub mod member_codes;
pub mod sql_mode;
pub mod temporal;
pub mod text_format;
pub mod time_on_date;
pub mod time_zone;
pub mod value;
pub mod wide_int;

mod column;
mod protocol;
mod sql_type;
mod type_names;

pub use column::{implicit_default, Column};
pub use protocol::{column_flag, type_code, NOT_FIXED_DEC};
pub use sql_type::{IntWidth, LobSize, SqlType, MAX_FLOAT_SCALE};
pub use type_names::{quote_literal, quote_members};
