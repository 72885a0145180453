//! Entries split into columns by a layout, and put back together (file-format.md §3.5,
//! "Columns"): the order of a frame's columns, which entry bytes go to which column, and how a
//! decoded frame's columns are written back into keys and values.
//!
//! Columns, in order: per key field, its marker column (values 0 or 1) if it has a marker, then its
//! value column (rows whose marker is 1); for a record value, each head field's column, the bitmap
//! column (an integer column of `ceil(slots/8)` bytes, or a fixed bytes column above 8 bytes), then
//! each slot's column (rows whose bit is clear); for an opaque value, one bytes column.
//!
//! Invariant: [`Split::push`] accepts an entry only if every field parses canonically
//! (layout.rs), so [`Joined::write_row`] writes back exactly its key and value bytes.

use super::bytes::{self, Strings};
use super::layout::{
    parse_field, write_bytes, write_float, write_int, ColumnLayout, FieldClass, FieldKind,
    FieldValue, ValueLayout,
};
use super::{floats, ints};
use crate::encoding::{DecodeError, Decoder};
use std::borrow::Cow;

/// What a column holds and where its values come from.
#[derive(Debug, Clone, Copy)]
enum Spec {
    /// A key field's marker (0 NULL, 1 present).
    Marker,
    /// A field's values.
    Field(FieldKind),
    /// A record's bitmap of absent slots, `bytes` long.
    Bitmap(usize),
}

impl Spec {
    fn class(self) -> FieldClass {
        match self {
            Spec::Marker => FieldClass::Int(1, false),
            Spec::Field(k) => k.class(),
            Spec::Bitmap(b) if b <= 8 => FieldClass::Int(b, false),
            Spec::Bitmap(b) => FieldClass::Bytes(Some(b)),
        }
    }
}

fn specs(layout: &ColumnLayout) -> Vec<Spec> {
    let mut out = Vec::new();
    for f in &layout.key {
        if f.marker {
            out.push(Spec::Marker);
        }
        out.push(Spec::Field(f.kind));
    }
    match &layout.value {
        ValueLayout::Opaque => out.push(Spec::Field(FieldKind::VarBytes)),
        ValueLayout::Record { head, slots } => {
            out.extend(head.iter().map(|&k| Spec::Field(k)));
            if !slots.is_empty() {
                out.push(Spec::Bitmap(slots.len().div_ceil(8)));
            }
            out.extend(slots.iter().map(|&k| Spec::Field(k)));
        }
    }
    out
}

/// A column being filled.
enum Values<'a> {
    Ints(Vec<i64>),
    Floats(Vec<u64>),
    Bytes(Vec<Cow<'a, [u8]>>),
}

/// Entries split into columns.
pub struct Split<'a> {
    layout: &'a ColumnLayout,
    specs: Vec<Spec>,
    columns: Vec<Values<'a>>,
    /// (column, value) pairs of the entry being parsed.
    pending: Vec<(usize, FieldValue<'a>)>,
    /// Entries accepted.
    pub rows: usize,
}

