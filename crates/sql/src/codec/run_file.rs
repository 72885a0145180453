//! Sorted run files: what an external sort writes when its memory budget is full and reads back
//! in its merge (load/sorter.rs for LOAD DATA and table rebuilds, exec/external_sort.rs for query
//! sorts). Layout in docs/file-format.md §13.
//!
//! A run is a zstd stream (level 1) of entries `varint klen, varint vlen, varint seq, key, value`,
//! in the order they were written; the stream ends after the last entry. Entries are written by
//! [`RunWriter`] and read back by [`RunReader`], which removes the file when dropped.
//!
//! Invariants: a reader returns exactly the entries written, in order; a truncated or corrupt
//! file is an I/O error (`UnexpectedEof`, `InvalidData`), never a panic or a short run.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// One entry: `(key, seq, value)`.
pub type Entry = (Vec<u8>, u64, Vec<u8>);

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

/// Writes one run file.
pub struct RunWriter {
    enc: zstd::stream::Encoder<'static, BufWriter<File>>,
}

impl RunWriter {
    /// Creates (truncates) `path`; `buffer_bytes` is the write buffer's size.
    pub fn create(path: &Path, buffer_bytes: usize) -> io::Result<RunWriter> {
        let f = File::create(path)?;
        let enc = zstd::stream::Encoder::new(BufWriter::with_capacity(buffer_bytes, f), 1)?;
        Ok(RunWriter { enc })
    }

    pub fn write(&mut self, key: &[u8], seq: u64, value: &[u8]) -> io::Result<()> {
        put_varint(&mut self.enc, key.len() as u64)?;
        put_varint(&mut self.enc, value.len() as u64)?;
        put_varint(&mut self.enc, seq)?;
        self.enc.write_all(key)?;
        self.enc.write_all(value)
    }

    /// Ends the stream and flushes it to the file.
    pub fn finish(self) -> io::Result<()> {
        let mut w = self.enc.finish()?;
        w.flush()
    }
}

/// Reads one run file back; the file is removed when the reader drops.
pub struct RunReader {
    dec: Box<dyn Read + Send>,
    pub path: PathBuf,
}

impl RunReader {
    pub fn open(path: PathBuf) -> io::Result<RunReader> {
        let opened = File::open(&path)
            .and_then(|f| zstd::stream::Decoder::with_buffer(BufReader::with_capacity(1 << 16, f)));
        match opened {
            Ok(dec) => Ok(RunReader {
                dec: Box::new(dec),
                path,
            }),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                Err(e)
            }
        }
    }

    /// The next entry; `None` after the last.
    pub fn next_entry(&mut self) -> io::Result<Option<Entry>> {
        let dec = &mut self.dec;
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
    }
}

impl Drop for RunReader {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_in_order_and_the_file_goes_with_the_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.run");
        let mut w = RunWriter::create(&path, 4096).unwrap();
        let entries: Vec<Entry> = (0..1000u64)
            .map(|i| (i.to_be_bytes().to_vec(), i * 300, vec![7; (i % 5) as usize]))
            .collect();
        for (k, s, v) in &entries {
            w.write(k, *s, v).unwrap();
        }
        w.finish().unwrap();
        let mut r = RunReader::open(path.clone()).unwrap();
        let mut back = Vec::new();
        while let Some(e) = r.next_entry().unwrap() {
            back.push(e);
        }
        assert_eq!(back, entries);
        drop(r);
        assert!(!path.exists());
    }

    #[test]
    fn a_truncated_run_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.run");
        let mut w = RunWriter::create(&path, 4096).unwrap();
        w.write(b"key", 1, &[1; 100]).unwrap();
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let mut r = RunReader::open(path).unwrap();
        assert!(r.next_entry().is_err());
    }
}
