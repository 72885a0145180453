//! Opening a tree file: the newer valid header slot, its translation table, and the free space it implies
//! (design.md, "Recovery", step 2).

use super::space::Space;
use crate::block::slots;
use crate::block::{Allocator, TranslationTable};
use crate::cache_budget::CacheBudget;
use crate::corruption;
use crate::error::{Error, Result};
use crate::health::Health;
use crate::tree::format::tree_header::{TreeHeader, TREE_MAGIC, TREE_PAYLOAD_BYTES};
use crate::tree::in_memory::message::UpdateRegistry;
use crate::tree::in_memory::node::Node;
use crate::tree::options::TreeOptions;
use crate::tree::{NodeMap, Tree, TreeState};
use crate::vfs::{Vfs, VfsFile};
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// What a tree needs from its environment.
#[derive(Clone)]
pub(crate) struct TreeContextArgs {
    pub budget: Arc<CacheBudget>,
    pub reg: Arc<UpdateRegistry>,
    pub health: Arc<Health>,
    pub mvcc: Arc<crate::tree::in_memory::mvcc::MvccState>,
    pub flushq: Arc<crate::tree::maintenance::flusher::FlushQueue>,
}

impl Tree {
    /// Opens (or creates, empty) the tree file at `path`. With `reset` the file is emptied first: the tree was
    /// created after the last checkpoint, so nothing in the file counts.
    pub(crate) fn open_in(
        vfs: &dyn Vfs,
        path: &Path,
        id: u64,
        opts: TreeOptions,
        ctx: TreeContextArgs,
        reset: bool,
    ) -> Result<Tree> {
        let pstr = path.display().to_string();
        let file = vfs
            .open(path, true)
            .map_err(|e| Error::io("open", pstr.clone(), e))?;
        if reset {
            file.set_len(0)
                .map_err(|e| Error::io("truncate", pstr.clone(), e))?;
        }
        let state;
        let space;
        match read_checkpoint(&*file, &pstr, Some(id))? {
            None => {
                state = TreeState {
                    root: 1,
                    next_bn: 1,
                    nodes: Mutex::new(NodeMap::default()),
                    table: HashMap::new(),
                    max_msn: 0,
                    ckpt_msn: 0,
                    ckpt_seq: 0,
                    touched: Vec::new(),
                };
                space = Space::new(Allocator::with_used([]), HashMap::new());
            }
            Some(DurableCheckpoint { header: h, table }) => {
                let mut used: HashMap<u64, u64> = table
                    .map
                    .values()
                    .map(|l| (l.offset, u64::from(l.len)))
                    .collect();
                used.insert(h.table_offset, u64::from(h.table_len));
                let alloc = Allocator::with_used(used.iter().map(|(o, l)| (*o, *l)));
                space = Space::new(alloc, used);
                state = TreeState {
                    root: h.root,
                    next_bn: h.next_bn,
                    nodes: Mutex::new(NodeMap::default()),
                    table: table.map,
                    max_msn: h.msn,
                    ckpt_msn: h.msn,
                    ckpt_seq: h.seq,
                    touched: Vec::new(),
                };
            }
        }
        let tree = Tree {
            id,
            opts,
            path: pstr,
            file,
            state: RwLock::new(state),
            space: Mutex::new(space),
            budget: ctx.budget,
            reg: ctx.reg,
            health: ctx.health,
            mvcc: ctx.mvcc,
            flushq: ctx.flushq,
            dropped: std::sync::atomic::AtomicBool::new(false),
            aging: Default::default(),
            settled: Default::default(),
            layout: Default::default(),
            #[cfg(test)]
            write_version_5: Default::default(),
        };
        {
            let mut st = tree.state.write();
            if st.table.is_empty() {
                let root = tree.new_node(&mut st, Node::empty_leaf());
                debug_assert_eq!(root, 1);
                st.root = root;
            }
        }
        Ok(tree)
    }
}

/// A tree file's durable checkpoint: its newer valid header slot and the translation table it names.
pub(crate) struct DurableCheckpoint {
    pub header: TreeHeader,
    pub table: TranslationTable,
}

/// Reads the newer valid header slot of the tree file `file` (named `pstr`, of tree `id` when given) and its
/// translation table, checking both; None for a file that was never checkpointed.
pub(crate) fn read_checkpoint(
    file: &dyn VfsFile,
    pstr: &str,
    id: Option<u64>,
) -> Result<Option<DurableCheckpoint>> {
    let best = slots::newest_valid(
        file,
        pstr,
        TREE_MAGIC,
        TREE_PAYLOAD_BYTES,
        TreeHeader::decode,
        |h| h.seq,
    )?
    .map(|(h, _)| h);
    let Some(h) = best else {
        return Ok(None);
    };
    let file_len = file.len().map_err(|e| Error::io("stat", pstr, e))?;
    if let Some(id) = id.filter(|id| *id != h.tree_id) {
        return Err(corruption!(
            pstr,
            Some(0),
            "header names tree {}, catalog says {id}",
            h.tree_id
        ));
    }
    if h.table_offset + u64::from(h.table_len) > file_len {
        return Err(corruption!(
            pstr,
            Some(h.table_offset),
            "translation table lies past the end of the file"
        ));
    }
    let mut raw = vec![0u8; h.table_len as usize];
    file.read_exact_at(&mut raw, h.table_offset)
        .map_err(|e| Error::io_at("read", pstr, h.table_offset, e))?;
    if crc32c::crc32c(&raw) != h.table_crc {
        return Err(corruption!(
            pstr,
            Some(h.table_offset),
            "translation table checksum mismatch"
        ));
    }
    let table = TranslationTable::decode(&raw, file_len)
        .map_err(|e| corruption!(pstr, Some(h.table_offset), "translation table: {e}"))?;
    if !table.map.contains_key(&h.root) {
        return Err(corruption!(
            pstr,
            Some(h.table_offset),
            "root node {} has no place",
            h.root
        ));
    }
    Ok(Some(DurableCheckpoint { header: h, table }))
}
