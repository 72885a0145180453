//! Tests of reused log segments (design.md L1): a retired segment file is renamed and written over, so
//! records of an older generation follow the new ones in it; reading the log back must return exactly the
//! new records, whether the reused segment is the last one or not.

use super::reader::scan_and_repair;
use super::{Record, Wal};
use crate::health::Health;
use crate::tree::message::Op;
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

#[test]
fn reused_segments_keep_old_records_that_reading_never_returns() {
    let vfs = Arc::new(SimVfs::new());
    let dir = PathBuf::from("/wal");
    vfs.create_dir_all(&dir).unwrap();
    let health = Arc::new(Health::default());
    let wal = Wal::start(vfs.clone(), dir.clone(), 600, 3, health, 1, vec![], vec![]).unwrap();
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
