//! The in-place programs against the general path: random rows and accumulating programs, the
//! bytes compared whenever the in-place form does not decline.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::apply::run;
use super::arg::decode_arg;
use super::*;
use crate::codec::row::{encode_row, RowLayout};
use crate::expr::BinOp;
use crate::types::collation::Collation;
use crate::types::temporal::{Date, DateTime};
use crate::types::value::Value;
use crate::types::{Column, IntWidth, SqlType};

fn int(width: IntWidth) -> SqlType {
    SqlType::Int {
        width,
        unsigned: false,
    }
}

/// Columns: a key, a DATETIME, then numeric columns the programs accumulate into.
fn columns(rng: &mut StdRng) -> Vec<Column> {
    let mut types = vec![int(IntWidth::Int), SqlType::DateTime { fsp: 0 }];
    let pool = [
        int(IntWidth::Big),
        int(IntWidth::Int),
        int(IntWidth::Small),
        int(IntWidth::Tiny),
        int(IntWidth::Medium),
        SqlType::Double {
            digits: None,
            unsigned: false,
        },
        SqlType::Double {
            digits: Some((10, 2)),
            unsigned: false,
        },
        SqlType::Int {
            width: IntWidth::Int,
            unsigned: true,
        },
    ];
    for _ in 0..rng.gen_range(1..5) {
        types.push(pool[rng.gen_range(0..pool.len())]);
    }
    types
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let c = Column::new(i as u32, format!("c{i}"), t);
            if i < 2 || rng.gen_bool(0.5) {
                c.not_null()
            } else {
                c
            }
        })
        .collect()
}

fn value(rng: &mut StdRng, c: &Column) -> Value {
    if c.nullable && rng.gen_bool(0.15) {
        return Value::Null;
    }
    match c.sql_type {
        SqlType::DateTime { .. } => {
            let d = Date::new(2024, 1, rng.gen_range(1..29)).unwrap();
            Value::DateTime(DateTime::new(d, rng.gen_range(0..24), 0, 0, 0).unwrap())
        }
        SqlType::Double { .. } => Value::Double(match rng.gen_range(0..5) {
            0 => 0.0,
            1 => -0.0,
            2 => rng.gen_range(-1.0..1.0) * 1.7e308,
            _ => rng.gen_range(-100.0..100.0),
        }),
        SqlType::Int { width, unsigned } => {
            let bits = 8 * width.bytes() as u32 - u32::from(!unsigned);
            let max = if bits >= 63 {
                i64::MAX
            } else {
                (1i64 << bits) - 1
            };
            let min = if unsigned { 0 } else { -max - 1 };
            Value::Int(match rng.gen_range(0..4) {
                0 => max - rng.gen_range(0..3),
                1 => min + rng.gen_range(0..3),
                _ => rng.gen_range(-50..50).clamp(min, max),
            })
        }
        _ => Value::Null,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b), Collation::Binary)
}

fn null(e: &Expr) -> Expr {
    Expr::IsNull(Box::new(e.clone()), false)
}

/// One accumulating assignment to column `k` (the forms `c = c + VALUES(c)` and the roll-ups'
/// merges write).
fn assignment(rng: &mut StdRng, k: usize) -> Assignment {
    let (old, new) = (Expr::Col(k), Expr::InsertValue(k));
    let firsts = vec![(null(&new), old.clone()), (null(&old), new.clone())];
    let e = match rng.gen_range(0..5) {
        0 => bin(BinOp::Add, old, new),
        1 => bin(BinOp::Add, new, old),
        2 => Expr::Case(
            None,
            firsts,
            Some(Box::new(bin(BinOp::Add, old, new))),
            Collation::Binary,
        ),
        n => {
            let op = if n == 3 { BinOp::Lt } else { BinOp::Gt };
            let mut whens = firsts;
            whens.push((bin(op, new.clone(), old.clone()), new));
            Expr::Case(None, whens, Some(Box::new(old)), Collation::Binary)
        }
    };
    (k, e)
}

#[test]
fn in_place_programs_give_the_general_paths_bytes() {
    let mut rng = StdRng::seed_from_u64(11);
    let (mut taken, mut declined) = (0, 0);
    for _ in 0..3000 {
        let cols = columns(&mut rng);
        let l = RowLayout::new(1, cols.clone());
        let mut program: Vec<Assignment> = Vec::new();
        for k in 2..cols.len() {
            if rng.gen_bool(0.8) {
                program.push(assignment(&mut rng, k));
            }
        }
        let encode = |rng: &mut StdRng| {
            let vals: Vec<Value> = cols.iter().map(|c| value(rng, c)).collect();
            let mut out = Vec::new();
            encode_row(&l, &vals, &mut out).unwrap();
            out
        };
        let (ins, old) = (encode(&mut rng), encode(&mut rng));
        let arg = encode_arg(&l, &ins, &program).unwrap();
        let d = decode_arg(&arg).unwrap().program;
        let general = run(&d, &ins, &old).unwrap_or_else(|| old.clone());
        match d.in_place.as_ref().and_then(|p| p.run(&ins, &old)) {
            Some(fast) => {
                taken += 1;
                assert_eq!(fast, general, "program {program:?}");
            }
            None => declined += 1,
        }
        assert_eq!(apply(Some(&old), &arg), Some(general));
    }
    // Both paths were exercised.
    assert!(
        taken > 500 && declined > 500,
        "{taken} taken, {declined} declined"
    );
}

#[test]
fn other_programs_have_no_in_place_form() {
    let l = RowLayout::new(1, vec![Column::new(0, "n", int(IntWidth::Big))]);
    let (old, new) = (Expr::Col(0), Expr::InsertValue(0));
    for e in [
        bin(BinOp::Sub, old.clone(), new.clone()),
        bin(BinOp::Add, old.clone(), Expr::Lit(Value::Int(1))),
        new.clone(),
        Expr::Case(
            None,
            vec![(null(&new), old.clone())],
            Some(Box::new(bin(BinOp::Add, old, new))),
            Collation::Binary,
        ),
    ] {
        let arg = encode_arg(&l, &[], &[(0, e.clone())]).unwrap();
        let d = decode_arg(&arg).unwrap().program;
        assert!(d.in_place.is_none(), "{e:?}");
    }
}
