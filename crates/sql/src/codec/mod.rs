//! The bytes of SQL values in the storage engine's trees: memcomparable keys, rows, decimals
//! (layouts in docs/sql-encoding.md), and their description for column encoding (layout.rs); and
//! the temporary files of sorts that spill: run files (run_file.rs), the values in them
//! (spill_value.rs) and the directories that hold them (temp_dir.rs).

pub mod decimal;
pub mod key;
pub mod layout;
pub mod row;
pub mod run_file;
pub mod spill_value;
pub mod temp_dir;
