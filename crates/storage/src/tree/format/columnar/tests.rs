//! Property tests of columnar frames: random layouts and entries (fitting, half fitting, version
//! stacks, adversarial floats) round trip exactly; damaged or random bytes are errors, never panics.

use super::layout::{ColumnLayout, FieldKind, KeyField, ValueLayout};
use super::{decode, encode};
use crate::encoding::Encode;
use crate::tree::in_memory::mvcc::{Cell, Version};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_kind(rng: &mut StdRng, key: bool) -> FieldKind {
    let k = if key {
        [0, 4, 5][rng.gen_range(0..3)]
    } else {
        rng.gen_range(0..7)
    };
    match k {
        0 => FieldKind::UintBe {
            bytes: rng.gen_range(1..=8),
        },
        1 => FieldKind::IntLe {
            bytes: rng.gen_range(1..=8),
            signed: rng.gen(),
        },
        2 => FieldKind::F64Le,
        3 => FieldKind::F32Le,
        4 => FieldKind::Fixed {
            bytes: rng.gen_range(0..20),
        },
        5 => FieldKind::Escaped,
        _ => {
            if rng.gen() {
                FieldKind::VarBytes
            } else {
                FieldKind::Varint
            }
        }
    }
}

fn random_layout(rng: &mut StdRng) -> ColumnLayout {
    let key = (0..rng.gen_range(0..4))
        .map(|_| KeyField {
            kind: random_kind(rng, true),
            marker: rng.gen(),
            inverted: rng.gen_bool(0.2),
        })
        .collect();
    let value = if rng.gen_bool(0.2) {
        ValueLayout::Opaque
    } else {
        ValueLayout::Record {
            head: (0..rng.gen_range(0..3))
                .map(|_| random_kind(rng, false))
                .collect(),
            slots: {
                let most = [3, 12, 70][rng.gen_range(0..3)];
                (0..rng.gen_range(0..most))
                    .map(|_| random_kind(rng, false))
                    .collect()
            },
        }
    };
    ColumnLayout { key, value }
}

/// A float from a mix of short decimals, odd values and random bits.
fn random_float(rng: &mut StdRng, state: &mut f64) -> f64 {
    match rng.gen_range(0..10) {
        0 => [
            f64::NAN,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            5e-324,
            f64::MAX,
            f64::from_bits(0x7ff0_0000_0000_0001),
            0.1 + 0.2,
        ][rng.gen_range(0..8)],
        1 => f64::from_bits(rng.gen()),
        _ => {
            *state += rng.gen_range(-3..=3) as f64 / 100.0;
            (*state * 100.0).round() / 100.0
        }
    }
}

fn write_field(rng: &mut StdRng, kind: FieldKind, walk: &mut (i64, f64), out: &mut Vec<u8>) {
    match kind {
        FieldKind::IntLe { bytes, .. } => {
            walk.0 += rng.gen_range(-2..=5);
            let v = if rng.gen_bool(0.05) {
                rng.gen()
            } else {
                walk.0
            };
            out.extend_from_slice(&v.to_le_bytes()[..bytes as usize]);
        }
        FieldKind::UintBe { bytes } => {
            walk.0 += rng.gen_range(0..=2);
            out.extend_from_slice(&(walk.0 as u64).to_be_bytes()[8 - bytes as usize..]);
        }
        FieldKind::F64Le => out.extend_from_slice(&random_float(rng, &mut walk.1).to_le_bytes()),
        FieldKind::F32Le => {
            out.extend_from_slice(&(random_float(rng, &mut walk.1) as f32).to_le_bytes())
        }
        FieldKind::Fixed { bytes } => out.extend((0..bytes).map(|i| {
            if rng.gen_bool(0.7) {
                i as u8
            } else {
                rng.gen()
            }
        })),
        FieldKind::VarBytes => {
            let words = ["GET /", "index.html", " 200 ", "\0", "é", "POST"];
            let s: Vec<u8> = (0..rng.gen_range(0..5))
                .flat_map(|_| words[rng.gen_range(0..words.len())].bytes())
                .collect();
            out.put_bytes(&s);
        }
        FieldKind::Varint => out.put_varint(if rng.gen() { 3 } else { rng.gen() }),
        FieldKind::Escaped => {
            let s: Vec<u8> = (0..rng.gen_range(0..6))
                .map(|_| [0u8, 1, b'a', 0xff][rng.gen_range(0..4)])
                .collect();
            for &x in &s {
                out.push(x);
                if x == 0 {
                    out.push(0xff);
                }
            }
            out.extend_from_slice(&[0, 1]);
        }
    }
}

