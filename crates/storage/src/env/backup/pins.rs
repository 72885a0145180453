//! A backup round's checkpoint: run one, and under the checkpoint mutex read every tree's durable
//! checkpoint back and pin its places (design.md BKP1), and for the final round hold the log from the
//! checkpoint's begin (BKP2). [`Pins`] releases all of it when dropped, on every path out of the backup
//! (BKP7).

use crate::env::checkpoint::run_then;
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
