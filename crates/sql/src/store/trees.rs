//! Tree handles: [`Store`] opens the storage environment (registering the upsert function under
//! [`UPSERT_FN`]) and keeps a handle per tree name; hands trees their column layouts.
//!
//! Invariant: a cached handle is forgotten whenever its tree is dropped, renamed or replaced
//! in bulk or by an import, so a name never resolves to a tree that no longer holds it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use betula_storage::vfs::{RealVfs, Vfs};
use betula_storage::{
    ColumnLayout, Env, EnvOptions, TreeHandle, TreeOptions, TreeStats, UpdateRegistry,
};
use parking_lot::RwLock;

use super::{upsert, SchemaLock, UPSERT_FN};
use crate::error::db_error::DbResult;

/// The storage environment, its tree handles, and the schema lock.
pub struct Store {
    env: Env,
    trees: RwLock<HashMap<String, TreeHandle>>,
    pub schema_lock: SchemaLock,
    /// The online index build in progress, if any (online.rs).
    pub online: Arc<super::online::OnlineLogs>,
    /// Trees made by rebuilds and index builds, for snapshots older than them (online.rs).
    pub births: super::online::TreeBirths,
}

impl Store {
    pub fn open(dir: &Path, opts: EnvOptions) -> DbResult<Store> {
        Store::open_with_vfs(Arc::new(RealVfs), dir, opts)
    }
    /// Opens the environment through any file system (fault-injection tests pass a
    /// `betula_storage::vfs::FaultVfs`).
    pub fn open_with_vfs(vfs: Arc<dyn Vfs>, dir: &Path, opts: EnvOptions) -> DbResult<Store> {
        let mut reg = UpdateRegistry::new();
        reg.register(UPSERT_FN, |_key, old, arg| upsert::apply(old, arg));
        let env = Env::open_with_vfs(vfs, dir, opts, reg)?;
        Ok(Store {
            env,
            trees: RwLock::new(HashMap::new()),
            schema_lock: SchemaLock::default(),
            online: Arc::default(),
            births: Default::default(),
        })
    }
    pub fn env(&self) -> &Env {
        &self.env
    }
    pub fn tree(&self, name: &str) -> DbResult<TreeHandle> {
        if let Some(t) = self.trees.read().get(name) {
            return Ok(t.clone());
        }
        let t = self.env.open_tree(name)?;
        self.trees.write().insert(name.to_string(), t.clone());
        Ok(t)
    }
    pub fn create_tree(&self, name: &str, opts: Option<TreeOptions>) -> DbResult<()> {
        let t = self.env.create_tree(name, opts)?;
        self.trees.write().insert(name.to_string(), t);
        Ok(())
    }
    pub fn drop_tree(&self, name: &str) -> DbResult<()> {
        self.trees.write().remove(name);
        if self.env.tree_names().iter().any(|n| n == name) {
            self.env.drop_tree(name)?;
        }
        Ok(())
    }
    pub fn rename_tree(&self, from: &str, to: &str) -> DbResult<()> {
        self.trees.write().remove(from);
        self.env.rename_tree(from, to)?;
        Ok(())
    }
    /// Swaps the names of each pair of trees, all at once and atomically across a crash
    /// (`Env::swap_trees`, design.md WAL3); cached handles of both names are forgotten.
    pub fn swap_trees(&self, pairs: &[(String, String)]) -> DbResult<()> {
        // Held across the swap, so no lookup caches a name's tree of before it.
        let mut cache = self.trees.write();
        for (a, b) in pairs {
            cache.remove(a);
            cache.remove(b);
        }
        self.env.swap_trees(pairs)?;
        Ok(())
    }
    /// Hands each named tree the layout its leaves are written with from now on (design.md COL5;
    /// [`crate::catalog::TableDef::column_layouts`]).
    pub fn set_column_layouts(&self, layouts: Vec<(String, ColumnLayout)>) -> DbResult<()> {
        for (name, layout) in layouts {
            self.tree(&name)?.set_column_layout(Some(layout));
        }
        Ok(())
    }
    /// Replaces the named trees' contents from sorted streams, atomically (`Env::bulk_replace`),
    /// and forgets the cached handles of the replaced trees.
    pub fn bulk_replace(
        &self,
        loads: Vec<(String, betula_storage::SortedRows<'_>)>,
    ) -> betula_storage::Result<Vec<betula_storage::BuildStats>> {
        let names: Vec<String> = loads.iter().map(|(n, _)| n.clone()).collect();
        let r = self.env.bulk_replace(loads);
        let mut cache = self.trees.write();
        for n in names {
            cache.remove(&n);
        }
        r
    }
    /// Replaces the named trees by copies of exported tree files, atomically (`Env::import_trees`), and
    /// forgets the cached handles of the replaced trees.
    pub fn import_trees(
        &self,
        imports: Vec<(String, std::path::PathBuf)>,
    ) -> betula_storage::Result<Vec<u64>> {
        let names: Vec<String> = imports.iter().map(|(n, _)| n.clone()).collect();
        let r = self.env.import_trees(imports);
        let mut cache = self.trees.write();
        for n in names {
            cache.remove(&n);
        }
        r
    }
    /// Free bytes inside the named trees' files (holes awaiting reuse).
    pub fn tree_free_bytes(&self, names: &[String]) -> u64 {
        self.sum_stats(names, |s| s.free_bytes)
    }
    /// Bytes on disk of the named trees.
    pub fn tree_bytes(&self, names: &[String]) -> u64 {
        self.sum_stats(names, |s| s.file_bytes)
    }
    fn sum_stats(&self, names: &[String], figure: impl Fn(&TreeStats) -> u64) -> u64 {
        names
            .iter()
            .filter_map(|n| self.tree(n).ok())
            .map(|t| figure(&t.stats()))
            .sum()
    }
}