/// A key or value that fits `layout` (most of the time: a few are damaged on purpose).
fn entry(rng: &mut StdRng, layout: &ColumnLayout, walk: &mut (i64, f64)) -> (Vec<u8>, Vec<u8>) {
    let mut key = Vec::new();
    for f in &layout.key {
        let start = key.len();
        let null = f.marker && rng.gen_bool(0.1);
        if f.marker {
            key.push(u8::from(!null));
        }
        if !null {
            write_field(rng, f.kind, walk, &mut key);
        }
        if f.inverted {
            key[start..].iter_mut().for_each(|b| *b = !*b);
        }
    }
    let mut value = Vec::new();
    match &layout.value {
        ValueLayout::Opaque => write_field(rng, FieldKind::VarBytes, walk, &mut value),
        ValueLayout::Record { head, slots } => {
            for &k in head {
                write_field(rng, k, walk, &mut value);
            }
            if !slots.is_empty() {
                let absent: Vec<bool> = slots.iter().map(|_| rng.gen_bool(0.2)).collect();
                let mut bm = vec![0u8; slots.len().div_ceil(8)];
                for (i, &a) in absent.iter().enumerate() {
                    if a {
                        bm[i / 8] |= 1 << (i % 8);
                    }
                }
                value.extend_from_slice(&bm);
                for (&k, a) in slots.iter().zip(absent) {
                    if !a {
                        write_field(rng, k, walk, &mut value);
                    }
                }
            }
        }
    }
    match rng.gen_range(0..40) {
        0 => value.push(rng.gen()),
        1 if !value.is_empty() => {
            value.pop();
        }
        2 => key.push(rng.gen()),
        _ => {}
    }
    (key, value)
}

