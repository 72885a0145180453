//! The bytes of SQL values in the storage engine's trees: memcomparable keys, rows, decimals
//! (layouts in docs/sql-encoding.md), and their description for column encoding (layout.rs).

pub mod decimal;
pub mod key;
pub mod layout;
pub mod row;
