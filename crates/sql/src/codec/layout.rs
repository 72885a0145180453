//! The column layout of a table's trees: the key and row formats of `key/` and `row/` described
//! in the storage engine's neutral terms ([`ColumnLayout`]), so its leaves can store each column
//! of a basement as a stream of its own (docs/design.md "Column encoding", COL5).
//!
//! Owns: [`key_fields`] (one field per key column, NULL marker and DESC inversion included) and
//! [`row_value`] (a row: format byte, schema version, slot count, NULL bitmap, then each slot).
//!
//! Invariant: a layout is only a hint (COL3): an entry it does not describe exactly (a row written
//! under another schema version with fewer slots, a key of a hidden row id) is stored plain by the
//! engine, never misread, so these functions need to be right to save space, not to keep data.
//! They describe what encode.rs of `key/` and `row/` write, per type:
//!
//! | type | key field | row field |
//! | --- | --- | --- |
//! | integers, YEAR, DATE, DATETIME, TIME, ENUM/SET codes, BIT | big-endian unsigned of the key width | little-endian of the row width (signed for signed integers and DECIMAL) |
//! | FLOAT / DOUBLE | big-endian unsigned, 4 / 8 bytes | IEEE binary32 / binary64 |
//! | DECIMAL up to 18 digits / above | big-endian unsigned / fixed bytes | little-endian signed / fixed bytes |
//! | text, binary, ENUM/SET of key format 1 | escaped bytes | varint length + bytes |

use betula_storage::{FieldKind, KeyField, ValueLayout};

use super::decimal::decimal_width;
use super::key::KeyColumn;
use super::row::{bit_width, enum_width, set_width, RowLayout};
use crate::types::SqlType;

/// The fields of keys made of `columns` (codec/key/).
pub fn key_fields(columns: &[KeyColumn]) -> Vec<KeyField> {
    columns
        .iter()
        .map(|c| KeyField {
            kind: key_kind(c),
            marker: true,
            inverted: c.descending,
        })
        .collect()
}

/// Width in bytes of an integer field (1..=8) as the storage layout takes it.
fn be(bytes: usize) -> FieldKind {
    FieldKind::UintBe { bytes: bytes as u8 }
}

fn le(bytes: usize, signed: bool) -> FieldKind {
    FieldKind::IntLe {
        bytes: bytes as u8,
        signed,
    }
}

/// Fixed bytes for widths above 8 (wide DECIMALs).
fn fixed_or(bytes: usize, narrow: FieldKind) -> FieldKind {
    if bytes <= 8 {
        narrow
    } else {
        FieldKind::Fixed {
            bytes: bytes as u16,
        }
    }
}

fn key_kind(c: &KeyColumn) -> FieldKind {
    if c.prefix.is_some() {
        return FieldKind::Escaped;
    }
    match c.sql_type {
        SqlType::Int { width, .. } => be(width.bytes()),
        SqlType::Year => be(1),
        SqlType::Float { .. } => be(4),
        SqlType::Double { .. } => be(8),
        SqlType::Decimal { precision, .. } => {
            let w = decimal_width(precision);
            fixed_or(w, be(w.min(8)))
        }
        SqlType::Enum { count } if c.members.is_some() => be(enum_width(count)),
        SqlType::Set { count } if c.members.is_some() => be(set_width(count)),
        SqlType::Char { .. }
        | SqlType::VarChar { .. }
        | SqlType::Text(_)
        | SqlType::Enum { .. }
        | SqlType::Set { .. }
        | SqlType::Binary { .. }
        | SqlType::VarBinary { .. }
        | SqlType::Blob(_) => FieldKind::Escaped,
        SqlType::Date => be(3),
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => be(datetime_width(fsp)),
        SqlType::Time { .. } => be(6),
        SqlType::Bit { .. } => be(8),
    }
}

fn datetime_width(fsp: u8) -> usize {
    if fsp == 0 {
        5
    } else {
        8
    }
}

/// The layout of rows of `layout`'s current schema version (codec/row/): the header (format byte,
/// schema version and slot count as varints), the NULL bitmap, then each slot, dropped ones
/// included (old rows hold them). Rows of other versions are stored plain or parse to the same
/// bytes (INS5).
pub fn row_value(layout: &RowLayout) -> ValueLayout {
    ValueLayout::Record {
        head: vec![le(1, false), FieldKind::Varint, FieldKind::Varint],
        slots: layout.slots().iter().map(|s| s.kind).collect(),
    }
}

