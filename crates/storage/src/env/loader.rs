//! Bulk replacement of trees from sorted streams (the storage half of `LOAD DATA` into an empty table), and
//! the replacement of trees by staging trees filled any other way (an import, env/transport.rs).
//!
//! Protocol (rows are never written to the log):
//! 1. For each target tree, create a staging tree named `LOAD_PREFIX<n>/<target>` with the same options
//!    and column layout.
//! 2. Build each staging tree bottom-up from its sorted stream (`Tree::build_from_sorted`).
//! 3. Checkpoint: the staging trees' nodes, tables and headers become durable.
//! 4. Log one `ReplaceTrees` record (all pairs) and make it durable: at that instant every target is replaced
//!    by its staging tree, together. Then remove the old files.
//!
//! A failure or crash before step 4's record is durable leaves every target as it was; staging trees left
//! behind are dropped when the environment opens.

use super::{Env, EnvInner, Error, Result};
use crate::tree::{BuildStats, Tree};
use crate::wal::Record;
use std::sync::atomic::Ordering;

/// Names of staging trees start with this (a NUL byte: no SQL name can contain one).
pub const LOAD_PREFIX: &str = "\u{0}load/";

/// A sorted stream of rows for one tree.
pub type SortedRows<'a> = Box<dyn Iterator<Item = Result<(Vec<u8>, Vec<u8>)>> + 'a>;

impl Env {
    /// Replaces the contents of each named tree with its sorted stream, all trees atomically.
    pub fn bulk_replace(&self, loads: Vec<(String, SortedRows<'_>)>) -> Result<Vec<BuildStats>> {
        let (names, rows): (Vec<String>, Vec<SortedRows<'_>>) = loads.into_iter().unzip();
        let mut rows: Vec<Option<SortedRows<'_>>> = rows.into_iter().map(Some).collect();
        self.replace_staged(&names, |i, stage| {
            let mut r = rows[i].take().expect("each stream once");
            stage.build_from_sorted(&mut *r)
        })
    }

    /// Replaces each named tree, all at once, by a staging tree that `fill` fills (protocol above: the
    /// staging trees are created, filled, checkpointed, and swapped in by one `ReplaceTrees` record). On
    /// any error the staging trees are dropped and the targets are unchanged.
    pub(crate) fn replace_staged<R>(
        &self,
        names: &[String],
        mut fill: impl FnMut(usize, &Tree) -> Result<R>,
    ) -> Result<Vec<R>> {
        let mut staged: Vec<(u64, String)> = Vec::new();
        let result = self.replace_staged_inner(names, &mut fill, &mut staged);
        if result.is_err() {
            for (_, name) in staged {
                let _ = self.drop_tree(&name);
            }
        }
        result
    }

    fn replace_staged_inner<R>(
        &self,
        names: &[String],
        fill: &mut dyn FnMut(usize, &Tree) -> Result<R>,
        staged: &mut Vec<(u64, String)>,
    ) -> Result<Vec<R>> {
        let inner = &self.inner;
        let mut targets = Vec::new();
        for name in names {
            let t = self.open_tree(name)?;
            targets.push(t.tree().id());
        }
        let mut out = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let target = self.open_tree(name)?;
            let options = target.tree().options();
            let stage_name = format!("{LOAD_PREFIX}{}/{name}", inner.wal.next_lsn());
            let stage = self.create_tree(&stage_name, Some(options))?;
            // The staging tree is written as its target would be (design.md COL5).
            stage
                .tree()
                .set_column_layout(target.tree().column_layout());
            staged.push((stage.tree().id(), stage_name));
            out.push(fill(i, stage.tree())?);
            debug_assert_eq!(staged.len(), i + 1);
        }
        // From the checkpoint that makes the staging trees durable until the swap is durable, a backup's
        // final round waits (design.md BKP3).
        let _gate = inner.unlogged_gate.read();
        self.checkpoint()?;
        let pairs: Vec<(u64, u64)> = targets
            .iter()
            .zip(staged.iter())
            .map(|(old, (new, _))| (*old, *new))
            .collect();
        let lsn = {
            let mut trees = inner.trees.lock();
            for (old, _) in &pairs {
                if !trees.catalog.trees.contains_key(old) {
                    return Err(Error::NoSuchTree(format!(
                        "tree {old} was dropped during the load"
                    )));
                }
            }
            let lsn = inner.wal.append(&Record::ReplaceTrees {
                pairs: pairs.clone(),
            })?;
            for (old, new) in &pairs {
                let name = trees.catalog.trees.remove(old).expect("checked").name;
                if let Some(t) = trees.open.remove(old) {
                    t.dropped.store(true, Ordering::SeqCst);
                }
                trees.catalog.trees.get_mut(new).expect("staged").name = name;
            }
            lsn
        };
        staged.clear();
        inner.commit_always(lsn)?;
        for (old, _) in pairs {
            inner.remove_tree_file(old)?;
        }
        Ok(out)
    }
}

impl EnvInner {
    /// Drops staging trees a crashed load left behind (at open).
    pub(crate) fn drop_stale_staging(env: &Env) -> Result<()> {
        for name in env.tree_names() {
            if name.starts_with(LOAD_PREFIX) {
                env.drop_tree(&name)?;
            }
        }
        Ok(())
    }
}
