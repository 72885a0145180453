//! Blind INSERT ... ON DUPLICATE KEY UPDATE: the upsert program, its byte encoding, and
//! [`apply`], the function registered in the storage engine's `UpdateRegistry`.
//!
//! The argument of one upsert message is self-contained (recovery re-runs it without the
//! catalog):
//! ```text
//! u8 version (1)
//! varint schema version; varint n; n × (column type, u8 nullable, u8 collation)
//! varint len + encoded row to insert when the key is absent
//! varint m; m × (varint column, expression)
//! ```
//! A collation is its index in `COLLATIONS` (0 binary, 1 utf8mb4_bin, 2 utf8mb4_general_ci,
//! 3 utf8mb4_0900_ai_ci, 4 utf8mb4_0900_bin; appended with character sets: 5 utf8mb4_unicode_ci,
//! 6 utf8mb3_general_ci, 7 utf8mb3_bin, 8 utf8mb3_unicode_ci, 9 latin1_swedish_ci,
//! 10 latin1_general_ci, 11 latin1_general_cs, 12 latin1_bin, 13 ascii_general_ci, 14 ascii_bin).
//! A column type is a tag byte and its parameters; ENUM (15) and SET (16) carry their members
//! (varint count, then varint length + UTF-8 each), BIT (17) its length. FLOAT (1) and DOUBLE (2)
//! are the plain signed types; FLOAT(M,D) / DOUBLE(M,D) / UNSIGNED are 18 / 19 followed by
//! `u8 flags (1 = has M,D; 2 = unsigned), u8 M, u8 D`; DECIMAL UNSIGNED is 20 with `u8 p, u8 s`
//! (DECIMAL is 3). A DECIMAL value (tag 5) is an i128 mantissa; one beyond i128 (more than 38
//! digits) is tag 11 with 32 bytes of two's complement, then the scale.
//! Expressions use a subset of [`Expr`]: literals, the old row's columns (`Col`), the inserted
//! row's columns (`InsertValue`, i.e. `VALUES(col)`), unary/binary operators, IS NULL, CASE,
//! CAST and deterministic scalar functions. Assignments run left to right, each seeing the
//! previous ones, and results are coerced to the column type non-strictly (a blind upsert cannot
//! report an error; out-of-range values clamp as in non-strict mode — documented divergence).
//! Invariants: [`apply`] never panics and is deterministic; on undecodable input it keeps the
//! old row unchanged.

use crate::codec::row::{decode_row, encode_row, RowLayout};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{BinOp, CastTo, Expr, UnOp};
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::collation::Collation;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;
use crate::types::{Column, IntWidth, LobSize, SqlType};

/// One assignment: column index and expression.
pub type Assignment = (usize, Expr);

/// Collation numbers in an encoded upsert argument (sql-encoding.md): never reordered, new
/// collations appended.
const COLLATIONS: [Collation; 15] = [
    Collation::Binary,
    Collation::Utf8mb4Bin,
    Collation::Utf8mb4GeneralCi,
    Collation::Utf8mb4_0900AiCi,
    Collation::Utf8mb4_0900Bin,
    Collation::Utf8mb4UnicodeCi,
    Collation::Utf8mb3GeneralCi,
    Collation::Utf8mb3Bin,
    Collation::Utf8mb3UnicodeCi,
    Collation::Latin1SwedishCi,
    Collation::Latin1GeneralCi,
    Collation::Latin1GeneralCs,
    Collation::Latin1Bin,
    Collation::AsciiGeneralCi,
    Collation::AsciiBin,
];

const BINOPS: [BinOp; 21] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::IntDiv,
    BinOp::Mod,
    BinOp::Eq,
    BinOp::NullSafeEq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::Shl,
    BinOp::Shr,
];

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

struct Rd<'a> {
    b: &'a [u8],
    p: usize,
}

