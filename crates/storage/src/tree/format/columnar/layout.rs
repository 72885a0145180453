//! The column layout: a neutral description of how a tree's keys and values are built from fields,
//! which the tree's owner hands down (the SQL layer describes its row and key formats with it) and
//! which the columnar frame encoding splits entries by (file-format.md §3.5, "Layout").
//!
//! The storage engine learns nothing of SQL types: only fixed-width integers (little- or
//! big-endian), IEEE floats, fixed or length-prefixed byte strings, varints, memcomparable escaped
//! strings, one-byte NULL markers, inverted (descending) key fields, and a record form for values:
//! head fields, a bitmap of absent slots, then the present slots.
//!
//! Invariants: parsing is canonical: a field is accepted only if writing back what was parsed gives
//! exactly the bytes parsed (minimal varints, zero bitmap padding, escapes as the escaped-string form
//! writes them), so an entry that parses is reproduced bit for bit and any other entry is stored as
//! it is; [`ColumnLayout::decode`] accepts exactly what [`ColumnLayout::encode`] writes and refuses
//! anything else with an error.

use crate::encoding::{varint_len, DecodeError, Decoder, Encode};

/// How one field is laid out in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// An integer of `bytes` (1..=8) bytes, little-endian; `signed`: two's complement.
    IntLe { bytes: u8, signed: bool },
    /// An unsigned integer of `bytes` (1..=8) bytes, big-endian (memcomparable keys).
    UintBe { bytes: u8 },
    /// IEEE 754 binary64, little-endian.
    F64Le,
    /// IEEE 754 binary32, little-endian.
    F32Le,
    /// `bytes` bytes, as they are.
    Fixed { bytes: u16 },
    /// A LEB128 length, then that many bytes.
    VarBytes,
    /// A LEB128 unsigned integer.
    Varint,
    /// Bytes with each 0x00 written as 0x00 0xFF, ended by 0x00 0x01 (memcomparable strings).
    Escaped,
}

/// One field of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyField {
    pub kind: FieldKind,
    /// A one-byte marker precedes the field: 0x00 = NULL (no field follows), 0x01 = a field follows.
    pub marker: bool,
    /// Every byte of the field, marker included, is stored inverted (a descending key part).
    pub inverted: bool,
}

/// How values are laid out.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ValueLayout {
    /// No structure known: each value is one byte string.
    #[default]
    Opaque,
    /// `head` fields, then (when `slots` is not empty) a bitmap of `ceil(slots / 8)` bytes whose bit
    /// i (byte i / 8, least significant bit first) set means slot i is absent, then each present slot
    /// in order. Bits past the last slot are zero.
    Record {
        head: Vec<FieldKind>,
        slots: Vec<FieldKind>,
    },
}

/// How a tree's keys and values are built from fields.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ColumnLayout {
    pub key: Vec<KeyField>,
    pub value: ValueLayout,
}

/// Version of the serialized description.
const DESCRIPTION_VERSION: u8 = 1;
/// Upper bound on fields in a description (the decoder refuses more).
pub const MAX_FIELDS: usize = 4096;

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

