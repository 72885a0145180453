//! Reading an environment directory offline and reporting everything wrong with it (`betula verify`,
//! design.md, "Online backup and restore"): the environment header's slots, the catalog, each tree's
//! header slots and translation table, every block the table names (all its checksums), the tree's structure
//! from its root (TREE1-TREE4, as `check_invariants` checks them), and every log frame from the replay LSN.
//!
//! Invariants: nothing is written (trees are opened without reset, the log is read, never repaired); the
//! environment's lock is taken first, so a running server's directory is refused rather than read while it
//! changes; each problem names its file and, where there is one, the block's offset.

use super::catalog::{catalog_name, tree_file_name, ENV_MAGIC, ENV_PAYLOAD_BYTES};
use super::recovery::{lock_dir, read_catalog, read_env_header, shared_state, ENV_FILE, WAL_DIR};
use super::EnvOptions;
use crate::block::slots::{self, SlotState};
use crate::error::{Error, Result};
use crate::tree::format::node_codec;
use crate::tree::in_memory::message::UpdateRegistry;
use crate::tree::{read_checkpoint, Tree};
use crate::vfs::Vfs;
use crate::wal::{parse_segment_name, segment_name, Record};
use std::path::Path;

/// What a verification read and found.
#[derive(Debug, Default, Clone)]
pub struct VerifyReport {
    pub trees: usize,
    pub blocks: u64,
    pub block_bytes: u64,
    pub log_records: u64,
    /// Each problem with its file (and block offset where there is one); empty: the environment is sound.
    pub problems: Vec<String>,
}

/// Verifies the environment in `dir` (the server must not be running on it).
pub fn verify_environment(vfs: &dyn Vfs, dir: &Path) -> Result<VerifyReport> {
    let dstr = dir.display().to_string();
    let _lock = lock_dir(vfs, dir)?;
    let mut report = VerifyReport::default();
    check_env_slots(vfs, dir, &mut report);
    let header = read_env_header(vfs, dir)?.map(|(h, _)| h);
    let Some(h) = header else {
        report
            .problems
            .push(format!("{dstr}: no environment header"));
        return Ok(report);
    };
    let (catalog, replay_lsn, _) = match read_catalog(vfs, dir, Some(h)) {
        Ok(c) => c,
        Err(e) => {
            report.problems.push(e.to_string());
            return Ok(report);
        }
    };
    let ctx = shared_state(
        &EnvOptions {
            cache_bytes: 64 << 20,
            ..EnvOptions::default()
        },
        UpdateRegistry::new(),
        &catalog,
    );
    let dropped = check_log(vfs, dir, replay_lsn, &mut report);
    for (&id, entry) in &catalog.trees {
        let path = dir.join(tree_file_name(id));
        if !vfs.exists(&path) {
            if !dropped.contains(&id) {
                report.problems.push(format!(
                    "{}: missing (tree {:?} of {})",
                    path.display(),
                    entry.name,
                    catalog_name(h.seq)
                ));
            }
            continue;
        }
        report.trees += 1;
        let before = report.problems.len();
        check_blocks(vfs, &path, id, entry.ckpt_seq, &mut report);
        if report.problems.len() == before {
            let tree = Tree::open_in(vfs, &path, id, entry.options, ctx.clone(), false);
            if let Err(e) = tree.and_then(|t| t.check_invariants()) {
                report.problems.push(e.to_string());
            }
        }
    }
    Ok(report)
}

/// Both slots of the environment header: a damaged one is reported even when the other is valid.
fn check_env_slots(vfs: &dyn Vfs, dir: &Path, report: &mut VerifyReport) {
    let path = dir.join(ENV_FILE);
    let Ok(file) = vfs.open(&path, false) else {
        return;
    };
    if let Ok(states) = slots::read_slots(&*file, ENV_MAGIC, ENV_PAYLOAD_BYTES) {
        for (i, s) in states.iter().enumerate() {
            if matches!(s, SlotState::Invalid) {
                report.problems.push(format!(
                    "{} block at offset {}: header slot {i} is damaged",
                    path.display(),
                    i as u64 * crate::format::HEADER_SLOT_BYTES
                ));
            }
        }
    }
}

