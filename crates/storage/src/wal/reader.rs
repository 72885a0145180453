//! Reading the log back for recovery (design.md, "Recovery", steps 3 and 4).
//!
//! Segments are read in LSN order, from the one holding the replay LSN (older ones are obsolete: a crash
//! came between the checkpoint and their retirement). A frame holds one record (format versions 1-4) or
//! the records of one log write (packed, version 5), all or none. Reading stops at the first frame that
//! is short, fails its checksum, or breaks LSN density: that is where the last write before a crash tore.
//! The caller truncates there and removes any later segment, so a later recovery never stops early at the
//! same tear.
//!
//! A segment file may be a reused one (design.md SEG1) whose older records follow the new ones: their LSNs
//! are below the segment's first, so density ends the segment there. A segment that is not the last ends
//! where the next one begins (a roll writes and fsyncs a segment whole before the next is named), so a
//! frame that breaks density earlier is damage, not the end.

use super::record::Record;
use super::{free_segment_name, is_free_segment_name, parse_segment_name, segment_name};
use crate::corruption;
use crate::error::{Error, Result};
use crate::tree::in_memory::message::Msn;
use crate::vfs::Vfs;
use std::path::{Path, PathBuf};

/// What was found in the log.
pub struct LogScan {
    /// Records with LSN ≥ the requested start, in order.
    pub records: Vec<(Msn, Record)>,
    /// LSN the next record should get.
    pub next_lsn: Msn,
    /// Segments (first LSNs) that hold valid records, ascending.
    pub segments: Vec<Msn>,
    /// Obsolete segment files to reuse (SEG1): those found waiting and those older than the replay LSN.
    pub free: Vec<PathBuf>,
}

/// Whether, skipping the (bad) frame at the start of `buf` by its length field, a valid frame with a later
/// LSN follows (a packed frame's record count is unknown once it is bad, so any later LSN counts): then the
/// bad frame is damage in the middle of the log, not a torn tail. Older generations' frames in a reused
/// file and a spare's zeros carry lower LSNs.
fn valid_frame_follows(buf: &[u8], bad_lsn: Msn) -> bool {
    if buf.len() < 4 {
        return false;
    }
    let len = u32::from_le_bytes(buf[..4].try_into().unwrap()) as usize;
    let next = 8 + len;
    next < buf.len()
        && matches!(Record::decode_frame(&buf[next..]), Ok((lsn, _, _)) if lsn > bad_lsn)
}

/// Whether the frame at the start of `buf` carries an LSN below `first`, the segment's first: bytes of an
/// older generation in a reused segment file (SEG4), whatever its checksum says.
fn older_generation(buf: &[u8], first: Msn) -> bool {
    buf.len() >= 16 && u64::from_le_bytes(buf[8..16].try_into().unwrap()) < first
}

/// The segments in `dir` (first LSNs, ascending) and the retired segment files waiting for reuse there.
fn list_log(vfs: &dyn Vfs, dir: &Path) -> Result<(Vec<Msn>, Vec<PathBuf>)> {
    let names = vfs
        .list(dir)
        .map_err(|e| Error::io("list", dir.display().to_string(), e))?;
    let mut firsts: Vec<Msn> = names.iter().filter_map(|n| parse_segment_name(n)).collect();
    firsts.sort_unstable();
    let mut free: Vec<PathBuf> = names
        .iter()
        .filter(|n| is_free_segment_name(n))
        .map(|n| dir.join(n))
        .collect();
    free.sort();
    Ok((firsts, free))
}

/// Reads every valid record with LSN ≥ `from`, truncating the torn tail (and dropping later segments).
/// `min_next` is the lowest LSN the log may continue with (one past the checkpoint's knowledge).
pub fn scan_and_repair(vfs: &dyn Vfs, dir: &Path, from: Msn, min_next: Msn) -> Result<LogScan> {
    let (mut segments, mut free) = list_log(vfs, dir)?;
    // Segments wholly before the replay LSN are obsolete: retire them as the checkpoint would have.
    let start = segments.iter().rposition(|&f| f <= from).unwrap_or(0);
    for first in segments.drain(..start) {
        let path = dir.join(segment_name(first));
        let to = dir.join(free_segment_name(first));
        vfs.rename(&path, &to)
            .map_err(|e| Error::io("rename", path.display().to_string(), e))?;
        free.push(to);
    }
    let mut records = Vec::new();
    let mut expected: Option<Msn> = None;
    let mut kept = Vec::new();
    let mut broken = false;
    for (i, &first) in segments.iter().enumerate() {
        let path = dir.join(segment_name(first));
        let pstr = path.display().to_string();
        if broken {
            vfs.remove(&path)
                .map_err(|e| Error::io("remove", pstr, e))?;
            continue;
        }
        let file = vfs
            .open(&path, false)
            .map_err(|e| Error::io("open", pstr.clone(), e))?;
        let len = file.len().map_err(|e| Error::io("stat", pstr.clone(), e))?;
        let mut data = vec![0u8; len as usize];
        file.read_exact_at(&mut data, 0)
            .map_err(|e| Error::io("read", pstr.clone(), e))?;
        if let Some(exp) = expected {
            if first != exp {
                // A gap between segments: everything from here on is unreachable.
                broken = true;
                vfs.remove(&path)
                    .map_err(|e| Error::io("remove", pstr, e))?;
                continue;
            }
        }
        let mut pos = 0usize;
        let mut lsn_expected = first;
        while pos < data.len() {
            match Record::decode_frame(&data[pos..]) {
                Ok((lsn, recs, n)) if lsn == lsn_expected => {
                    for rec in recs {
                        if lsn_expected >= from {
                            records.push((lsn_expected, rec));
                        }
                        lsn_expected += 1;
                    }
                    pos += n;
                }
                _ if segments.get(i + 1) == Some(&lsn_expected) => break,
                _ => {
                    let damaged = i + 1 < segments.len()
                        || (!older_generation(&data[pos..], first)
                            && valid_frame_follows(&data[pos..], lsn_expected));
                    if damaged {
                        // Not a torn tail: valid records follow the bad one.
                        return Err(corruption!(
                            pstr,
                            Some(pos as u64),
                            "log record {lsn_expected} is damaged and later records exist"
                        ));
                    }
                    broken = true;
                    break;
                }
            }
        }
        if broken {
            file.set_len(pos as u64)
                .map_err(|e| Error::io("truncate", pstr.clone(), e))?;
        }
        if broken || i + 1 == segments.len() {
            // The last segment may hold records that reached the page cache but were never synced (the
            // process died, the machine did not); they were just read and will be replayed, and the log
            // goes on in a new segment, which a later recovery reads only after this one's end (SEG1).
            file.sync()
                .map_err(|e| Error::io("fsync", pstr.clone(), e))?;
        }
        if pos == 0 && i + 1 < segments.len() && !broken {
            // An empty segment in the middle: keep going with the same expectation.
        }
        kept.push(first);
        expected = Some(lsn_expected);
    }
    if broken {
        vfs.sync_dir(dir)
            .map_err(|e| Error::io("fsync directory", dir.display().to_string(), e))?;
    }
    let next_lsn = expected.unwrap_or(min_next).max(min_next);
    Ok(LogScan {
        records,
        next_lsn,
        segments: kept,
        free,
    })
}