impl FieldKind {
    fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            FieldKind::IntLe { bytes, signed } => {
                out.put_u8(1);
                out.put_u8(bytes | if signed { 0x80 } else { 0 });
            }
            FieldKind::UintBe { bytes } => {
                out.put_u8(2);
                out.put_u8(bytes);
            }
            FieldKind::F64Le => out.put_u8(3),
            FieldKind::F32Le => out.put_u8(4),
            FieldKind::Fixed { bytes } => {
                out.put_u8(5);
                out.put_varint(u64::from(bytes));
            }
            FieldKind::VarBytes => out.put_u8(6),
            FieldKind::Varint => out.put_u8(7),
            FieldKind::Escaped => out.put_u8(8),
        }
    }

    fn decode(d: &mut Decoder<'_>) -> Result<FieldKind, DecodeError> {
        let width = |b: u8| -> Result<u8, DecodeError> {
            if (1..=8).contains(&b) {
                Ok(b)
            } else {
                Err(err(format!("integer field of {b} bytes")))
            }
        };
        Ok(match d.u8()? {
            1 => {
                let b = d.u8()?;
                FieldKind::IntLe {
                    bytes: width(b & 0x7f)?,
                    signed: b & 0x80 != 0,
                }
            }
            2 => FieldKind::UintBe {
                bytes: width(d.u8()?)?,
            },
            3 => FieldKind::F64Le,
            4 => FieldKind::F32Le,
            5 => {
                let b = d.varint()?;
                FieldKind::Fixed {
                    bytes: u16::try_from(b)
                        .map_err(|_| err(format!("fixed field of {b} bytes")))?,
                }
            }
            6 => FieldKind::VarBytes,
            7 => FieldKind::Varint,
            8 => FieldKind::Escaped,
            k => return Err(err(format!("unknown field kind {k}"))),
        })
    }

    /// Whether the field is stored as an integer column (and its width there), a float column, or
    /// a bytes column.
    pub(super) fn class(&self) -> FieldClass {
        match *self {
            FieldKind::IntLe { bytes, signed } => FieldClass::Int(bytes as usize, signed),
            FieldKind::UintBe { bytes } => FieldClass::Int(bytes as usize, false),
            FieldKind::Varint => FieldClass::Int(8, false),
            FieldKind::F64Le => FieldClass::Float(8),
            FieldKind::F32Le => FieldClass::Float(4),
            FieldKind::Fixed { bytes } => FieldClass::Bytes(Some(bytes as usize)),
            FieldKind::VarBytes | FieldKind::Escaped => FieldClass::Bytes(None),
        }
    }
}

/// The kind of column a field's values go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FieldClass {
    /// Integer column of this width in bytes, of sign-extended values if signed.
    Int(usize, bool),
    /// Float column of this width in bytes.
    Float(usize),
    /// Bytes column, of a fixed length if given.
    Bytes(Option<usize>),
}

/// A field's value, as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FieldValue<'a> {
    Int(i64),
    Float(u64),
    Bytes(&'a [u8]),
    /// An escaped string's content (unescaped).
    Owned(Vec<u8>),
}

fn sign_extend(v: u64, bytes: u8) -> i64 {
    let shift = 64 - 8 * u32::from(bytes);
    ((v << shift) as i64) >> shift
}

/// Parses one field from the front of `b`; returns its value and the bytes it took, or None if the
/// bytes are not a canonical field of this kind.
pub(super) fn parse_field(kind: FieldKind, b: &[u8]) -> Option<(FieldValue<'_>, usize)> {
    match kind {
        FieldKind::IntLe { bytes, signed } => {
            let n = bytes as usize;
            let raw = b.get(..n)?;
            let mut x = [0u8; 8];
            x[..n].copy_from_slice(raw);
            let v = u64::from_le_bytes(x);
            let v = if signed {
                sign_extend(v, bytes)
            } else {
                v as i64
            };
            Some((FieldValue::Int(v), n))
        }
        FieldKind::UintBe { bytes } => {
            let n = bytes as usize;
            let raw = b.get(..n)?;
            let v = raw.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x));
            Some((FieldValue::Int(v as i64), n))
        }
        FieldKind::F64Le => Some((
            FieldValue::Float(u64::from_le_bytes(b.get(..8)?.try_into().ok()?)),
            8,
        )),
        FieldKind::F32Le => Some((
            FieldValue::Float(u64::from(u32::from_le_bytes(b.get(..4)?.try_into().ok()?))),
            4,
        )),
        FieldKind::Fixed { bytes } => {
            let n = bytes as usize;
            Some((FieldValue::Bytes(b.get(..n)?), n))
        }
        FieldKind::VarBytes => {
            let mut d = Decoder::new(b);
            let v = d.bytes().ok()?;
            (d.position() - v.len() == varint_len(v.len() as u64))
                .then_some((FieldValue::Bytes(v), d.position()))
        }
        FieldKind::Varint => {
            let mut d = Decoder::new(b);
            let v = d.varint().ok()?;
            (d.position() == varint_len(v)).then_some((FieldValue::Int(v as i64), d.position()))
        }
        FieldKind::Escaped => parse_escaped(b),
    }
}

