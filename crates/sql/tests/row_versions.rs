//! Rows of several schema versions in one table (design.md INS1-INS5): a layout evolved by
//! random instant changes (columns added, dropped, moved, widened) reads every row written under
//! any of its versions as the current columns, its catalog text reads back to the same layout,
//! and a columnar frame mixing rows of every version decodes to exactly its bytes.

mod common;

use betula_sql::codec::key::{encode_key, KeyColumn};
use betula_sql::codec::layout::{key_fields, row_value};
use betula_sql::codec::row::{decode_row, decode_row_header, encode_row, Evolve, RowLayout};
use betula_sql::types::value::Value;
use betula_sql::types::{Column, IntWidth, SqlType};
use betula_storage::tree::format::columnar;
use betula_storage::ColumnLayout;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::Rng;

const WIDTHS: [IntWidth; 4] = [
    IntWidth::Tiny,
    IntWidth::Small,
    IntWidth::Int,
    IntWidth::Big,
];

fn int(width: IntWidth, unsigned: bool) -> SqlType {
    SqlType::Int { width, unsigned }
}

/// A column that a widening may change: an integer or a VARCHAR.
fn random_column(r: &mut SmallRng, id: u32) -> Column {
    let t = if r.gen() {
        int(*WIDTHS[..3].choose(r).unwrap(), r.gen())
    } else if r.gen() {
        SqlType::VarChar {
            len: r.gen_range(1..20),
        }
    } else {
        common::random_type(r)
    };
    let mut c = Column::new(id, format!("c{id}"), t);
    if r.gen() {
        c.default = Some(common::random_value(r, &t, 0));
    }
    c
}

/// The type a widening gives `t`, if it has one.
fn wider(r: &mut SmallRng, t: SqlType) -> Option<SqlType> {
    match t {
        SqlType::Int { width, unsigned } => {
            let at = WIDTHS.iter().position(|w| *w == width)?;
            let to = *WIDTHS[at..].choose(r)?;
            Some(int(to, unsigned))
        }
        SqlType::VarChar { len } => Some(SqlType::VarChar {
            len: len + r.gen_range(0..10),
        }),
        _ => None,
    }
}

/// A random instant change of `cols` (the first column is the key and stays): the new columns and
/// where each takes its values from.
fn random_change(
    r: &mut SmallRng,
    cols: &[Column],
    next_id: &mut u32,
) -> (Vec<Column>, Vec<Option<usize>>) {
    let mut new: Vec<(Column, Option<usize>)> = cols
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, c)| (c, Some(i)))
        .collect();
    for _ in 0..r.gen_range(1..4) {
        match r.gen_range(0..4) {
            0 => {
                *next_id += 1;
                let at = r.gen_range(1..=new.len());
                new.insert(at, (random_column(r, *next_id), None));
            }
            1 if new.len() > 2 => {
                new.remove(r.gen_range(1..new.len()));
            }
            2 if new.len() > 2 => {
                let c = new.remove(r.gen_range(1..new.len()));
                let at = r.gen_range(1..=new.len());
                new.insert(at, c);
            }
            _ => {
                let at = r.gen_range(1..new.len().max(2)).min(new.len() - 1);
                if at > 0 && new[at].1.is_some() {
                    if let Some(t) = wider(r, new[at].0.sql_type) {
                        new[at].0.sql_type = t;
                    }
                }
            }
        }
    }
    new.into_iter().unzip()
}

fn key_of(id: u32) -> Vec<u8> {
    let kc = [KeyColumn::from_column(&Column::new(
        0,
        "k",
        int(IntWidth::Int, true),
    ))];
    let mut k = Vec::new();
    encode_key(&kc, &[Value::UInt(id as u64)], &mut k).unwrap();
    k
}

