//! The catalog's text of a row layout: the `rows=` pair of a table entry's header line
//! (docs/file-format.md §9), [`RowLayout::to_text`] and [`RowLayout::from_text`].
//!
//! ```text
//! <version>;<slot>,<slot>,...[;<upto>:<kind>,<kind>,...]...
//! slot: <column>[@n | @<hex of the absent value's slot bytes>]  or  -<kind> (dropped)
//! kind: i<w> u<w> (little-endian integers), s d (binary32/64), f<w> (fixed bytes), v (length + bytes)
//! ```
//!
//! Invariants: the text has no space or newline (it is one `key=value` of the header line); reading
//! checks everything (every column in exactly one live slot, kinds and widths, ascending history
//! below the version, each absent value decoding to exactly its bytes) and a violation is
//! [`SqlError::CorruptRow`], never a guess.

use std::fmt::Write;

use betula_storage::FieldKind;

use super::decode::{decode_value, Reader};
use super::encode::encode_value;
use super::{RowLayout, RowSlot};
use crate::error::sql_error::SqlError;
use crate::types::value::Value;
use crate::types::Column;

fn bad(what: impl std::fmt::Display) -> SqlError {
    SqlError::CorruptRow(format!("row layout in the catalog: {what}"))
}

fn kind_text(k: FieldKind) -> String {
    match k {
        FieldKind::IntLe {
            bytes,
            signed: true,
        } => format!("i{bytes}"),
        FieldKind::IntLe {
            bytes,
            signed: false,
        } => format!("u{bytes}"),
        FieldKind::F32Le => "s".into(),
        FieldKind::F64Le => "d".into(),
        FieldKind::Fixed { bytes } => format!("f{bytes}"),
        // rows hold no other kind (codec/layout.rs row_kind)
        _ => "v".into(),
    }
}

fn parse_kind(t: &str) -> Result<FieldKind, SqlError> {
    let width = |max: u16| -> Result<u16, SqlError> {
        t[1..]
            .parse::<u16>()
            .ok()
            .filter(|w| (1..=max).contains(w))
            .ok_or_else(|| bad(format!("kind {t}")))
    };
    Ok(match t.as_bytes().first() {
        Some(b'i') | Some(b'u') => FieldKind::IntLe {
            bytes: width(8)? as u8,
            signed: t.starts_with('i'),
        },
        Some(b's') if t.len() == 1 => FieldKind::F32Le,
        Some(b'd') if t.len() == 1 => FieldKind::F64Le,
        Some(b'f') => FieldKind::Fixed { bytes: width(64)? },
        Some(b'v') if t.len() == 1 => FieldKind::VarBytes,
        _ => return Err(bad(format!("kind {t}"))),
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(t: &str) -> Result<Vec<u8>, SqlError> {
    if t.len() % 2 != 0 || !t.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(bad(format!("absent value {t}")));
    }
    (0..t.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&t[i..i + 2], 16).map_err(|_| bad(t)))
        .collect()
}

impl RowLayout {
    /// The layout's `rows=` value (file-format.md §9).
    pub fn to_text(&self) -> Result<String, SqlError> {
        let mut out = format!("{};", self.schema_version);
        for (i, s) in self.slots.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let (Some(c), Some(at)) = (&s.column, self.col_of[i]) else {
                out.push('-');
                out.push_str(&kind_text(s.kind));
                continue;
            };
            let _ = write!(out, "{at}");
            match &s.absent {
                None => {}
                Some(Value::Null) => out.push_str("@n"),
                Some(v) => {
                    let mut bytes = Vec::new();
                    encode_value(c, v, &mut bytes)?;
                    out.push('@');
                    out.push_str(&hex(&bytes));
                }
            }
        }
        for (upto, kinds) in &self.history {
            let kinds: Vec<String> = kinds.iter().map(|k| kind_text(*k)).collect();
            let _ = write!(out, ";{upto}:{}", kinds.join(","));
        }
        Ok(out)
    }

    /// The layout of a table whose columns are `columns` (in the CREATE TABLE text's order) from
    /// its `rows=` value.
    pub fn from_text(columns: &[Column], text: &str) -> Result<RowLayout, SqlError> {
        let mut parts = text.split(';');
        let version: u32 = parts
            .next()
            .and_then(|v| v.parse().ok())
            .filter(|&v| v >= 1)
            .ok_or_else(|| bad("version"))?;
        let slot_text = parts.next().ok_or_else(|| bad("no slots"))?;
        let mut slots = Vec::new();
        let mut order = vec![usize::MAX; columns.len()];
        for (s, t) in slot_text.split(',').enumerate() {
            if let Some(k) = t.strip_prefix('-') {
                let kind = parse_kind(k)?;
                slots.push(RowSlot {
                    column: None,
                    kind,
                    absent: None,
                });
                continue;
            }
            let (at, absent) = match t.split_once('@') {
                Some((at, a)) => (at, Some(a)),
                None => (t, None),
            };
            let at: usize = at.parse().map_err(|_| bad(format!("slot {t}")))?;
            let c = columns.get(at).ok_or_else(|| bad(format!("slot {t}")))?;
            if order[at] != usize::MAX {
                return Err(bad(format!("column {at} in two slots")));
            }
            order[at] = s;
            let absent = absent.map(|a| absent_value(c, a)).transpose()?;
            slots.push(RowSlot::live(c.clone(), absent));
        }
        if order.contains(&usize::MAX) {
            return Err(bad("a column has no slot"));
        }
        let mut history: Vec<(u32, Vec<FieldKind>)> = Vec::new();
        for h in parts {
            let (upto, kinds) = h.split_once(':').ok_or_else(|| bad(h))?;
            let upto: u32 = upto.parse().map_err(|_| bad(h))?;
            let after = history.last().map_or(0, |(u, _)| *u);
            let kinds = kinds
                .split(',')
                .map(parse_kind)
                .collect::<Result<Vec<_>, _>>()?;
            if upto >= version || upto <= after || kinds.len() > slots.len() {
                return Err(bad(h));
            }
            history.push((upto, kinds));
        }
        Ok(RowLayout::from_parts(version, slots, order, history))
    }
}

/// A slot's absent value from its text: `n` or the hex of its slot bytes.
fn absent_value(c: &Column, text: &str) -> Result<Value, SqlError> {
    if text == "n" {
        return Ok(Value::Null);
    }
    let bytes = unhex(text)?;
    let mut r = Reader {
        buf: &bytes,
        pos: 0,
    };
    let v = decode_value(c, &mut r)?;
    if r.pos != bytes.len() {
        return Err(bad(format!("absent value {text}")));
    }
    Ok(v)
}
