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
//! out in input order (REPLACE keeps the last duplicate, IGNORE the first). Run files are
//! removed when the merge is dropped; the directory is removed by [`TempDir`]'s drop (and stale
//! ones at engine start, `clean_stale`). I/O failures (disk full included) are errors naming the
//! file, never panics.
//!
//! Run file format: repeated `varint klen, varint vlen, varint seq, key, value`, zstd level 1.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::thread::JoinHandle;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

pub use crate::context::engine::LOAD_TEMP_PREFIX as TEMP_PREFIX;

/// One sorted entry.
pub type Entry = (Vec<u8>, u64, Vec<u8>);

/// A temporary directory under the data directory, removed on drop.
pub struct TempDir {
    pub path: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    pub fn new(datadir: &Path) -> DbResult<TempDir> {
        let n = TEMP_COUNTER.fetch_add(1, AtomicOrdering::Relaxed);
        let path = datadir.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| io_error(&path, "create", e))?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

pub use crate::context::engine::clean_stale_load_dirs as clean_stale;

/// Error 1026 (ER_ERROR_ON_WRITE) or 1021 (ER_DISK_FULL) naming the temporary file.
pub fn io_error(path: &Path, what: &str, e: io::Error) -> DbError {
    if e.kind() == io::ErrorKind::StorageFull || e.raw_os_error() == Some(28) {
        return DbError::new(
            ErrorCode::DiskFull,
            format!(
                "Disk full ({}): LOAD DATA cannot {what} its temporary sort file; free space or lower betula_load_memory's spill volume",
                path.display()
            ),
        );
    }
    DbError::new(
        ErrorCode::ErrorOnWrite,
        format!(
            "Error writing file '{}' (LOAD DATA temporary sort file, {what}: {e})",
            path.display()
        ),
    )
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

fn put_varint(w: &mut impl Write, mut v: u64) -> io::Result<()> {
    let mut b = [0u8; 10];
    let mut n = 0;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            b[n] = byte;
            n += 1;
            break;
        }
        b[n] = byte | 0x80;
        n += 1;
    }
    w.write_all(&b[..n])
}

/// Reads a varint; `Ok(None)` at a clean end of the stream.
fn get_varint(r: &mut impl Read) -> io::Result<Option<u64>> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let mut b = [0u8; 1];
        if r.read(&mut b)? == 0 {
            if shift == 0 {
                return Ok(None);
            }
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "truncated run",
            ));
        }
        v |= u64::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            return Ok(Some(v));
        }
        shift += 7;
        if shift > 63 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "bad varint"));
        }
    }
}

fn write_run(arena: &Arena, path: &Path) -> io::Result<()> {
    let f = File::create(path)?;
    let mut enc = zstd::stream::Encoder::new(BufWriter::with_capacity(1 << 20, f), 1)?;
    for it in &arena.items {
        put_varint(&mut enc, u64::from(it.klen))?;
        put_varint(&mut enc, u64::from(it.vlen))?;
        put_varint(&mut enc, it.seq)?;
        enc.write_all(arena.key(it))?;
        enc.write_all(arena.value(it))?;
    }
    let mut w = enc.finish()?;
    w.flush()?;
    Ok(())
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
            let f = File::open(&path).map_err(|e| io_error(&path, "read", e))?;
            let dec = zstd::stream::Decoder::with_buffer(BufReader::with_capacity(1 << 16, f))
                .map_err(|e| io_error(&path, "read", e))?;
            sources.push(Source::File {
                dec: Box::new(dec),
                path,
            });
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
    Memory {
        arena: Arena,
        next: usize,
    },
    File {
        dec: Box<dyn Read + Send>,
        path: PathBuf,
    },
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
            Source::File { dec, path } => {
                let read = |dec: &mut Box<dyn Read + Send>| -> io::Result<Option<Entry>> {
                    let Some(klen) = get_varint(dec)? else {
                        return Ok(None);
                    };
                    let vlen = get_varint(dec)?.ok_or(io::ErrorKind::UnexpectedEof)?;
                    let seq = get_varint(dec)?.ok_or(io::ErrorKind::UnexpectedEof)?;
                    let mut k = vec![0; klen as usize];
                    dec.read_exact(&mut k)?;
                    let mut v = vec![0; vlen as usize];
                    dec.read_exact(&mut v)?;
                    Ok(Some((k, seq, v)))
                };
                read(dec).map_err(|e| io_error(path, "read", e))
            }
        }
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        if let Source::File { path, .. } = self {
            let _ = std::fs::remove_file(path);
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
        let mut s = Sorter::new(&tmp.path, "t", budget);
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
            std::fs::write(t.path.join("x"), b"1").unwrap();
            t.path.clone()
        };
        assert!(!p.exists());
        std::fs::create_dir(dir.path().join(format!("{TEMP_PREFIX}9-9"))).unwrap();
        clean_stale(dir.path());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