fn owned(v: FieldValue<'_>) -> FieldValue<'static> {
    match v {
        FieldValue::Int(i) => FieldValue::Int(i),
        FieldValue::Float(f) => FieldValue::Float(f),
        FieldValue::Bytes(b) => FieldValue::Owned(b.to_vec()),
        FieldValue::Owned(b) => FieldValue::Owned(b),
    }
}

impl<'a> Split<'a> {
    pub fn new(layout: &'a ColumnLayout) -> Split<'a> {
        let specs = specs(layout);
        let columns = specs
            .iter()
            .map(|s| match s.class() {
                FieldClass::Int(..) => Values::Ints(Vec::new()),
                FieldClass::Float(_) => Values::Floats(Vec::new()),
                FieldClass::Bytes(_) => Values::Bytes(Vec::new()),
            })
            .collect();
        Split {
            layout,
            specs,
            columns,
            pending: Vec::new(),
            rows: 0,
        }
    }

    /// Splits one entry (`key`, plain `value`) into the columns; false (nothing added) if it does
    /// not fit the layout.
    pub fn push(&mut self, key: &'a [u8], value: &'a [u8]) -> bool {
        self.pending.clear();
        if self.parse_key(key).is_none() || self.parse_value(value).is_none() {
            return false;
        }
        for (c, v) in self.pending.drain(..) {
            match (&mut self.columns[c], v) {
                (Values::Ints(col), FieldValue::Int(i)) => col.push(i),
                (Values::Floats(col), FieldValue::Float(f)) => col.push(f),
                (Values::Bytes(col), FieldValue::Bytes(b)) => col.push(Cow::Borrowed(b)),
                (Values::Bytes(col), FieldValue::Owned(b)) => col.push(Cow::Owned(b)),
                _ => unreachable!("a field's value always has its column's class"),
            }
        }
        self.rows += 1;
        true
    }

    fn parse_key(&mut self, key: &'a [u8]) -> Option<()> {
        let mut at = 0;
        let mut col = 0;
        for f in &self.layout.key {
            let rest = &key[at..];
            if f.inverted {
                let flipped: Vec<u8> = rest.iter().map(|b| !b).collect();
                let (values, used) = parse_key_field(f.marker, f.kind, &flipped)?;
                for (i, v) in values.into_iter().enumerate() {
                    self.pending.push((col + i, owned(v)));
                }
                at += used;
            } else {
                let (values, used) = parse_key_field(f.marker, f.kind, rest)?;
                for (i, v) in values.into_iter().enumerate() {
                    self.pending.push((col + i, v));
                }
                at += used;
            }
            col += 1 + usize::from(f.marker);
        }
        (at == key.len()).then_some(())
    }

    fn parse_value(&mut self, value: &'a [u8]) -> Option<()> {
        let mut col = self
            .layout
            .key
            .iter()
            .map(|f| 1 + usize::from(f.marker))
            .sum();
        let ValueLayout::Record { head, slots } = &self.layout.value else {
            self.pending.push((col, FieldValue::Bytes(value)));
            return Some(());
        };
        let mut at = 0;
        for &k in head {
            let (v, used) = parse_field(k, &value[at..])?;
            self.pending.push((col, v));
            at += used;
            col += 1;
        }
        if slots.is_empty() {
            return (at == value.len()).then_some(());
        }
        let nb = slots.len().div_ceil(8);
        let bitmap = value.get(at..at + nb)?;
        let absent = |i: usize| bitmap[i / 8] >> (i % 8) & 1 == 1;
        let spare = nb * 8 - slots.len();
        if spare > 0 && bitmap[nb - 1] >> (8 - spare) != 0 {
            return None;
        }
        self.pending.push((
            col,
            if nb <= 8 {
                let mut b = [0u8; 8];
                b[..nb].copy_from_slice(bitmap);
                FieldValue::Int(i64::from_le_bytes(b))
            } else {
                FieldValue::Bytes(bitmap)
            },
        ));
        at += nb;
        col += 1;
        for (i, &k) in slots.iter().enumerate() {
            if !absent(i) {
                let (v, used) = parse_field(k, &value[at..])?;
                self.pending.push((col + i, v));
                at += used;
            }
        }
        (at == value.len()).then_some(())
    }

    /// Appends every column, in order.
    pub fn write_columns(&self, out: &mut Vec<u8>) {
        for (spec, values) in self.specs.iter().zip(&self.columns) {
            match (spec.class(), values) {
                (FieldClass::Int(w, signed), Values::Ints(v)) => ints::encode(v, w, signed, out),
                (FieldClass::Float(w), Values::Floats(v)) => floats::encode(v, w, out),
                (FieldClass::Bytes(fixed), Values::Bytes(v)) => {
                    let refs: Vec<&[u8]> = v.iter().map(|c| c.as_ref()).collect();
                    bytes::encode(&refs, fixed, out)
                }
                _ => unreachable!("columns are made from their specs"),
            }
        }
    }
}

/// The marker (if any) and value of one key field at the front of `b`.
fn parse_key_field(
    marker: bool,
    kind: FieldKind,
    b: &[u8],
) -> Option<(Vec<FieldValue<'_>>, usize)> {
    let mut out = Vec::with_capacity(2);
    let mut at = 0;
    if marker {
        match b.first()? {
            0 => return Some((vec![FieldValue::Int(0)], 1)),
            1 => out.push(FieldValue::Int(1)),
            _ => return None,
        }
        at = 1;
    }
    let (v, used) = parse_field(kind, &b[at..])?;
    out.push(v);
    Some((out, at + used))
}

/// A decoded column.
enum Column {
    Ints(Vec<i64>),
    Floats(Vec<u64>),
    Bytes(Strings),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Ints(v) => v.len(),
            Column::Floats(v) => v.len(),
            Column::Bytes(s) => s.len(),
        }
    }
}

/// Decoded columns, written back row by row.
pub struct Joined<'l> {
    layout: &'l ColumnLayout,
    columns: Vec<Column>,
    /// Next value of each column.
    next: Vec<usize>,
}

/// Whether a record's slot is absent in a row, by the bitmap column.
fn absent(bitmaps: &Column, row: usize, slot: usize) -> bool {
    match bitmaps {
        Column::Ints(v) => v[row] as u64 >> slot & 1 == 1,
        Column::Bytes(s) => s
            .get(row)
            .get(slot / 8)
            .is_some_and(|b| b >> (slot % 8) & 1 == 1),
        Column::Floats(_) => false,
    }
}

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

