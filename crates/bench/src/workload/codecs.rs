//! Compression of basement frames by codec and level: bytes and speed on two kinds of rows, so the
//! default codec level is chosen by measurement (`betula-bench codecs`).
//!
//! Frames are cut from real basement encodings (`Basement::encode`, file-format.md §3.4) at the size the
//! default tree options give them. Rows: the storage benchmark's (16-byte random keys, 100-byte values of
//! which the second half repeats the first) and sensor-like ones (an index prefix, sensor id and
//! timestamp as the key; a reading, a counter and a short status as the value). Also the log's packed
//! entries of 100-row commits of the storage benchmark's rows (file-format.md §4), which `wal_codec`
//! compresses.

use super::keys::{KeyKind, KeyStream, KEY_BYTES, VALUE_BYTES};
use betula_storage::tree::basement::Basement;
use betula_storage::tree::mvcc::Cell;
use betula_storage::wal::Record;
use betula_storage::{Codec, Op, TreeOptions};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::time::Instant;

/// Basements' worth of rows measured per kind of row (the frames come from many basements).
const BASEMENTS: usize = 64;

/// Bytes of key and value of one sensor-like row (`sensor_rows`).
const SENSOR_ROW_BYTES: usize = 14 + 17;

fn frames_of(
    rows: Vec<(Vec<u8>, Vec<u8>)>,
    basement_bytes: usize,
    frame_bytes: usize,
) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    let mut chunk = Vec::new();
    let mut size = 0;
    let flush = |chunk: &mut Vec<(Vec<u8>, Cell)>, frames: &mut Vec<Vec<u8>>| {
        let raw = Basement::from_sorted(std::mem::take(chunk)).encode();
        frames.extend(raw.chunks(frame_bytes).map(<[u8]>::to_vec));
    };
    for (k, v) in rows {
        size += k.len() + v.len() + 4;
        chunk.push((k, Cell::Plain(v)));
        if size >= basement_bytes {
            flush(&mut chunk, &mut frames);
            size = 0;
        }
    }
    if !chunk.is_empty() {
        flush(&mut chunk, &mut frames);
    }
    frames
}

/// The storage benchmark's random-phase rows, sorted by key as a basement holds them.
fn storage_rows(n: usize, seed: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rows = KeyStream::new(seed).batch(KeyKind::Random, 0, n as u64);
    rows.sort();
    rows
}

/// Rows per commit of the storage benchmark (its write batches).
const COMMIT_ROWS: u64 = 100;

/// The log's entries of `n` commits of the storage benchmark's random-phase rows, one buffer per commit,
/// as a group-commit leader packs them.
fn log_commits(n: u64, seed: u64) -> Vec<Vec<u8>> {
    let keys = KeyStream::new(seed);
    (0..n)
        .map(|c| {
            let mut entries = Vec::new();
            for (key, value) in keys.batch(KeyKind::Random, c * COMMIT_ROWS, (c + 1) * COMMIT_ROWS)
            {
                let op = Op::Put(value);
                Record::Message {
                    tree: 1,
                    txn: 0,
                    key,
                    op,
                }
                .encode_entry(&mut entries);
            }
            entries
        })
        .collect()
}

/// Sensor-like rows in key order: index prefix, sensor id, timestamp; reading, counter, status.
fn sensor_rows(n: usize, seed: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let per_sensor = 512;
    (0..n)
        .map(|i| {
            let (sensor, step) = ((i / per_sensor) as u32, (i % per_sensor) as u64);
            let mut k = vec![0x00, 0x05];
            k.extend_from_slice(&sensor.to_be_bytes());
            k.extend_from_slice(&(1_700_000_000 + step * 10).to_be_bytes());
            let mut v = vec![0u8];
            v.extend_from_slice(&(20.0 + rng.gen::<f64>() * 5.0).to_le_bytes());
            v.extend_from_slice(&rng.gen_range(0u32..100).to_le_bytes());
            v.extend_from_slice(b"ok\0\0");
            (k, v)
        })
        .collect()
}

