//! Tests of how the log is read back across segments: reused segment files (design.md SEG1, SEG4), in which
//! records of an older generation follow the new ones, must yield exactly the new records whether the
//! reused segment is the last one or not; and a recovery makes what it read durable before the log goes
//! on in a new segment (Recovery, step 4).

use super::reader::scan_and_repair;
use super::{Record, Wal};
use crate::compress::Codec;
use crate::health::Health;
use crate::tree::in_memory::message::Op;
use crate::vfs::{SimVfs, Vfs};
use std::path::PathBuf;
use std::sync::Arc;

fn message(lsn: u64, value_len: usize) -> Record {
    Record::Message {
        tree: 1,
        txn: 0,
        key: lsn.to_be_bytes().to_vec(),
        op: Op::Put(vec![lsn as u8; value_len]),
    }
}

/// `rec` as the log writes it when committed alone: a packed frame of one record, uncompressed.
fn pack_one(rec: &Record, lsn: u64, out: &mut Vec<u8>) {
    let mut entry = Vec::new();
    rec.encode_entry(&mut entry);
    super::record::pack(lsn, 1, &entry, Codec::None, out);
}

/// An empty simulated file system with a log in `/wal` whose segments roll at `segment_bytes`, keeping up
/// to three retired ones for reuse. Its frames are packed without compression, so records of one size
/// make frames of one size.
fn fresh_log(segment_bytes: u64) -> (Arc<SimVfs>, PathBuf, Wal) {
    let vfs = Arc::new(SimVfs::new());
    let dir = PathBuf::from("/wal");
    vfs.create_dir_all(&dir).unwrap();
    let health = Arc::new(Health::default());
    let wal = Wal::start(
        vfs.clone(),
        dir.clone(),
        segment_bytes,
        Codec::None,
        3,
        health,
        1,
        vec![],
        vec![],
    )
    .unwrap();
    (vfs, dir, wal)
}

#[test]
fn reused_segments_keep_old_records_that_reading_never_returns() {
    let (vfs, dir, wal) = fresh_log(600);
    // An older generation of long records, one sync each so the log rolls every 600 bytes.
    for _ in 0..60 {
        let lsn = wal.next_lsn();
        wal.append(&message(lsn, 60)).unwrap();
        wal.sync_to(lsn).unwrap();
    }
    wal.roll().unwrap();
    let begin = wal.next_lsn();
    wal.delete_before(begin).unwrap();
    assert_eq!(wal.free_count(), 3);
    // The new generation, of shorter records, goes over the three reused files and then new ones.
    for _ in 0..100 {
        let lsn = wal.next_lsn();
        wal.append(&message(lsn, 7)).unwrap();
        wal.sync_to(lsn).unwrap();
    }
    assert_eq!(wal.free_count(), 0);
    let synced_end = wal.next_lsn();
    // A few more written but not synced: a crash may keep any prefix of them, torn at the end.
    for _ in 0..5 {
        let lsn = wal.next_lsn();
        wal.append(&message(lsn, 7)).unwrap();
    }
    wal.write_unsynced().unwrap();
    let end = wal.next_lsn();
    drop(wal);
    let names = vfs.list(&dir).unwrap();
    assert!(!names.iter().any(|n| n.starts_with("free-")), "{names:?}");

    for seed in 0..8 {
        let image = vfs.crash_image(seed);
        let scan = scan_and_repair(&image, &dir, begin, begin).unwrap();
        let lsns: Vec<u64> = scan.records.iter().map(|(l, _)| *l).collect();
        let got_end = begin + lsns.len() as u64;
        assert_eq!(lsns, (begin..got_end).collect::<Vec<_>>(), "seed {seed}");
        assert!(
            (synced_end..=end).contains(&got_end),
            "seed {seed}: read up to {got_end}, synced up to {synced_end}"
        );
        for (lsn, rec) in &scan.records {
            assert_eq!(*rec, message(*lsn, 7));
        }
        assert_eq!(scan.next_lsn, got_end);
        assert!(scan.segments.len() > 3, "{:?}", scan.segments);
    }
}

