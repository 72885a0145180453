//! Data definition: ALTER TABLE and table rebuilds, CREATE TABLE ... SELECT, foreign servers.

pub mod alter;
pub mod create_select;
pub mod rebuild;
pub mod servers;
pub mod table_draft;
