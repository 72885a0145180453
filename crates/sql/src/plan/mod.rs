//! Planning: what a query reads and how, decided before any row is read. A [`query::QueryPlan`]
//! holds [`select::SelectPlan`]s: sources bound from FROM (from.rs) with their access paths
//! (access.rs, hints.rs, index_condition.rs), filters (without what the key range applies:
//! implied.rs), grouping, window functions (window.rs),
//! order and limit, the column names of select items (item_name.rs), their result metadata
//! (out_columns.rs) and the fixed types of computed temporal items (item_type.rs); WITH's common table
//! expressions are bound while planning (cte.rs), views expanded
//! in place as derived tables (view.rs), a view's SELECT resolved for storing (view_text.rs, with
//! view_item_names.rs and expr_children.rs) and shortened for SHOW CREATE VIEW (view_shown.rs), stored functions in expressions expanded in place
//! (stored_function.rs). EXPLAIN renders
//! a plan (explain.rs; FORMAT=JSON: explain_json/; a top-level UNION: explain_union.rs); the executor (exec/) runs the same plan; a locking read takes its locks
//! from it (locks.rs).

pub mod access;
pub mod covering;
pub mod cte;
mod cte_recursion;
pub mod explain;
pub mod explain_json;
pub mod explain_union;
mod expr_children;
pub mod from;
mod full_group_by;
pub mod hints;
pub mod implied;
pub mod index_condition;
mod item_name;
mod item_type;
pub mod join_using;
pub mod locks;
mod out_columns;
pub mod pruning;
pub mod query;
pub mod select;
pub mod stored_function;
pub mod view;
mod view_item_names;
pub mod view_shown;
pub mod view_text;
pub mod window;
