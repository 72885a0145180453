//! Errors: [`code::ErrorCode`], the conditions Betula reports with their MariaDB error numbers and
//! SQLSTATEs; [`db_error::DbError`], a statement's failure as the client sees it; and
//! [`sql_error::SqlError`] / [`sql_error::Warning`], what conversions and codecs report;
//! [`interrupt::Interrupt`], the flag KILL raises and long loops check; [`pending`], the warnings
//! evaluation raises until the session takes them.

pub mod code;
pub mod db_error;
pub mod interrupt;
pub mod pending;
pub mod sql_error;
