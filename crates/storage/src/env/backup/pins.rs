//! A backup round's checkpoint: the latest completed one (or, before the first, one run for it), whose
//! durable header and table every tree's file holds while the checkpoint mutex is held. Under that mutex
//! each tree's durable checkpoint is read back and its places pinned (design.md BKP1), and for the final
//! round the log is held from the checkpoint's begin (BKP2). [`Pins`] releases all of it when dropped, on
//! every path out of the backup (BKP7).

use crate::corruption;
use crate::env::catalog::{catalog_name, Catalog};
use crate::env::checkpoint::run_then;
use crate::env::recovery::{read_catalog_bytes, read_env_header};
use crate::env::EnvInner;
use crate::error::{Error, Result};
use crate::tree::{DurableCheckpoint, Tree};
use std::sync::Arc;

/// One round's checkpoint as the backup copies it.
pub(crate) struct Snapshot {
    pub seq: u64,
    pub begin_lsn: u64,
    pub catalog_bytes: Vec<u8>,
    /// Every tree of the checkpoint's catalog with its checkpoint, in id order.
    pub trees: Vec<(Arc<Tree>, DurableCheckpoint)>,
}

/// What the backup pinned; released when dropped.
pub(crate) struct Pins<'a> {
    env: &'a EnvInner,
    trees: Vec<Arc<Tree>>,
    log_held: bool,
}

impl<'a> Pins<'a> {
    pub fn new(env: &'a EnvInner) -> Pins<'a> {
        Pins {
            env,
            trees: Vec::new(),
            log_held: false,
        }
    }

    /// Pins the latest completed checkpoint, without running one; with `hold_log` the log is kept from its
    /// begin LSN. While the checkpoint mutex is held no checkpoint is in progress, so the environment
    /// header's newest slot, its catalog and every tree file's newest header slot are that checkpoint's,
    /// and its places are still referenced (CKP1) when they are pinned. A tree of its catalog dropped or
    /// replaced since is left out: its file may be gone, and the copy's recovery replays the record that
    /// dropped it, as the server's own recovery would. Before the first checkpoint, runs one.
    pub fn latest(&mut self, hold_log: bool) -> Result<Snapshot> {
        let env = self.env;
        let ck = env.ckpt.lock();
        let header = read_env_header(&*env.vfs, &env.dir)?
            .map(|(h, _)| h)
            .filter(|h| ck.seq > 0 && h.seq == ck.seq);
        let Some(h) = header else {
            drop(ck);
            return self.checkpoint(hold_log);
        };
        let catalog_bytes = read_catalog_bytes(&*env.vfs, &env.dir, &h)?;
        let catalog = Catalog::decode(&catalog_bytes).map_err(|e| {
            let path = env.dir.join(catalog_name(h.seq));
            corruption!(path.display(), Some(0), "catalog: {e}")
        })?;
        let open: Vec<(Arc<Tree>, u64)> = {
            let trees = env.trees.lock();
            catalog
                .trees
                .iter()
                .filter_map(|(id, e)| trees.open.get(id).map(|t| (t.clone(), e.ckpt_seq)))
                .collect()
        };
        let mut trees = Vec::with_capacity(open.len());
        for (t, seq) in open {
            let durable = t.pin_for_backup();
            self.trees.push(t.clone());
            match durable? {
                Some(d) if d.header.seq == seq => trees.push((t, d)),
                _ => {
                    return Err(corruption!(
                        t.path(),
                        Some(0),
                        "the tree's durable checkpoint is not the one of checkpoint {}",
                        h.seq
                    ))
                }
            }
        }
        if hold_log {
            env.wal.hold_from(Some(h.replay_lsn));
            self.log_held = true;
        }
        Ok(Snapshot {
            seq: h.seq,
            begin_lsn: h.replay_lsn,
            catalog_bytes,
            trees,
        })
    }

    /// Runs a checkpoint and pins what it wrote; with `hold_log` the log is kept from its begin LSN.
    pub fn checkpoint(&mut self, hold_log: bool) -> Result<Snapshot> {
        let env = self.env;
        run_then(env, |done| {
            let mut trees = Vec::with_capacity(done.trees.len());
            for t in done.trees {
                let ck = t.pin_for_backup();
                self.trees.push(t.clone());
                match ck? {
                    Some(ck) => trees.push((t.clone(), ck)),
                    None => {
                        return Err(Error::InvalidArgument(format!(
                            "{} has no checkpoint right after one",
                            t.path()
                        )))
                    }
                }
            }
            if hold_log {
                env.wal.hold_from(Some(done.begin_lsn));
                self.log_held = true;
            }
            Ok(Snapshot {
                seq: done.seq,
                begin_lsn: done.begin_lsn,
                catalog_bytes: done.catalog_bytes.to_vec(),
                trees,
            })
        })
    }
}

impl Drop for Pins<'_> {
    fn drop(&mut self) {
        for t in self.trees.drain(..) {
            t.unpin_for_backup();
        }
        if self.log_held {
            self.env.wal.hold_from(None);
        }
    }
}
