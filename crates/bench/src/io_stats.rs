//! Disk-traffic and disk-space measurements: `/proc/self/io` counters, the write counter of the block
//! device under the data directory, and a walk of the data directory.
//!
//! Bytes written are taken from the device (`/sys/dev/block/MAJ:MIN/stat`, sectors written) once
//! [`watch_device`] found it: `/proc/self/io` counts a page each time it is dirtied, and overwriting blocks
//! a file already has with an fdatasync after each write (a reused or pre-written log segment) was counted
//! there at 77 times the bytes written (27.4 MB of 13.7 KB writes counted as 2,124 MB; the device wrote
//! about 36 MB). The device counter also counts other processes' writes to that device.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `stat` file of the block device the data directory is on, when found.
static DEVICE_STAT: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Counts bytes written from the block device holding `dir` from now on (first call wins); whether the
/// device's counter was found.
pub fn watch_device(dir: &Path) -> bool {
    DEVICE_STAT.get_or_init(|| device_stat_path(dir)).is_some()
}

/// The device counter in use, if any (for the report).
pub fn watched_device() -> Option<&'static Path> {
    DEVICE_STAT.get().and_then(|p| p.as_deref())
}

fn device_stat_path(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    // Linux's dev_t layout (glibc's gnu_dev_major / gnu_dev_minor).
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let path = PathBuf::from(format!("/sys/dev/block/{major}:{minor}/stat"));
    device_written(&path).map(|_| path)
}

/// Bytes the watched device ([`watch_device`]) has written since boot; `None` when none is watched.
pub fn device_written_now() -> Option<u64> {
    watched_device().and_then(device_written)
}

/// Writes every file system's dirty pages to the disk (`sync`), so that a device count taken next
/// includes what a step only dirtied in the page cache, and the next step does not count it. Failure
/// leaves the count as it is.
pub fn write_back_everything() {
    let _ = std::process::Command::new("sync").status();
}

/// Bytes written so far for a server process: the watched device's count when there is one (`settle`:
/// after [`write_back_everything`]; `None` if it cannot be read, never the other counter, so that a
/// difference is never taken between two kinds of count), else `process` (its `/proc/PID/io`
/// `write_bytes`, which counts a page each time it is dirtied).
pub fn server_written(settle: bool, process: impl FnOnce() -> Option<u64>) -> Option<u64> {
    written_by(watched_device(), settle, process)
}

/// [`server_written`] with the device's `stat` file given.
fn written_by(
    stat: Option<&Path>,
    settle: bool,
    process: impl FnOnce() -> Option<u64>,
) -> Option<u64> {
    let Some(stat) = stat else {
        return process();
    };
    if settle {
        write_back_everything();
    }
    device_written(stat)
}

/// Bytes the device has written since boot: field 7 of its `stat` file (sectors of 512 bytes).
fn device_written(stat: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(stat).ok()?;
    let sectors: u64 = text.split_whitespace().nth(6)?.parse().ok()?;
    Some(sectors * 512)
}

/// The counters of `/proc/self/io` that matter here (bytes, for the whole process).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcIo {
    /// Bytes this process caused to be sent to the storage layer (counted when page-cache pages are dirtied).
    pub write_bytes: u64,
    /// Bytes whose writeback was cancelled (dirty pages truncated or deleted before reaching the disk).
    pub cancelled_write_bytes: u64,
    /// Bytes this process caused to be fetched from the storage layer.
    pub read_bytes: u64,
    /// Bytes the watched block device wrote ([`watch_device`]; `None` when none is watched).
    pub device_write_bytes: Option<u64>,
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
        let mut io = std::fs::read_to_string("/proc/self/io")
            .map(|t| ProcIo::parse(&t))
            .unwrap_or_default();
        io.device_write_bytes = device_written_now();
        io
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
            device_write_bytes: self
                .device_write_bytes
                .zip(earlier.device_write_bytes)
                .map(|(now, then)| now.saturating_sub(then)),
        }
    }

    /// Bytes written to the disk: the watched device's count, else this process's `write_bytes` minus
    /// `cancelled_write_bytes` (pages dirtied, less those dropped before reaching the disk).
    pub fn net_written(&self) -> u64 {
        self.device_write_bytes
            .unwrap_or_else(|| self.write_bytes.saturating_sub(self.cancelled_write_bytes))
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
            device_write_bytes: None,
        };
        let d = later.since(&io);
        assert_eq!(d.write_bytes, 100_000 - 81920);
        assert_eq!(d.cancelled_write_bytes, 0);
        // With the device counted, bytes written are the device's, whatever the process counters say.
        let dev = |n| ProcIo {
            device_write_bytes: Some(n),
            ..later
        };
        assert_eq!(dev(9000).since(&dev(1000)).net_written(), 8000);
        assert_eq!(dev(9000).since(&io).device_write_bytes, None);
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

    #[test]
    fn the_device_counter_of_a_directory_reads_when_sysfs_has_it() {
        let dir = tempfile::tempdir().unwrap();
        // Containers and some file systems (tmpfs, overlay) have no block device: then there is nothing
        // to check, and the report falls back to /proc/self/io.
        if let Some(stat) = device_stat_path(dir.path()) {
            let before = device_written(&stat).unwrap();
            let after = device_written(&stat).unwrap();
            assert!(after >= before);
            assert_eq!(before % 512, 0);
        }
        assert_eq!(device_written(Path::new("/nonexistent/stat")), None);
    }

    #[test]
    fn a_settled_server_count_includes_pages_only_dirtied_before_it() {
        assert_eq!(written_by(None, true, || Some(7)), Some(7));
        let dir = tempfile::tempdir().unwrap();
        let Some(stat) = device_stat_path(dir.path()) else {
            return; // no block device (tmpfs, overlay): the process counter is used, as checked above
        };
        let before =
            written_by(Some(&stat), true, || unreachable!("a watched device only")).unwrap();
        // Dirtied in the page cache only; `sync` in the settled count writes it to the disk.
        std::fs::write(dir.path().join("dirty"), vec![7u8; 256 << 10]).unwrap();
        let after =
            written_by(Some(&stat), true, || unreachable!("a watched device only")).unwrap();
        assert!(
            after - before >= 256 << 10,
            "device wrote {} bytes",
            after - before
        );
        // An unreadable device counter reads as missing, not as the process's count.
        let gone = Path::new("/nonexistent/stat");
        assert_eq!(written_by(Some(gone), false, || Some(7)), None);
    }
}
