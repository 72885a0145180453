//! Library side of the `betula` binary: the MySQL wire-protocol layer, the backend glue that
//! connects it to the SQL engine, the `serve` settings, and `betula import`.
pub mod backend;
pub mod config;
pub mod import;
pub mod protocol;
