//! Writing a backup's files in chunks (design.md BKP9). Bytes are gathered in one buffer of [`CHUNK`]
//! bytes, aligned in memory to [`DIRECT_ALIGN`], and written whole at aligned offsets, so that a file
//! made by [`Vfs::create_direct`](crate::vfs::Vfs::create_direct) takes them without the page cache;
//! each chunk is written out to the disk before the next is gathered. A run of bytes ends padded with
//! zeros up to the alignment.
//!
//! Invariant: every write this module makes starts at a multiple of [`DIRECT_ALIGN`], from memory aligned
//! to it, and is a multiple of it long.

use crate::error::{Error, Result};
use crate::vfs::{VfsFile, DIRECT_ALIGN};
use std::sync::Arc;

/// Bytes of one write (a multiple of [`DIRECT_ALIGN`]): large enough for sequential writes at the disk's
/// speed, small enough that a commit's log fsync never queues behind more.
pub(crate) const CHUNK: usize = 4 << 20;

/// The file a run of bytes goes to: the file, its name for errors, and the offset of the buffer's first
/// byte there.
struct Target {
    file: Arc<dyn VfsFile>,
    name: String,
    at: u64,
}

pub(crate) struct Chunks {
    /// `CHUNK` bytes from `start`, an address aligned to `DIRECT_ALIGN`.
    raw: Vec<u8>,
    start: usize,
    /// Bytes gathered.
    len: usize,
    target: Option<Target>,
}

impl Chunks {
    pub fn new() -> Chunks {
        let raw = vec![0u8; CHUNK + DIRECT_ALIGN];
        let start = raw.as_ptr().align_offset(DIRECT_ALIGN);
        assert!(start < DIRECT_ALIGN, "an aligned start inside the buffer");
        Chunks {
            raw,
            start,
            len: 0,
            target: None,
        }
    }

    /// Starts a run of bytes written to `file` from `at`, a multiple of [`DIRECT_ALIGN`]; the previous
    /// run must have ended.
    pub fn begin(&mut self, file: Arc<dyn VfsFile>, name: &str, at: u64) {
        debug_assert!(self.target.is_none() && self.len == 0);
        debug_assert_eq!(at % DIRECT_ALIGN as u64, 0);
        self.target = Some(Target {
            file,
            name: name.to_string(),
            at,
        });
    }

    /// Where in the run's file the next byte appended goes.
    pub fn position(&self) -> u64 {
        self.target.as_ref().expect("a run").at + self.len as u64
    }

    /// Appends bytes to the run, writing each chunk as it fills.
    pub fn append(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let n = (CHUNK - self.len).min(bytes.len());
            let at = self.start + self.len;
            self.raw[at..at + n].copy_from_slice(&bytes[..n]);
            self.len += n;
            bytes = &bytes[n..];
            if self.len == CHUNK {
                self.write(CHUNK)?;
            }
        }
        Ok(())
    }

    /// Ends the run: what is left is written, padded with zeros to the alignment. Returns the offset
    /// after it (aligned), or None when no run was going.
    pub fn end(&mut self) -> Result<Option<u64>> {
        if self.target.is_none() {
            return Ok(None);
        }
        let padded = self.len.next_multiple_of(DIRECT_ALIGN);
        let (from, to) = (self.start + self.len, self.start + padded);
        self.raw[from..to].fill(0);
        if padded > 0 {
            self.write(padded)?;
        }
        Ok(self.target.take().map(|t| t.at))
    }

    /// Writes the first `n` bytes of the buffer at the target's offset and writes them out to the disk.
    fn write(&mut self, n: usize) -> Result<()> {
        let t = self.target.as_mut().expect("a run");
        let bytes = &self.raw[self.start..self.start + n];
        t.file
            .write_all_at(bytes, t.at)
            .map_err(|e| Error::io_at("write", &t.name, t.at, e))?;
        t.file.write_out(t.at, n as u64);
        t.at += n as u64;
        self.len = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Chunks, CHUNK};
    use crate::vfs::{SimVfs, Vfs, DIRECT_ALIGN};
    use std::path::Path;

    #[test]
    fn runs_are_written_in_aligned_chunks_and_padded() {
        let vfs = SimVfs::default();
        let file = vfs.create_direct(Path::new("/f")).unwrap();
        let mut c = Chunks::new();
        c.begin(file.clone(), "f", 0);
        c.append(&[1u8; 100]).unwrap();
        assert_eq!(c.position(), 100);
        // More than a chunk in one append: written as it fills.
        c.append(&vec![2u8; CHUNK + 10]).unwrap();
        assert_eq!(file.len().unwrap(), CHUNK as u64);
        let end = c.end().unwrap().unwrap();
        assert_eq!(end, (CHUNK + 110).next_multiple_of(DIRECT_ALIGN) as u64);
        assert_eq!(file.len().unwrap(), end);
        // A second run starts where the first ended.
        c.begin(file.clone(), "f", end);
        c.append(b"xyz").unwrap();
        assert_eq!(c.end().unwrap(), Some(end + DIRECT_ALIGN as u64));
        assert_eq!(c.end().unwrap(), None);
        let mut back = vec![0u8; 110 + CHUNK];
        file.read_exact_at(&mut back, 0).unwrap();
        assert!(back[..100].iter().all(|&b| b == 1) && back[100..].iter().all(|&b| b == 2));
        let mut tail = [9u8; 3];
        file.read_exact_at(&mut tail, end).unwrap();
        assert_eq!(&tail, b"xyz");
    }
}
