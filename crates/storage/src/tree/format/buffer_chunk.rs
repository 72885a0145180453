//! An internal node's message buffer as stored in a version 7 block (file-format.md §3.3, §3.6): a
//! transform byte, then the buffer's raw encoding compressed (transform 0) or the length of its
//! columnar form and that form compressed (transform 1, design.md COL6).
//!
//! Invariant: [`load`] of what [`store`] wrote is the raw encoding exactly, checked against the
//! directory's raw length; a columnar form is kept only when shorter than the raw bytes, and a
//! reader refuses one that is not.

use super::columnar::{self, ColumnLayout};
use super::frames::{load_transformed, store_transformed};
use crate::compress::Codec;
use crate::encoding::DecodeError;

/// The stored bytes of buffer encoding `raw`, columnar where `layout` fits some of its messages; also
/// says whether the columnar form was kept.
pub fn store(
    raw: &[u8],
    codec: Codec,
    level: i32,
    layout: Option<&ColumnLayout>,
) -> (Vec<u8>, bool) {
    let col = layout.and_then(|l| columnar::messages::encode(raw, l));
    store_transformed(raw, col, codec, level)
}

/// The raw buffer encoding (`raw_len` bytes) of stored bytes [`store`] wrote.
pub fn load(stored: &[u8], codec: Codec, raw_len: usize) -> Result<Vec<u8>, DecodeError> {
    load_transformed(stored, codec, raw_len, "buffer", columnar::messages::decode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encode;
    use crate::tree::format::columnar::{FieldKind, KeyField, ValueLayout};
    use crate::tree::in_memory::message::{Message, Op};
    use rand::{Rng, SeedableRng};

    /// Keys of a big-endian u32 and u64, values of a little-endian i32 and an f64 (the shape of a
    /// sensor row), so fitting Puts go to the columns.
    fn layout() -> ColumnLayout {
        ColumnLayout {
            key: vec![
                KeyField {
                    marker: false,
                    inverted: false,
                    kind: FieldKind::UintBe { bytes: 4 },
                },
                KeyField {
                    marker: false,
                    inverted: false,
                    kind: FieldKind::UintBe { bytes: 8 },
                },
            ],
            value: ValueLayout::Record {
                head: vec![
                    FieldKind::IntLe {
                        bytes: 4,
                        signed: true,
                    },
                    FieldKind::F64Le,
                ],
                slots: vec![],
            },
        }
    }

    fn fitting_put(rng: &mut impl Rng, msn: u64, sensor: u32, ts: u64) -> Message {
        let mut key = sensor.to_be_bytes().to_vec();
        key.extend_from_slice(&ts.to_be_bytes());
        let mut value = rng.gen_range(-5i32..5).to_le_bytes().to_vec();
        value.extend_from_slice(&(f64::from(rng.gen_range(0..2000)) / 100.0).to_le_bytes());
        Message {
            msn,
            txn: if rng.gen_bool(0.5) { 0 } else { msn - 1 },
            key,
            op: Op::Put(value),
        }
    }

    /// Random buffers mixing fitting Puts with every other kind of message and with Puts the layout
    /// does not fit (short values, odd keys, non-minimal varints cannot occur from `Message::encode`).
    fn random_buffer(rng: &mut impl Rng, n: usize) -> Vec<u8> {
        let mut msgs = Vec::new();
        let mut msn = 1000;
        for i in 0..n {
            msn += rng.gen_range(1..4);
            let key: Vec<u8> = (0..rng.gen_range(0..14)).map(|_| rng.gen()).collect();
            let m = match rng.gen_range(0..10) {
                0 => Message {
                    msn,
                    txn: 0,
                    key,
                    op: Op::Delete,
                },
                1 => Message {
                    msn,
                    txn: 7,
                    key,
                    op: Op::Upsert {
                        func: rng.gen(),
                        arg: vec![1, 2, 3],
                    },
                },
                2 => Message {
                    msn,
                    txn: 0,
                    key: vec![1],
                    op: Op::RangeDelete { end: vec![2] },
                },
                3 => Message {
                    msn,
                    txn: 3,
                    key,
                    op: Op::Put((0..rng.gen_range(0..20)).map(|_| rng.gen()).collect()),
                },
                _ => {
                    let sensor = rng.gen_range(0..50);
                    fitting_put(rng, msn, sensor, i as u64)
                }
            };
            msgs.push(m);
        }
        let mut raw = Vec::new();
        raw.put_varint(msgs.len() as u64);
        for m in &msgs {
            m.encode(&mut raw);
        }
        raw
    }

    #[test]
    fn buffers_round_trip_exactly_in_every_codec() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let l = layout();
        for round in 0..300 {
            let n = rng.gen_range(0..200);
            let raw = random_buffer(&mut rng, n);
            let codec = [Codec::None, Codec::Lz4, Codec::Zstd][round % 3];
            for layout in [None, Some(&l)] {
                let (stored, _) = store(&raw, codec, 3, layout);
                assert_eq!(load(&stored, codec, raw.len()).unwrap(), raw);
            }
        }
    }

    #[test]
    fn fitting_puts_are_stored_columnar_and_smaller() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let mut raw = Vec::new();
        raw.put_varint(4000);
        for i in 0..4000u64 {
            fitting_put(
                &mut rng,
                10 + i,
                (i % 1000) as u32,
                1_700_000_000 + i / 1000,
            )
            .encode(&mut raw);
        }
        let (plain, was) = store(&raw, Codec::Zstd, 3, None);
        assert!(!was);
        let (col, was) = store(&raw, Codec::Zstd, 3, Some(&layout()));
        assert!(was);
        assert!(
            col.len() * 2 < plain.len(),
            "{} vs {}",
            col.len(),
            plain.len()
        );
        assert_eq!(load(&col, Codec::Zstd, raw.len()).unwrap(), raw);
    }

    #[test]
    fn damaged_buffers_are_errors_not_panics() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let l = layout();
        for _ in 0..200 {
            let n = rng.gen_range(1..60);
            let raw = random_buffer(&mut rng, n);
            let (stored, _) = store(&raw, Codec::None, 0, Some(&l));
            let mut bad = stored.clone();
            let at = rng.gen_range(0..bad.len());
            bad[at] ^= 1 << rng.gen_range(0..8);
            if let Ok(back) = load(&bad, Codec::None, raw.len()) {
                // A flipped bit the columns absorb still gives a buffer of the right length; the
                // directory's CRC is what catches it in a block.
                assert_eq!(back.len(), raw.len());
            }
            let cut = rng.gen_range(0..stored.len());
            let _ = load(&stored[..cut], Codec::None, raw.len());
            let _ = columnar::messages::decode(&stored[..cut]);
        }
    }
}
