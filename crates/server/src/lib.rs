//! Library side of the `betula` binary: the MySQL wire-protocol layer, the backend glue that
//! connects it to the SQL engine, the `serve` settings (the binary log's, the default character set's and TLS's among them) read from MariaDB-style option files, the HTTP metrics endpoint, `betula import`,
//! `betula backup` / `restore` / `verify`, the replica of a MariaDB / MySQL primary, and the disk-fault injection seam the reliability tests start
//! the server with.
pub mod backend;
pub mod backup_cli;
pub mod binlog_settings;
pub mod charset_settings;
pub mod config;
pub mod fault_control;
pub mod import;
pub mod metrics;
pub mod option_file;
pub mod protocol;
pub mod replica;
pub mod tls_settings;
