//! Corruption tests: flip bits in every kind of block and check that opening or reading reports a
//! corruption error naming the file and place — never a panic, never wrong data.

mod common;

use betula_storage::vfs::SimVfs;
use betula_storage::{Codec, Durability, Env, EnvOptions, Error, TreeOptions};
use common::registry;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

fn opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: 1 << 30,
        durability: Durability::Sync,
        background: false,
        // A plain log: reused and spare segments (design.md SEG1, SPR1) have their own tests in `wal`.
        wal_recycle_segments: 0,
        default_tree: TreeOptions {
            node_size_bytes: 4096,
            basement_size_bytes: 1024,
            fanout: 4,
            codec: Codec::Zstd,
            level: 0,
        },
        ..EnvOptions::default()
    }
}

type Rows = Vec<(Vec<u8>, Vec<u8>)>;

fn build(extra_after_checkpoint: bool) -> (Arc<SimVfs>, Rows) {
    let vfs = Arc::new(SimVfs::new());
    let env = Env::open_with_vfs(vfs.clone(), Path::new("/db"), opts(), registry()).unwrap();
    let t = env.create_tree("t", None).unwrap();
    let mut rows = Vec::new();
    for i in 0..3000u32 {
        let k = (i.wrapping_mul(2_654_435_761)).to_be_bytes().to_vec();
        let v = format!("value-{i}-{}", "x".repeat((i % 50) as usize)).into_bytes();
        t.put(&k, &v).unwrap();
        rows.push((k, v));
    }
    env.checkpoint().unwrap();
    if extra_after_checkpoint {
        for i in 0..200u32 {
            let k = format!("late{i:04}").into_bytes();
            t.put(&k, b"late").unwrap();
            rows.push((k, b"late".to_vec()));
        }
    }
    rows.sort();
    drop(t);
    drop(env);
    (vfs, rows)
}

/// Opens and reads everything; Ok(rows) or the first error.
fn read_all(vfs: Arc<SimVfs>) -> Result<Rows, Error> {
    let env = Env::open_with_vfs(vfs, Path::new("/db"), opts(), registry())?;
    let t = env.open_tree("t")?;
    let rows: Rows = t
        .range(Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()?;
    for (k, _) in rows.iter().step_by(97) {
        t.get(k)?;
    }
    Ok(rows)
}

fn flip_copy(vfs: &SimVfs, path: &str, offset: u64, bit: u8) -> Arc<SimVfs> {
    let copy = Arc::new(vfs.crash_image(0));
    copy.flip_bit(Path::new(path), offset, bit).unwrap();
    copy
}

fn expect_ok_or_named_corruption(
    result: Result<Rows, Error>,
    want: &Rows,
    file_part: &str,
    at: u64,
) {
    match result {
        Ok(rows) => assert!(
            rows == *want,
            "flip at {at} in {file_part}: wrong data returned"
        ),
        Err(Error::Corruption(report)) => {
            assert!(
                report.file.contains(file_part),
                "flip at {at}: report names {} instead of {file_part}",
                report.file
            );
            assert!(
                report.detected_at.contains(".rs:"),
                "report lacks the detecting line"
            );
        }
        Err(e) => panic!("flip at {at} in {file_part}: expected a corruption error, got {e}"),
    }
}

#[test]
fn flipped_bits_in_tree_blocks_are_reported_with_file_and_block() {
    let (vfs, want) = build(false);
    assert_eq!(read_all(Arc::new(vfs.crash_image(0))).unwrap(), want);
    let path = "/db/tree-1.bt";
    let len = vfs.read_all(Path::new(path)).unwrap().len() as u64;
    let mut corruptions = 0;
    let mut offset = 0;
    while offset < len {
        for delta in [0u64, 13, 100, 777] {
            let at = offset + delta;
            if at >= len {
                continue;
            }
            let result = read_all(flip_copy(&vfs, path, at, (at % 8) as u8));
            if let Err(Error::Corruption(r)) = &result {
                corruptions += 1;
                if at >= 8192 {
                    assert!(r.block.is_some(), "flip at {at}: no block named: {r}");
                }
            }
            expect_ok_or_named_corruption(result, &want, "tree-1.bt", at);
        }
        offset += 4096;
    }
    assert!(corruptions > 10, "only {corruptions} flips were detected");
}

#[test]
fn flipped_bits_in_the_environment_header_and_catalog_are_caught() {
    let (vfs, want) = build(false);
    let catalog = betula_storage::vfs::Vfs::list(&*vfs, Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter_map(|n| {
            let seq: u64 = n
                .strip_prefix("catalog-")?
                .strip_suffix(".bin")?
                .parse()
                .ok()?;
            Some((seq, n))
        })
        .max()
        .expect("a catalog")
        .1;
    let catalog_path = format!("/db/{catalog}");
    let part = catalog.trim_end_matches(".bin");
    for (path, part) in [
        ("/db/betula.env", "betula.env"),
        (catalog_path.as_str(), part),
    ] {
        let len = vfs.read_all(Path::new(path)).unwrap().len() as u64;
        for at in (0..len.min(64)).chain([len / 2, len - 1]) {
            let result = read_all(flip_copy(&vfs, path, at, 3));
            match result {
                Ok(rows) => assert!(rows == want, "flip at {at} in {path}: wrong data"),
                Err(Error::Corruption(r)) => {
                    assert!(r.file.contains(part) || r.file.contains("wal"), "{r}")
                }
                Err(e) => panic!("flip at {at} in {path}: {e}"),
            }
        }
    }
}

#[test]
fn a_damaged_record_in_the_middle_of_the_log_is_corruption_not_a_torn_tail() {
    let (vfs, want) = build(true);
    assert_eq!(read_all(Arc::new(vfs.crash_image(0))).unwrap(), want);
    let names = betula_storage::vfs::Vfs::list(&*vfs, Path::new("/db/wal")).unwrap();
    // The largest live segment (not one kept for reuse, whose records are all obsolete).
    let (len, path) = names
        .iter()
        .filter(|n| !n.starts_with("free-"))
        .map(|n| {
            let p = format!("/db/wal/{n}");
            (vfs.read_all(Path::new(&p)).unwrap().len() as u64, p)
        })
        .max()
        .unwrap();
    assert!(len > 4000, "log segment too small: {len}");
    let mut caught = 0;
    for at in (len / 10..len * 8 / 10).step_by((len / 40).max(1) as usize) {
        match read_all(flip_copy(&vfs, &path, at, 5)) {
            Err(Error::Corruption(r)) => {
                assert!(r.file.contains("wal"), "{r}");
                caught += 1;
            }
            Ok(rows) => assert!(rows == want, "flip at {at}: wrong data from the log"),
            Err(e) => panic!("flip at {at}: {e}"),
        }
    }
    assert!(caught > 20, "only {caught} damaged records were reported");
}