/// Raw frame bytes of committed entries (file-format.md §3.3: key, kind 0, value).
fn frame(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    fn bytes(out: &mut Vec<u8>, b: &[u8]) {
        let mut n = b.len() as u64;
        while n >= 0x80 {
            out.push(n as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
        out.extend_from_slice(b);
    }
    let mut out = Vec::new();
    for (k, v) in entries {
        bytes(&mut out, k);
        out.push(0);
        bytes(&mut out, v);
    }
    out
}

#[test]
fn every_version_reads_as_the_current_columns() {
    let mut r = common::rng(41);
    for round in 0..200 {
        let mut next_id = 0;
        let key = Column::new(0, "k", int(IntWidth::Int, true));
        let mut cols = vec![key];
        for _ in 0..r.gen_range(1..5) {
            next_id += 1;
            cols.push(random_column(&mut r, next_id));
        }
        let mut layout = RowLayout::new(1, cols.clone());
        // expected: per row id, its current values
        let mut expected: Vec<(u32, Vec<Value>)> = Vec::new();
        let mut stored: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for version in 0..r.gen_range(1..8) {
            for _ in 0..r.gen_range(0..6) {
                let id = stored.len() as u32;
                let mut row: Vec<Value> = cols
                    .iter()
                    .map(|c| common::random_value(&mut r, &c.sql_type, 0))
                    .collect();
                row[0] = Value::UInt(id as u64);
                let mut bytes = Vec::new();
                encode_row(&layout, &row, &mut bytes).unwrap();
                stored.push((key_of(id), bytes));
                expected.push((id, row));
            }
            let (new_cols, origin) = random_change(&mut r, &cols, &mut next_id);
            let keyed: Vec<bool> = (0..new_cols.len()).map(|i| i == 0).collect();
            let evolved = Evolve {
                old: &layout,
                full: 0,
                columns: &new_cols,
                origin: &origin,
                keyed: &keyed,
            }
            .layout()
            .unwrap_or_else(|why| panic!("round {round} version {version}: {why}"));
            for (_, row) in expected.iter_mut() {
                *row = new_cols
                    .iter()
                    .zip(&origin)
                    .map(|(c, o)| match o {
                        Some(j) => row[*j].clone(),
                        None => c.default_value(),
                    })
                    .collect();
            }
            layout = evolved;
            cols = new_cols;
        }
        // The catalog's text gives the same layout.
        let text = layout.to_text().unwrap();
        assert!(!text.contains(' ') && !text.contains('\n'), "{text}");
        assert_eq!(
            RowLayout::from_text(&cols, &text).unwrap(),
            layout,
            "{text}"
        );
        for ((_, bytes), (id, want)) in stored.iter().zip(&expected) {
            let got = decode_row(&layout, bytes)
                .unwrap_or_else(|e| panic!("round {round} row {id}: {e} ({text})"));
            assert_eq!(&got, want, "round {round} row {id} ({text})");
            // written again, the row is of the current version and reads the same
            let mut again = Vec::new();
            encode_row(&layout, &got, &mut again).unwrap();
            assert_eq!(
                decode_row_header(&again).unwrap().schema_version,
                layout.schema_version
            );
            assert_eq!(decode_row(&layout, &again).unwrap(), got);
        }
        // A columnar frame of rows of every version decodes to exactly its bytes (INS5).
        let raw = frame(&stored);
        let key_cols = [KeyColumn::from_column(&Column::new(
            0,
            "k",
            int(IntWidth::Int, true),
        ))];
        let cl = ColumnLayout {
            key: key_fields(&key_cols),
            value: row_value(&layout),
        };
        if let Some(form) = columnar::encode(&raw, 0, stored.len(), &cl) {
            assert_eq!(columnar::decode(&form).unwrap(), raw, "round {round}");
        }
    }
}

#[test]
fn a_row_of_a_newer_or_damaged_version_is_an_error() {
    let cols = vec![
        Column::new(0, "k", int(IntWidth::Int, true)),
        Column::new(1, "a", int(IntWidth::Small, false)),
    ];
    let old = RowLayout::new(1, cols.clone());
    let mut widened = cols.clone();
    widened[1].sql_type = int(IntWidth::Big, false);
    let new = Evolve {
        old: &old,
        full: 2,
        columns: &widened,
        origin: &[Some(0), Some(1)],
        keyed: &[true, false],
    }
    .layout()
    .unwrap();
    assert_eq!(new.schema_version, 2);
    let mut v1 = Vec::new();
    encode_row(&old, &[Value::UInt(1), Value::Int(-300)], &mut v1).unwrap();
    assert_eq!(decode_row(&new, &v1).unwrap()[1], Value::Int(-300));
    let mut v2 = Vec::new();
    encode_row(&new, &[Value::UInt(1), Value::Int(1 << 40)], &mut v2).unwrap();
    // the old layout does not know version 2: an error, never a value
    assert!(decode_row(&old, &v2).is_err());
    // narrowing and a key column's widening are not instant
    assert!(Evolve {
        old: &new,
        full: 2,
        columns: &cols,
        origin: &[Some(0), Some(1)],
        keyed: &[true, false],
    }
    .layout()
    .is_err());
    let mut wide_key = cols.clone();
    wide_key[0].sql_type = int(IntWidth::Big, true);
    assert!(Evolve {
        old: &old,
        full: 2,
        columns: &wide_key,
        origin: &[Some(0), Some(1)],
        keyed: &[true, false],
    }
    .layout()
    .is_err());
    for bad in [
        "",
        "x;0,1",
        "1;0",
        "1;0,0",
        "1;0,1,-q",
        "2;0,1;2:u4,i2",
        "1;0,1@zz",
    ] {
        assert!(RowLayout::from_text(&cols, bad).is_err(), "{bad}");
    }
}