/// A crash may keep a later unsynced record (e+1) while the page of an earlier one (e) still holds the
/// reused file's old bytes; with records of one size, an old frame sits exactly where e's was, and its
/// length leads to e+1. That is a torn tail (neither was acknowledged), not damage: reading ends at e
/// (SEG4), whether the old frame's checksum holds or not. A damaged frame of the new generation with a
/// valid one after it is still reported.
#[test]
fn an_old_frame_where_a_lost_record_was_ends_the_log_instead_of_failing_it() {
    let (vfs, dir, wal) = fresh_log(1 << 20);
    for _ in 0..30 {
        let lsn = wal.next_lsn();
        wal.append(&message(lsn, 20)).unwrap();
        wal.sync_to(lsn).unwrap();
    }
    let last = wal.next_lsn() - 1;
    drop(wal);
    let seg = dir.join(super::segment_name(1));
    let frame_len = {
        let mut one = Vec::new();
        pack_one(&message(5, 20), 5, &mut one);
        one.len()
    };
    // Record 11 (at offset 10 frames) replaced by a frame of an older generation, LSN below the first.
    for bad_crc in [false, true] {
        let image = vfs.crash_image(0);
        let mut old = Vec::new();
        pack_one(&message(0, 20), 0, &mut old);
        assert_eq!(old.len(), frame_len);
        if bad_crc {
            let n = old.len();
            old[n - 1] ^= 0x40;
        }
        let f = image.open(&seg, false).unwrap();
        f.write_all_at(&old, 10 * frame_len as u64).unwrap();
        let scan = scan_and_repair(&image, &dir, 1, 1).unwrap();
        let lsns: Vec<u64> = scan.records.iter().map(|(l, _)| *l).collect();
        assert_eq!(lsns, (1..=10).collect::<Vec<_>>(), "bad crc {bad_crc}");
        assert_eq!(scan.next_lsn, 11);
    }
    // The same place damaged in the new generation (its LSN intact) with valid records after it.
    let image = vfs.crash_image(0);
    let f = image.open(&seg, false).unwrap();
    let at = 10 * frame_len as u64 + frame_len as u64 - 1;
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ 0x40], at).unwrap();
    match scan_and_repair(&image, &dir, 1, 1) {
        Err(crate::error::Error::Corruption(_)) => {}
        other => panic!("expected corruption, got {:?}", other.map(|s| s.next_lsn)),
    }
    assert!(last > 11);
}

/// Records that were written but never synced when the process died (the machine kept them) are read
/// and replayed by the next recovery, and the log goes on in a new segment. A power loss after that must
/// not lose them from under the new segment: recovery syncs the last segment it read.
#[test]
fn a_recovery_makes_the_records_it_read_durable_before_the_log_goes_on() {
    let (vfs, dir, wal) = fresh_log(1 << 20);
    for _ in 0..20 {
        let lsn = wal.next_lsn();
        wal.append(&message(lsn, 20)).unwrap();
    }
    wal.write_unsynced().unwrap();
    drop(wal);
    // The process died; the machine did not: recovery reads all 20 and the log goes on after them.
    let scan = scan_and_repair(&*vfs, &dir, 1, 1).unwrap();
    assert_eq!(scan.next_lsn, 21);
    let wal = Wal::start_after(vfs.clone(), dir.clone(), 1 << 20, Codec::Lz4, 3, scan).unwrap();
    let lsn = wal.next_lsn();
    wal.append(&message(lsn, 20)).unwrap();
    wal.sync_to(lsn).unwrap();
    drop(wal);
    // Then the power goes: whatever was never synced is lost.
    for seed in 0..4 {
        let scan = scan_and_repair(&vfs.crash_image(seed), &dir, 1, 1).unwrap();
        let lsns: Vec<u64> = scan.records.iter().map(|(l, _)| *l).collect();
        assert_eq!(lsns, (1..=21).collect::<Vec<_>>(), "seed {seed}");
    }
}
