//! Online backup and restore (design.md, "Online backup and restore", BKP1-BKP8; the manifest:
//! file-format.md §7).
//!
//! | module | owns |
//! | --- | --- |
//! | `mod.rs` | [`Env::backup`]: the two rounds, options, progress and summary |
//! | `pins.rs` | a round's checkpoint with its places pinned and the log held; released by a guard |
//! | `dest.rs` | the destination directory: block files, whole files, throttling, progress, cancel |
//! | `log_copy.rs` | copying the log from the final checkpoint's begin to the end LSN |
//! | `manifest.rs` | the manifest: every file and block with its checksum |
//! | `restore.rs` | [`restore_backup`]: a backup chain into a new environment directory |

mod dest;
mod log_copy;
pub mod manifest;
mod pins;
mod restore;

pub use restore::{read_manifest, restore_backup, RestoreSummary};

use super::catalog::{catalog_name, EnvHeader};
use super::recovery::ENV_FILE;
use super::Env;
use crate::error::{Error, Result};
use crate::tree::Tree;
use dest::Dest;
use manifest::{block_hash, BlockEntry, BlockSource, Manifest, TreeEntry, MANIFEST_FILE};
use pins::{Pins, Snapshot};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// How to back up.
#[derive(Debug, Clone, Default)]
pub struct BackupOptions {
    /// An earlier backup of which this one is an increment: blocks its chain holds are not copied again.
    pub base: Option<PathBuf>,
    /// At most this many bytes read per second (None or 0: as fast as the disks go).
    pub throttle_bytes_per_sec: Option<u64>,
}

/// What a running backup has done so far; shared with whoever shows it. `cancel` stops it.
#[derive(Debug, Default)]
pub struct BackupProgress {
    /// 0 before it starts, 1 copying the first checkpoint, 2 the final round, 3 done.
    pub phase: AtomicU8,
    /// Bytes to read as far as known (grows when the final round starts).
    pub bytes_total: AtomicU64,
    /// Bytes read from the environment.
    pub bytes_done: AtomicU64,
    /// Bytes written to the backup directory.
    pub bytes_written: AtomicU64,
    pub cancel: AtomicBool,
}

/// What a backup did.
#[derive(Debug, Clone)]
pub struct BackupSummary {
    pub id: u64,
    pub base_id: u64,
    pub checkpoint_seq: u64,
    pub begin_lsn: u64,
    pub end_lsn: u64,
    pub trees: usize,
    /// Blocks written to the backup, and blocks left to the base chain (identical there).
    pub blocks_copied: u64,
    pub blocks_from_base: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub elapsed: Duration,
}

/// Per tree id: what the backup holds of each live place (offset → length and entry).
type Copied = HashMap<u64, HashMap<u64, (u32, BlockEntry)>>;

/// The blocks of a base chain by tree id and block number: length and hash (BKP8).
type BaseIndex = HashMap<(u64, u64), (u32, u128)>;

