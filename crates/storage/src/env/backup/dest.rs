//! The backup's destination directory: block files written back to back, whole files (environment header,
//! catalog, log segments) with their checksums, the pace of it all (throttling to a rate in bytes per
//! second), the progress figures and cancellation.
//!
//! Invariant: nothing here is durable until [`Dest::sync_all`]; the manifest is written after it (BKP6).

use super::manifest::{block_file_name, FileEntry};
use super::BackupProgress;
use crate::error::{Error, Result};
use crate::vfs::{Vfs, VfsFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) struct Dest<'a> {
    vfs: &'a dyn Vfs,
    dir: PathBuf,
    throttle: Option<u64>,
    progress: &'a BackupProgress,
    started: Instant,
    /// Bytes read from the live environment so far (what the throttle paces).
    read: u64,
    /// Per tree id: its block file and the offset of the next block.
    blocks: BTreeMap<u64, (Arc<dyn VfsFile>, u64)>,
    /// Every file written, to fsync at the end.
    files: Vec<(PathBuf, Arc<dyn VfsFile>)>,
}

impl<'a> Dest<'a> {
    /// Creates the directory (and its `wal/`); it must not exist or be empty.
    pub fn create(
        vfs: &'a dyn Vfs,
        dir: &Path,
        throttle: Option<u64>,
        progress: &'a BackupProgress,
    ) -> Result<Dest<'a>> {
        super::create_empty_dir(vfs, dir, "backup directory")?;
        Ok(Dest {
            vfs,
            dir: dir.to_path_buf(),
            throttle: throttle.filter(|r| *r > 0),
            progress,
            started: Instant::now(),
            read: 0,
            blocks: BTreeMap::new(),
            files: Vec::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn create_file(&mut self, name: &str) -> Result<Arc<dyn VfsFile>> {
        let path = self.dir.join(name);
        let file = self
            .vfs
            .open(&path, true)
            .map_err(|e| Error::io("create", path.display().to_string(), e))?;
        self.files.push((path, file.clone()));
        Ok(file)
    }

    /// Appends a block of tree `tree` to its block file; returns its offset there.
    pub fn write_block(&mut self, tree: u64, bytes: &[u8]) -> Result<u64> {
        if !self.blocks.contains_key(&tree) {
            let file = self.create_file(&block_file_name(tree))?;
            self.blocks.insert(tree, (file, 0));
        }
        let (file, next) = self.blocks.get_mut(&tree).expect("inserted");
        let offset = *next;
        file.write_all_at(bytes, offset)
            .map_err(|e| Error::io("write", block_file_name(tree), e))?;
        *next += bytes.len() as u64;
        self.progress
            .bytes_written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(offset)
    }

    /// Writes a whole file (its path relative to the backup directory) and returns its manifest entry.
    pub fn write_file(&mut self, name: &str, bytes: &[u8]) -> Result<FileEntry> {
        let file = self.create_file(name)?;
        file.write_all_at(bytes, 0)
            .map_err(|e| Error::io("write", name.to_string(), e))?;
        self.progress
            .bytes_written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(FileEntry {
            name: name.to_string(),
            len: bytes.len() as u64,
            crc: crc32c::crc32c(bytes),
        })
    }

    /// Counts `bytes` read from the live environment, sleeps as long as the throttle asks, and stops the
    /// backup if it was cancelled.
    pub fn pace(&mut self, bytes: u64) -> Result<()> {
        self.read += bytes;
        self.progress.bytes_done.fetch_add(bytes, Ordering::Relaxed);
        if self.progress.cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        if let Some(rate) = self.throttle {
            let due = Duration::from_secs_f64(self.read as f64 / rate as f64);
            let elapsed = self.started.elapsed();
            if due > elapsed {
                std::thread::sleep(due - elapsed);
            }
        }
        Ok(())
    }

    /// fsyncs every file written and the directories.
    pub fn sync_all(&self) -> Result<()> {
        for (path, file) in &self.files {
            file.sync()
                .map_err(|e| Error::io("fsync", path.display().to_string(), e))?;
        }
        for dir in [
            self.dir.join(crate::env::recovery::WAL_DIR),
            self.dir.clone(),
        ] {
            self.vfs
                .sync_dir(&dir)
                .map_err(|e| Error::io("fsync directory", dir.display().to_string(), e))?;
        }
        Ok(())
    }
}