fn parse_escaped(b: &[u8]) -> Option<(FieldValue<'_>, usize)> {
    // Most strings hold no 0x00: borrow them.
    let zero = b.iter().position(|&x| x == 0)?;
    if b.get(zero + 1) == Some(&0x01) {
        return Some((FieldValue::Bytes(&b[..zero]), zero + 2));
    }
    let mut out = b[..zero].to_vec();
    let mut i = zero;
    loop {
        match (b.get(i), b.get(i + 1)) {
            (Some(0), Some(0xFF)) => {
                out.push(0);
                i += 2;
            }
            (Some(0), Some(0x01)) => return Some((FieldValue::Owned(out), i + 2)),
            (Some(0), _) | (None, _) => return None,
            (Some(&x), _) => {
                out.push(x);
                i += 1;
            }
        }
    }
}

/// Appends the bytes of one field of `kind` holding an integer `v`.
pub(super) fn write_int(kind: FieldKind, v: i64, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    match kind {
        FieldKind::IntLe { bytes, signed } => {
            let n = bytes as usize;
            let fits = if n == 8 {
                true
            } else if signed {
                sign_extend(v as u64, bytes) == v
            } else {
                (v as u64) >> (8 * n) == 0
            };
            if !fits {
                return Err(err(format!("integer {v} wider than its {n}-byte field")));
            }
            out.extend_from_slice(&v.to_le_bytes()[..n]);
        }
        FieldKind::UintBe { bytes } => {
            let n = bytes as usize;
            if n < 8 && (v as u64) >> (8 * n) != 0 {
                return Err(err(format!(
                    "integer {v} wider than its {n}-byte key field"
                )));
            }
            out.extend_from_slice(&(v as u64).to_be_bytes()[8 - n..]);
        }
        FieldKind::Varint => out.put_varint(v as u64),
        _ => return Err(err("integer column for a field that is not an integer")),
    }
    Ok(())
}

/// Appends the bytes of one float field of `width` bytes with `bits`.
pub(super) fn write_float(bits: u64, width: usize, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    if width == 4 && bits >> 32 != 0 {
        return Err(err("float32 column value wider than 32 bits"));
    }
    out.extend_from_slice(&bits.to_le_bytes()[..width]);
    Ok(())
}

/// Appends the bytes of one bytes field of `kind` holding `v`.
pub(super) fn write_bytes(kind: FieldKind, v: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    match kind {
        FieldKind::Fixed { bytes } if v.len() == bytes as usize => out.extend_from_slice(v),
        FieldKind::VarBytes => out.put_bytes(v),
        FieldKind::Escaped => {
            for &x in v {
                out.push(x);
                if x == 0 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0x00, 0x01]);
        }
        _ => return Err(err("bytes column value does not fit its field")),
    }
    Ok(())
}

