//! The log part of a backup (design.md BKP2, BKP5): after the final round's roll, the complete segments from
//! the one holding the final checkpoint's begin LSN, each cut right after its last record (a reused file may
//! hold an older generation's bytes after it, SEG1). A segment is read in pieces of one chunk, its frames
//! checked (lengths, checksums and dense LSNs; the records are decoded when the copy is opened) and written
//! to the backup as they are checked.

use super::chunks::CHUNK;
use super::dest::Dest;
use super::manifest::FileEntry;
use crate::corruption;
use crate::error::{Error, Result};
use crate::tree::in_memory::message::Msn;
use crate::vfs::Vfs;
use crate::wal::{segment_name, Record};
use std::path::Path;

/// Copies segment `first` up to the end of the record `last` into `dest`; `buf` is the reusable buffer
/// the pieces are read into (it grows when one frame is longer).
fn copy_segment(
    vfs: &dyn Vfs,
    dir: &Path,
    (first, last): (Msn, Msn),
    dest: &mut Dest<'_>,
    buf: &mut Vec<u8>,
) -> Result<FileEntry> {
    let path = dir.join(segment_name(first));
    let pstr = path.display().to_string();
    let file = vfs
        .open(&path, false)
        .map_err(|e| Error::io("open", &pstr, e))?;
    let len = file.len().map_err(|e| Error::io("stat", &pstr, e))?;
    dest.begin_file(&format!(
        "{}/{}",
        crate::env::recovery::WAL_DIR,
        segment_name(first)
    ))?;
    // buf[..checked] holds whole frames not written yet, buf[checked..have] the bytes after them;
    // `read` bytes of the file have been read, `done` of them written.
    let (mut next, mut checked, mut have, mut read, mut done) = (first, 0usize, 0usize, 0u64, 0u64);
    while next <= last {
        match Record::frame_extent(&buf[checked..have]) {
            Ok((lsn, count, n)) if lsn == next => {
                next += count;
                checked += n;
                continue;
            }
            // A frame cut by the piece's end: read on (a damaged one fails when the file ends).
            Err(_) if read < len => {}
            _ => {
                return Err(corruption!(
                    pstr,
                    Some(done + checked as u64),
                    "log record {next} is missing or damaged"
                ))
            }
        }
        dest.pace(checked as u64)?;
        dest.append_file(&buf[..checked])?;
        done += checked as u64;
        buf.copy_within(checked..have, 0);
        have -= checked;
        checked = 0;
        if have == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = ((buf.len() - have) as u64).min(len - read) as usize;
        file.read_exact_at(&mut buf[have..have + n], read)
            .map_err(|e| Error::io_at("read", &pstr, read, e))?;
        have += n;
        read += n as u64;
    }
    dest.pace(checked as u64)?;
    dest.append_file(&buf[..checked])?;
    dest.end_file()
}

/// Copies the complete segments that hold the records from `begin` on, `firsts` being every segment's first
/// LSN as the log lists them after the roll (its last is the segment being written, not copied). Returns
/// the files and the end LSN (the last record copied).
pub(crate) fn copy_log(
    vfs: &dyn Vfs,
    wal_dir: &Path,
    firsts: &[Msn],
    begin: Msn,
    dest: &mut Dest<'_>,
) -> Result<(Vec<FileEntry>, Msn)> {
    let (current, closed) = firsts.split_last().expect("the log has a segment");
    let start = closed.iter().rposition(|&f| f <= begin).unwrap_or(0);
    let end = current - 1;
    let mut files = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    for (i, &first) in closed.iter().enumerate().skip(start) {
        let next = closed.get(i + 1).copied().unwrap_or(*current);
        files.push(copy_segment(
            vfs,
            wal_dir,
            (first, next - 1),
            dest,
            &mut buf,
        )?);
    }
    Ok((files, end))
}