/// Plain entries (file-format.md §3.3) of sorted, distinct keys, behind `prefix`.
fn frame(rng: &mut StdRng, layout: &ColumnLayout, n: usize, prefix: &[u8]) -> Vec<u8> {
    let mut walk = (rng.gen_range(0..1000), 20.0);
    let mut entries: Vec<(Vec<u8>, Cell)> = (0..n)
        .map(|_| {
            let (k, v) = entry(rng, layout, &mut walk);
            let cell = if rng.gen_bool(0.05) {
                Cell::Versions(vec![
                    Version {
                        txn: rng.gen_range(1..1000),
                        value: Some(v),
                    },
                    Version {
                        txn: 2000,
                        value: None,
                    },
                ])
            } else {
                Cell::Plain(v)
            };
            (k, cell)
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.dedup_by(|a, b| a.0 == b.0);
    let mut raw = prefix.to_vec();
    for (k, c) in &entries {
        raw.put_bytes(k);
        c.encode(&mut raw);
    }
    raw
}

fn count(raw: &[u8], prefix: usize) -> usize {
    let mut d = crate::encoding::Decoder::new(&raw[prefix..]);
    let mut n = 0;
    while d.remaining() > 0 {
        d.bytes().unwrap();
        Cell::skip(&mut d).unwrap();
        n += 1;
    }
    n
}

#[test]
fn random_layouts_and_entries_round_trip_exactly() {
    let mut rng = StdRng::seed_from_u64(20);
    let mut columnar = 0;
    for round in 0..600 {
        let layout = random_layout(&mut rng);
        let prefix: Vec<u8> = if round % 2 == 0 { vec![0, 77] } else { vec![] };
        let n = [1, 2, 10, 100, 400][rng.gen_range(0..5)];
        let raw = frame(&mut rng, &layout, n, &prefix);
        let entries = count(&raw, prefix.len());
        match encode(&raw, prefix.len(), entries, &layout) {
            Some(c) => {
                columnar += 1;
                assert_eq!(decode(&c).unwrap(), raw, "round {round} {layout:?}");
            }
            // Keys that the layout makes equal leave few distinct entries, all damaged ones.
            None => assert!(entries < 50, "round {round}: nothing fit {layout:?}"),
        }
        // The frame read under another layout (an ALTER since) still round trips.
        let other = random_layout(&mut rng);
        if let Some(c) = encode(&raw, prefix.len(), entries, &other) {
            assert_eq!(decode(&c).unwrap(), raw, "round {round} under {other:?}");
        }
        // A miscount or stray bytes are not a frame.
        assert!(encode(&raw, prefix.len(), entries + 1, &layout).is_none());
    }
    assert!(columnar > 400, "{columnar} columnar frames");
}

#[test]
fn damaged_and_random_bytes_are_errors_not_panics() {
    let mut rng = StdRng::seed_from_u64(21);
    for _ in 0..40 {
        let layout = random_layout(&mut rng);
        let raw = frame(&mut rng, &layout, 60, &[0, 60]);
        let Some(c) = encode(&raw, 2, count(&raw, 2), &layout) else {
            continue;
        };
        for i in 0..c.len() {
            let mut bad = c.clone();
            bad[i] ^= 1 << rng.gen_range(0..8);
            if let Ok(back) = decode(&bad) {
                // Damage that still decodes gives well-formed entries (the CRC catches the rest).
                let _ = back;
            }
            let _ = decode(&c[..i]);
        }
    }
    for _ in 0..20_000 {
        let len = rng.gen_range(0..200);
        let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let _ = decode(&junk);
    }
}

/// W1 sensor rows as the SQL layer stores them: key (marker, INT, marker, DATETIME), row (version,
/// schema version, slot count, bitmap, DATETIME, INT, six DOUBLEs), in primary-key order.
pub(crate) fn sensor_entries(sensors: u32, seconds: u32, seed: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    const REVERT: [f64; 6] = [0.001, 0.001, 0.001, 0.001, 0.01, 0.05];
    const STEP: [f64; 6] = [0.02, 0.05, 0.03, 0.002, 0.01, 0.005];
    let base = [20.0, 50.0, 1013.0, 3.3, 1.5, 0.35];
    let mut out = Vec::new();
    for s in 1..=sensors {
        let mean: Vec<f64> = base
            .iter()
            .map(|b| b + rng.gen_range(-0.1..0.1) * b)
            .collect();
        let mut st = mean.clone();
        for t in 0..seconds {
            let packed = (((2024 * 13 + 1) * 32 + 1) as u64) * 86_400 + u64::from(t);
            let mut key = vec![1];
            key.extend_from_slice(&((s as i32 as u32) ^ 0x8000_0000).to_be_bytes());
            key.push(1);
            key.extend_from_slice(&packed.to_be_bytes()[3..]);
            let mut row = vec![1, 1, 8, 0];
            row.extend_from_slice(&packed.to_le_bytes()[..5]);
            row.extend_from_slice(&(s as i32).to_le_bytes());
            for c in 0..6 {
                st[c] += (mean[c] - st[c]) * REVERT[c] + (rng.gen::<f64>() - 0.5) * STEP[c];
                let v: f64 = format!("{:.2}", st[c]).parse().unwrap();
                row.extend_from_slice(&v.to_le_bytes());
            }
            out.push((key, row));
        }
    }
    out
}

pub(crate) fn sensor_layout() -> ColumnLayout {
    ColumnLayout {
        key: vec![
            KeyField {
                kind: FieldKind::UintBe { bytes: 4 },
                marker: true,
                inverted: false,
            },
            KeyField {
                kind: FieldKind::UintBe { bytes: 5 },
                marker: true,
                inverted: false,
            },
        ],
        value: ValueLayout::Record {
            head: vec![
                FieldKind::IntLe {
                    bytes: 1,
                    signed: false,
                },
                FieldKind::Varint,
                FieldKind::Varint,
            ],
            slots: [
                FieldKind::IntLe {
                    bytes: 5,
                    signed: false,
                },
                FieldKind::IntLe {
                    bytes: 4,
                    signed: true,
                },
            ]
            .into_iter()
            .chain(std::iter::repeat_n(FieldKind::F64Le, 6))
            .collect(),
        },
    }
}

#[test]
#[ignore = "an experiment: prints sizes"]
fn sensor_frame_sizes() {
    use crate::compress::Codec;
    let entries = sensor_entries(20, 4000, 42);
    let layout = sensor_layout();
    for frame_bytes in [16 << 10, 32 << 10, 64 << 10] {
        let (mut plain_z, mut col_raw, mut col_z, mut rows) = (0, 0, 0, 0);
        let (mut enc_t, mut dec_t) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
        let mut i = 0;
        while i < entries.len() {
            let mut raw = Vec::new();
            let start = i;
            while i < entries.len() && raw.len() < frame_bytes {
                raw.put_bytes(&entries[i].0);
                Cell::encode_plain(&entries[i].1, &mut raw);
                i += 1;
            }
            rows += i - start;
            plain_z += Codec::Zstd.compress(&raw, 1).len();
            let t = std::time::Instant::now();
            let c = encode(&raw, 0, i - start, &layout).unwrap();
            enc_t += t.elapsed();
            let t = std::time::Instant::now();
            assert_eq!(decode(&c).unwrap(), raw);
            dec_t += t.elapsed();
            col_raw += c.len();
            col_z += Codec::Zstd.compress(&c, 1).len();
        }
        let per = |b: usize| b as f64 / rows as f64;
        println!(
            "frame {frame_bytes}: plain+zstd {:.2} B/row, columnar {:.2}, columnar+zstd {:.2}; encode {:.0} ns/row, decode {:.0} ns/row",
            per(plain_z),
            per(col_raw),
            per(col_z),
            enc_t.as_nanos() as f64 / rows as f64,
            dec_t.as_nanos() as f64 / rows as f64
        );
    }
}