/// The tree file's newer header and table, then every block the table names.
fn check_blocks(vfs: &dyn Vfs, path: &Path, id: u64, ckpt_seq: u64, report: &mut VerifyReport) {
    let pstr = path.display().to_string();
    let file = match vfs.open(path, false) {
        Ok(f) => f,
        Err(e) => return report.problems.push(Error::io("open", pstr, e).to_string()),
    };
    let ck = match read_checkpoint(&*file, &pstr, Some(id)) {
        Ok(Some(ck)) => ck,
        Ok(None) if ckpt_seq == 0 => return,
        Ok(None) => {
            return report
                .problems
                .push(format!("{pstr}: no valid header slot"))
        }
        Err(e) => return report.problems.push(e.to_string()),
    };
    if ck.header.seq < ckpt_seq {
        report.problems.push(format!(
            "{pstr}: header of checkpoint {} where the catalog says {ckpt_seq}",
            ck.header.seq
        ));
    }
    let mut places: Vec<_> = ck.table.map.iter().collect();
    places.sort_by_key(|(_, loc)| loc.offset);
    for (bn, loc) in places {
        report.blocks += 1;
        report.block_bytes += u64::from(loc.len);
        let mut buf = vec![0u8; loc.len as usize];
        let checked = file
            .read_exact_at(&mut buf, loc.offset)
            .map_err(|e| e.to_string())
            .and_then(|_| node_codec::check_block(&buf, *bn).map_err(|e| e.0));
        if let Err(what) = checked {
            report.problems.push(format!(
                "{pstr} block at offset {}: node {bn}: {what}",
                loc.offset
            ));
        }
    }
}

/// Reads the log from the segment holding `replay_lsn`, without repairing anything: every segment but the
/// last must run to the next one's first LSN; the last may end in a torn write. Returns the trees the log
/// drops or replaces (their files may be gone).
fn check_log(
    vfs: &dyn Vfs,
    dir: &Path,
    replay_lsn: u64,
    report: &mut VerifyReport,
) -> std::collections::HashSet<u64> {
    let wal = dir.join(WAL_DIR);
    let mut dropped = std::collections::HashSet::new();
    let mut firsts: Vec<u64> = vfs
        .list(&wal)
        .unwrap_or_default()
        .iter()
        .filter_map(|n| parse_segment_name(n))
        .collect();
    firsts.sort_unstable();
    let start = firsts.iter().rposition(|&f| f <= replay_lsn);
    let Some(start) = start else {
        report.problems.push(format!(
            "{}: no log segment holds LSN {replay_lsn}, where recovery starts",
            wal.display()
        ));
        return dropped;
    };
    for (i, &first) in firsts.iter().enumerate().skip(start) {
        let path = wal.join(segment_name(first));
        let pstr = path.display().to_string();
        let data = match super::backup::read_file(vfs, &path) {
            Ok(d) => d,
            Err(e) => {
                report.problems.push(e.to_string());
                continue;
            }
        };
        let end = firsts.get(i + 1).copied();
        let (mut pos, mut lsn) = (0usize, first);
        while pos < data.len() && Some(lsn) != end {
            match Record::decode_frame(&data[pos..]) {
                Ok((at, recs, n)) if at == lsn => {
                    for r in &recs {
                        match r {
                            Record::DropTree { id } => {
                                dropped.insert(*id);
                            }
                            Record::ReplaceTrees { pairs } => {
                                dropped.extend(pairs.iter().map(|p| p.0));
                            }
                            _ => {}
                        }
                    }
                    if lsn >= replay_lsn {
                        report.log_records += recs.len() as u64;
                    }
                    lsn += recs.len() as u64;
                    pos += n;
                }
                _ => break,
            }
        }
        if end.is_some_and(|e| e != lsn) {
            report.problems.push(format!(
                "{pstr} block at offset {pos}: log record {lsn} is missing or damaged, and later segments exist"
            ));
        }
    }
    dropped
}
