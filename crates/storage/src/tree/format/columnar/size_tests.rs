//! Size tests of columnar frames on the two kinds of column that column encodings cannot shrink
//! much: random doubles must cost at most 5% over their raw 8 bytes, and text (log lines) must
//! come out no larger than the plain frame under the same codec.

use super::layout::{ColumnLayout, FieldKind, KeyField, ValueLayout};
use super::{decode, encode};
use crate::compress::Codec;
use crate::encoding::Encode;
use crate::tree::in_memory::mvcc::Cell;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Keys: consecutive 8-byte ids; values: a record of one slot of `kind` (the bitmap says present).
fn layout(kind: FieldKind) -> ColumnLayout {
    ColumnLayout {
        key: vec![KeyField {
            kind: FieldKind::UintBe { bytes: 8 },
            marker: false,
            inverted: false,
        }],
        value: ValueLayout::Record {
            head: vec![],
            slots: vec![kind],
        },
    }
}

/// A frame of `values` (each already in its field's bytes), keyed 1, 2, 3, ...
fn frame(values: &[Vec<u8>]) -> Vec<u8> {
    let mut raw = Vec::new();
    for (i, v) in values.iter().enumerate() {
        raw.put_bytes(&(i as u64 + 1).to_be_bytes());
        let mut row = vec![0u8];
        row.extend_from_slice(v);
        Cell::encode_plain(&row, &mut raw);
    }
    raw
}

/// The columnar form compressed by `codec`, after checking that it decodes to `raw`.
fn columnar_size(raw: &[u8], n: usize, kind: FieldKind, codec: Codec) -> usize {
    let c = encode(raw, 0, n, &layout(kind)).expect("the entries fit the layout");
    assert_eq!(decode(&c).unwrap(), raw);
    codec.compress(&c, 0).len()
}

#[test]
fn random_doubles_cost_at_most_five_percent_over_raw() {
    let mut rng = StdRng::seed_from_u64(7);
    let n = 4000;
    let values: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            // Random finite doubles of every magnitude (random bits, NaN payloads excluded).
            let x = loop {
                let x = f64::from_bits(rng.gen());
                if x.is_finite() {
                    break x;
                }
            };
            x.to_le_bytes().to_vec()
        })
        .collect();
    let raw = frame(&values);
    for codec in [Codec::Zstd, Codec::Lz4, Codec::None] {
        let size = columnar_size(&raw, n, FieldKind::F64Le, codec);
        let ratio = size as f64 / (n * 8) as f64;
        assert!(
            ratio <= 1.05,
            "{codec:?}: {size} bytes for {n} doubles ({ratio:.3}x raw)"
        );
    }
}

/// A log line of a web server: time, level, module, a message with numbers and paths.
fn log_line(rng: &mut StdRng, second: u32) -> String {
    const LEVELS: [&str; 4] = ["INFO", "INFO", "WARN", "ERROR"];
    const MODULES: [&str; 5] = ["http", "db.pool", "auth", "cache", "scheduler"];
    const PATHS: [&str; 4] = [
        "/api/v1/users",
        "/api/v1/orders",
        "/static/app.js",
        "/health",
    ];
    let level = LEVELS[rng.gen_range(0..LEVELS.len())];
    let module = MODULES[rng.gen_range(0..MODULES.len())];
    let message = match rng.gen_range(0..3) {
        0 => format!(
            "GET {} {} {}ms from 10.0.{}.{}",
            PATHS[rng.gen_range(0..PATHS.len())],
            [200, 200, 304, 404, 500][rng.gen_range(0..5)],
            rng.gen_range(1..900),
            rng.gen_range(0..255),
            rng.gen_range(0..255)
        ),
        1 => format!(
            "pool size {} idle {} waiters {}",
            rng.gen_range(8..64),
            rng.gen_range(0..8),
            rng.gen_range(0..4)
        ),
        _ => format!("session {:016x} expired", rng.gen::<u64>()),
    };
    format!(
        "2026-11-27T{:02}:{:02}:{:02}Z {level} [{module}] {message}",
        second / 3600 % 24,
        second / 60 % 60,
        second % 60
    )
}

#[test]
fn log_lines_are_no_larger_than_the_plain_frame() {
    let mut rng = StdRng::seed_from_u64(11);
    let n = 600;
    let values: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let line = log_line(&mut rng, 3600 + i as u32 / 3);
            let mut v = Vec::new();
            v.put_bytes(line.as_bytes());
            v
        })
        .collect();
    let raw = frame(&values);
    for codec in [Codec::Zstd, Codec::Lz4] {
        let columnar = columnar_size(&raw, n, FieldKind::VarBytes, codec);
        let plain = codec.compress(&raw, 0).len();
        assert!(
            columnar * 100 <= plain * 105,
            "{codec:?}: columnar {columnar} bytes, plain {plain}"
        );
    }
}
