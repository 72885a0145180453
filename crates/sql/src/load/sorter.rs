//! External merge sort of `(key, seq, value)` entries for the bulk loader.
//!
//! Entries are appended to an arena (one byte buffer plus fixed-size item records). When the
//! arena exceeds the memory budget it is handed to a background thread that sorts it and writes
//! it as a zstd-compressed run file in the load's temporary directory, while the caller keeps
//! filling a fresh arena (at most one spill in flight: memory stays under about twice the
//! budget). [`Sorter::finish`] sorts the last arena (its two halves on two threads) and returns a
//! k-way merge of every run in `(key, seq)` order.
//!
//! Invariants: `seq` is unique per sorter and increases in input order, so ties on `key` come
//! out in input order (REPLACE keeps the last duplicate, IGNORE the first). Run files
//! (codec/run_file.rs) are removed when the merge is dropped; the directory is removed by
//! [`TempDir`]'s drop (and stale ones at engine start, codec/temp_dir.rs). I/O failures (disk
//! full included) are errors naming the file, never panics.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::io;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

pub use crate::codec::run_file::Entry;
use crate::codec::run_file::{RunReader, RunWriter};
use crate::codec::temp_dir;
use crate::error::db_error::{DbError, DbResult};

/// The directory LOAD DATA's and table rebuilds' run files go to.
pub struct TempDir(temp_dir::TempDir);

impl TempDir {
    pub fn new(datadir: &Path) -> DbResult<TempDir> {
        temp_dir::TempDir::new(datadir, temp_dir::LOAD_TEMP_PREFIX, "LOAD DATA").map(TempDir)
    }
    pub fn path(&self) -> &Path {
        &self.0.path
    }
}

fn io_error(path: &Path, what: &str, e: io::Error) -> DbError {
    temp_dir::io_error(path, "LOAD DATA", what, e)
}

#[derive(Clone, Copy)]
struct Item {
    off: usize,
    klen: u32,
    vlen: u32,
    seq: u64,
}

#[derive(Default)]
struct Arena {
    data: Vec<u8>,
    items: Vec<Item>,
}

impl Arena {
    fn key(&self, it: &Item) -> &[u8] {
        &self.data[it.off..it.off + it.klen as usize]
    }
    fn value(&self, it: &Item) -> &[u8] {
        let s = it.off + it.klen as usize;
        &self.data[s..s + it.vlen as usize]
    }
    fn bytes(&self) -> usize {
        self.data.len() + self.items.len() * std::mem::size_of::<Item>()
    }
    fn cmp(&self, a: &Item, b: &Item) -> Ordering {
        self.key(a).cmp(self.key(b)).then(a.seq.cmp(&b.seq))
    }
    /// Sorts the items: two halves on two threads, then one merge pass.
    fn sort(&mut self) {
        let n = self.items.len();
        if n < 1 << 14 {
            let mut items = std::mem::take(&mut self.items);
            items.sort_unstable_by(|a, b| self.cmp(a, b));
            self.items = items;
            return;
        }
        let mut items = std::mem::take(&mut self.items);
        let (lo, hi) = items.split_at_mut(n / 2);
        let me = &*self;
        std::thread::scope(|s| {
            s.spawn(|| lo.sort_unstable_by(|a, b| me.cmp(a, b)));
            hi.sort_unstable_by(|a, b| me.cmp(a, b));
        });
        let mut out = Vec::with_capacity(n);
        let (mut i, mut j) = (0, n / 2);
        while i < n / 2 && j < n {
            if self.cmp(&items[i], &items[j]) != Ordering::Greater {
                out.push(items[i]);
                i += 1;
            } else {
                out.push(items[j]);
                j += 1;
            }
        }
        out.extend_from_slice(&items[i..n / 2]);
        out.extend_from_slice(&items[j..]);
        self.items = out;
    }
}

fn write_run(arena: &Arena, path: &Path) -> io::Result<()> {
    let mut w = RunWriter::create(path, 1 << 20)?;
    for it in &arena.items {
        w.write(arena.key(it), it.seq, arena.value(it))?;
    }
    w.finish()
}

/// Accumulates entries; see the module docs.
pub struct Sorter {
    arena: Arena,
    budget_bytes: usize,
    dir: PathBuf,
    name: String,
    runs: Vec<PathBuf>,
    spill: Option<(PathBuf, JoinHandle<io::Result<()>>)>,
    /// Bytes of run files written (compressed).
    pub spilled_bytes: u64,
}

impl Sorter {
    pub fn new(dir: &Path, name: &str, budget_bytes: usize) -> Sorter {
        Sorter {
            arena: Arena::default(),
            budget_bytes: budget_bytes.max(1 << 16),
            dir: dir.to_path_buf(),
            name: name.to_string(),
            runs: Vec::new(),
            spill: None,
            spilled_bytes: 0,
        }
    }

    pub fn len_in_memory(&self) -> usize {
        self.arena.items.len()
    }

    pub fn push(&mut self, key: &[u8], seq: u64, value: &[u8]) -> DbResult<()> {
        let a = &mut self.arena;
        a.items.push(Item {
            off: a.data.len(),
            klen: key.len() as u32,
            vlen: value.len() as u32,
            seq,
        });
        a.data.extend_from_slice(key);
        a.data.extend_from_slice(value);
        if a.bytes() >= self.budget_bytes {
            self.spill_now()?;
        }
        Ok(())
    }

