//! A file system wrapper that injects disk faults, in the manner of Pebble's `errorfs` and SQLite's test
//! VFS: [`FaultVfs`] passes every call to an inner [`Vfs`] (the real one, or [`super::SimVfs`]) unless a
//! rule of its [`FaultPlan`] matches the call, in which case it fails the call or corrupts its bytes.
//!
//! The plan can change while the environment runs (tests arm a fault, watch the engine's reaction, clear
//! it), and counts every fault it injected. Rules are written as text for tools and servers
//! (`fault_spec.rs`): `kind=read_error file=.tree after=10 count=1`.
//!
//! What each kind models, and what the engine must do about it (design.md, "Failure handling" and
//! "Assumptions about the media"):
//!
//! | kind | the call | the engine must |
//! |---|---|---|
//! | `read_error` | read fails with EIO | fail the read with an I/O error naming the file, and keep serving other reads |
//! | `write_error` | write fails with EIO, nothing written | latch (every later write refused), never pretend |
//! | `no_space` | write (or a growing `set_len`) fails with ENOSPC, nothing written | latch, as for `write_error` |
//! | `short_write` | the first half of the write lands, then ENOSPC | latch; recovery drops the half-written tail |
//! | `sync_error` | fsync (file or directory) fails with EIO | latch; never retry the fsync |
//! | `torn_write` | the first half of the write lands, then the process dies at once | recover as from any crash |
//! | `misdirected_write` | the write lands one block further and reports success | detect the stale place by checksum, never return its bytes |
//! | `bit_flip_read` | the read succeeds with one bit flipped | detect it by checksum (a `Corruption` error), never return it |
//!
//! `torn_write` ends the process (`std::process::abort`): it models a crash in the middle of a write, for
//! tests that run the engine in a process of its own. The other kinds never end anything.

use super::{Vfs, VfsFile};
use parking_lot::Mutex;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The kinds of injected fault (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    ReadError,
    WriteError,
    NoSpace,
    ShortWrite,
    SyncError,
    TornWrite,
    MisdirectedWrite,
    BitFlipRead,
}

impl FaultKind {
    /// Every kind, in the order of the module docs.
    pub const ALL: [FaultKind; 8] = [
        FaultKind::ReadError,
        FaultKind::WriteError,
        FaultKind::NoSpace,
        FaultKind::ShortWrite,
        FaultKind::SyncError,
        FaultKind::TornWrite,
        FaultKind::MisdirectedWrite,
        FaultKind::BitFlipRead,
    ];

    /// The name used in fault specs.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::ReadError => "read_error",
            FaultKind::WriteError => "write_error",
            FaultKind::NoSpace => "no_space",
            FaultKind::ShortWrite => "short_write",
            FaultKind::SyncError => "sync_error",
            FaultKind::TornWrite => "torn_write",
            FaultKind::MisdirectedWrite => "misdirected_write",
            FaultKind::BitFlipRead => "bit_flip_read",
        }
    }

    /// The kind of a spec name.
    pub fn from_name(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The operation the kind applies to.
    fn op(self) -> FaultOp {
        match self {
            FaultKind::ReadError | FaultKind::BitFlipRead => FaultOp::Read,
            FaultKind::SyncError => FaultOp::Sync,
            _ => FaultOp::Write,
        }
    }
}

/// An operation a rule can match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FaultOp {
    Read,
    Write,
    Sync,
}

/// One rule: which calls fail, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    pub kind: FaultKind,
    /// Only files whose path contains this text (empty: every file; for `sync_error`, directories too).
    pub file: String,
    /// Matching calls let through before the first fault.
    pub after: u64,
    /// Most faults this rule injects (None: every matching call once `after` have passed).
    pub count: Option<u64>,
}

impl FaultRule {
    /// A rule failing every matching call of files whose path contains `file`.
    pub fn new(kind: FaultKind, file: &str) -> FaultRule {
        FaultRule {
            kind,
            file: file.to_string(),
            after: 0,
            count: None,
        }
    }
}

struct Armed {
    rule: FaultRule,
    seen: u64,
    fired: u64,
}

/// The faults a [`FaultVfs`] injects; shared, and changeable while files are open.
#[derive(Default)]
pub struct FaultPlan {
    rules: Mutex<Vec<Armed>>,
    injected: AtomicU64,
    /// The last fault injected, as text (for test reports).
    last: Mutex<Option<String>>,
}

