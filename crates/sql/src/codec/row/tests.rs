//! Round trips, sizes, schema evolution and malformed input of the row codec.

use super::*;
use crate::error::sql_error::SqlError;
use crate::types::temporal::DateTime;
use crate::types::value::Value;
use crate::types::IntWidth;
use crate::types::SqlType;

fn ts_layout() -> RowLayout {
    let mut cols = vec![
        Column::new(1, "ts", SqlType::DateTime { fsp: 0 }).not_null(),
        Column::new(
            2,
            "sensor",
            SqlType::Int {
                width: IntWidth::Int,
                unsigned: false,
            },
        )
        .not_null(),
    ];
    for i in 0..6 {
        cols.push(Column::new(3 + i, format!("v{i}"), SqlType::DOUBLE));
    }
    RowLayout::new(1, cols)
}

fn ts_row() -> Vec<Value> {
    let mut v = vec![
        Value::DateTime(DateTime::parse("2024-05-06 07:08:09").unwrap()),
        Value::Int(42),
    ];
    v.extend((0..6).map(|i| Value::Double(i as f64 * 1.25)));
    v
}

#[test]
fn time_series_row_is_compact_and_round_trips() {
    let layout = ts_layout();
    let mut buf = Vec::new();
    encode_row(&layout, &ts_row(), &mut buf).unwrap();
    assert_eq!(buf.len(), 61);
    assert_eq!(decode_row(&layout, &buf).unwrap(), ts_row());
    assert_eq!(
        decode_row_header(&buf).unwrap(),
        RowHeader {
            format: 1,
            schema_version: 1,
            column_count: 8
        }
    );
}

#[test]
fn enum_set_and_bit_store_numbers_and_reject_bad_bytes() {
    let m = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let layout = RowLayout::new(
        1,
        vec![
            Column::new(1, "e", SqlType::Enum { count: 3 }).with_members(m(&["a", "b", "c"])),
            Column::new(2, "s", SqlType::Set { count: 9 })
                .with_members(m(&["1", "2", "3", "4", "5", "6", "7", "8", "9"])),
            Column::new(3, "b", SqlType::Bit { len: 12 }),
        ],
    );
    let row = vec![
        Value::Text("c".into()),
        Value::Text("1,9".into()),
        Value::UInt(4095),
    ];
    let mut buf = Vec::new();
    encode_row(&layout, &row, &mut buf).unwrap();
    // header 4 bytes (version, schema, count, bitmap), ENUM 1, SET 2, BIT 2
    assert_eq!(buf.len(), 4 + 1 + 2 + 2);
    assert_eq!(&buf[4..], &[3, 0x01, 0x01, 0xFF, 0x0F]);
    assert_eq!(decode_row(&layout, &buf).unwrap(), row);
    // the error value '' is index 0
    let mut zero = Vec::new();
    let empty = vec![
        Value::Text(String::new()),
        Value::Text(String::new()),
        Value::UInt(0),
    ];
    encode_row(&layout, &empty, &mut zero).unwrap();
    assert_eq!(decode_row(&layout, &zero).unwrap(), empty);
    // values outside the members or the bits are refused, and so are such bytes
    let mut out = Vec::new();
    assert!(encode_row(
        &layout,
        &[Value::Text("d".into()), Value::Null, Value::Null],
        &mut out
    )
    .is_err());
    assert!(encode_row(
        &layout,
        &[Value::Null, Value::Null, Value::UInt(4096)],
        &mut out
    )
    .is_err());
    for (at, byte) in [(4, 4u8), (6, 0x02), (8, 0x10)] {
        let mut bad = buf.clone();
        bad[at] = byte;
        assert!(
            matches!(decode_row(&layout, &bad), Err(SqlError::CorruptRow(_))),
            "{at}"
        );
    }
}

#[test]
fn add_and_drop_column_without_rewrite() {
    let mut layout = ts_layout();
    let mut old = Vec::new();
    encode_row(&layout, &ts_row(), &mut old).unwrap();
    layout.add_column(
        Column::new(9, "note", SqlType::VarChar { len: 10 })
            .with_default(Value::Text("n/a".into())),
    );
    layout.add_column(Column::new(
        10,
        "flag",
        SqlType::Int {
            width: IntWidth::Tiny,
            unsigned: true,
        },
    ));
    let got = decode_row(&layout, &old).unwrap();
    assert_eq!(got[8..], [Value::Text("n/a".into()), Value::Null]);
    assert!(layout.drop_column(2));
    assert!(!layout.drop_column(2));
    let got = decode_row(&layout, &old).unwrap();
    assert_eq!(got.len(), 9);
    assert_eq!(got[1], Value::Double(0.0));
    // New rows under the new layout still carry the dropped slot as one NULL bit.
    let mut new = Vec::new();
    encode_row(&layout, &got, &mut new).unwrap();
    assert_eq!(decode_row(&layout, &new).unwrap(), got);
    assert_eq!(decode_row_header(&new).unwrap().schema_version, 4);
}

#[test]
fn malformed_rows_are_errors() {
    let layout = ts_layout();
    let mut buf = Vec::new();
    encode_row(&layout, &ts_row(), &mut buf).unwrap();
    for n in 0..buf.len() {
        assert!(
            matches!(decode_row(&layout, &buf[..n]), Err(SqlError::CorruptRow(_))),
            "prefix {n}"
        );
    }
    let mut longer = buf.clone();
    longer.push(0);
    assert!(decode_row(&layout, &longer).is_err());
    let mut bad_version = buf.clone();
    bad_version[0] = 2;
    assert!(decode_row(&layout, &bad_version).is_err());
    let small = RowLayout::new(
        1,
        ts_layout().slots()[..2]
            .iter()
            .map(|s| s.column.clone().unwrap())
            .collect(),
    );
    assert!(decode_row(&small, &buf).is_err());
    assert!(decode_row(&layout, &[1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]).is_err());
}

#[test]
fn encoder_rejects_wrong_types() {
    let layout = ts_layout();
    let mut row = ts_row();
    row[1] = Value::Text("x".into());
    assert!(encode_row(&layout, &row, &mut Vec::new()).is_err());
    assert!(encode_row(&layout, &row[..3], &mut Vec::new()).is_err());
}