impl Rd<'_> {
    fn u8(&mut self) -> Option<u8> {
        let v = *self.b.get(self.p)?;
        self.p += 1;
        Some(v)
    }
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.p.checked_add(n)?;
        let s = self.b.get(self.p..end)?;
        self.p = end;
        Some(s)
    }
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    fn arr<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
}

fn lob(l: LobSize) -> u8 {
    match l {
        LobSize::Tiny => 0,
        LobSize::Regular => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    }
}
fn lob_of(b: u8) -> Option<LobSize> {
    Some(match b {
        0 => LobSize::Tiny,
        1 => LobSize::Regular,
        2 => LobSize::Medium,
        3 => LobSize::Long,
        _ => return None,
    })
}
const WIDTHS: [IntWidth; 5] = [
    IntWidth::Tiny,
    IntWidth::Small,
    IntWidth::Medium,
    IntWidth::Int,
    IntWidth::Big,
];

fn put_type(out: &mut Vec<u8>, c: &Column) {
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

fn read_type(r: &mut Rd<'_>) -> Option<(SqlType, Vec<String>)> {
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

fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend(i.to_le_bytes())
        }
        Value::UInt(u) => {
            out.push(2);
            out.extend(u.to_le_bytes())
        }
        Value::Float(f) => {
            out.push(3);
            out.extend(f.to_le_bytes())
        }
        Value::Double(f) => {
            out.push(4);
            out.extend(f.to_le_bytes())
        }
        Value::Decimal(d) => match d.small_mantissa() {
            Some(m) => {
                out.push(5);
                out.extend(m.to_le_bytes());
                out.push(d.scale())
            }
            None => {
                out.push(11);
                // at most 77 digits: always fits 32 bytes
                let bytes = d
                    .wide_mantissa()
                    .to_le_bytes(32)
                    .unwrap_or_else(|| vec![0; 32]);
                out.extend(bytes);
                out.push(d.scale())
            }
        },
        Value::Text(s) => {
            out.push(6);
            put_varint(out, s.len() as u64);
            out.extend(s.as_bytes())
        }
        Value::Bytes(b) => {
            out.push(7);
            put_varint(out, b.len() as u64);
            out.extend(b)
        }
        Value::Date(d) => {
            out.push(8);
            out.extend(d.packed().to_le_bytes())
        }
        Value::DateTime(d) => {
            out.push(9);
            out.extend(d.packed().to_le_bytes())
        }
        Value::Time(t) => {
            out.push(10);
            out.extend(t.micros.to_le_bytes())
        }
    }
}

fn read_value(r: &mut Rd<'_>) -> Option<Value> {
    Some(match r.u8()? {
        0 => Value::Null,
        1 => Value::Int(i64::from_le_bytes(r.arr()?)),
        2 => Value::UInt(u64::from_le_bytes(r.arr()?)),
        3 => Value::Float(f32::from_le_bytes(r.arr()?)),
        4 => Value::Double(f64::from_le_bytes(r.arr()?)),
        5 => {
            let m = i128::from_le_bytes(r.arr()?);
            Value::Decimal(Decimal::new(m, r.u8()?)?)
        }
        11 => {
            let m = crate::types::wide_int::WideInt::from_le_bytes(r.take(32)?);
            Value::Decimal(Decimal::from_wide(m, r.u8()?)?)
        }
        6 => {
            let n = r.varint()? as usize;
            Value::Text(String::from_utf8(r.take(n)?.to_vec()).ok()?)
        }
        7 => {
            let n = r.varint()? as usize;
            Value::Bytes(r.take(n)?.to_vec())
        }
        8 => Value::Date(Date::from_packed(u32::from_le_bytes(r.arr()?))?),
        9 => Value::DateTime(DateTime::from_packed(u64::from_le_bytes(r.arr()?))?),
        10 => Value::Time(Time::from_micros(i64::from_le_bytes(r.arr()?))?),
        _ => return None,
    })
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend(s.as_bytes());
}