impl ColumnLayout {
    /// The serialized description (stored in each columnar frame).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![DESCRIPTION_VERSION];
        out.put_varint(self.key.len() as u64);
        for f in &self.key {
            out.put_u8(u8::from(f.marker) | u8::from(f.inverted) << 1);
            f.kind.encode(&mut out);
        }
        match &self.value {
            ValueLayout::Opaque => out.put_u8(0),
            ValueLayout::Record { head, slots } => {
                out.put_u8(1);
                for list in [head, slots] {
                    out.put_varint(list.len() as u64);
                    for k in list {
                        k.encode(&mut out);
                    }
                }
            }
        }
        out
    }

    /// Reads a description written by [`ColumnLayout::encode`].
    pub fn decode(raw: &[u8]) -> Result<ColumnLayout, DecodeError> {
        let mut d = Decoder::new(raw);
        let v = d.u8()?;
        if v != DESCRIPTION_VERSION {
            return Err(err(format!("layout description version {v}")));
        }
        let count = |d: &mut Decoder<'_>| -> Result<usize, DecodeError> {
            let n = d.varint()?;
            if n > MAX_FIELDS as u64 || n > d.remaining() as u64 {
                return Err(err(format!("layout of {n} fields")));
            }
            Ok(n as usize)
        };
        let nkey = count(&mut d)?;
        let mut key = Vec::with_capacity(nkey);
        for _ in 0..nkey {
            let flags = d.u8()?;
            if flags > 3 {
                return Err(err(format!("key field flags {flags}")));
            }
            key.push(KeyField {
                marker: flags & 1 != 0,
                inverted: flags & 2 != 0,
                kind: FieldKind::decode(&mut d)?,
            });
        }
        let value = match d.u8()? {
            0 => ValueLayout::Opaque,
            1 => {
                let mut lists = [Vec::new(), Vec::new()];
                for list in &mut lists {
                    let n = count(&mut d)?;
                    for _ in 0..n {
                        list.push(FieldKind::decode(&mut d)?);
                    }
                }
                let [head, slots] = lists;
                ValueLayout::Record { head, slots }
            }
            k => return Err(err(format!("unknown value layout {k}"))),
        };
        d.finish()?;
        Ok(ColumnLayout { key, value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> ColumnLayout {
        ColumnLayout {
            key: vec![
                KeyField {
                    kind: FieldKind::UintBe { bytes: 4 },
                    marker: true,
                    inverted: false,
                },
                KeyField {
                    kind: FieldKind::Escaped,
                    marker: true,
                    inverted: true,
                },
            ],
            value: ValueLayout::Record {
                head: vec![
                    FieldKind::IntLe {
                        bytes: 1,
                        signed: false,
                    },
                    FieldKind::Varint,
                ],
                slots: vec![
                    FieldKind::IntLe {
                        bytes: 5,
                        signed: true,
                    },
                    FieldKind::F64Le,
                    FieldKind::F32Le,
                    FieldKind::Fixed { bytes: 16 },
                    FieldKind::VarBytes,
                ],
            },
        }
    }

    #[test]
    fn descriptions_round_trip_and_damage_is_refused() {
        for l in [sample(), ColumnLayout::default()] {
            let raw = l.encode();
            assert_eq!(ColumnLayout::decode(&raw).unwrap(), l);
            for cut in 0..raw.len() {
                assert!(ColumnLayout::decode(&raw[..cut]).is_err());
            }
            let mut long = raw.clone();
            long.push(0);
            assert!(ColumnLayout::decode(&long).is_err());
        }
    }

    #[test]
    fn fields_parse_canonically_and_write_back_the_same_bytes() {
        let cases: Vec<(FieldKind, Vec<u8>)> = vec![
            (
                FieldKind::IntLe {
                    bytes: 3,
                    signed: true,
                },
                vec![0xff, 0xff, 0xff],
            ),
            (
                FieldKind::IntLe {
                    bytes: 8,
                    signed: false,
                },
                vec![0xff; 8],
            ),
            (FieldKind::UintBe { bytes: 5 }, vec![0x80, 0, 0, 0, 1]),
            (FieldKind::Varint, vec![0x80, 0x01]),
            (FieldKind::VarBytes, vec![2, b'h', b'i']),
            (FieldKind::Escaped, vec![b'a', 0, 0xFF, b'b', 0, 1]),
            (FieldKind::Escaped, vec![0, 1]),
            (FieldKind::Fixed { bytes: 2 }, vec![9, 9]),
        ];
        for (kind, bytes) in cases {
            let mut input = bytes.clone();
            input.extend_from_slice(b"tail");
            let (v, used) = parse_field(kind, &input).unwrap();
            assert_eq!(used, bytes.len(), "{kind:?}");
            let mut out = Vec::new();
            match v {
                FieldValue::Int(i) => write_int(kind, i, &mut out).unwrap(),
                FieldValue::Float(b) => write_float(b, 8, &mut out).unwrap(),
                FieldValue::Bytes(b) => write_bytes(kind, b, &mut out).unwrap(),
                FieldValue::Owned(b) => write_bytes(kind, &b, &mut out).unwrap(),
            }
            assert_eq!(out, bytes, "{kind:?}");
        }
        // Not canonical, or not the kind at all.
        assert!(parse_field(FieldKind::Varint, &[0x81, 0x00]).is_none());
        assert!(parse_field(FieldKind::VarBytes, &[0x82, 0x00, 1, 2]).is_none());
        assert!(parse_field(FieldKind::Escaped, &[b'a', 0, 7]).is_none());
        assert!(parse_field(FieldKind::Escaped, b"abc").is_none());
        assert!(parse_field(FieldKind::F64Le, &[1, 2, 3]).is_none());
        let mut out = Vec::new();
        assert!(write_int(FieldKind::UintBe { bytes: 1 }, 256, &mut out).is_err());
        assert!(write_int(
            FieldKind::IntLe {
                bytes: 2,
                signed: true
            },
            40_000,
            &mut out
        )
        .is_err());
    }
}