impl FaultPlan {
    /// An empty plan (no fault).
    pub fn new() -> Arc<FaultPlan> {
        Arc::new(FaultPlan::default())
    }

    /// Replaces the rules (their counters start again).
    pub fn set(&self, rules: Vec<FaultRule>) {
        *self.rules.lock() = rules
            .into_iter()
            .map(|rule| Armed {
                rule,
                seen: 0,
                fired: 0,
            })
            .collect();
    }

    /// Removes every rule.
    pub fn clear(&self) {
        self.rules.lock().clear();
    }

    /// How many faults were injected since the plan was made.
    pub fn injected(&self) -> u64 {
        self.injected.load(Ordering::Relaxed)
    }

    /// A description of the last fault injected.
    pub fn last_fault(&self) -> Option<String> {
        self.last.lock().clone()
    }

    /// The fault to inject into this call, if a rule matches it.
    fn decide(&self, op: FaultOp, path: &Path, offset: u64) -> Option<FaultKind> {
        let mut rules = self.rules.lock();
        let path_text = path.to_string_lossy();
        for armed in rules.iter_mut() {
            if armed.rule.kind.op() != op || !path_text.contains(armed.rule.file.as_str()) {
                continue;
            }
            armed.seen += 1;
            if armed.seen <= armed.rule.after || armed.rule.count.is_some_and(|c| armed.fired >= c)
            {
                continue;
            }
            armed.fired += 1;
            self.injected.fetch_add(1, Ordering::Relaxed);
            *self.last.lock() = Some(format!(
                "{} on {} at offset {offset}",
                armed.rule.kind.name(),
                path.display()
            ));
            return Some(armed.rule.kind);
        }
        None
    }
}

/// EIO, as the kernel reports it.
fn eio() -> io::Error {
    io::Error::from_raw_os_error(5)
}

/// ENOSPC, as the kernel reports it.
fn enospc() -> io::Error {
    io::Error::from_raw_os_error(28)
}

/// How far a misdirected write lands from its place: one 4 KiB page past the end of what it meant to write.
fn misdirected_offset(offset: u64, len: usize) -> u64 {
    (offset + len as u64).next_multiple_of(4096) + 4096
}

/// A file system that injects the faults of its plan into an inner one.
pub struct FaultVfs {
    inner: Arc<dyn Vfs>,
    plan: Arc<FaultPlan>,
}

impl FaultVfs {
    /// Wraps `inner`; faults come from `plan`.
    pub fn new(inner: Arc<dyn Vfs>, plan: Arc<FaultPlan>) -> FaultVfs {
        FaultVfs { inner, plan }
    }

    /// The plan (to arm and clear faults).
    pub fn plan(&self) -> &Arc<FaultPlan> {
        &self.plan
    }
}

struct FaultFile {
    inner: Arc<dyn VfsFile>,
    path: PathBuf,
    plan: Arc<FaultPlan>,
}

impl VfsFile for FaultFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        match self.plan.decide(FaultOp::Read, &self.path, offset) {
            Some(FaultKind::ReadError) => Err(eio()),
            Some(FaultKind::BitFlipRead) => {
                self.inner.read_exact_at(buf, offset)?;
                if let Some(b) = buf.get_mut(buf.len() / 2) {
                    *b ^= 0x10;
                }
                Ok(())
            }
            _ => self.inner.read_exact_at(buf, offset),
        }
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        match self.plan.decide(FaultOp::Write, &self.path, offset) {
            Some(FaultKind::WriteError) => Err(eio()),
            Some(FaultKind::NoSpace) => Err(enospc()),
            Some(FaultKind::ShortWrite) => {
                self.inner.write_all_at(&buf[..buf.len() / 2], offset)?;
                Err(enospc())
            }
            Some(FaultKind::TornWrite) => {
                let _ = self.inner.write_all_at(&buf[..buf.len() / 2], offset);
                std::process::abort()
            }
            Some(FaultKind::MisdirectedWrite) => self
                .inner
                .write_all_at(buf, misdirected_offset(offset, buf.len())),
            _ => self.inner.write_all_at(buf, offset),
        }
    }

    fn sync(&self) -> io::Result<()> {
        match self.plan.decide(FaultOp::Sync, &self.path, 0) {
            Some(_) => Err(eio()),
            None => self.inner.sync(),
        }
    }

    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        // A file grows through `set_len` too (log segments): a full disk refuses that as well.
        let grows = self.inner.len().is_ok_and(|now| len > now);
        if grows && self.plan.decide(FaultOp::Write, &self.path, len) == Some(FaultKind::NoSpace) {
            return Err(enospc());
        }
        self.inner.set_len(len)
    }

    fn punch_hole(&self, offset: u64, len: u64) -> io::Result<()> {
        self.inner.punch_hole(offset, len)
    }

    fn write_out(&self, offset: u64, len: u64) {
        self.inner.write_out(offset, len)
    }
}

