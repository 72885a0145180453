//! A simulated file system for crash and fault tests.
//!
//! Every file keeps two images: what a reader sees now, and what is durable (synced). Writes since the last
//! `sync` are remembered in order. The directory namespace is likewise volatile until `sync_dir`.
//!
//! - [`SimVfs::crash_image`] builds the file system a machine would find after losing power now: the durable
//!   namespace, each file's durable bytes plus, in order, a random number of its unsynced writes, the last of
//!   them possibly torn at a random byte.
//! - A [`SimCrashPlan`] makes the `n`-th sync (counting from 1) and every later operation fail, as if the
//!   machine died there; the test then takes the crash image and reopens.
//! - `fail_write_after` makes the `n`-th write fail with an I/O error (fault injection).

use super::{Vfs, VfsFile};
use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// When the simulated machine dies or fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimCrashPlan {
    /// The sync (file or directory, counted from 1) at which the machine dies; it and everything after fail.
    pub crash_at_sync: Option<u64>,
    /// The write (counted from 1) that fails with an I/O error; later ones succeed.
    pub fail_write: Option<u64>,
}

#[derive(Default)]
struct FileData {
    current: Vec<u8>,
    durable: Vec<u8>,
    /// Writes (offset, bytes) and truncations (offset, empty with `truncate` set) since the last sync.
    unsynced: Vec<Pending>,
}

enum Pending {
    Write(u64, Vec<u8>),
    SetLen(u64),
}

#[derive(Default)]
struct State {
    namespace: BTreeMap<PathBuf, Arc<Mutex<FileData>>>,
    durable_namespace: BTreeMap<PathBuf, Arc<Mutex<FileData>>>,
    dirs: Vec<PathBuf>,
    syncs: u64,
    writes: u64,
    plan: SimCrashPlan,
    dead: bool,
}

/// The simulated file system. Cloning shares it.
#[derive(Clone, Default)]
pub struct SimVfs {
    state: Arc<Mutex<State>>,
}

fn dead() -> io::Error {
    io::Error::other("simulated crash: the machine is down")
}

impl SimVfs {
    /// An empty file system.
    pub fn new() -> SimVfs {
        SimVfs::default()
    }

    /// Sets when the machine dies or fails.
    pub fn set_plan(&self, plan: SimCrashPlan) {
        self.state.lock().plan = plan;
    }

    /// Number of syncs performed so far (file and directory).
    pub fn sync_count(&self) -> u64 {
        self.state.lock().syncs
    }

    /// Number of writes performed so far.
    pub fn write_count(&self) -> u64 {
        self.state.lock().writes
    }

    /// Whether the planned crash has happened.
    pub fn is_dead(&self) -> bool {
        self.state.lock().dead
    }

    /// The file system as found after a power loss now (see the module docs). `seed` picks how many unsynced
    /// writes survive and where the last one tears.
    pub fn crash_image(&self, seed: u64) -> SimVfs {
        let mut rng = SmallRng::seed_from_u64(seed);
        let state = self.state.lock();
        let mut new_state = State {
            dirs: state.dirs.clone(),
            ..State::default()
        };
        for (path, file) in &state.durable_namespace {
            let file = file.lock();
            let mut image = file.durable.clone();
            let survivors = rng.gen_range(0..=file.unsynced.len());
            for (i, pending) in file.unsynced.iter().enumerate().take(survivors + 1) {
                let torn = i == survivors;
                match pending {
                    Pending::Write(offset, bytes) => {
                        let n = if torn {
                            if bytes.is_empty() {
                                0
                            } else {
                                rng.gen_range(0..bytes.len())
                            }
                        } else {
                            bytes.len()
                        };
                        apply_write(&mut image, *offset, &bytes[..n]);
                    }
                    Pending::SetLen(len) if !torn => image.resize(*len as usize, 0),
                    Pending::SetLen(_) => {}
                }
            }
            let data = Arc::new(Mutex::new(FileData {
                current: image.clone(),
                durable: image,
                unsynced: Vec::new(),
            }));
            new_state.namespace.insert(path.clone(), data.clone());
            new_state.durable_namespace.insert(path.clone(), data);
        }
        SimVfs {
            state: Arc::new(Mutex::new(new_state)),
        }
    }