fn read_str(r: &mut Rd<'_>) -> Option<String> {
    let n = r.varint()? as usize;
    String::from_utf8(r.take(n)?.to_vec()).ok()
}

const CASTS: [CastTo; 8] = [
    CastTo::Signed,
    CastTo::Unsigned,
    CastTo::Char,
    CastTo::Binary,
    CastTo::Double,
    CastTo::Date,
    CastTo::DateTime,
    CastTo::Time,
];

/// Encodes an expression of the supported subset; `None` if it uses anything else.
pub fn encode_expr(out: &mut Vec<u8>, e: &Expr) -> Option<()> {
    match e {
        Expr::Lit(v) => {
            out.push(0);
            put_value(out, v)
        }
        Expr::Col(i) => {
            out.push(1);
            put_varint(out, *i as u64)
        }
        Expr::InsertValue(i) => {
            out.push(2);
            put_varint(out, *i as u64)
        }
        Expr::Unary(op, a) => {
            out.push(3);
            out.push(match op {
                UnOp::Neg => 0,
                UnOp::Not => 1,
                UnOp::BitNot => 2,
            });
            encode_expr(out, a)?
        }
        Expr::Binary(op, a, b, c) => {
            out.push(4);
            out.push(BINOPS.iter().position(|x| x == op)? as u8);
            out.push(COLLATIONS.iter().position(|x| x == c)? as u8);
            encode_expr(out, a)?;
            encode_expr(out, b)?
        }
        Expr::IsNull(a, neg) => {
            out.push(5);
            out.push(*neg as u8);
            encode_expr(out, a)?
        }
        Expr::Func(name, args) => {
            out.push(6);
            put_str(out, name);
            put_varint(out, args.len() as u64);
            for a in args {
                encode_expr(out, a)?;
            }
        }
        Expr::Case(op, whens, el, c) => {
            out.push(7);
            out.push(COLLATIONS.iter().position(|x| x == c)? as u8);
            out.push(op.is_some() as u8 | ((el.is_some() as u8) << 1));
            if let Some(o) = op {
                encode_expr(out, o)?;
            }
            put_varint(out, whens.len() as u64);
            for (w, r) in whens {
                encode_expr(out, w)?;
                encode_expr(out, r)?;
            }
            if let Some(e) = el {
                encode_expr(out, e)?;
            }
        }
        Expr::Cast(a, to) => {
            out.push(8);
            out.push(CASTS.iter().position(|x| x == to)? as u8);
            encode_expr(out, a)?
        }
        _ => return None,
    }
    Some(())
}

fn read_expr(r: &mut Rd<'_>, depth: u32) -> Option<Expr> {
    if depth > 200 {
        return None;
    }
    let d = depth + 1;
    Some(match r.u8()? {
        0 => Expr::Lit(read_value(r)?),
        1 => Expr::Col(r.varint()? as usize),
        2 => Expr::InsertValue(r.varint()? as usize),
        3 => {
            let op = [UnOp::Neg, UnOp::Not, UnOp::BitNot]
                .get(r.u8()? as usize)
                .copied()?;
            Expr::Unary(op, Box::new(read_expr(r, d)?))
        }
        4 => {
            let op = *BINOPS.get(r.u8()? as usize)?;
            let c = *COLLATIONS.get(r.u8()? as usize)?;
            let a = read_expr(r, d)?;
            let b = read_expr(r, d)?;
            Expr::Binary(op, Box::new(a), Box::new(b), c)
        }
        5 => {
            let neg = r.u8()? != 0;
            Expr::IsNull(Box::new(read_expr(r, d)?), neg)
        }
        6 => {
            let name = read_str(r)?;
            let n = r.varint()? as usize;
            let mut args = Vec::new();
            for _ in 0..n {
                args.push(read_expr(r, d)?);
            }
            Expr::Func(name, args)
        }
        7 => {
            let c = *COLLATIONS.get(r.u8()? as usize)?;
            let flags = r.u8()?;
            let op = if flags & 1 != 0 {
                Some(Box::new(read_expr(r, d)?))
            } else {
                None
            };
            let n = r.varint()? as usize;
            let mut whens = Vec::new();
            for _ in 0..n {
                whens.push((read_expr(r, d)?, read_expr(r, d)?));
            }
            let el = if flags & 2 != 0 {
                Some(Box::new(read_expr(r, d)?))
            } else {
                None
            };
            Expr::Case(op, whens, el, c)
        }
        8 => {
            let to = *CASTS.get(r.u8()? as usize)?;
            Expr::Cast(Box::new(read_expr(r, d)?), to)
        }
        _ => return None,
    })
}

