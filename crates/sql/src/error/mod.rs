//! Errors: [`db_error::DbError`], a statement's failure as the client sees it, and
//! [`sql_error::SqlError`] / [`sql_error::Warning`], what conversions and codecs report.

pub mod db_error;
pub mod sql_error;
