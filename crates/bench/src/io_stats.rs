//! Disk-traffic and disk-space measurements: `/proc/self/io` counters and a walk of the data directory.

use std::io;
use std::path::Path;

/// The counters of `/proc/self/io` that matter here (bytes, for the whole process).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcIo {
    /// Bytes this process caused to be sent to the storage layer (counted when page-cache pages are dirtied).
    pub write_bytes: u64,
    /// Bytes whose writeback was cancelled (dirty pages truncated or deleted before reaching the disk).
    pub cancelled_write_bytes: u64,
    /// Bytes this process caused to be fetched from the storage layer.
    pub read_bytes: u64,
}

impl ProcIo {
    pub fn parse(text: &str) -> ProcIo {
        let mut io = ProcIo::default();
        for line in text.lines() {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let Ok(v) = v.trim().parse::<u64>() else {
                continue;
            };
            match k.trim() {
                "write_bytes" => io.write_bytes = v,
                "cancelled_write_bytes" => io.cancelled_write_bytes = v,
                "read_bytes" => io.read_bytes = v,
                _ => {}
            }
        }
        io
    }

    /// Reads the current counters; all zero where `/proc/self/io` is missing (then the report says so).
    pub fn now() -> ProcIo {
        std::fs::read_to_string("/proc/self/io")
            .map(|t| ProcIo::parse(&t))
            .unwrap_or_default()
    }

    /// The counters of another process (a server the suite started); `None` when unreadable.
    pub fn of_pid(pid: u32) -> Option<ProcIo> {
        std::fs::read_to_string(format!("/proc/{pid}/io"))
            .ok()
            .map(|t| ProcIo::parse(&t))
    }

    pub fn available() -> bool {
        std::fs::read_to_string("/proc/self/io").is_ok()
    }

    /// Counters accumulated since `earlier`.
    pub fn since(&self, earlier: &ProcIo) -> ProcIo {
        ProcIo {
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
            cancelled_write_bytes: self
                .cancelled_write_bytes
                .saturating_sub(earlier.cancelled_write_bytes),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
        }
    }

    /// Bytes that reached (or will reach) the disk: written minus cancelled.
    pub fn net_written(&self) -> u64 {
        self.write_bytes.saturating_sub(self.cancelled_write_bytes)
    }
}

/// Calls `f` with the path and metadata of every regular file under `dir`, subdirectories included.
fn for_each_file(dir: &Path, mut f: impl FnMut(&Path, &std::fs::Metadata)) -> io::Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                f(&entry.path(), &meta);
            }
        }
    }
    Ok(())
}

/// Total size of the regular files under `dir` (apparent length), and the bytes actually allocated on disk.
pub fn dir_size(dir: &Path) -> io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let (mut len, mut alloc) = (0, 0);
    for_each_file(dir, |_, meta| {
        len += meta.len();
        alloc += meta.blocks() * 512;
    })?;
    Ok((len, alloc))
}

/// Apparent bytes of the write-ahead log files under `dir`: Betula's `*.wal` segments (live ones and those
/// kept for reuse) and RocksDB's `*.log` files.
pub fn log_size(dir: &Path) -> io::Result<u64> {
    let mut len = 0;
    for_each_file(dir, |path, meta| {
        if path.extension().is_some_and(|x| x == "wal" || x == "log") {
            len += meta.len();
        }
    })?;
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_io() {
        let t = "rchar: 6976\nwchar: 10\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\nwrite_bytes: 81920\ncancelled_write_bytes: 4096\n";
        let io = ProcIo::parse(t);
        assert_eq!(io.write_bytes, 81920);
        assert_eq!(io.cancelled_write_bytes, 4096);
        assert_eq!(io.read_bytes, 4096);
        assert_eq!(io.net_written(), 77824);
        let later = ProcIo {
            write_bytes: 100_000,
            cancelled_write_bytes: 4096,
            read_bytes: 4096,
        };
        let d = later.since(&io);
        assert_eq!(d.write_bytes, 100_000 - 81920);
        assert_eq!(d.cancelled_write_bytes, 0);
    }

    #[test]
    fn walks_nested_dirs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), vec![1u8; 1000]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b"), vec![2u8; 5000]).unwrap();
        let (len, alloc) = dir_size(dir.path()).unwrap();
        assert_eq!(len, 6000);
        // Allocation is filesystem-dependent (tmpfs, ext4 blocks); it is at least 0 and a whole number of
        // 512-byte sectors.
        assert_eq!(alloc % 512, 0);
    }

    #[test]
    fn log_size_counts_only_log_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("wal")).unwrap();
        std::fs::write(dir.path().join("wal/00000000000000000001.wal"), [0u8; 300]).unwrap();
        std::fs::write(
            dir.path().join("wal/free-00000000000000000007.wal"),
            [0u8; 20],
        )
        .unwrap();
        std::fs::write(dir.path().join("000012.log"), [0u8; 4]).unwrap();
        std::fs::write(dir.path().join("tree-1.bt"), [0u8; 5000]).unwrap();
        std::fs::write(dir.path().join("LOG"), [0u8; 70]).unwrap();
        assert_eq!(log_size(dir.path()).unwrap(), 324);
    }
}