impl Env {
    /// Backs the running environment up into `dest` (a new or empty directory); writers go on meanwhile.
    pub fn backup(
        &self,
        dest: &Path,
        opts: &BackupOptions,
        progress: &BackupProgress,
    ) -> Result<BackupSummary> {
        let inner = &*self.inner;
        inner.check_writable()?;
        let Some(_one) = inner.backup_running.try_lock() else {
            return Err(Error::InvalidArgument(
                "another backup of this environment is running".into(),
            ));
        };
        let started = Instant::now();
        let base = match &opts.base {
            Some(dir) => Some(read_manifest(&*inner.vfs, dir)?),
            None => None,
        };
        let index = base.as_ref().map(base_index).unwrap_or_default();
        let mut out = Dest::create(&*inner.vfs, dest, opts.throttle_bytes_per_sec, progress)?;
        let mut pins = Pins::new(inner);
        let mut run = Run {
            out: &mut out,
            index: &index,
            copied: HashMap::new(),
            blocks_copied: 0,
            blocks_from_base: 0,
        };

        // Round 1: the bulk of the data, as of a checkpoint.
        progress.phase.store(1, Ordering::Relaxed);
        let first = pins.checkpoint(false)?;
        progress
            .bytes_total
            .store(snapshot_bytes(&first), Ordering::Relaxed);
        for (tree, ck) in &first.trees {
            run.copy_tree(tree, ck, false)?;
        }

        // The final round: what changed since, and the log up to the end LSN.
        progress.phase.store(2, Ordering::Relaxed);
        let gate = inner.unlogged_gate.write();
        let last = pins.checkpoint(true)?;
        let fresh = run.bytes_not_copied(&last);
        progress.bytes_total.fetch_add(fresh, Ordering::Relaxed);
        let mut trees = Vec::with_capacity(last.trees.len());
        for (tree, ck) in &last.trees {
            trees.push(run.copy_tree(tree, ck, true)?);
        }
        inner.wal.roll()?;
        let firsts = inner.wal.segment_firsts();
        drop(gate);
        let (mut files, end_lsn) = log_copy::copy_log(
            &*inner.vfs,
            inner.wal.dir(),
            &firsts,
            last.begin_lsn,
            run.out,
        )?;
        let (blocks_copied, blocks_from_base) = (run.blocks_copied, run.blocks_from_base);
        drop(pins);

        files.extend(write_env_files(&mut out, &last)?);
        out.sync_all()?;
        let manifest = Manifest {
            id: rand::random::<u64>() | 1,
            base_id: base.as_ref().map_or(0, |b| b.id),
            base_dir: opts.base.clone().unwrap_or_default(),
            created_unix_secs: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            checkpoint_seq: last.seq,
            begin_lsn: last.begin_lsn,
            end_lsn,
            files,
            trees,
        };
        write_manifest(&*inner.vfs, out.dir(), &manifest)?;
        progress.phase.store(3, Ordering::Relaxed);
        Ok(BackupSummary {
            id: manifest.id,
            base_id: manifest.base_id,
            checkpoint_seq: last.seq,
            begin_lsn: last.begin_lsn,
            end_lsn,
            trees: manifest.trees.len(),
            blocks_copied,
            blocks_from_base,
            bytes_read: progress.bytes_done.load(Ordering::Relaxed),
            bytes_written: progress.bytes_written.load(Ordering::Relaxed),
            elapsed: started.elapsed(),
        })
    }
}

/// The state of one backup's copying.
struct Run<'r, 'd> {
    out: &'r mut Dest<'d>,
    index: &'r BaseIndex,
    copied: Copied,
    blocks_copied: u64,
    blocks_from_base: u64,
}

impl Run<'_, '_> {
    /// Copies the blocks of one tree's checkpoint, in file order (sequential reads). In the final round a
    /// block round 1 copied at a place still referenced, with the same length, is taken as it is (BKP4):
    /// that place has been pinned since round 1.
    fn copy_tree(
        &mut self,
        tree: &Tree,
        ck: &crate::tree::DurableCheckpoint,
        final_round: bool,
    ) -> Result<TreeEntry> {
        let id = tree.id();
        let mut places: Vec<_> = ck.table.map.iter().map(|(bn, loc)| (*bn, *loc)).collect();
        places.sort_by_key(|(_, loc)| loc.offset);
        let mut blocks = Vec::with_capacity(places.len());
        for (bn, loc) in places {
            let known = final_round
                .then(|| self.copied.get(&id))
                .flatten()
                .and_then(|m| m.get(&loc.offset))
                .filter(|(len, e)| *len == loc.len && e.bn == bn);
            if let Some((_, entry)) = known {
                blocks.push(*entry);
                continue;
            }
            let bytes = tree.read_checked_block(bn, loc)?;
            self.out.pace(bytes.len() as u64)?;
            let hash = block_hash(&bytes);
            let source = if self.index.get(&(id, bn)) == Some(&(loc.len, hash)) {
                self.blocks_from_base += 1;
                BlockSource::Base
            } else {
                self.blocks_copied += 1;
                BlockSource::Here(self.out.write_block(id, &bytes)?)
            };
            let entry = BlockEntry {
                bn,
                len: loc.len,
                prefix_len: loc.prefix_len,
                source,
                hash,
            };
            self.copied
                .entry(id)
                .or_default()
                .insert(loc.offset, (loc.len, entry));
            blocks.push(entry);
        }
        blocks.sort_by_key(|b| b.bn);
        let h = &ck.header;
        Ok(TreeEntry {
            id,
            seq: h.seq,
            msn: h.msn,
            root: h.root,
            next_bn: h.next_bn,
            blocks,
        })
    }

