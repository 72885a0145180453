//! The file-system seam: every byte the engine reads or writes goes through [`Vfs`] and [`VfsFile`].
//!
//! [`RealVfs`] is the only user of `std::fs` in the engine. [`SimVfs`] keeps files in memory, tracks which
//! bytes were synced, and can crash (drop unsynced writes, tear the last one) or fail I/O on demand: the crash
//! and fault tests plug in here. [`FaultVfs`] wraps either and injects disk faults (EIO, ENOSPC, short,
//! torn and misdirected writes, failed fsyncs, flipped bits) from a [`FaultPlan`] that can change while the
//! environment runs.
//!
//! Contract (the media assumptions of docs/design.md): `sync` makes a file's written bytes durable;
//! `sync_dir` makes creations, renames and removals in a directory durable.

mod fault;
mod fault_spec;
mod real;
mod sim;

pub use fault::{FaultKind, FaultPlan, FaultRule, FaultVfs};
pub use fault_spec::{apply_fault_spec, parse_fault_spec, FaultSpecError};
pub use real::RealVfs;
pub use sim::{SimCrashPlan, SimVfs};

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An open file.
#[allow(clippy::len_without_is_empty)]
pub trait VfsFile: Send + Sync {
    /// Reads exactly `buf.len()` bytes at `offset`; reading past the end is an error.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset`, extending the file if needed.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes everything written so far durable (fdatasync).
    fn sync(&self) -> io::Result<()>;
    /// Current length in bytes.
    fn len(&self) -> io::Result<u64>;
    /// Truncates or extends the file.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Gives the disk blocks of `len` bytes at `offset` back to the file system, keeping the file's length:
    /// the range's content is no longer needed and reads of it may return zeros or old bytes afterwards.
    /// Advisory: a file system that cannot punch holes leaves the range as it is.
    fn punch_hole(&self, offset: u64, len: u64) -> io::Result<()> {
        let _ = (offset, len);
        Ok(())
    }
    /// Writes the range's dirty pages to the disk and waits for them (Linux `sync_file_range` with
    /// `WAIT_BEFORE | WRITE | WAIT_AFTER`), so that a later [`VfsFile::sync`] has little left to write.
    /// Makes nothing durable by itself (no metadata, no device cache flush): advisory, and it may do
    /// nothing.
    fn write_out(&self, offset: u64, len: u64) {
        let _ = (offset, len);
    }
}

/// Writes to a file made by [`Vfs::create_direct`] are whole units of this many bytes, at offsets and from
/// memory aligned to it.
pub const DIRECT_ALIGN: usize = 4096;

/// A file system.
pub trait Vfs: Send + Sync {
    /// Opens a file for reading and writing, creating it if `create` is set.
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>>;
    /// Creates (or opens) a file written once and not read back soon, a backup's: where the file system
    /// allows, its writes bypass the page cache (Linux `O_DIRECT`), so they cost no copy and leave no
    /// dirty pages for other files' fsyncs to wait behind. Every write to it must be whole
    /// [`DIRECT_ALIGN`]-byte units at an aligned offset from aligned memory (`set_len` trims the end).
    /// Durability is as for any file: its fsync. Elsewhere, `open(path, true)`.
    fn create_direct(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>> {
        self.open(path, true)
    }
    /// Whether a file exists.
    fn exists(&self, path: &Path) -> bool;
    /// Removes a file.
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Renames a file, replacing the target.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Creates a directory and its parents.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Names (not paths) of the entries of a directory.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// Makes creations, renames and removals in `dir` durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// Takes an exclusive advisory lock on `path` for the life of the returned guard, if supported.
    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>>;
}

/// Joins a directory and a file name.
pub fn join(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}
