//! The state statements run in: the engine every session shares, and the connection's own.

pub mod engine;
pub mod optimizer_switch;
pub mod temp_tables;
pub mod variables;
