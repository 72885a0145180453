//! Running the common accumulating upsert programs on the stored row's bytes ([`InPlace`]):
//! `c = c + VALUES(c)` and the roll-ups' SUM / MIN / MAX merges (exec/rollup/fold.rs) on
//! signed integer and plain DOUBLE columns of a row whose slots are all fixed-width. The new
//! value is written over the old one's bytes; nothing is decoded, evaluated or encoded.
//!
//! Invariants (design.md INS9): a step gives the bytes the general path (decode, evaluate, coerce, encode; apply.rs)
//! would give, or declines (`None`) and the general path runs the whole program: it declines on
//! any NULL it would have to add or remove, an integer result outside the column's range, a
//! DOUBLE result that is not finite, a row of another schema version or slot count, and any
//! length that does not add up. A DOUBLE zero is written as +0.0, as the general path stores it.

use std::cmp::Ordering;

use crate::codec::layout::row_kind;
use crate::codec::row::ROW_FORMAT_V1;
use crate::expr::{BinOp, Expr};
use crate::types::{Column, SqlType};
use betula_storage::FieldKind;

use super::Assignment;

/// A program every step of which runs on the row's bytes, with the row shape it needs.
#[derive(Debug)]
pub(super) struct InPlace {
    schema: u32,
    /// The byte width of each slot (every slot is fixed-width).
    widths: Vec<usize>,
    steps: Vec<Step>,
}

#[derive(Debug)]
struct Step {
    slot: usize,
    op: Op,
    num: Num,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    /// `c + VALUES(c)`: NULL if either is NULL.
    Add,
    /// `CASE WHEN VALUES(c) IS NULL THEN c WHEN c IS NULL THEN VALUES(c) ELSE c + VALUES(c) END`.
    Sum,
    /// The MIN (`Lt`) / MAX (`Gt`) merge: the new value when it is non-NULL and beyond the old.
    Keep(Ordering),
}

#[derive(Clone, Copy, Debug)]
enum Num {
    /// A signed integer of this many bytes (1, 2, 3, 4 or 8) and its column's range.
    Int(usize, i64, i64),
    Double,
}