    /// Flips one bit of a file, durably (for corruption tests).
    pub fn flip_bit(&self, path: &Path, offset: u64, bit: u8) -> io::Result<()> {
        let state = self.state.lock();
        let file = state
            .namespace
            .get(path)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        let mut file = file.lock();
        let i = offset as usize;
        if i >= file.current.len() {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        file.current[i] ^= 1 << bit;
        if i < file.durable.len() {
            file.durable[i] ^= 1 << bit;
        }
        Ok(())
    }

    /// The current bytes of a file (for tests).
    pub fn read_all(&self, path: &Path) -> Option<Vec<u8>> {
        let state = self.state.lock();
        state.namespace.get(path).map(|f| f.lock().current.clone())
    }
}

fn apply_write(image: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let end = offset as usize + bytes.len();
    if image.len() < end {
        image.resize(end, 0);
    }
    image[offset as usize..end].copy_from_slice(bytes);
}

struct SimFile {
    vfs: SimVfs,
    data: Arc<Mutex<FileData>>,
}

impl SimFile {
    fn check_alive(&self) -> io::Result<()> {
        if self.vfs.state.lock().dead {
            return Err(dead());
        }
        Ok(())
    }
}

impl VfsFile for SimFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.check_alive()?;
        let data = self.data.lock();
        let start = offset as usize;
        let end = start
            .checked_add(buf.len())
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        if end > data.current.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past end of file",
            ));
        }
        buf.copy_from_slice(&data.current[start..end]);
        Ok(())
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        {
            let mut state = self.vfs.state.lock();
            if state.dead {
                return Err(dead());
            }
            state.writes += 1;
            if state.plan.fail_write == Some(state.writes) {
                return Err(io::Error::other("simulated write failure"));
            }
        }
        let mut data = self.data.lock();
        apply_write(&mut data.current, offset, buf);
        data.unsynced.push(Pending::Write(offset, buf.to_vec()));
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        {
            let mut state = self.vfs.state.lock();
            if state.dead {
                return Err(dead());
            }
            state.syncs += 1;
            if state.plan.crash_at_sync == Some(state.syncs) {
                state.dead = true;
                return Err(dead());
            }
        }
        let mut data = self.data.lock();
        data.durable = data.current.clone();
        data.unsynced.clear();
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        self.check_alive()?;
        Ok(self.data.lock().current.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.check_alive()?;
        let mut data = self.data.lock();
        data.current.resize(len as usize, 0);
        data.unsynced.push(Pending::SetLen(len));
        Ok(())
    }

    /// A punched range reads as zeros at once; like a write, the zeros reach the durable image only with
    /// a later sync (so a crash may leave the old bytes or the zeros, as on a real disk).
    fn punch_hole(&self, offset: u64, len: u64) -> io::Result<()> {
        self.check_alive()?;
        let mut data = self.data.lock();
        let end = (offset.saturating_add(len)).min(data.current.len() as u64);
        if end <= offset {
            return Ok(());
        }
        let zeros = vec![0u8; (end - offset) as usize];
        apply_write(&mut data.current, offset, &zeros);
        data.unsynced.push(Pending::Write(offset, zeros));
        Ok(())
    }
}

impl Vfs for SimVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let mut state = self.state.lock();
        if state.dead {
            return Err(dead());
        }
        let data = match state.namespace.get(path) {
            Some(d) => d.clone(),
            None if create => {
                let d = Arc::new(Mutex::new(FileData::default()));
                state.namespace.insert(path.to_path_buf(), d.clone());
                d
            }
            None => return Err(io::Error::from(io::ErrorKind::NotFound)),
        };
        Ok(Arc::new(SimFile {
            vfs: self.clone(),
            data,
        }))
    }

    fn exists(&self, path: &Path) -> bool {
        let state = self.state.lock();
        state.namespace.contains_key(path) || state.dirs.iter().any(|d| d == path)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state.lock();
        if state.dead {
            return Err(dead());
        }
        state
            .namespace
            .remove(path)
            .map(|_| ())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.state.lock();
        if state.dead {
            return Err(dead());
        }
        let data = state
            .namespace
            .remove(from)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        state.namespace.insert(to.to_path_buf(), data);
        Ok(())
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state.lock();
        if state.dead {
            return Err(dead());
        }
        if !state.dirs.iter().any(|d| d == path) {
            state.dirs.push(path.to_path_buf());
        }
        Ok(())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let state = self.state.lock();
        if state.dead {
            return Err(dead());
        }
        Ok(state
            .namespace
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.state.lock();
        if state.dead {
            return Err(dead());
        }
        state.syncs += 1;
        if state.plan.crash_at_sync == Some(state.syncs) {
            state.dead = true;
            return Err(dead());
        }
        let State {
            namespace,
            durable_namespace,
            ..
        } = &mut *state;
        durable_namespace.retain(|p, _| p.parent() != Some(dir));
        for (p, d) in namespace.iter() {
            if p.parent() == Some(dir) {
                durable_namespace.insert(p.clone(), d.clone());
            }
        }
        Ok(())
    }

    fn lock(&self, _path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        Ok(Box::new(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsynced_writes_and_names_are_lost_in_a_crash() {
        let vfs = SimVfs::new();
        let dir = Path::new("/d");
        let a = vfs.open(&dir.join("a"), true).unwrap();
        a.write_all_at(b"hello", 0).unwrap();
        a.sync().unwrap();
        vfs.sync_dir(dir).unwrap();
        a.write_all_at(b"world", 5).unwrap();
        let b = vfs.open(&dir.join("b"), true).unwrap();
        b.write_all_at(b"x", 0).unwrap();
        b.sync().unwrap();
        // b's name was never made durable.
        for seed in 0..20 {
            let img = vfs.crash_image(seed);
            let bytes = img.read_all(&dir.join("a")).unwrap();
            assert!(bytes.starts_with(b"hello"));
            assert!(bytes.len() <= 10);
            assert!(b"helloworld".starts_with(&bytes));
            assert!(img.read_all(&dir.join("b")).is_none());
        }
    }

    #[test]
    fn planned_crash_fails_the_sync_and_everything_after() {
        let vfs = SimVfs::new();
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(2),
            fail_write: None,
        });
        let f = vfs.open(Path::new("/f"), true).unwrap();
        f.write_all_at(b"1", 0).unwrap();
        f.sync().unwrap();
        f.write_all_at(b"2", 1).unwrap();
        assert!(f.sync().is_err());
        assert!(f.write_all_at(b"3", 2).is_err());
        assert!(vfs.is_dead());
    }
}
