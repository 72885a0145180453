//! Tests of spare log segments (design.md SPR1-SPR5, `wal::spare`): when one is made, that the log rolls
//! into it at once, that reading a segment written over a spare's zeros returns exactly the records (after a
//! crash at any point too), that recovery pools spares, and that a failed spare latches nothing.

use super::reader::scan_and_repair;
use super::spare::is_spare_segment_name;
use super::{Record, Wal};
use crate::compress::Codec;
use crate::health::Health;
use crate::tree::in_memory::message::Op;
use crate::vfs::{SimCrashPlan, SimVfs, Vfs};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const SEGMENT: u64 = 64 << 10;

fn message(lsn: u64) -> Record {
    Record::Message {
        tree: 1,
        txn: 0,
        key: lsn.to_be_bytes().to_vec(),
        op: Op::Put(vec![lsn as u8; 40]),
    }
}

fn start(vfs: &Arc<SimVfs>, dir: &Path, recycle: usize, health: Arc<Health>) -> Wal {
    Wal::start(
        vfs.clone(),
        dir.to_path_buf(),
        SEGMENT,
        Codec::Lz4,
        recycle,
        health,
        1,
        vec![],
        vec![],
    )
    .unwrap()
}

fn fresh(recycle: usize) -> (Arc<SimVfs>, PathBuf, Arc<Health>, Wal) {
    let vfs = Arc::new(SimVfs::new());
    let dir = PathBuf::from("/wal");
    vfs.create_dir_all(&dir).unwrap();
    let health = Arc::new(Health::default());
    let wal = start(&vfs, &dir, recycle, health.clone());
    (vfs, dir, health, wal)
}

/// Appends and syncs one record at a time until the current segment holds `bytes` or more (the log is
/// written record by record, so its position is known from the bytes it wrote).
fn commit_until(wal: &Wal, bytes: u64) -> u64 {
    let mut written = 0;
    while written < bytes {
        let lsn = wal.next_lsn();
        let before = wal.bytes_written();
        wal.append(&message(lsn)).unwrap();
        wal.sync_to(lsn).unwrap();
        written += wal.bytes_written() - before;
    }
    written
}

fn spares(vfs: &SimVfs, dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = vfs
        .list(dir)
        .unwrap()
        .into_iter()
        .filter(|n| is_spare_segment_name(n))
        .collect();
    names.sort();
    names
}

#[test]
fn a_busy_log_gets_a_spare_of_zeros_and_rolls_into_it() {
    let (vfs, dir, _health, wal) = fresh(3);
    // Quiet: under a sixteenth of a segment in the current one.
    commit_until(&wal, SEGMENT / 32);
    assert!(!wal.prepare_spare().unwrap());
    assert!(spares(&vfs, &dir).is_empty());
    commit_until(&wal, SEGMENT / 16);
    assert!(wal.prepare_spare().unwrap());
    let names = spares(&vfs, &dir);
    assert_eq!(names.len(), 1, "{names:?}");
    let bytes = vfs.read_all(&dir.join(&names[0])).unwrap();
    assert_eq!(bytes.len() as u64, SEGMENT);
    assert!(bytes.iter().all(|&b| b == 0));
    // One in the pool is enough.
    assert!(!wal.prepare_spare().unwrap());
    assert_eq!(wal.free_count(), 1);
    assert_eq!(wal.spares_made(), 1);
    // The next write grows the fresh segment's file past its (zero) length, so the log rolls into the
    // spare right after it.
    let segments = wal.segment_count();
    commit_until(&wal, 1);
    assert_eq!(wal.segment_count(), segments + 1);
    assert_eq!(wal.free_count(), 0);
    assert!(spares(&vfs, &dir).is_empty());
}