/// How a row stores a value of type `t` (a slot's kind, file-format.md §9).
pub fn row_kind(t: SqlType) -> FieldKind {
    match t {
        SqlType::Int { width, unsigned } => le(width.bytes(), !unsigned),
        SqlType::Year => le(1, false),
        SqlType::Float { .. } => FieldKind::F32Le,
        SqlType::Double { .. } => FieldKind::F64Le,
        SqlType::Decimal { precision, .. } => {
            let w = decimal_width(precision);
            fixed_or(w, le(w.min(8), true))
        }
        SqlType::Char { .. }
        | SqlType::VarChar { .. }
        | SqlType::Text(_)
        | SqlType::Binary { .. }
        | SqlType::VarBinary { .. }
        | SqlType::Blob(_) => FieldKind::VarBytes,
        SqlType::Date => le(3, false),
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => le(datetime_width(fsp), false),
        SqlType::Time { .. } => le(6, false),
        SqlType::Enum { count } => le(enum_width(count), false),
        SqlType::Set { count } => le(set_width(count), false),
        SqlType::Bit { len } => le(bit_width(len), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::key::encode_key;
    use crate::codec::row::encode_row;
    use crate::types::temporal::{Date, DateTime};
    use crate::types::value::Value;
    use crate::types::{Column, IntWidth};
    use betula_storage::ColumnLayout;

    fn sensor_columns() -> Vec<Column> {
        let double = SqlType::Double {
            digits: None,
            unsigned: false,
        };
        let mut cols = vec![
            Column::new(0, "ts", SqlType::DateTime { fsp: 0 }),
            Column::new(
                1,
                "sensor_id",
                SqlType::Int {
                    width: IntWidth::Int,
                    unsigned: false,
                },
            ),
        ];
        cols.extend((0..6).map(|i| Column::new(2 + i, format!("v{i}"), double)));
        cols
    }

    /// Sensor rows keyed (sensor_id, ts) as the SQL layer writes them parse by the layout
    /// (every entry columnar), and the frame decodes back to the same bytes.
    #[test]
    fn sensor_rows_fit_their_layout() {
        let cols = sensor_columns();
        let row_layout = RowLayout::new(1, cols.clone());
        let mut pk = vec![
            KeyColumn::from_column(&cols[1]),
            KeyColumn::from_column(&cols[0]),
        ];
        pk[1].descending = true;
        let layout = ColumnLayout {
            key: key_fields(&pk),
            value: row_value(&row_layout),
        };
        let day = Date::new(2024, 1, 1).unwrap();
        let mut entries = Vec::new();
        for i in 0..500i64 {
            let (m, sec) = ((i / 60) as u32, (i % 60) as u32);
            let ts = Value::DateTime(DateTime::new(day, 0, m, sec, 0).unwrap());
            let mut row = vec![ts.clone(), Value::Int(i % 7)];
            row.extend((0..6).map(|c| {
                if i % 50 == c {
                    Value::Null
                } else {
                    Value::Double(20.0 + ((i * 13 + c) % 1000) as f64 / 100.0)
                }
            }));
            let mut key = Vec::new();
            encode_key(&pk, &[row[1].clone(), ts], &mut key).unwrap();
            let mut value = Vec::new();
            encode_row(&row_layout, &row, &mut value).unwrap();
            entries.push((key, value));
        }
        for (key, value) in &entries {
            assert!(layout.fits(key, value), "{key:?} {value:?}");
        }
        // A row of an older schema (one slot fewer) does not fit; it is stored plain.
        let old = RowLayout::new(1, cols[..7].to_vec());
        let mut value = Vec::new();
        let row: Vec<Value> = (0..7).map(|_| Value::Double(1.5)).collect();
        let row = [
            vec![
                Value::DateTime(DateTime::new(day, 0, 0, 0, 0).unwrap()),
                Value::Int(1),
            ],
            row[2..].to_vec(),
        ]
        .concat();
        encode_row(&old, &row, &mut value).unwrap();
        assert!(!layout.fits(&entries[0].0, &value));
    }
}
