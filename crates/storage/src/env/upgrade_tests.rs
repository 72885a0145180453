//! Tests of opening what an older format version wrote: an environment whose headers say version 4 is
//! checkpointed at open, so its headers carry this build's version before any write reaches the log
//! (design.md RCV4), and a log whose single-record frames (versions 1-4) are followed by packed frames
//! (version 5) reads back whole.

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
