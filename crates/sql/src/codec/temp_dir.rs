//! Temporary directories under the data directory for sorts that spill: LOAD DATA's and table
//! rebuilds' sorters (`#load-tmp-<pid>-<n>`) and query sorts (`#sort-tmp-<pid>-<n>`,
//! exec/external_sort.rs). Run files inside them have the format of run_file.rs.
//!
//! Invariants (design.md LDD2, XSR2): a directory is removed when its [`TempDir`] drops (the
//! statement ended, failed or was killed: the owner is dropped on every path out), and the
//! directories a crash left are removed when the engine opens ([`clean_stale`]). I/O failures are
//! errors 1021 (disk full) or 1026 naming the file ([`io_error`]), never panics.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::code::ErrorCode;
use crate::error::db_error::DbError;

/// Prefix of LOAD DATA's (and table rebuilds') sort directories.
pub const LOAD_TEMP_PREFIX: &str = "#load-tmp-";
/// Prefix of query sorts' directories (ORDER BY, window functions).
pub const SORT_TEMP_PREFIX: &str = "#sort-tmp-";

/// A temporary directory under the data directory, removed on drop.
pub struct TempDir {
    pub path: PathBuf,
    /// Who writes in it, for error messages ("LOAD DATA", "a sort").
    purpose: &'static str,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    /// `<datadir>/<prefix><pid>-<n>`, created now.
    pub fn new(datadir: &Path, prefix: &str, purpose: &'static str) -> Result<TempDir, DbError> {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = datadir.join(format!("{prefix}{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| io_error(&path, purpose, "create", e))?;
        Ok(TempDir { path, purpose })
    }

    /// [`io_error`] for a file of this directory.
    pub fn error(&self, path: &Path, what: &str, e: io::Error) -> DbError {
        io_error(path, self.purpose, what, e)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes the temporary directories a crashed server left in `datadir`.
pub fn clean_stale(datadir: &Path) {
    let Ok(rd) = std::fs::read_dir(datadir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(LOAD_TEMP_PREFIX) || name.starts_with(SORT_TEMP_PREFIX) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Error 1021 (ER_DISK_FULL) or 1026 (ER_ERROR_ON_WRITE) naming the temporary file `path` that
/// `purpose` ("LOAD DATA", "a sort") failed to `what` (create, write, read).
pub fn io_error(path: &Path, purpose: &str, what: &str, e: io::Error) -> DbError {
    if e.kind() == io::ErrorKind::StorageFull || e.raw_os_error() == Some(28) {
        return DbError::new(
            ErrorCode::DiskFull,
            format!(
                "Disk full ({}): {purpose} cannot {what} its temporary sort file; free space in the data directory",
                path.display()
            ),
        );
    }
    DbError::new(
        ErrorCode::ErrorOnWrite,
        format!(
            "Error writing file '{}' ({purpose} temporary sort file, {what}: {e})",
            path.display()
        ),
    )
}
