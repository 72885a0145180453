//! Column types in an upsert argument: a tag byte and its parameters (layout in mod.rs).
//!
//! Invariant: tags are never renumbered; new types take new tags, so a message written by an
//! older version decodes the same.

use super::wire::{put_varint, Rd};
use crate::types::{Column, IntWidth, LobSize, SqlType};

/// The tag of a TEXT/BLOB size.
fn lob(l: LobSize) -> u8 {
    match l {
        LobSize::Tiny => 0,
        LobSize::Regular => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    }
}
/// The TEXT/BLOB size of a tag.
fn lob_of(b: u8) -> Option<LobSize> {
    Some(match b {
        0 => LobSize::Tiny,
        1 => LobSize::Regular,
        2 => LobSize::Medium,
        3 => LobSize::Long,
        _ => return None,
    })
}
/// Integer widths by tag.
const WIDTHS: [IntWidth; 5] = [
    IntWidth::Tiny,
    IntWidth::Small,
    IntWidth::Medium,
    IntWidth::Int,
    IntWidth::Big,
];

/// Appends the type of column `c` (with an ENUM's or SET's members).
pub(super) fn put_type(out: &mut Vec<u8>, c: &Column) {
    match c.sql_type {
        SqlType::Int { width, unsigned } => {
            out.push(0);
            out.push(WIDTHS.iter().position(|w| *w == width).unwrap_or(4) as u8);
            out.push(unsigned as u8);
        }
        SqlType::Float {
            digits: None,
            unsigned: false,
        } => out.push(1),
        SqlType::Double {
            digits: None,
            unsigned: false,
        } => out.push(2),
        SqlType::Float { digits, unsigned } | SqlType::Double { digits, unsigned } => {
            let tag = if matches!(c.sql_type, SqlType::Float { .. }) {
                18
            } else {
                19
            };
            let (m, d) = digits.unwrap_or((0, 0));
            let flags = digits.is_some() as u8 | (unsigned as u8) << 1;
            out.extend([tag, flags, m, d]);
        }
        SqlType::Decimal {
            precision,
            scale,
            unsigned,
        } => out.extend([if unsigned { 20 } else { 3 }, precision, scale]),
        SqlType::Char { len } => {
            out.push(4);
            put_varint(out, len as u64)
        }
        SqlType::VarChar { len } => {
            out.push(5);
            put_varint(out, len as u64)
        }
        SqlType::Text(l) => out.extend([6, lob(l)]),
        SqlType::Binary { len } => {
            out.push(7);
            put_varint(out, len as u64)
        }
        SqlType::VarBinary { len } => {
            out.push(8);
            put_varint(out, len as u64)
        }
        SqlType::Blob(l) => out.extend([9, lob(l)]),
        SqlType::Date => out.push(10),
        SqlType::DateTime { fsp } => out.extend([11, fsp]),
        SqlType::Timestamp { fsp } => out.extend([12, fsp]),
        SqlType::Time { fsp } => out.extend([13, fsp]),
        SqlType::Year => out.push(14),
        SqlType::Enum { .. } | SqlType::Set { .. } => {
            out.push(if matches!(c.sql_type, SqlType::Enum { .. }) {
                15
            } else {
                16
            });
            put_varint(out, c.members.len() as u64);
            for m in c.members.iter() {
                put_varint(out, m.len() as u64);
                out.extend_from_slice(m.as_bytes());
            }
        }
        SqlType::Bit { len } => out.extend([17, len]),
    }
}

/// The members of an ENUM (tag 15) or SET (tag 16) written by [`put_type`].
fn read_members(r: &mut Rd<'_>, max: usize) -> Option<Vec<String>> {
    let n = r.varint()? as usize;
    if n > max {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let len = r.varint()? as usize;
        out.push(String::from_utf8(r.take(len)?.to_vec()).ok()?);
    }
    Some(out)
}

/// Reads a type written by [`put_type`]: the type and its members (empty for other types).
pub(super) fn read_type(r: &mut Rd<'_>) -> Option<(SqlType, Vec<String>)> {
    Some((
        match r.u8()? {
            0 => SqlType::Int {
                width: *WIDTHS.get(r.u8()? as usize)?,
                unsigned: r.u8()? != 0,
            },
            1 => SqlType::FLOAT,
            2 => SqlType::DOUBLE,
            3 => SqlType::decimal(r.u8()?, r.u8()?),
            4 => SqlType::Char {
                len: r.varint()? as u32,
            },
            5 => SqlType::VarChar {
                len: r.varint()? as u32,
            },
            6 => SqlType::Text(lob_of(r.u8()?)?),
            7 => SqlType::Binary {
                len: r.varint()? as u32,
            },
            8 => SqlType::VarBinary {
                len: r.varint()? as u32,
            },
            9 => SqlType::Blob(lob_of(r.u8()?)?),
            10 => SqlType::Date,
            11 => SqlType::DateTime { fsp: r.u8()? },
            12 => SqlType::Timestamp { fsp: r.u8()? },
            13 => SqlType::Time { fsp: r.u8()? },
            14 => SqlType::Year,
            15 => {
                let m = read_members(r, 65_535)?;
                return Some((
                    SqlType::Enum {
                        count: m.len() as u16,
                    },
                    m,
                ));
            }
            16 => {
                let m = read_members(r, 64)?;
                return Some((
                    SqlType::Set {
                        count: m.len() as u8,
                    },
                    m,
                ));
            }
            17 => match r.u8()? {
                len @ 1..=64 => SqlType::Bit { len },
                _ => return None,
            },
            tag @ (18 | 19) => {
                let (flags, m, d) = (r.u8()?, r.u8()?, r.u8()?);
                let digits = (flags & 1 != 0).then_some((m, d));
                let unsigned = flags & 2 != 0;
                if tag == 18 {
                    SqlType::Float { digits, unsigned }
                } else {
                    SqlType::Double { digits, unsigned }
                }
            }
            20 => SqlType::Decimal {
                precision: r.u8()?,
                scale: r.u8()?,
                unsigned: true,
            },
            _ => return None,
        },
        Vec::new(),
    ))
}