    /// Bytes of `snap`'s blocks this backup has not read yet.
    fn bytes_not_copied(&self, snap: &Snapshot) -> u64 {
        let mut n = 0;
        for (tree, ck) in &snap.trees {
            let copied = self.copied.get(&tree.id());
            for loc in ck.table.map.values() {
                if !copied.is_some_and(|m| m.contains_key(&loc.offset)) {
                    n += u64::from(loc.len);
                }
            }
        }
        n
    }
}

/// Bytes of every block of a snapshot.
fn snapshot_bytes(snap: &Snapshot) -> u64 {
    snap.trees
        .iter()
        .flat_map(|(_, ck)| ck.table.map.values())
        .map(|loc| u64::from(loc.len))
        .sum()
}

fn base_index(m: &Manifest) -> BaseIndex {
    let mut index = HashMap::new();
    for t in &m.trees {
        for b in &t.blocks {
            index.insert((t.id, b.bn), (b.len, b.hash));
        }
    }
    index
}

/// The environment header (replay from the final checkpoint's begin) and that checkpoint's catalog.
fn write_env_files(out: &mut Dest<'_>, snap: &Snapshot) -> Result<Vec<manifest::FileEntry>> {
    let header = EnvHeader {
        seq: snap.seq,
        replay_lsn: snap.begin_lsn,
        next_lsn: snap.begin_lsn + 1,
        catalog_len: snap.catalog_bytes.len() as u32,
        catalog_crc: crc32c::crc32c(&snap.catalog_bytes),
    };
    let mut env_bytes = vec![0u8; 2 * crate::format::HEADER_SLOT_BYTES as usize];
    let slot = header.encode();
    let at = (snap.seq % 2) as usize * slot.len();
    env_bytes[at..at + slot.len()].copy_from_slice(&slot);
    debug_assert_eq!(slot.len() as u64, crate::format::HEADER_SLOT_BYTES);
    Ok(vec![
        out.write_file(&catalog_name(snap.seq), &snap.catalog_bytes)?,
        out.write_file(ENV_FILE, &env_bytes)?,
    ])
}

/// Writes the manifest and makes it durable, last of all (BKP6).
fn write_manifest(vfs: &dyn crate::vfs::Vfs, dir: &Path, m: &Manifest) -> Result<()> {
    let path = dir.join(MANIFEST_FILE);
    let pstr = path.display().to_string();
    let bytes = m.encode();
    let file = vfs
        .open(&path, true)
        .map_err(|e| Error::io("create", &pstr, e))?;
    file.write_all_at(&bytes, 0)
        .and_then(|_| file.sync())
        .map_err(|e| Error::io("write", &pstr, e))?;
    vfs.sync_dir(dir)
        .map_err(|e| Error::io("fsync directory", dir.display().to_string(), e))
}

/// A whole file's bytes.
pub(crate) fn read_file(vfs: &dyn crate::vfs::Vfs, path: &Path) -> Result<Vec<u8>> {
    let pstr = path.display().to_string();
    let file = vfs
        .open(path, false)
        .map_err(|e| Error::io("open", &pstr, e))?;
    let len = file.len().map_err(|e| Error::io("stat", &pstr, e))?;
    let mut raw = vec![0u8; len as usize];
    file.read_exact_at(&mut raw, 0)
        .map_err(|e| Error::io("read", &pstr, e))?;
    Ok(raw)
}

/// Creates `dir` and its `wal/`; it must not exist or be empty (`what` names it in the error).
pub(crate) fn create_empty_dir(vfs: &dyn crate::vfs::Vfs, dir: &Path, what: &str) -> Result<()> {
    let dstr = dir.display().to_string();
    let listed = || vfs.list(dir).map_err(|e| Error::io("list", &dstr, e));
    if vfs.exists(dir) && !listed()?.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{what} {dstr} is not empty"
        )));
    }
    vfs.create_dir_all(&dir.join(super::recovery::WAL_DIR))
        .map_err(|e| Error::io("create directory", &dstr, e))
}