impl Vfs for FaultVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        Ok(Arc::new(FaultFile {
            inner: self.inner.open(path, create)?,
            path: path.to_path_buf(),
            plan: self.plan.clone(),
        }))
    }
    fn create_direct(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>> {
        Ok(Arc::new(FaultFile {
            inner: self.inner.create_direct(path)?,
            path: path.to_path_buf(),
            plan: self.plan.clone(),
        }))
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.inner.remove(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename(from, to)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        match self.plan.decide(FaultOp::Sync, dir, 0) {
            Some(_) => Err(eio()),
            None => self.inner.sync_dir(dir),
        }
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        self.inner.lock(path)
    }
}

#[cfg(test)]
mod tests {
    use super::super::SimVfs;
    use super::*;

    fn setup() -> (FaultVfs, Arc<dyn VfsFile>) {
        let vfs = FaultVfs::new(Arc::new(SimVfs::new()), FaultPlan::new());
        let f = vfs.open(Path::new("/d/t.tree"), true).unwrap();
        f.write_all_at(&[7u8; 64], 0).unwrap();
        (vfs, f)
    }

    #[test]
    fn rules_match_by_file_after_and_count() {
        let (vfs, f) = setup();
        let mut rule = FaultRule::new(FaultKind::ReadError, ".tree");
        rule.after = 1;
        rule.count = Some(2);
        vfs.plan()
            .set(vec![rule, FaultRule::new(FaultKind::SyncError, "wal")]);
        let mut buf = [0u8; 8];
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(
            f.read_exact_at(&mut buf, 0).unwrap_err().raw_os_error(),
            Some(5)
        );
        assert!(f.read_exact_at(&mut buf, 0).is_err());
        f.read_exact_at(&mut buf, 0).unwrap();
        f.sync().unwrap();
        assert_eq!(vfs.plan().injected(), 2);
        assert!(vfs
            .plan()
            .last_fault()
            .unwrap()
            .contains("read_error on /d/t.tree"));
        vfs.plan().clear();
        f.read_exact_at(&mut buf, 0).unwrap();
    }

    #[test]
    fn write_faults_change_the_bytes_as_documented() {
        let (vfs, f) = setup();
        vfs.plan()
            .set(vec![FaultRule::new(FaultKind::ShortWrite, "")]);
        let e = f.write_all_at(&[1u8; 8], 0).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28));
        let mut buf = [0u8; 8];
        vfs.plan().clear();
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(buf, [1, 1, 1, 1, 7, 7, 7, 7], "half the write landed");
        vfs.plan()
            .set(vec![FaultRule::new(FaultKind::MisdirectedWrite, "")]);
        f.write_all_at(&[2u8; 8], 0).unwrap();
        vfs.plan().clear();
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(
            buf,
            [1, 1, 1, 1, 7, 7, 7, 7],
            "the place kept its old bytes"
        );
        f.read_exact_at(&mut buf, misdirected_offset(0, 8)).unwrap();
        assert_eq!(buf, [2u8; 8]);
        vfs.plan()
            .set(vec![FaultRule::new(FaultKind::BitFlipRead, "")]);
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(buf, [1, 1, 1, 1, 7 ^ 0x10, 7, 7, 7]);
        vfs.plan().set(vec![FaultRule::new(FaultKind::NoSpace, "")]);
        assert_eq!(f.set_len(1 << 20).unwrap_err().raw_os_error(), Some(28));
        f.set_len(4).unwrap();
    }
}
