//! Spare log segments: files of zeros, written and fsynced ahead of need (design.md SPR1-SPR5).
//!
//! An fdatasync after appending to a file must also commit the file's new size and block map (on ext4, a
//! journal commit); after overwriting blocks the file already has, it writes only the data. Reused segments
//! (SEG1) give the second kind, but a new environment has none to reuse, and a busy log can use up the pool
//! between two checkpoints. While the pool is empty and the current segment is filling, the maintenance
//! thread writes a spare: a segment-sized file of zeros, fsynced, that joins the pool under a
//! [`spare_segment_name`]. A log writing past the end of its current file rolls to a pooled file at once
//! (`Wal::flush_with`), so a fresh log appends only until the first spare is ready.
//!
//! Invariants: design.md, "Spare log segments", SPR1-SPR5: a spare holds only zeros and reads as the end
//! of a log (SPR1); it is written outside the log's lock (SPR2); none is made while reuse is off or the
//! pool holds a file (SPR3); failing to write one latches nothing and stops spares (SPR4); an environment
//! opened with its background threads writes one before its first commit when the pool is empty (SPR5).

use super::parse_segment_name;
use super::writer::Wal;
use crate::error::{Error, Result};

/// Zeros written per call while filling a spare.
const ZERO_CHUNK: usize = 1 << 20;
/// Bytes of a spare written out (and waited for) at a time, so that commits' log fsyncs queue behind one
/// slice at a time, not behind the whole file (as a checkpoint does, CKP9).
const WRITE_OUT_SLICE: u64 = 4 << 20;

/// File name of spare number `n` (a pooled file recovery never reads, like [`super::free_segment_name`]).
pub fn spare_segment_name(n: u64) -> String {
    format!("free-spare-{n:020}.wal")
}

/// Whether `name` is a spare ([`spare_segment_name`]).
pub fn is_spare_segment_name(name: &str) -> bool {
    name.strip_prefix("free-spare-")
        .and_then(parse_segment_name)
        .is_some()
}

impl Wal {
    /// Writes one spare into the pool if the pool is empty and the current segment holds at least a
    /// sixteenth of a segment (a quiet log never gets one); whether it did. Called by the maintenance
    /// thread. A spare holds no records, so a failure to write one does not latch the environment: the
    /// partial file is removed, the error returned, and no spare is made again until the log is reopened
    /// (SPR4).
    pub fn prepare_spare(&self) -> Result<bool> {
        self.make_spare(self.spare_wanted(false))
    }

    /// Writes one spare into the pool if the pool is empty, however quiet the log (SPR5): an environment
    /// opened with its background threads does this before its first commit, so that a new log's first
    /// spare is not written while the first commits fsync. Fails and stops spares as `prepare_spare`.
    pub fn prepare_first_spare(&self) -> Result<bool> {
        self.make_spare(self.spare_wanted(true))
    }

    /// Writes spare number `n` or a later free one (None: no spare is wanted).
    fn make_spare(&self, wanted: Option<u64>) -> Result<bool> {
        let Some(mut n) = wanted else {
            return Ok(false);
        };
        let mut path = self.dir.join(spare_segment_name(n));
        while self.vfs.exists(&path) {
            n += 1;
            path = self.dir.join(spare_segment_name(n));
        }
        match self.write_spare(&path) {
            Ok(()) => {
                self.add_spare(path);
                Ok(true)
            }
            Err(e) => {
                self.stop_spares();
                let _ = self.vfs.remove(&path);
                Err(Error::io(
                    "write spare log segment",
                    path.display().to_string(),
                    e,
                ))
            }
        }
    }

    /// Writes a segment's length of zeros to a new file at `path`, a slice at a time, and fsyncs it.
    fn write_spare(&self, path: &std::path::Path) -> std::io::Result<()> {
        let file = self.vfs.open(path, true)?;
        let zeros = vec![0u8; ZERO_CHUNK];
        let len = self.segment_bytes;
        let mut offset = 0;
        let mut written_out = 0;
        while offset < len {
            let n = (len - offset).min(ZERO_CHUNK as u64) as usize;
            file.write_all_at(&zeros[..n], offset)?;
            offset += n as u64;
            if offset - written_out >= WRITE_OUT_SLICE || offset == len {
                file.write_out(written_out, offset - written_out);
                written_out = offset;
            }
        }
        file.sync()
    }
}
