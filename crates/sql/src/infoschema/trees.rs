//! The tables' trees and their sizes: information_schema.BETULA_TREES (one row per tree: a table's
//! primary tree or an index's, per partition), and [`tree_infos`], which SHOW ENGINE BETULA STATUS and
//! the server's metrics endpoint read too.
//!
//! Invariant: computed from the storage engine's live figures on each query (`TreeStats`), never
//! stored; a tree that cannot be opened (dropped meanwhile) is left out rather than failing the query.

use super::{ic, names, t, ViewRows};
use crate::catalog::TableDef;
use crate::context::{Context, Engine};
use crate::types::value::Value;
use betula_storage::TreeStats;

/// One tree of a table, with its figures.
#[derive(Debug, Clone)]
pub struct TreeInfo {
    pub schema: String,
    pub table: String,
    /// The partition's name (None: the table is not partitioned).
    pub partition: Option<String>,
    /// `PRIMARY` or the index's name.
    pub index: String,
    /// The tree's name in the storage engine.
    pub tree: String,
    pub stats: TreeStats,
}

/// The trees of every table of `tables`, in table order: per partition, the primary tree first.
pub fn tree_infos(engine: &Engine, tables: &[std::sync::Arc<TableDef>]) -> Vec<TreeInfo> {
    let mut out = Vec::new();
    for td in tables {
        for part in td.parts() {
            let partition = match (part, &td.partitioning) {
                (Some(p), Some(parts)) => Some(parts.parts[p].name.clone()),
                _ => None,
            };
            let mut trees = vec![("PRIMARY".to_string(), td.primary_tree_of(part))];
            for (i, ix) in td.indexes.iter().enumerate() {
                trees.push((ix.name.clone(), td.index_tree_of(part, i)));
            }
            for (index, tree) in trees {
                let Ok(handle) = engine.store.tree(&tree) else {
                    continue;
                };
                out.push(TreeInfo {
                    schema: td.db.clone(),
                    table: td.name.clone(),
                    partition: partition.clone(),
                    index,
                    tree,
                    stats: handle.stats(),
                });
            }
        }
    }
    out
}

/// information_schema.BETULA_TREES: the trees of the tables the user may see.
pub(super) fn trees_view(cx: &Context, tables: Vec<std::sync::Arc<TableDef>>) -> ViewRows {
    let mut cols = names(&[
        "TABLE_SCHEMA",
        "TABLE_NAME",
        "PARTITION_NAME",
        "INDEX_NAME",
        "TREE_NAME",
    ]);
    for n in [
        "FILE_BYTES",
        "FREE_BYTES",
        "HEIGHT",
        "CACHED_NODES",
        "CACHED_BYTES",
        "DIRTY_NODES",
        "BUFFERED_MESSAGES",
        "BUFFERED_BYTES",
    ] {
        cols.push(ic(n));
    }
    let rows = tree_infos(&cx.engine, &tables)
        .into_iter()
        .map(|i| {
            let s = &i.stats;
            vec![
                t(i.schema),
                t(i.table),
                i.partition.map(t).unwrap_or(Value::Null),
                t(i.index),
                t(i.tree),
                Value::UInt(s.file_bytes),
                Value::UInt(s.free_bytes),
                Value::UInt(u64::from(s.height)),
                Value::UInt(s.cached_nodes as u64),
                Value::UInt(s.cached_bytes as u64),
                Value::UInt(s.dirty_nodes as u64),
                Value::UInt(s.buffered_messages),
                Value::UInt(s.buffered_bytes),
            ]
        })
        .collect();
    (cols, rows)
}