    fn join_spill(&mut self) -> DbResult<()> {
        if let Some((path, h)) = self.spill.take() {
            let r = h
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("sort thread panicked")));
            r.map_err(|e| io_error(&path, "write", e))?;
            self.spilled_bytes += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            self.runs.push(path);
        }
        Ok(())
    }

    fn spill_now(&mut self) -> DbResult<()> {
        self.join_spill()?;
        let mut arena = std::mem::take(&mut self.arena);
        let path = self
            .dir
            .join(format!("{}-{}.run", self.name, self.runs.len()));
        let p = path.clone();
        let h = std::thread::spawn(move || {
            arena.sort();
            write_run(&arena, &p)
        });
        self.spill = Some((path, h));
        Ok(())
    }

    /// Ends the input; returns every entry in `(key, seq)` order.
    pub fn finish(mut self) -> DbResult<Merge> {
        self.join_spill()?;
        let mut arena = std::mem::take(&mut self.arena);
        arena.sort();
        let mut sources: Vec<Source> = Vec::new();
        for path in std::mem::take(&mut self.runs) {
            let p = path.clone();
            let run = RunReader::open(path).map_err(|e| io_error(&p, "read", e))?;
            sources.push(Source::File(run));
        }
        if !arena.items.is_empty() {
            sources.push(Source::Memory { arena, next: 0 });
        }
        let mut m = Merge {
            sources,
            heap: BinaryHeap::new(),
        };
        for i in 0..m.sources.len() {
            m.refill(i)?;
        }
        Ok(m)
    }
}

impl Drop for Sorter {
    fn drop(&mut self) {
        if let Some((_, h)) = self.spill.take() {
            let _ = h.join();
        }
    }
}

enum Source {
    Memory { arena: Arena, next: usize },
    File(RunReader),
}

impl Source {
    fn next(&mut self) -> DbResult<Option<Entry>> {
        match self {
            Source::Memory { arena, next } => {
                let Some(it) = arena.items.get(*next).copied() else {
                    return Ok(None);
                };
                *next += 1;
                Ok(Some((
                    arena.key(&it).to_vec(),
                    it.seq,
                    arena.value(&it).to_vec(),
                )))
            }
            Source::File(run) => run.next_entry().map_err(|e| io_error(&run.path, "read", e)),
        }
    }
}

struct Head {
    entry: Entry,
    src: usize,
}
impl PartialEq for Head {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head {
    /// Reversed: the heap pops the smallest (key, seq).
    fn cmp(&self, o: &Self) -> Ordering {
        (&o.entry.0, o.entry.1).cmp(&(&self.entry.0, self.entry.1))
    }
}

/// The merged, sorted output of a [`Sorter`].
pub struct Merge {
    sources: Vec<Source>,
    heap: BinaryHeap<Head>,
}

impl Merge {
    fn refill(&mut self, src: usize) -> DbResult<()> {
        if let Some(entry) = self.sources[src].next()? {
            self.heap.push(Head { entry, src });
        }
        Ok(())
    }
}

impl Iterator for Merge {
    type Item = DbResult<Entry>;
    fn next(&mut self) -> Option<DbResult<Entry>> {
        let h = self.heap.pop()?;
        if let Err(e) = self.refill(h.src) {
            return Some(Err(e));
        }
        Some(Ok(h.entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: u64, budget: usize) -> (Vec<Entry>, usize) {
        let dir = tempfile::tempdir().unwrap();
        let tmp = TempDir::new(dir.path()).unwrap();
        let mut s = Sorter::new(tmp.path(), "t", budget);
        let mut x = 12345u64;
        for seq in 0..n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (x >> 40) % (n / 2 + 1);
            s.push(&k.to_be_bytes(), seq, &seq.to_le_bytes()).unwrap();
        }
        s.join_spill().unwrap();
        let runs = s.runs.len();
        let out: Vec<Entry> = s.finish().unwrap().map(|r| r.unwrap()).collect();
        (out, runs)
    }

    #[test]
    fn spilled_and_in_memory_sorts_agree() {
        let (mem, r0) = run(50_000, 1 << 30);
        let (ext, r1) = run(50_000, 1 << 16);
        assert_eq!(r0, 0);
        assert!(r1 > 3, "expected several runs, got {r1}");
        assert_eq!(mem.len(), 50_000);
        assert_eq!(mem, ext);
        for w in mem.windows(2) {
            assert!((&w[0].0, w[0].1) < (&w[1].0, w[1].1));
        }
    }

    #[test]
    fn temp_dir_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = {
            let t = TempDir::new(dir.path()).unwrap();
            std::fs::write(t.path().join("x"), b"1").unwrap();
            t.path().to_path_buf()
        };
        assert!(!p.exists());
        let stale = format!("{}9-9", temp_dir::LOAD_TEMP_PREFIX);
        std::fs::create_dir(dir.path().join(stale)).unwrap();
        let stale = format!("{}9-9", temp_dir::SORT_TEMP_PREFIX);
        std::fs::create_dir(dir.path().join(stale)).unwrap();
        temp_dir::clean_stale(dir.path());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
