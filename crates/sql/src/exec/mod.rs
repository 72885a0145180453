//! Execution: scans, queries, INSERT/UPDATE/DELETE (multi-table too), HANDLER, CHECKSUM TABLE,
//! and the upkeep of roll-up tables (rollup/).

pub mod checksum;
pub mod compile_env;
pub mod cte;
pub mod dml;
pub mod external_sort;
pub mod group_table;
pub mod handler;
pub mod join;
pub mod member_sort;
pub mod multi_table;
pub mod percentile;
pub mod query;
pub mod rollup;
pub mod scan;
pub mod select;
pub mod sort;
pub mod subqueries;
pub mod union_types;
pub mod window;
