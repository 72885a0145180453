//! The bytes of SQL values in the storage engine's trees: memcomparable keys, rows, decimals
//! (layouts in docs/sql-encoding.md).

pub mod decimal;
pub mod key;
pub mod row;
