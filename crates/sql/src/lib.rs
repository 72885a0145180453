//! Betula SQL layer (see docs/design.md): column types, runtime values and their MySQL conversion
//! and comparison rules, and the key and row codecs that map tables onto the storage engine's
//! byte-string trees (byte layouts in docs/sql-encoding.md).

pub mod charset;
pub mod coerce;
mod coerce_members;
mod coerce_real;
pub mod collation;
pub mod decimal;
pub mod decimal_codec;
pub mod engine;
pub mod error;
pub mod key_codec;
pub mod member_codes;
pub mod row_codec;
pub mod temporal;
pub mod text_format;
pub mod types;
pub mod value;
pub mod wide_int;
