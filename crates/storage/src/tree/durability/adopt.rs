//! Filling an empty tree with the blocks of a standalone tree file (an export, design.md EXP2): each block
//! is read, checked and decoded, must hold only committed values and no buffered message, and is written
//! to a new place of this tree's file; the tree then takes the file's root and block numbers.

use super::open::read_checkpoint;
use crate::corruption;
use crate::error::{Error, Result};
use crate::tree::format::node_codec;
use crate::tree::in_memory::mvcc::Cell;
use crate::tree::in_memory::node::Node;
use crate::tree::Tree;
use crate::vfs::Vfs;
use std::collections::HashMap;
use std::path::Path;

impl Tree {
    /// Copies the tree in the standalone file `path` into this empty tree (not yet durable: the caller
    /// checkpoints); returns the number of blocks copied.
    pub(crate) fn adopt_file(&self, vfs: &dyn Vfs, path: &Path) -> Result<u64> {
        let pstr = path.display().to_string();
        let file = vfs
            .open(path, false)
            .map_err(|e| Error::io("open", &pstr, e))?;
        let Some(ck) = read_checkpoint(&*file, &pstr, None)? else {
            return Err(corruption!(pstr, Some(0), "no valid header slot"));
        };
        let mut st = self.state.write();
        if !self.is_empty_locked(&st)? {
            return Err(Error::InvalidArgument(
                "an import needs an empty tree".into(),
            ));
        }
        let mut places: Vec<_> = ck.table.map.iter().map(|(bn, loc)| (*bn, *loc)).collect();
        places.sort_by_key(|(_, loc)| loc.offset);
        let mut table = HashMap::with_capacity(places.len());
        for (bn, loc) in places {
            let mut bytes = vec![0u8; loc.len as usize];
            file.read_exact_at(&mut bytes, loc.offset)
                .map_err(|e| Error::io_at("read", &pstr, loc.offset, e))?;
            let bad = |what: String| corruption!(pstr, Some(loc.offset), "node {bn}: {what}");
            let node = node_codec::decode_node(&bytes, bn, false).map_err(|e| bad(e.0))?;
            if !committed_only(&node) {
                return Err(bad(
                    "holds versions or buffered messages: not an exported tree".into(),
                ));
            }
            table.insert(bn, self.write_block(&bytes, loc.prefix_len)?);
        }
        let n = table.len() as u64;
        self.install(&mut st, ck.header.root, ck.header.next_bn, table);
        Ok(n)
    }
}

/// Whether a fully decoded node holds only committed plain values (a leaf) or only empty buffers.
fn committed_only(node: &Node) -> bool {
    match node {
        Node::Leaf { basements, .. } => basements.iter().all(|b| {
            b.loaded.as_ref().is_some_and(|b| {
                b.entries()
                    .iter()
                    .all(|(_, cell)| matches!(cell, Cell::Plain(_)))
            })
        }),
        Node::Internal { buffers, .. } => buffers
            .iter()
            .all(|b| b.loaded.as_ref().is_some_and(|b| b.is_empty())),
    }
}