/// Builds the upsert argument; `None` if the program uses an unsupported expression.
pub fn encode_arg(
    layout: &RowLayout,
    insert_row: &[u8],
    program: &[Assignment],
) -> Option<Vec<u8>> {
    let mut out = vec![1u8];
    put_varint(&mut out, layout.schema_version as u64);
    let cols: Vec<&Column> = layout.live_columns().collect();
    put_varint(&mut out, cols.len() as u64);
    for c in cols {
        put_type(&mut out, c);
        out.push(c.nullable as u8);
        out.push(COLLATIONS.iter().position(|x| *x == c.collation)? as u8);
    }
    put_varint(&mut out, insert_row.len() as u64);
    out.extend_from_slice(insert_row);
    put_varint(&mut out, program.len() as u64);
    for (col, e) in program {
        put_varint(&mut out, *col as u64);
        encode_expr(&mut out, e)?;
    }
    Some(out)
}

struct Decoded {
    layout: RowLayout,
    columns: Vec<Column>,
    insert_row: Vec<u8>,
    program: Vec<Assignment>,
}

fn decode_arg(arg: &[u8]) -> Option<Decoded> {
    let mut r = Rd { b: arg, p: 0 };
    if r.u8()? != 1 {
        return None;
    }
    let schema = r.varint()? as u32;
    let n = r.varint()? as usize;
    if n > 4096 {
        return None;
    }
    let mut columns = Vec::with_capacity(n);
    for i in 0..n {
        let (t, members) = read_type(&mut r)?;
        let nullable = r.u8()? != 0;
        let coll = *COLLATIONS.get(r.u8()? as usize)?;
        let mut c = Column::new(i as u32, format!("c{i}"), t)
            .with_collation(coll)
            .with_members(members);
        c.nullable = nullable;
        columns.push(c);
    }
    let len = r.varint()? as usize;
    let insert_row = r.take(len)?.to_vec();
    let m = r.varint()? as usize;
    let mut program = Vec::new();
    for _ in 0..m.min(4096) {
        let col = r.varint()? as usize;
        if col >= n {
            return None;
        }
        program.push((col, read_expr(&mut r, 0)?));
    }
    if r.p != arg.len() {
        return None;
    }
    Some(Decoded {
        layout: RowLayout::new(schema, columns.clone()),
        columns,
        insert_row,
        program,
    })
}

/// Runs the program: the inserted row when `old` is absent, else the updated old row.
pub fn apply(old: Option<&[u8]>, arg: &[u8]) -> Option<Vec<u8>> {
    let Some(d) = decode_arg(arg) else {
        return old.map(|o| o.to_vec());
    };
    let Some(old) = old else {
        return Some(d.insert_row);
    };
    run(&d, old).or_else(|| Some(old.to_vec()))
}

