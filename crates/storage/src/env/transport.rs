//! Moving trees between environments (design.md, "Moving a table between servers", EXP1-EXP4):
//! [`Env::export_tree`] writes a tree's committed rows as a standalone tree file (header, blocks,
//! translation table: file-format.md §3) outside the environment; [`Env::import_trees`] replaces trees
//! by copies of such files' blocks, all at once, as a bulk load replaces them (env/loader.rs).

use super::Env;
use crate::error::{Error, Result};
use crate::tree::Tree;
use std::ops::Bound;
use std::path::{Path, PathBuf};

/// What an export wrote.
#[derive(Debug, Clone, Copy)]
pub struct ExportStats {
    pub rows: u64,
    pub file_bytes: u64,
}

impl Env {
    /// Writes the latest committed rows of tree `name` into a new standalone tree file `dest` (built
    /// bottom-up, so it holds only committed values and no buffered message, EXP1), durable when this
    /// returns. The caller keeps writers away meanwhile if it wants one consistent state of several trees.
    pub fn export_tree(&self, name: &str, dest: &Path) -> Result<ExportStats> {
        let src = self.open_tree(name)?;
        let inner = &self.inner;
        if inner.vfs.exists(dest) {
            return Err(Error::InvalidArgument(format!(
                "{} exists already",
                dest.display()
            )));
        }
        let out = Tree::open_in(
            &*inner.vfs,
            dest,
            src.tree().id(),
            src.tree().options(),
            inner.tree_context(),
            true,
        )?;
        out.set_column_layout(src.tree().column_layout());
        let mut rows = src.range(Bound::Unbounded, Bound::Unbounded, false);
        let stats = out.build_from_sorted(&mut rows)?;
        out.write_capture(out.capture())?;
        let file_bytes = out.stats().file_bytes;
        Ok(ExportStats {
            rows: stats.rows,
            file_bytes,
        })
    }

    /// Replaces each named tree by a copy of the standalone tree file beside it (made by
    /// [`Env::export_tree`], here or in another environment), all at once: the blocks are checked and
    /// copied, never rebuilt (EXP2); nothing changes on any error. Returns the blocks copied per tree.
    pub fn import_trees(&self, imports: Vec<(String, PathBuf)>) -> Result<Vec<u64>> {
        let (names, files): (Vec<String>, Vec<PathBuf>) = imports.into_iter().unzip();
        let vfs = self.inner.vfs.clone();
        self.replace_staged(&names, |i, stage| stage.adopt_file(&*vfs, &files[i]))
    }
}
