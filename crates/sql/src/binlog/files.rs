//! The binlog's files on disk: `<basename>.NNNNNN` (six digits, from 000001) and
//! `<basename>.index` (one file name per line, oldest first, as MariaDB writes it). Owns naming,
//! the index (rewritten through a temporary file and a rename), and the file operations the log
//! needs: create with a header, append, truncate, fsync, delete.
//!
//! Invariant: the index lists exactly the files that exist, oldest first; a file is created
//! before the index names it and deleted after the index stops naming it (a crash leaves at
//! worst an unlisted file, which the next open deletes).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::db_error::{DbError, DbResult};

/// Where the files live and how they are named.
#[derive(Clone, Debug)]
pub struct Naming {
    pub dir: PathBuf,
    /// The file name stem (`mariadb-bin` in `mariadb-bin.000001`).
    pub stem: String,
}

pub fn io_err(what: &str, path: &Path, e: std::io::Error) -> DbError {
    DbError::internal(format!("binlog: cannot {what} {}: {e}", path.display()))
}

impl Naming {
    /// From `log_bin`'s base name (relative names are under `datadir`).
    pub fn new(datadir: &Path, basename: &str) -> Naming {
        let p = Path::new(basename);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            datadir.join(p)
        };
        Naming {
            dir: full
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| datadir.to_path_buf()),
            stem: full
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "betula-bin".into()),
        }
    }
    pub fn file_name(&self, n: u32) -> String {
        format!("{}.{n:06}", self.stem)
    }
    /// The number of a file name of this log (`None`: not one of its files).
    pub fn number(&self, name: &str) -> Option<u32> {
        let digits = name.strip_prefix(&self.stem)?.strip_prefix('.')?;
        (digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    fn index_path(&self) -> PathBuf {
        self.dir.join(format!("{}.index", self.stem))
    }

    /// The files the index names, oldest first (empty if there is no index).
    pub fn read_index(&self) -> DbResult<Vec<String>> {
        let p = self.index_path();
        match std::fs::read_to_string(&p) {
            Ok(text) => Ok(text
                .lines()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .map(|l| {
                    Path::new(l)
                        .file_name()
                        .map_or(l.to_string(), |f| f.to_string_lossy().into_owned())
                })
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_err("read", &p, e)),
        }
    }

    /// Rewrites the index atomically (temporary file, fsync, rename, directory fsync).
    pub fn write_index(&self, names: &[String]) -> DbResult<()> {
        let p = self.index_path();
        let tmp = self.dir.join(format!("{}.index.tmp", self.stem));
        let mut text = String::new();
        for n in names {
            text.push_str(&self.path(n).display().to_string());
            text.push('\n');
        }
        let mut f = File::create(&tmp).map_err(|e| io_err("create", &tmp, e))?;
        f.write_all(text.as_bytes())
            .map_err(|e| io_err("write", &tmp, e))?;
        f.sync_all().map_err(|e| io_err("sync", &tmp, e))?;
        std::fs::rename(&tmp, &p).map_err(|e| io_err("rename", &p, e))?;
        self.sync_dir()
    }

    pub fn sync_dir(&self) -> DbResult<()> {
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_err("sync", &self.dir, e))
    }

    /// Opens `name` for appending at `len` (truncating anything after it).
    pub fn open_at(&self, name: &str, len: u64) -> DbResult<File> {
        let p = self.path(name);
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&p)
            .map_err(|e| io_err("open", &p, e))?;
        f.set_len(len).map_err(|e| io_err("truncate", &p, e))?;
        Ok(f)
    }

    /// Files of this log in the directory that the index does not name (left by a crash).
    pub fn strays(&self, listed: &[String]) -> Vec<String> {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        rd.filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| self.number(n).is_some() && !listed.contains(n))
            .collect()
    }

    pub fn remove(&self, name: &str) -> DbResult<()> {
        let p = self.path(name);
        match std::fs::remove_file(&p) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err("delete", &p, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_index() {
        let dir = tempfile::tempdir().unwrap();
        let n = Naming::new(dir.path(), "mb");
        assert_eq!(n.file_name(1), "mb.000001");
        assert_eq!(n.number("mb.000042"), Some(42));
        assert_eq!(n.number("mb.index"), None);
        assert_eq!(n.number("other.000001"), None);
        assert!(n.read_index().unwrap().is_empty());
        n.write_index(&["mb.000001".into(), "mb.000002".into()])
            .unwrap();
        assert_eq!(n.read_index().unwrap(), vec!["mb.000001", "mb.000002"]);
        let abs = Naming::new(
            Path::new("/elsewhere"),
            &dir.path().join("x").display().to_string(),
        );
        assert_eq!(abs.dir, dir.path());
        assert_eq!(abs.stem, "x");
    }
}
