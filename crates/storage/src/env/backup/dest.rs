//! The backup's destination directory: block files written in runs of blocks back to back, whole files
//! (environment header, catalog, log segments) with their checksums, the pace of it all (throttling to a
//! rate in bytes per second), the progress figures and cancellation.
//!
//! Invariants: nothing here is durable until [`Dest::sync_all`], which fsyncs each file once; the manifest
//! is written after it (BKP6). Every file is made by `Vfs::create_direct` and written through
//! [`Chunks`] (BKP9): a tree's blocks are gathered into chunks, and each run of them starts at a multiple
//! of the alignment (the zeros before it are no block's).

use super::chunks::Chunks;
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
    /// Per tree id: its block file and where its next run of blocks starts (aligned).
    blocks: BTreeMap<u64, (Arc<dyn VfsFile>, u64)>,
    /// What `chunks` is writing.
    run: Option<Run>,
    chunks: Chunks,
    /// Every file written, to fsync at the end.
    files: Vec<(PathBuf, Arc<dyn VfsFile>)>,
}

/// What the chunk writer is writing: a run of one tree's blocks, or a whole file with its length and
/// CRC-32C so far.
enum Run {
    Blocks(u64),
    File {
        name: String,
        file: Arc<dyn VfsFile>,
        len: u64,
        crc: u32,
    },
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
            run: None,
            chunks: Chunks::new(),
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
            .create_direct(&path)
            .map_err(|e| Error::io("create", path.display().to_string(), e))?;
        self.files.push((path, file.clone()));
        Ok(file)
    }

    /// Appends a block of tree `tree` to its block file; returns its offset there. The bytes are written
    /// with the blocks that follow them, at the latest by [`Dest::sync_all`].
    pub fn write_block(&mut self, tree: u64, bytes: &[u8]) -> Result<u64> {
        if !matches!(self.run, Some(Run::Blocks(t)) if t == tree) {
            self.end_run()?;
            if !self.blocks.contains_key(&tree) {
                let file = self.create_file(&block_file_name(tree))?;
                self.blocks.insert(tree, (file, 0));
            }
            let (file, at) = &self.blocks[&tree];
            self.chunks.begin(file.clone(), &block_file_name(tree), *at);
            self.run = Some(Run::Blocks(tree));
        }
        let offset = self.chunks.position();
        self.chunks.append(bytes)?;
        self.progress
            .bytes_written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(offset)
    }

    /// Writes what is left of the current run of blocks (the tree's next run starts after it); a file
    /// being written must have been ended.
    fn end_run(&mut self) -> Result<()> {
        match self.run.take() {
            Some(Run::Blocks(tree)) => {
                let end = self.chunks.end()?.expect("a run");
                self.blocks.get_mut(&tree).expect("its file").1 = end;
            }
            Some(Run::File { .. }) => unreachable!("a file is ended by end_file"),
            None => {}
        }
        Ok(())
    }

    /// Starts a whole file (its path relative to the backup directory), written by [`Dest::append_file`].
    pub fn begin_file(&mut self, name: &str) -> Result<()> {
        self.end_run()?;
        let file = self.create_file(name)?;
        self.chunks.begin(file.clone(), name, 0);
        self.run = Some(Run::File {
            name: name.to_string(),
            file,
            len: 0,
            crc: 0,
        });
        Ok(())
    }

    /// Appends bytes to the file begun last.
    pub fn append_file(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(Run::File { len, crc, .. }) = &mut self.run else {
            unreachable!("no file begun");
        };
        *len += bytes.len() as u64;
        *crc = crc32c::crc32c_append(*crc, bytes);
        self.chunks.append(bytes)?;
        self.progress
            .bytes_written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Ends the file begun last (its padding cut off) and returns its manifest entry.
    pub fn end_file(&mut self) -> Result<FileEntry> {
        let Some(Run::File {
            name,
            file,
            len,
            crc,
        }) = self.run.take()
        else {
            unreachable!("no file begun");
        };
        self.chunks.end()?;
        file.set_len(len)
            .map_err(|e| Error::io("truncate", name.clone(), e))?;
        Ok(FileEntry { name, len, crc })
    }

    /// Writes a whole file and returns its manifest entry.
    pub fn write_file(&mut self, name: &str, bytes: &[u8]) -> Result<FileEntry> {
        self.begin_file(name)?;
        self.append_file(bytes)?;
        self.end_file()
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

    /// Writes the blocks still gathered, then fsyncs every file written (once each) and the directories.
    pub fn sync_all(&mut self) -> Result<()> {
        self.end_run()?;
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