/// (stored bytes, compress MB/s, decompress MB/s) of `frames` with `codec` at `level`.
fn measure(frames: &[Vec<u8>], codec: Codec, level: i32) -> (usize, f64, f64) {
    let raw: usize = frames.iter().map(Vec::len).sum();
    let mut stored = Vec::new();
    let t = Instant::now();
    let mut rounds = 0;
    while rounds == 0 || t.elapsed().as_secs_f64() < 0.5 {
        stored = frames.iter().map(|f| codec.compress(f, level)).collect();
        rounds += 1;
    }
    let c_secs = t.elapsed().as_secs_f64() / f64::from(rounds);
    let t = Instant::now();
    let mut rounds = 0;
    while rounds == 0 || t.elapsed().as_secs_f64() < 0.5 {
        for (s, f) in stored.iter().zip(frames) {
            let out = codec.decompress(s, f.len()).expect("own output decodes");
            assert_eq!(out.len(), f.len());
        }
        rounds += 1;
    }
    let d_secs = t.elapsed().as_secs_f64() / f64::from(rounds);
    let bytes = stored.iter().map(Vec::len).sum();
    (bytes, raw as f64 / c_secs / 1e6, raw as f64 / d_secs / 1e6)
}

/// The markdown table of every (rows, codec, level) measured.
pub fn run(seed: u64, tree: &TreeOptions) -> String {
    let (basement_bytes, frame_bytes) = (tree.basement_size_bytes as usize, tree.frame_bytes());
    let raw = BASEMENTS * basement_bytes;
    let rows = raw / (KEY_BYTES + VALUE_BYTES);
    let data = [
        (
            "storage benchmark rows",
            frames_of(storage_rows(rows, seed), basement_bytes, frame_bytes),
        ),
        (
            "sensor-like rows",
            frames_of(
                sensor_rows(raw / SENSOR_ROW_BYTES, seed),
                basement_bytes,
                frame_bytes,
            ),
        ),
        (
            "log entries of 100-row commits",
            log_commits(rows as u64 / COMMIT_ROWS, seed),
        ),
    ];
    let codecs: [(Codec, i32); 6] = [
        (Codec::Zstd, -1),
        (Codec::Zstd, 1),
        (Codec::Zstd, 2),
        (Codec::Zstd, 3),
        (Codec::Lz4, 0),
        (Codec::Zlib, 0),
    ];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| rows | codec | level | stored ÷ raw | compress MB/s | decompress MB/s |\n|---|---|---:|---:|---:|---:|"
    );
    for (name, frames) in data {
        let raw: usize = frames.iter().map(Vec::len).sum();
        for (codec, level) in codecs {
            let (bytes, c, d) = measure(&frames, codec, level);
            let _ = writeln!(
                out,
                "| {name} | {} | {level} | {:.3} | {c:.0} | {d:.0} |",
                codec.name(),
                bytes as f64 / raw as f64
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_their_stated_sizes_and_frames_cover_them() {
        assert!(sensor_rows(100, 1)
            .iter()
            .all(|(k, v)| k.len() + v.len() == SENSOR_ROW_BYTES));
        let rows = storage_rows(1000, 1);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
        let frames = frames_of(rows, 32 << 10, 16 << 10);
        assert!(frames.len() >= 7 && frames.iter().all(|f| f.len() <= 16 << 10));
        let commits = log_commits(3, 1);
        assert_eq!(commits.len(), 3);
        // Each entry: length, kind, tree, txn, key and value with their lengths.
        let entry = 1 + 1 + 1 + 1 + 1 + KEY_BYTES + 1 + VALUE_BYTES;
        assert!(commits
            .iter()
            .all(|c| c.len() == COMMIT_ROWS as usize * entry));
    }
}
