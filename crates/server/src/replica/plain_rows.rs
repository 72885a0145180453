//! Inserted rows of a table whose every column has a fixed-width binlog type (integers, FLOAT,
//! DOUBLE, DATETIME2: a sensor table's), read straight from a WRITE_ROWS event's bytes
//! ([`PlainRows`]). The general decoder (`mysql_common`'s) builds a column description with its
//! names for every value of every row; this one reads each value into the same `mysql_common`
//! value that decoder gives, which `values::convert` then turns into the column's value, so both
//! paths give the same values (design.md RPA6).
//!
//! Invariants: taken only for a table map without optional metadata (no signedness, which the
//! general decoder would apply) whose every column type is one of those above; any other table
//! goes through the general decoder. A row image that ends early is an error, never a guess.

use betula_sql::{DbError, DbResult, ErrorCode};
use mysql_common::binlog::events::{RowsEventData, TableMapEvent};
use mysql_common::binlog::misc::{datetime_from_packed, my_datetime_packed_from_binary};
use mysql_common::constants::ColumnType;
use mysql_common::value::Value as MyValue;

/// How one column's value is stored in a row image.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A little-endian signed integer of this many bytes.
    Int(usize),
    Float,
    Double,
    /// DATETIME2 with this many fractional digits.
    DateTime2(u8),
}

impl Kind {
    fn of(ty: ColumnType, meta: &[u8]) -> Option<Kind> {
        Some(match ty {
            ColumnType::MYSQL_TYPE_TINY => Kind::Int(1),
            ColumnType::MYSQL_TYPE_SHORT => Kind::Int(2),
            ColumnType::MYSQL_TYPE_INT24 => Kind::Int(3),
            ColumnType::MYSQL_TYPE_LONG => Kind::Int(4),
            ColumnType::MYSQL_TYPE_LONGLONG => Kind::Int(8),
            ColumnType::MYSQL_TYPE_FLOAT => Kind::Float,
            ColumnType::MYSQL_TYPE_DOUBLE => Kind::Double,
            ColumnType::MYSQL_TYPE_DATETIME2 => Kind::DateTime2(*meta.first()?),
            _ => return None,
        })
    }

    fn width(self) -> usize {
        match self {
            Kind::Int(n) => n,
            Kind::Float => 4,
            Kind::Double => 8,
            Kind::DateTime2(dec) => 5 + (dec as usize).div_ceil(2),
        }
    }

    /// The value of `b` (exactly `self.width()` bytes).
    fn read(self, b: &[u8]) -> Result<MyValue, String> {
        Ok(match self {
            Kind::Int(n) => {
                let mut le = [0u8; 8];
                le[..n].copy_from_slice(b);
                // Sign-extended from its width, as the general decoder reads it.
                let shift = 64 - 8 * n as u32;
                MyValue::Int((i64::from_le_bytes(le) << shift) >> shift)
            }
            Kind::Float => MyValue::Float(f32::from_le_bytes(b.try_into().unwrap_or_default())),
            Kind::Double => MyValue::Double(f64::from_le_bytes(b.try_into().unwrap_or_default())),
            Kind::DateTime2(dec) => {
                let packed = my_datetime_packed_from_binary(b, dec as u32)
                    .map_err(|e| format!("DATETIME image: {e}"))?;
                datetime_from_packed(packed)
            }
        })
    }
}

/// The column layout of a table map that this module can read.
pub struct PlainRows {
    kinds: Vec<Kind>,
}

impl PlainRows {
    /// The layout of `tme`'s columns, if every one is fixed-width and nothing else applies.
    pub fn of(tme: &TableMapEvent<'_>) -> Option<PlainRows> {
        if tme.iter_optional_meta().next().is_some() {
            return None;
        }
        let n = tme.columns_count() as usize;
        let mut kinds = Vec::with_capacity(n);
        for i in 0..n {
            let ty = tme.get_column_type(i).ok()??;
            kinds.push(Kind::of(ty, tme.get_column_metadata(i).unwrap_or(&[]))?);
        }
        Some(PlainRows { kinds })
    }

    /// Calls `row` with each after image of the WRITE_ROWS event `ev`, one value per column of
    /// `present` (the columns the image holds, in order).
    pub fn each_insert(
        &self,
        ev: &RowsEventData<'_>,
        present: &[usize],
        mut row: impl FnMut(&[MyValue]) -> DbResult<()>,
    ) -> DbResult<()> {
        let mut data = ev.rows_data();
        let nulls_len = present.len().div_ceil(8);
        let mut values = Vec::with_capacity(present.len());
        let short = || DbError::new(ErrorCode::GetErrno, "row image: ends inside a row");
        while !data.is_empty() {
            let nulls = data.get(..nulls_len).ok_or_else(short)?;
            data = &data[nulls_len..];
            values.clear();
            for (i, &c) in present.iter().enumerate() {
                if nulls[i / 8] & (1 << (i % 8)) != 0 {
                    values.push(MyValue::NULL);
                    continue;
                }
                let kind = *self.kinds.get(c).ok_or_else(short)?;
                let bytes = data.get(..kind.width()).ok_or_else(short)?;
                data = &data[kind.width()..];
                values.push(
                    kind.read(bytes)
                        .map_err(|m| DbError::new(ErrorCode::GetErrno, m))?,
                );
            }
            row(&values)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_sign_extended_from_their_width() {
        assert_eq!(Kind::Int(1).read(&[0xff]).unwrap(), MyValue::Int(-1));
        assert_eq!(
            Kind::Int(3).read(&[0, 0, 0x80]).unwrap(),
            MyValue::Int(-8_388_608)
        );
        assert_eq!(
            Kind::Int(4).read(&7i32.to_le_bytes()).unwrap(),
            MyValue::Int(7)
        );
        assert_eq!(
            Kind::Int(8).read(&i64::MIN.to_le_bytes()).unwrap(),
            MyValue::Int(i64::MIN)
        );
    }

    #[test]
    fn datetime2_images_are_read_with_their_fraction() {
        // 2026-11-28 10:00:01.5 at two fractional digits: MariaDB's packed form.
        let ymd: u64 = ((2026 * 13 + 11) << 5) | 28;
        let hms: u64 = (10 << 12) | 1;
        let int = (ymd << 17 | hms) + 0x80_0000_0000;
        let mut b = int.to_be_bytes()[3..].to_vec();
        b.push(50);
        assert_eq!(Kind::DateTime2(2).width(), b.len());
        assert_eq!(
            Kind::DateTime2(2).read(&b).unwrap(),
            MyValue::Date(2026, 11, 28, 10, 0, 1, 500_000)
        );
    }
}
