//! Property tests of the row codec: random layouts and rows round-trip; truncated, mutated and
//! garbage bytes are rejected or decoded without panicking; old rows read under evolved layouts.

mod common;

use betula_sql::codec::row::{decode_row, encode_row, RowLayout};
use betula_sql::error::sql_error::SqlError;
use betula_sql::types::value::Value;
use betula_sql::types::Column;
use rand::rngs::SmallRng;
use rand::Rng;

fn random_layout(r: &mut SmallRng) -> RowLayout {
    let n = r.gen_range(0..=20);
    RowLayout::new(
        r.gen_range(0..1000),
        (0..n)
            .map(|i| {
                let t = common::random_type(r);
                let c = Column::new(i, format!("c{i}"), t);
                c.with_collation(common::random_collation(r, &t))
            })
            .collect(),
    )
}

fn random_row(r: &mut SmallRng, layout: &RowLayout) -> Vec<Value> {
    layout
        .live_columns()
        .map(|c| common::random_value(r, &c.sql_type, 20))
        .collect()
}

#[test]
fn rows_round_trip() {
    let mut r = common::rng(21);
    for _ in 0..5000 {
        let layout = random_layout(&mut r);
        let row = random_row(&mut r, &layout);
        let mut buf = Vec::new();
        encode_row(&layout, &row, &mut buf).unwrap();
        assert_eq!(decode_row(&layout, &buf).unwrap(), row);
    }
}

#[test]
fn damaged_rows_never_panic() {
    let mut r = common::rng(22);
    for _ in 0..5000 {
        let layout = random_layout(&mut r);
        let row = random_row(&mut r, &layout);
        let mut buf = Vec::new();
        encode_row(&layout, &row, &mut buf).unwrap();
        let cut = r.gen_range(0..buf.len());
        assert!(matches!(
            decode_row(&layout, &buf[..cut]),
            Err(SqlError::CorruptRow(_))
        ));
        let mut m = buf.clone();
        for _ in 0..r.gen_range(1..4) {
            let i = r.gen_range(0..m.len());
            m[i] = r.gen();
        }
        if let Ok(vals) = decode_row(&layout, &m) {
            assert_eq!(vals.len(), row.len());
        }
        let garbage: Vec<u8> = (0..r.gen_range(0..64)).map(|_| r.gen()).collect();
        let _ = decode_row(&layout, &garbage);
        let mut versioned = vec![1u8];
        versioned.extend((0..r.gen_range(0..64)).map(|_| r.gen::<u8>()));
        let _ = decode_row(&layout, &versioned);
    }
}

#[test]
fn old_rows_read_under_evolved_layouts() {
    let mut r = common::rng(23);
    for _ in 0..1000 {
        let old_layout = random_layout(&mut r);
        let row = random_row(&mut r, &old_layout);
        let mut buf = Vec::new();
        encode_row(&old_layout, &row, &mut buf).unwrap();
        let mut layout = old_layout.clone();
        let mut expected: Vec<(u32, Value)> = layout
            .live_columns()
            .map(|c| c.id)
            .zip(row.iter().cloned())
            .collect();
        for step in 0..r.gen_range(1..5) {
            if r.gen() && !expected.is_empty() {
                let k = r.gen_range(0..expected.len());
                assert!(layout.drop_column(expected[k].0));
                expected.remove(k);
            } else {
                let t = common::random_type(&mut r);
                let mut c = Column::new(1000 + step, format!("n{step}"), t);
                if r.gen() {
                    c.default = Some(common::random_value(&mut r, &t, 0));
                }
                expected.push((c.id, c.default_value()));
                layout.add_column(c);
            }
        }
        let got = decode_row(&layout, &buf).unwrap();
        assert_eq!(
            got,
            expected.into_iter().map(|(_, v)| v).collect::<Vec<_>>()
        );
    }
}
