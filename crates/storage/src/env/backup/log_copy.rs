//! The log part of a backup (design.md BKP2, BKP5): after the final round's roll, the complete segments from
//! the one holding the final checkpoint's begin LSN, each cut right after its last record (a reused file may
//! hold an older generation's bytes after it, SEG1).

use super::dest::Dest;
use super::manifest::FileEntry;
use crate::corruption;
use crate::error::{Error, Result};
use crate::tree::in_memory::message::Msn;
use crate::vfs::Vfs;
use crate::wal::{segment_name, Record};
use std::path::Path;

/// The bytes of segment `first` up to the end of the record `last`, checked frame by frame.
fn segment_prefix(vfs: &dyn Vfs, dir: &Path, first: Msn, last: Msn) -> Result<Vec<u8>> {
    let path = dir.join(segment_name(first));
    let pstr = path.display().to_string();
    let file = vfs
        .open(&path, false)
        .map_err(|e| Error::io("open", &pstr, e))?;
    let len = file.len().map_err(|e| Error::io("stat", &pstr, e))?;
    let mut data = vec![0u8; len as usize];
    file.read_exact_at(&mut data, 0)
        .map_err(|e| Error::io("read", &pstr, e))?;
    let (mut pos, mut next) = (0usize, first);
    while next <= last {
        match Record::decode_frame(&data[pos..]) {
            Ok((lsn, recs, n)) if lsn == next => {
                next += recs.len() as u64;
                pos += n;
            }
            _ => {
                return Err(corruption!(
                    pstr,
                    Some(pos as u64),
                    "log record {next} is missing or damaged"
                ))
            }
        }
    }
    data.truncate(pos);
    Ok(data)
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
    for (i, &first) in closed.iter().enumerate().skip(start) {
        let next = closed.get(i + 1).copied().unwrap_or(*current);
        let bytes = segment_prefix(vfs, wal_dir, first, next - 1)?;
        dest.pace(bytes.len() as u64)?;
        let name = format!("{}/{}", crate::env::recovery::WAL_DIR, segment_name(first));
        files.push(dest.write_file(&name, &bytes)?);
    }
    Ok((files, end))
}
