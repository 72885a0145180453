//! Inserts, programs, malformed arguments and unsupported expressions of upsert messages.

use super::*;
use crate::codec::row::{decode_row, encode_row, RowLayout};
use crate::expr::BinOp;
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{Column, IntWidth, SqlType};

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

#[test]
fn programs_reused_across_messages_give_what_a_fresh_decoding_gives() {
    let l = layout();
    let add = vec![(
        1,
        Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Col(1)),
            Box::new(Expr::InsertValue(1)),
            Collation::default(),
        ),
    )];
    let set = vec![(1, Expr::InsertValue(1))];
    let old = row(
        &l,
        &[Value::Int(1), Value::Int(10), Value::Text("a".into())],
    );
    // Two statements' templates, their messages interleaved: each keeps its own program, whatever
    // the row in between (a row whose bytes look like the other template's tail included).
    for (i, n) in [3i64, 4, 5, 6, 7, 8].into_iter().enumerate() {
        let ins = row(&l, &[Value::Int(1), Value::Int(n), Value::Text("z".into())]);
        let (prog, want) = if i % 3 == 2 {
            (&set, n)
        } else {
            (&add, 10 + n)
        };
        let arg = ArgTemplate::new(&l, prog).unwrap().arg(&ins);
        let got = decode_row(&l, &apply(Some(&old), &arg).unwrap()).unwrap();
        assert_eq!(got[1], Value::Int(want), "message {i}");
        // The same message again, now surely from the remembered program.
        let again = decode_row(&l, &apply(Some(&old), &arg).unwrap()).unwrap();
        assert_eq!(again, got);
    }
    // A truncated argument after a good one is still refused (the old row stays).
    let ins = row(&l, &[Value::Int(1), Value::Int(1), Value::Text("z".into())]);
    let arg = ArgTemplate::new(&l, &add).unwrap().arg(&ins);
    assert!(apply(Some(&old), &arg).is_some());
    assert_eq!(apply(Some(&old), &arg[..arg.len() - 1]), Some(old.clone()));
}