#[test]
fn records_written_over_a_spare_read_back_exactly_after_any_crash() {
    let (vfs, dir, _health, wal) = fresh(3);
    commit_until(&wal, SEGMENT / 8);
    assert!(wal.prepare_spare().unwrap());
    // Into the spare, and over a third of it: its zeros follow the records.
    commit_until(&wal, SEGMENT / 3);
    let synced_end = wal.next_lsn();
    for _ in 0..4 {
        let lsn = wal.next_lsn();
        wal.append(&message(lsn)).unwrap();
    }
    wal.write_unsynced().unwrap();
    let end = wal.next_lsn();
    drop(wal);
    for seed in 0..8 {
        let image = vfs.crash_image(seed);
        let scan = scan_and_repair(&image, &dir, 1, 1).unwrap();
        let lsns: Vec<u64> = scan.records.iter().map(|(l, _)| *l).collect();
        let got_end = 1 + lsns.len() as u64;
        assert_eq!(lsns, (1..got_end).collect::<Vec<_>>(), "seed {seed}");
        assert!(
            (synced_end..=end).contains(&got_end),
            "seed {seed}: read up to {got_end}, synced up to {synced_end}"
        );
        for (lsn, rec) in &scan.records {
            assert_eq!(*rec, message(*lsn));
        }
        assert_eq!(scan.segments.len(), 2, "{:?}", scan.segments);
    }
}

#[test]
fn recovery_pools_a_spare_and_the_next_segment_is_written_over_it() {
    let (vfs, dir, _health, wal) = fresh(3);
    commit_until(&wal, SEGMENT / 8);
    assert!(wal.prepare_spare().unwrap());
    drop(wal);
    let scan = scan_and_repair(&*vfs, &dir, 1, 1).unwrap();
    let pooled: Vec<String> = scan
        .free
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(pooled, spares(&vfs, &dir));
    assert_eq!(pooled.len(), 1);
    let first = scan.next_lsn;
    let wal = Wal::start_after(vfs.clone(), dir.clone(), SEGMENT, Codec::Lz4, 3, scan).unwrap();
    // The log went on in the spare: no spare is left, and the new segment's file is a segment long.
    assert!(spares(&vfs, &dir).is_empty());
    let seg = dir.join(super::segment_name(first));
    assert_eq!(vfs.read_all(&seg).unwrap().len() as u64, SEGMENT);
    commit_until(&wal, 1000);
    let end = wal.next_lsn();
    drop(wal);
    let scan = scan_and_repair(&vfs.crash_image(0), &dir, 1, 1).unwrap();
    assert_eq!(scan.next_lsn, end);
}

#[test]
fn no_spare_without_reuse() {
    let (vfs, dir, _health, wal) = fresh(0);
    assert!(!wal.prepare_first_spare().unwrap());
    commit_until(&wal, SEGMENT / 2);
    assert!(!wal.prepare_spare().unwrap());
    assert!(spares(&vfs, &dir).is_empty());
}

#[test]
fn a_quiet_new_log_gets_its_first_spare_before_any_commit_and_rolls_into_it() {
    let (vfs, dir, _health, wal) = fresh(3);
    assert!(!wal.prepare_spare().unwrap(), "a quiet log waits for work");
    assert!(wal.prepare_first_spare().unwrap());
    assert_eq!(spares(&vfs, &dir).len(), 1);
    assert!(
        !wal.prepare_first_spare().unwrap(),
        "one in the pool is enough"
    );
    // The first write grows the fresh segment's file, so the log rolls into the spare right after it,
    // and the records read back.
    let segments = wal.segment_count();
    commit_until(&wal, 1);
    assert_eq!(wal.segment_count(), segments + 1);
    assert!(spares(&vfs, &dir).is_empty());
    commit_until(&wal, SEGMENT / 4);
    let end = wal.next_lsn();
    let scan = scan_and_repair(&*vfs, &dir, 1, 1).unwrap();
    let lsns: Vec<u64> = scan.records.iter().map(|(lsn, _)| *lsn).collect();
    assert_eq!(lsns, (1..end).collect::<Vec<u64>>());
}

#[test]
fn a_spare_that_fails_to_write_is_removed_and_latches_nothing() {
    let (vfs, dir, health, wal) = fresh(3);
    commit_until(&wal, SEGMENT / 8);
    vfs.set_plan(SimCrashPlan {
        crash_at_sync: None,
        // The spare's first write of zeros (a 64 KiB spare takes one).
        fail_write: Some(vfs.write_count() + 1),
    });
    assert!(wal.prepare_spare().is_err());
    assert!(spares(&vfs, &dir).is_empty());
    assert!(health.failure().is_none());
    assert_eq!(wal.free_count(), 0);
    // The log goes on (appending), and no spare is tried again.
    let written = commit_until(&wal, 1000);
    assert!(written >= 1000);
    assert!(!wal.prepare_spare().unwrap());
    assert_eq!(wal.spares_made(), 0);
}