impl<'l> Joined<'l> {
    /// Reads the columns of `rows` entries.
    pub fn read(
        layout: &'l ColumnLayout,
        d: &mut Decoder<'_>,
        rows: usize,
    ) -> Result<Joined<'l>, DecodeError> {
        let specs = specs(layout);
        let mut columns: Vec<Column> = Vec::with_capacity(specs.len());
        // How many values the next column holds: all rows, or those a marker or bitmap admits.
        let mut present: Option<Vec<bool>> = None;
        let mut bitmap: Option<usize> = None;
        let mut slot = 0usize;
        for spec in &specs {
            let n = match (spec, &present, bitmap) {
                (Spec::Field(_), Some(p), _) => p.iter().filter(|&&x| x).count(),
                (Spec::Field(_), None, Some(b)) => {
                    let n = (0..rows).filter(|&r| !absent(&columns[b], r, slot)).count();
                    slot += 1;
                    n
                }
                _ => rows,
            };
            let col = match spec.class() {
                FieldClass::Int(w, signed) => Column::Ints(ints::decode(d, n, w, signed)?),
                FieldClass::Float(w) => Column::Floats(floats::decode(d, n, w)?),
                FieldClass::Bytes(fixed) => Column::Bytes(bytes::decode(d, n, fixed)?),
            };
            present = None;
            match (spec, &col) {
                (Spec::Marker, Column::Ints(v)) => {
                    if v.iter().any(|&m| m != 0 && m != 1) {
                        return Err(err("key marker column holds a value other than 0 or 1"));
                    }
                    present = Some(v.iter().map(|&m| m == 1).collect());
                }
                (Spec::Bitmap(_), _) => bitmap = Some(columns.len()),
                _ => {}
            }
            columns.push(col);
        }
        Ok(Joined {
            layout,
            next: vec![0; specs.len()],
            columns,
        })
    }

    fn take_into(
        &mut self,
        c: usize,
        kind: FieldKind,
        out: &mut Vec<u8>,
    ) -> Result<(), DecodeError> {
        let i = self.next[c];
        if i >= self.columns[c].len() {
            return Err(err("a column holds fewer values than its rows need"));
        }
        self.next[c] += 1;
        match &self.columns[c] {
            Column::Ints(v) => write_int(kind, v[i], out),
            Column::Floats(v) => {
                write_float(v[i], if kind == FieldKind::F32Le { 4 } else { 8 }, out)
            }
            Column::Bytes(s) => write_bytes(kind, s.get(i), out),
        }
    }

    fn take_int(&mut self, c: usize) -> Result<i64, DecodeError> {
        let i = self.next[c];
        self.next[c] += 1;
        match &self.columns[c] {
            Column::Ints(v) => v
                .get(i)
                .copied()
                .ok_or_else(|| err("marker column too short")),
            _ => Err(err("marker or bitmap column is not an integer column")),
        }
    }

    /// Writes the next row's key and value to `key` and `value`.
    pub fn write_row(&mut self, key: &mut Vec<u8>, value: &mut Vec<u8>) -> Result<(), DecodeError> {
        let mut c = 0;
        let layout = self.layout;
        for f in &layout.key {
            let start = key.len();
            let mut present = true;
            if f.marker {
                let m = self.take_int(c)?;
                key.push(m as u8);
                present = m == 1;
                c += 1;
            }
            if present {
                self.take_into(c, f.kind, key)?;
            }
            c += 1;
            if f.inverted {
                key[start..].iter_mut().for_each(|b| *b = !*b);
            }
        }
        let ValueLayout::Record { head, slots } = &layout.value else {
            let i = self.next[c];
            self.next[c] += 1;
            return match &self.columns[c] {
                Column::Bytes(s) if i < s.len() => {
                    value.extend_from_slice(s.get(i));
                    Ok(())
                }
                _ => Err(err("value column holds fewer values than its rows")),
            };
        };
        for &k in head {
            self.take_into(c, k, value)?;
            c += 1;
        }
        if slots.is_empty() {
            return Ok(());
        }
        let nb = slots.len().div_ceil(8);
        let row = self.next[c];
        self.next[c] += 1;
        let bitmaps = &self.columns[c];
        if row >= bitmaps.len() {
            return Err(err("bitmap column holds fewer values than its rows"));
        }
        let start = value.len();
        match bitmaps {
            Column::Ints(v) => value.extend_from_slice(&v[row].to_le_bytes()[..nb.min(8)]),
            Column::Bytes(s) => value.extend_from_slice(s.get(row)),
            Column::Floats(_) => return Err(err("bitmap column of floats")),
        }
        let written = &value[start..];
        let spare = nb * 8 - slots.len();
        let high = match bitmaps {
            Column::Ints(v) if nb < 8 => (v[row] as u64) >> (8 * nb),
            _ => 0,
        };
        if written.len() != nb || high != 0 || (spare > 0 && written[nb - 1] >> (8 - spare) != 0) {
            return Err(err("bitmap column value does not fit its slots"));
        }
        c += 1;
        for (i, &k) in slots.iter().enumerate() {
            if !absent(&self.columns[c - 1], row, i) {
                self.take_into(c + i, k, value)?;
            }
        }
        Ok(())
    }

    /// Fails unless every column's values were all written back.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self
            .columns
            .iter()
            .zip(&self.next)
            .any(|(c, &n)| c.len() != n)
        {
            return Err(err("a column holds more values than its rows"));
        }
        Ok(())
    }
}