fn run(d: &Decoded, old: &[u8]) -> Option<Vec<u8>> {
    let mut cur = decode_row(&d.layout, old).ok()?;
    let new = decode_row(&d.layout, &d.insert_row).ok()?;
    let mut warnings = Vec::new();
    for (col, e) in &d.program {
        let v = eval(
            e,
            &EvalCtx {
                row: &cur,
                aggs: &[],
                insert: &new,
            },
        )
        .ok()?;
        let c = &d.columns[*col];
        let v = match coerce_to_column(&v, c, 1, SqlMode { strict: false }, &mut warnings) {
            Ok(v) => v,
            Err(_) => c.default_value(),
        };
        let v = if v.is_null() && !c.nullable {
            c.implicit_value()
        } else {
            v
        };
        cur[*col] = v;
    }
    let mut out = Vec::new();
    encode_row(&d.layout, &cur, &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> RowLayout {
        RowLayout::new(
            1,
            vec![
                Column::new(
                    0,
                    "id",
                    SqlType::Int {
                        width: IntWidth::Int,
                        unsigned: false,
                    },
                )
                .not_null(),
                Column::new(
                    1,
                    "n",
                    SqlType::Int {
                        width: IntWidth::Big,
                        unsigned: false,
                    },
                ),
                Column::new(2, "s", SqlType::VarChar { len: 10 }),
            ],
        )
    }

    fn row(l: &RowLayout, v: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_row(l, v, &mut out).unwrap();
        out
    }

    #[test]
    fn absent_key_inserts_the_row() {
        let l = layout();
        let ins = row(&l, &[Value::Int(1), Value::Int(5), Value::Text("a".into())]);
        let arg = encode_arg(&l, &ins, &[]).unwrap();
        assert_eq!(apply(None, &arg), Some(ins));
    }

    #[test]
    fn program_updates_old_row_left_to_right() {
        let l = layout();
        let ins = row(&l, &[Value::Int(1), Value::Int(5), Value::Text("x".into())]);
        let old = row(
            &l,
            &[Value::Int(1), Value::Int(10), Value::Text("a".into())],
        );
        // n = n + VALUES(n); s = CONCAT(s, n)  (sees the new n)
        let prog = vec![
            (
                1,
                Expr::Binary(
                    BinOp::Add,
                    Box::new(Expr::Col(1)),
                    Box::new(Expr::InsertValue(1)),
                    Collation::default(),
                ),
            ),
            (
                2,
                Expr::Func("CONCAT".into(), vec![Expr::Col(2), Expr::Col(1)]),
            ),
        ];
        let arg = encode_arg(&l, &ins, &prog).unwrap();
        let out = apply(Some(&old), &arg).unwrap();
        let vals = decode_row(&l, &out).unwrap();
        assert_eq!(
            vals,
            vec![Value::Int(1), Value::Int(15), Value::Text("a15".into())]
        );
        // Non-strict coercion: 'a15' + more text truncates to VARCHAR(10) rather than failing.
        let prog2 = vec![(2, Expr::Lit(Value::Text("0123456789abc".into())))];
        let arg2 = encode_arg(&l, &ins, &prog2).unwrap();
        let out2 = apply(Some(&out), &arg2).unwrap();
        assert_eq!(
            decode_row(&l, &out2).unwrap()[2],
            Value::Text("0123456789".into())
        );
    }

    #[test]
    fn garbage_argument_keeps_old_row() {
        let l = layout();
        let old = row(&l, &[Value::Int(1), Value::Null, Value::Null]);
        for bad in [&[][..], &[1, 200, 200], &[2, 0, 0]] {
            assert_eq!(apply(Some(&old), bad), Some(old.clone()));
        }
        // Truncations of a valid argument never panic.
        let ins = row(&l, &[Value::Int(1), Value::Int(2), Value::Null]);
        let arg = encode_arg(&l, &ins, &[(1, Expr::Col(1))]).unwrap();
        for n in 0..arg.len() {
            let _ = apply(Some(&old), &arg[..n]);
        }
    }

    #[test]
    fn unsupported_expressions_are_refused() {
        let l = layout();
        let ins = row(&l, &[Value::Int(1), Value::Null, Value::Null]);
        assert!(encode_arg(&l, &ins, &[(1, Expr::Agg(0))]).is_none());
    }
}
