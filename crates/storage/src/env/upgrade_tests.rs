//! Tests of opening what an older format version wrote: an environment whose headers say version 4 is
//! checkpointed at open, so its headers carry this build's version before any write reaches the log
//! (design.md RCV4), a log whose single-record frames (versions 1-4) are followed by packed frames
//! (version 5) reads back whole, and trees of version 5 blocks (untagged frames, Bloom filters) read
//! back and go on with version 6 blocks (columnar frames, key runs) beside them.

use super::catalog::{ENV_MAGIC, ENV_PAYLOAD_BYTES};
use super::recovery::{read_env_header, ENV_FILE};
use super::{Env, EnvOptions};
use crate::compress::Codec;
use crate::format::{FORMAT_VERSION, HEADER_SLOT_BYTES};
use crate::tree::in_memory::message::{Op, UpdateRegistry};
use crate::vfs::{SimVfs, Vfs};
use crate::wal::reader::scan_and_repair;
use crate::wal::{segment_name, Record, Wal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn opts() -> EnvOptions {
    EnvOptions {
        background: false,
        ..EnvOptions::default()
    }
}

fn header_version(vfs: &SimVfs, dir: &Path) -> Option<u32> {
    read_env_header(vfs, dir).unwrap().map(|(_, v)| v)
}

/// Rewrites both header slots of the environment file as if `version` had written them.
fn set_header_version(vfs: &SimVfs, dir: &Path, version: u32) {
    let file = vfs.open(&dir.join(ENV_FILE), false).unwrap();
    let crc_at = 8 + 4 + ENV_PAYLOAD_BYTES;
    for slot in 0..2 {
        let at = slot * HEADER_SLOT_BYTES;
        let mut buf = vec![0u8; crc_at + 4];
        file.read_exact_at(&mut buf, at).unwrap();
        if &buf[..8] != ENV_MAGIC {
            continue;
        }
        buf[8..12].copy_from_slice(&version.to_le_bytes());
        let crc = crc32c::crc32c(&buf[..crc_at]);
        buf[crc_at..].copy_from_slice(&crc.to_le_bytes());
        file.write_all_at(&buf, at).unwrap();
    }
}

#[test]
fn an_environment_of_an_older_format_gets_headers_of_this_one_when_opened() {
    let vfs = Arc::new(SimVfs::new());
    let dir = Path::new("/db");
    {
        let env = Env::open_with_vfs(vfs.clone(), dir, opts(), UpdateRegistry::new()).unwrap();
        // A new environment has a header from the start.
        assert_eq!(header_version(&vfs, dir), Some(FORMAT_VERSION));
        let t = env.create_tree("t", None).unwrap();
        t.put(b"k", b"v").unwrap();
    }
    set_header_version(&vfs, dir, 4);
    assert_eq!(header_version(&vfs, dir), Some(4));
    let env = Env::open_with_vfs(vfs.clone(), dir, opts(), UpdateRegistry::new()).unwrap();
    assert_eq!(header_version(&vfs, dir), Some(FORMAT_VERSION));
    assert_eq!(
        env.open_tree("t").unwrap().get(b"k").unwrap(),
        Some(b"v".to_vec())
    );
}

fn message(lsn: u64) -> Record {
    Record::Message {
        tree: 1,
        txn: 0,
        key: lsn.to_be_bytes().to_vec(),
        op: Op::Put(vec![lsn as u8; 30]),
    }
}

#[test]
fn a_log_of_single_record_frames_goes_on_in_packed_frames_and_reads_back_whole() {
    let vfs = SimVfs::new();
    let dir = PathBuf::from("/wal");
    vfs.create_dir_all(&dir).unwrap();
    let mut old = Vec::new();
    for lsn in 1..=10 {
        message(lsn).encode_framed(lsn, &mut old);
    }
    let seg = vfs.open(&dir.join(segment_name(1)), true).unwrap();
    seg.write_all_at(&old, 0).unwrap();
    seg.sync().unwrap();
    let scan = scan_and_repair(&vfs, &dir, 1, 1).unwrap();
    assert_eq!(scan.next_lsn, 11);
    let vfs = Arc::new(vfs);
    let wal = Wal::start_after(vfs.clone(), dir.clone(), 1 << 20, Codec::Lz4, 2, scan).unwrap();
    for lsn in 11..=30 {
        assert_eq!(wal.append(&message(lsn)).unwrap(), lsn);
        if lsn % 4 == 0 {
            wal.sync_to(lsn).unwrap();
        }
    }
    wal.sync_all().unwrap();
    drop(wal);
    let scan = scan_and_repair(&*vfs, &dir, 1, 1).unwrap();
    let want: Vec<(u64, Record)> = (1..=30).map(|l| (l, message(l))).collect();
    assert_eq!(scan.records, want);
    assert_eq!(scan.next_lsn, 31);
}

/// A sensor-like row fitting [`layout`]: key (id big-endian), value (six readings).
fn row(i: u64, version: u8) -> (Vec<u8>, Vec<u8>) {
    let mut v = vec![version];
    for c in 0..6u64 {
        let x = ((i * 7 + c * 1000) % 5000) as f64 / 100.0;
        v.extend_from_slice(&x.to_le_bytes());
    }
    (i.to_be_bytes().to_vec(), v)
}

fn layout() -> crate::ColumnLayout {
    use crate::{FieldKind, KeyField, ValueLayout};
    crate::ColumnLayout {
        key: vec![KeyField {
            kind: FieldKind::UintBe { bytes: 8 },
            marker: false,
            inverted: false,
        }],
        value: ValueLayout::Record {
            head: [FieldKind::IntLe {
                bytes: 1,
                signed: false,
            }]
            .into_iter()
            .chain([FieldKind::F64Le; 6])
            .collect(),
            slots: vec![],
        },
    }
}

#[test]
fn trees_written_by_version_5_read_back_and_mix_with_columnar_blocks() {
    let vfs = Arc::new(SimVfs::new());
    let dir = Path::new("/db");
    let small = EnvOptions {
        cache_bytes: 256 << 10,
        default_tree: crate::TreeOptions {
            node_size_bytes: 64 << 10,
            basement_size_bytes: 4 << 10,
            ..Default::default()
        },
        ..opts()
    };
    let rows = 4000u64;
    {
        let env =
            Env::open_with_vfs(vfs.clone(), dir, small.clone(), UpdateRegistry::new()).unwrap();
        let t = env.create_tree("t", None).unwrap();
        t.tree()
            .write_version_5
            .store(true, std::sync::atomic::Ordering::Relaxed);
        for chunk in (0..rows).collect::<Vec<_>>().chunks(500) {
            let ops = chunk
                .iter()
                .map(|&i| {
                    let (k, v) = row(i, 0);
                    (k, Op::Put(v))
                })
                .collect();
            t.write_batch(ops).unwrap();
        }
        env.checkpoint().unwrap();
        assert_eq!(env.stats().columnar_frames_written, 0);
    }
    set_header_version(&vfs, dir, 5);
    let check = |env: &Env, upto_updated: u64| {
        let t = env.open_tree("t").unwrap();
        let all: Vec<(Vec<u8>, Vec<u8>)> = t
            .range(
                std::ops::Bound::Unbounded,
                std::ops::Bound::Unbounded,
                false,
            )
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(all.len() as u64, rows);
        for (i, (k, v)) in all.iter().enumerate() {
            let want = row(i as u64, u8::from((i as u64) < upto_updated));
            assert_eq!((k, v), (&want.0, &want.1), "row {i}");
        }
        for i in (0..rows).step_by(97) {
            let want = row(i, u8::from(i < upto_updated));
            assert_eq!(t.get(&want.0).unwrap(), Some(want.1));
        }
    };
    {
        let env =
            Env::open_with_vfs(vfs.clone(), dir, small.clone(), UpdateRegistry::new()).unwrap();
        assert_eq!(header_version(&vfs, dir), Some(FORMAT_VERSION));
        check(&env, 0);
        // Half the rows change: their leaves are written as version 6 blocks, columnar.
        let t = env.open_tree("t").unwrap();
        t.set_column_layout(Some(layout()));
        let ops = (0..rows / 2)
            .map(|i| {
                let (k, v) = row(i, 1);
                (k, Op::Put(v))
            })
            .collect();
        t.write_batch(ops).unwrap();
        env.checkpoint().unwrap();
        let stats = env.stats();
        assert!(stats.columnar_frames_written > 0, "{stats:?}");
        check(&env, rows / 2);
    }
    let env = Env::open_with_vfs(vfs.clone(), dir, small, UpdateRegistry::new()).unwrap();
    check(&env, rows / 2);
    env.open_tree("t").unwrap().check_invariants().unwrap();
}
