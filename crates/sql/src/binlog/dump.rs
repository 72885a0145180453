//! A dump thread's work (COM_BINLOG_DUMP): find where the replica starts, by file and position
//! or by GTID position (`@slave_connect_state`), send a fake ROTATE naming that file, then every
//! event from there on as it is written, waiting (not polling) at the live end and sending a
//! HEARTBEAT when nothing was sent for the heartbeat period.
//!
//! Invariants: only whole groups the log has written are read (never past the written end);
//! in GTID mode the groups at or before the replica's position in each domain are skipped, so
//! a replica that reconnects gets neither a gap nor a duplicate (design.md BLG5); the loop
//! ends within a wait period of its connection being killed or the log stopping.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::time::Duration;

use super::codes::{event, header_flag, CHECKSUM_LEN, FIRST_EVENT_POS, HEADER_LEN};
use super::control::{self, Gtid};
use super::event::{seal, Header};
use super::log::Binlog;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// Where a replica wants to start.
#[derive(Clone, Debug)]
pub enum StartAt {
    /// A file and position (COM_BINLOG_DUMP's own fields; an empty name: the first file).
    File { name: String, pos: u64 },
    /// After these GTIDs (one per domain; empty: from the beginning).
    Gtids(Vec<Gtid>),
}

/// Where events go: the connection.
pub trait DumpSink {
    /// Sends one event (its bytes as in the file).
    fn event(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// The connection was killed or the server is stopping.
    fn killed(&self) -> bool;
}

/// How often a waiting dump thread looks at its kill flag when no heartbeat is due sooner.
const WAKE: Duration = Duration::from_millis(500);

fn fatal(msg: impl Into<String>) -> DbError {
    DbError::new(ErrorCode::MasterFatalErrorReadingBinlog, msg.into())
}

/// The file to start reading and the GTIDs to skip in it.
fn locate(log: &Binlog, start: &StartAt) -> DbResult<(String, u64, BTreeMap<u32, u64>)> {
    let (files, _) = log.files();
    let first = files.first().map(|f| f.name.clone()).unwrap_or_default();
    match start {
        StartAt::File { name, pos } if name.is_empty() => {
            Ok((first, (*pos).max(FIRST_EVENT_POS), BTreeMap::new()))
        }
        StartAt::File { name, pos } => {
            if !files.iter().any(|f| &f.name == name) {
                return Err(fatal(format!(
                    "Could not find first log file name in binary log index file ({name})"
                )));
            }
            Ok((name.clone(), (*pos).max(FIRST_EVENT_POS), BTreeMap::new()))
        }
        StartAt::Gtids(gtids) => {
            let last = log.gtid_pos();
            for g in gtids {
                if last.iter().any(|l| l.domain == g.domain && l.seq < g.seq) {
                    return Err(fatal(format!(
                        "Error: connecting slave requested to start from GTID {g}, which is not in the master's binlog"
                    )));
                }
            }
            let skip: BTreeMap<u32, u64> = gtids.iter().map(|g| (g.domain, g.seq)).collect();
            // The newest file whose starting state is at or before the position in every domain.
            let mut pick = None;
            for f in &files {
                let ok = f
                    .start
                    .iter()
                    .all(|s| skip.get(&s.domain).is_some_and(|&q| s.seq <= q));
                if ok {
                    pick = Some(f.name.clone());
                }
            }
            let Some(name) = pick else {
                return Err(fatal(
                    "Could not find GTID state requested by slave in any binlog files. Probably the slave state is too old and required binlog files have been purged.",
                ));
            };
            Ok((name, FIRST_EVENT_POS, skip))
        }
    }
}

/// An artificial event (end position 0), sealed.
fn artificial(ev: &[u8], checksum: bool) -> Vec<u8> {
    let mut out = Vec::new();
    seal(ev, 0, checksum, &mut out);
    out[13..17].copy_from_slice(&0u32.to_le_bytes());
    if checksum {
        let n = out.len() - CHECKSUM_LEN;
        let crc = crc32fast::hash(&out[..n]);
        out[n..].copy_from_slice(&crc.to_le_bytes());
    }
    out
}

/// Serves one replica until its connection ends (Ok) or its request cannot be served (1236).
/// `non_block`: stop at the current end instead of waiting (mariadb-binlog without
/// --stop-never).
pub fn dump(
    log: &Binlog,
    start: &StartAt,
    heartbeat: Option<Duration>,
    non_block: bool,
    sink: &mut dyn DumpSink,
) -> DbResult<()> {
    let (mut file, mut pos, skip) = locate(log, start)?;
    let checksum = log.cfg.checksum;
    let sid = log.cfg.server_id;
    let rot = control::rotate(sid, 0, &file, pos, header_flag::ARTIFICIAL);
    send(sink, &artificial(&rot, checksum))?;
    let mut skipping = false;
    loop {
        let mut f = std::fs::File::open(log.path_of(&file))
            .map_err(|e| fatal(format!("cannot open {file}: {e}")))?;
        if pos > FIRST_EVENT_POS {
            // The replica needs the file's FORMAT_DESCRIPTION even when it starts further on.
            let fde = read_fde(&mut f).map_err(|e| fatal(format!("{file}: {e}")))?;
            let mut fde = fde;
            fde[13..17].copy_from_slice(&0u32.to_le_bytes());
            if checksum {
                let n = fde.len() - CHECKSUM_LEN;
                let crc = crc32fast::hash(&fde[..n]);
                fde[n..].copy_from_slice(&crc.to_le_bytes());
            }
            send(sink, &fde)?;
        }
        let mut idle = std::time::Instant::now();
        loop {
            if sink.killed() || log.stopped() {
                return Ok(());
            }
            let (_, cur, end) = log.wait_past(&file, pos, Duration::ZERO);
            let limit = if cur == file {
                end
            } else {
                f.metadata().map(|m| m.len()).unwrap_or(0)
            };
            if pos < limit {
                let mut buf = vec![0u8; (limit - pos) as usize];
                f.seek(SeekFrom::Start(pos))
                    .and_then(|_| f.read_exact(&mut buf))
                    .map_err(|e| fatal(format!("{file}: {e}")))?;
                let mut at = 0usize;
                let mut rotated = None;
                while at + HEADER_LEN <= buf.len() {
                    let h = Header::parse(&buf[at..]).ok_or_else(|| fatal("bad event header"))?;
                    let size = h.size as usize;
                    if size < HEADER_LEN || at + size > buf.len() {
                        return Err(fatal(format!("{file}: bad event at {}", pos + at as u64)));
                    }
                    let ev = &buf[at..at + size];
                    match h.type_code {
                        event::GTID => {
                            let b = &ev[HEADER_LEN..];
                            let seq = u64::from_le_bytes(b[..8].try_into().unwrap_or_default());
                            let domain =
                                u32::from_le_bytes(b[8..12].try_into().unwrap_or_default());
                            skipping = skip.get(&domain).is_some_and(|&s| seq <= s);
                        }
                        event::ROTATE => {
                            let body =
                                &ev[HEADER_LEN..size - if checksum { CHECKSUM_LEN } else { 0 }];
                            rotated = Some(String::from_utf8_lossy(&body[8..]).into_owned());
                            skipping = false;
                        }
                        event::FORMAT_DESCRIPTION | event::GTID_LIST | event::BINLOG_CHECKPOINT => {
                            skipping = false
                        }
                        _ => {}
                    }
                    if !skipping {
                        send(sink, ev)?;
                    }
                    at += size;
                }
                pos += at as u64;
                idle = std::time::Instant::now();
                if let Some(next) = rotated {
                    file = next;
                    pos = FIRST_EVENT_POS;
                    break;
                }
                continue;
            }
            if cur != file {
                // The file ended without a ROTATE (RESET MASTER): follow the log's current file.
                file = cur;
                pos = FIRST_EVENT_POS;
                break;
            }
            if non_block {
                return Ok(());
            }
            let wait = heartbeat.map_or(WAKE, |h| h.saturating_sub(idle.elapsed()).min(WAKE));
            log.wait_past(&file, pos, wait);
            if heartbeat.is_some_and(|h| idle.elapsed() >= h) {
                let mut hb = Vec::new();
                seal(&control::heartbeat(sid, &file), 0, checksum, &mut hb);
                hb[13..17].copy_from_slice(&(pos as u32).to_le_bytes());
                if checksum {
                    let n = hb.len() - CHECKSUM_LEN;
                    let crc = crc32fast::hash(&hb[..n]);
                    hb[n..].copy_from_slice(&crc.to_le_bytes());
                }
                send(sink, &hb)?;
                idle = std::time::Instant::now();
            }
        }
    }
}

fn send(sink: &mut dyn DumpSink, bytes: &[u8]) -> DbResult<()> {
    sink.event(bytes)
        .map_err(|e| DbError::new(ErrorCode::NetErrorOnWrite, e))
}

/// The FORMAT_DESCRIPTION event at the start of a file.
fn read_fde(f: &mut std::fs::File) -> Result<Vec<u8>, String> {
    let mut head = [0u8; HEADER_LEN];
    f.seek(SeekFrom::Start(FIRST_EVENT_POS))
        .and_then(|_| f.read_exact(&mut head))
        .map_err(|e| e.to_string())?;
    let h = Header::parse(&head).ok_or("no header")?;
    if h.type_code != event::FORMAT_DESCRIPTION || (h.size as usize) < HEADER_LEN {
        return Err("no FORMAT_DESCRIPTION event at position 4".into());
    }
    let mut ev = vec![0u8; h.size as usize];
    f.seek(SeekFrom::Start(FIRST_EVENT_POS))
        .and_then(|_| f.read_exact(&mut ev))
        .map_err(|e| e.to_string())?;
    Ok(ev)
}