impl InPlace {
    /// The in-place form of `program` over `columns` (schema version `schema`), if it has one.
    pub(super) fn of(schema: u32, columns: &[Column], program: &[Assignment]) -> Option<InPlace> {
        let widths = columns
            .iter()
            .map(|c| match row_kind(c.sql_type) {
                FieldKind::IntLe { bytes, .. } => Some(bytes as usize),
                FieldKind::F64Le => Some(8),
                FieldKind::F32Le => Some(4),
                FieldKind::Fixed { bytes } => Some(bytes as usize),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>()?;
        let steps = program
            .iter()
            .map(|(col, e)| {
                Some(Step {
                    slot: *col,
                    op: op_of(*col, e)?,
                    num: num_of(&columns.get(*col)?.sql_type)?,
                })
            })
            .collect::<Option<Vec<Step>>>()?;
        (!steps.is_empty()).then_some(InPlace {
            schema,
            widths,
            steps,
        })
    }

    /// `old` with the program run on it against `insert_row`, or `None` to decline.
    pub(super) fn run(&self, insert_row: &[u8], old: &[u8]) -> Option<Vec<u8>> {
        let new = Shape::read(self, insert_row)?;
        let cur = Shape::read(self, old)?;
        let mut out = old.to_vec();
        for s in &self.steps {
            let (o, n) = match (cur.at(s.slot), new.at(s.slot)) {
                (Some(o), Some(n)) => (o, Some(n)),
                // A NULL on the message's side leaves the old value (SUM, MIN, MAX), stored again.
                (Some(o), None) if s.op != Op::Add => (o, None),
                _ => return None,
            };
            let w = s.num.width();
            let bytes = match n {
                Some(n) => s.num.merge(s.op, &out[o..o + w], &insert_row[n..n + w])?,
                None => s
                    .num
                    .merge(Op::Keep(Ordering::Equal), &out[o..o + w], &out[o..o + w])?,
            };
            out[o..o + w].copy_from_slice(&bytes[..w]);
        }
        Some(out)
    }
}

/// The operation of assignment `col = e`, if it is one of the accumulating forms.
fn op_of(col: usize, e: &Expr) -> Option<Op> {
    let old = |e: &Expr| matches!(e, Expr::Col(c) if *c == col);
    let new = |e: &Expr| matches!(e, Expr::InsertValue(c) if *c == col);
    let add = |e: &Expr| {
        matches!(e, Expr::Binary(BinOp::Add, a, b, _)
            if (old(a) && new(b)) || (new(a) && old(b)))
    };
    let null =
        |e: &Expr, side: &dyn Fn(&Expr) -> bool| matches!(e, Expr::IsNull(a, false) if side(a));
    if add(e) {
        return Some(Op::Add);
    }
    let Expr::Case(None, whens, Some(otherwise), _) = e else {
        return None;
    };
    let nulls_first = whens.len() >= 2
        && null(&whens[0].0, &new)
        && old(&whens[0].1)
        && null(&whens[1].0, &old)
        && new(&whens[1].1);
    if !nulls_first {
        return None;
    }
    match &whens[2..] {
        [] if add(otherwise) => Some(Op::Sum),
        [(Expr::Binary(cmp, a, b, _), then)] if new(a) && old(b) && new(then) && old(otherwise) => {
            match cmp {
                BinOp::Lt => Some(Op::Keep(Ordering::Less)),
                BinOp::Gt => Some(Op::Keep(Ordering::Greater)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// How a column's values are merged in place, if they can be.
fn num_of(t: &SqlType) -> Option<Num> {
    match *t {
        SqlType::Int {
            width,
            unsigned: false,
        } => {
            let w = width.bytes();
            let bits = 8 * w as u32;
            let (lo, hi) = if w == 8 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            };
            Some(Num::Int(w, lo, hi))
        }
        SqlType::Double {
            digits: None,
            unsigned: false,
        } => Some(Num::Double),
        _ => None,
    }
}

impl Num {
    fn width(self) -> usize {
        match self {
            Num::Int(w, ..) => w,
            Num::Double => 8,
        }
    }

    /// The merged value's bytes (8, of which the first `width` count), or `None` to decline.
    fn merge(self, op: Op, old: &[u8], new: &[u8]) -> Option<[u8; 8]> {
        match self {
            Num::Int(w, lo, hi) => {
                let (o, n) = (int_at(old, w)?, int_at(new, w)?);
                let v = match op {
                    Op::Add | Op::Sum => o.checked_add(n).filter(|v| (lo..=hi).contains(v))?,
                    Op::Keep(ord) => {
                        if n.cmp(&o) == ord {
                            n
                        } else {
                            o
                        }
                    }
                };
                Some(v.to_le_bytes())
            }
            Num::Double => {
                let o = f64::from_le_bytes(old.get(..8)?.try_into().ok()?);
                let n = f64::from_le_bytes(new.get(..8)?.try_into().ok()?);
                let v = match op {
                    Op::Add | Op::Sum => Some(o + n).filter(|v| v.is_finite())?,
                    Op::Keep(ord) => {
                        if n.partial_cmp(&o)? == ord {
                            n
                        } else {
                            o
                        }
                    }
                };
                // The general path stores a zero as +0.0.
                let v = if v == 0.0 { 0.0 } else { v };
                Some(v.to_le_bytes())
            }
        }
    }
}

/// The sign-extended integer of the first `w` bytes of `b`.
fn int_at(b: &[u8], w: usize) -> Option<i64> {
    let mut buf = [0u8; 8];
    buf[..w].copy_from_slice(b.get(..w)?);
    let shift = 64 - 8 * w as u32;
    Some(i64::from_le_bytes(buf) << shift >> shift)
}

/// Where each non-NULL slot of one row starts.
struct Shape {
    starts: Vec<Option<usize>>,
}

impl Shape {
    /// The slot positions of `row`, if it has the program's schema version and slot count and
    /// its length adds up.
    fn read(p: &InPlace, row: &[u8]) -> Option<Shape> {
        let mut pos = 0;
        if *row.first()? != ROW_FORMAT_V1 {
            return None;
        }
        pos += 1;
        let schema = leb128(row, &mut pos)?;
        let n = leb128(row, &mut pos)? as usize;
        if schema != u64::from(p.schema) || n != p.widths.len() {
            return None;
        }
        let bitmap = row.get(pos..pos + n.div_ceil(8))?;
        pos += bitmap.len();
        let mut starts = Vec::with_capacity(n);
        for (i, w) in p.widths.iter().enumerate() {
            if bitmap[i / 8] >> (i % 8) & 1 == 1 {
                starts.push(None);
            } else {
                starts.push(Some(pos));
                pos += w;
            }
        }
        (pos == row.len()).then_some(Shape { starts })
    }

    fn at(&self, slot: usize) -> Option<usize> {
        self.starts.get(slot).copied().flatten()
    }
}

/// A LEB128 integer of at most 5 bytes at `*pos`.
fn leb128(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..35).step_by(7) {
        let x = *b.get(*pos)?;
        *pos += 1;
        v |= u64::from(x & 0x7f) << shift;
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}
