//! Data definition: databases, tables (CREATE / DROP / TRUNCATE / RENAME, CREATE TABLE ...
//! SELECT), indexes, ALTER TABLE and table rebuilds, ANALYZE / OPTIMIZE / CHECK, accounts and
//! grants, foreign servers, FOREIGN KEY constraints (foreign_key_ops.rs), table export and import, roll-ups (CREATE / DROP ROLLUP), views (CREATE / ALTER / DROP VIEW). Executors only: their grammars are in parser/.

pub mod alter;
pub mod check;
pub mod check_clustering;
pub mod check_ops;
pub mod create_select;
pub mod databases;
pub mod exchange;
pub mod expiry;
pub mod foreign_key_columns;
pub mod foreign_key_ops;
pub mod indexes;
pub mod instant;
pub mod maintenance;
pub mod online_index;
pub mod online_maintain;
mod part_streams;
pub mod partitions;
pub mod rebuild;
pub mod retention;
pub mod rollup;
pub mod servers;
pub mod table_draft;
pub mod tables;
pub mod transport;
pub mod transport_meta;
pub mod users;
pub mod views;
