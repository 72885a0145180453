//! Library side of the `betula` binary: the MySQL wire-protocol layer, the backend glue that
//! connects it to the SQL engine, and the `serve` settings.
pub mod backend;
pub mod config;
pub mod protocol;
