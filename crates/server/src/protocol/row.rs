//! Row encodings: ProtocolText::ResultsetRow and ProtocolBinary::ResultsetRow.
//!
//! Invariants: a text row is one length-encoded string per column (0xFB for
//! NULL); a binary row is a 0x00 header, a NULL bitmap with a 2-bit offset
//! (`(n + 9) / 8` bytes) and the non-NULL values encoded by column type.
//! Callers guarantee `values.len() == columns`; encoders do not check.

use super::binary_value::encode_value;
use super::column::ColumnType;
use super::error::SqlError;
use super::value::Value;
use super::wire::{put_lenenc_bytes, NULL_MARKER};

pub fn encode_text_row(out: &mut Vec<u8>, values: &[Value]) {
    for v in values {
        match v {
            Value::Null => out.push(NULL_MARKER),
            Value::Bytes(b) => put_lenenc_bytes(out, b),
            other => put_lenenc_bytes(out, &other.to_text().unwrap_or_default()),
        }
    }
}

pub fn encode_binary_row(
    out: &mut Vec<u8>,
    values: &[Value],
    types: &[ColumnType],
) -> Result<(), SqlError> {
    out.push(0x00);
    let bitmap_at = out.len();
    out.resize(bitmap_at + (values.len() + 9) / 8, 0);
    for (i, (v, ty)) in values.iter().zip(types).enumerate() {
        if v.is_null() {
            let bit = i + 2;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
        } else {
            encode_value(out, v, *ty)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_row() {
        let mut out = Vec::new();
        encode_text_row(&mut out, &[Value::Int(1), Value::Null, Value::from("ab")]);
        assert_eq!(out, [1, b'1', 0xfb, 2, b'a', b'b']);
    }

    #[test]
    fn binary_row_null_bitmap() {
        let mut out = Vec::new();
        let vals = [
            Value::Int(5),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ];
        let types = [ColumnType::LONG; 7];
        encode_binary_row(&mut out, &vals, &types).unwrap();
        // header, 2-byte bitmap (7 columns + 2 offset bits), 4-byte int
        assert_eq!(out, [0, 0b1111_1000, 0b0000_0001, 5, 0, 0, 0]);
    }
}
