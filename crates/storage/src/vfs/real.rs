//! The real file system (the only user of `std::fs` in the engine).

use super::{Vfs, VfsFile};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// The operating system's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealVfs;

struct RealFile(File);

impl VfsFile for RealFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.0.read_exact_at(buf, offset)
    }
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.0.write_all_at(buf, offset)
    }
    fn sync(&self) -> io::Result<()> {
        self.0.sync_data()
    }
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
    fn punch_hole(&self, offset: u64, len: u64) -> io::Result<()> {
        use rustix::fs::{fallocate, FallocateFlags};
        match fallocate(
            &self.0,
            FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
            offset,
            len,
        ) {
            Ok(()) => Ok(()),
            // File systems without hole punching keep the bytes (the call is advisory).
            Err(e) if e == rustix::io::Errno::OPNOTSUPP || e == rustix::io::Errno::NOSYS => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
    #[allow(unsafe_code)]
    fn write_out(&self, offset: u64, len: u64) {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: a plain system call on a descriptor this `File` owns and keeps open for the call; it
        // reads and writes no memory of this process. The result is ignored: the call is advisory, and
        // the fsync that follows reports any I/O error.
        unsafe {
            libc::sync_file_range(
                self.0.as_raw_fd(),
                offset,
                len,
                libc::SYNC_FILE_RANGE_WAIT_BEFORE
                    | libc::SYNC_FILE_RANGE_WRITE
                    | libc::SYNC_FILE_RANGE_WAIT_AFTER,
            );
        }
    }
}

struct LockGuard(#[allow(dead_code)] File);

impl Vfs for RealVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create)
            .truncate(false)
            .open(path)?;
        Ok(Arc::new(RealFile(file)))
    }
    fn create_direct(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let direct = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .custom_flags(libc::O_DIRECT)
                .open(path);
            match direct {
                Ok(file) => return Ok(Arc::new(RealFile(file))),
                // A file system without direct I/O refuses the flag: written through the page cache.
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(e),
            }
        }
        self.open(path, true)
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Box::new(LockGuard(file))),
            Err(std::fs::TryLockError::WouldBlock) => Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "locked by another process",
            )),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }
}
