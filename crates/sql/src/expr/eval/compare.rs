//! Comparisons: `= <> < <= > >=`, `<=>`, IN (list), BETWEEN and LIKE, under the collation the
//! compiler chose for each.
//!
//! Invariants: values compare through [`crate::types::value::sql_cmp`] (numbers as numbers, a
//! number and a string as DOUBLE, text under the collation); a comparison with NULL is NULL except
//! `<=>`; `x IN (...)` is NULL when no item matches and one compared as NULL; LIKE matches
//! characters (`_` is one character), case-insensitively under a case-insensitive collation.

use std::cmp::Ordering;

use super::logic::bool_val;
use super::{eval, text_of, EvalCtx};
use crate::error::db_error::DbResult;
use crate::expr::{BinOp, Expr};
use crate::types::collation::Collation;
use crate::types::value::{sql_cmp, Value};

pub fn compare(a: &Value, b: &Value, coll: Collation) -> Option<Ordering> {
    sql_cmp(a, b, coll)
}

/// `x op y` for the comparison operators, `<=>` included.
pub fn comparison(op: BinOp, x: &Value, y: &Value, coll: Collation) -> Value {
    if op == BinOp::NullSafeEq {
        return Value::Int(match (x.is_null(), y.is_null()) {
            (true, true) => 1,
            (true, false) | (false, true) => 0,
            _ => (compare(x, y, coll) == Some(Ordering::Equal)) as i64,
        });
    }
    bool_val(compare(x, y, coll).map(|o| match op {
        BinOp::Eq => o == Ordering::Equal,
        BinOp::Ne => o != Ordering::Equal,
        BinOp::Lt => o == Ordering::Less,
        BinOp::Le => o != Ordering::Greater,
        BinOp::Gt => o == Ordering::Greater,
        _ => o != Ordering::Less,
    }))
}

/// `a [NOT] IN (list)`: the items are evaluated up to the first match.
pub(super) fn in_list(
    a: &Expr,
    list: &[Expr],
    neg: bool,
    coll: Collation,
    cx: &EvalCtx<'_>,
) -> DbResult<Value> {
    let x = eval(a, cx)?;
    if x.is_null() {
        return Ok(Value::Null);
    }
    let mut saw_null = false;
    let mut found = false;
    for item in list {
        let y = eval(item, cx)?;
        match compare(&x, &y, coll) {
            Some(Ordering::Equal) => {
                found = true;
                break;
            }
            None => saw_null = true,
            _ => {}
        }
    }
    Ok(if found {
        Value::Int(!neg as i64)
    } else if saw_null {
        Value::Null
    } else {
        Value::Int(neg as i64)
    })
}

/// `x [NOT] BETWEEN lo AND hi`.
pub(super) fn between(x: &Value, lo: &Value, hi: &Value, neg: bool, coll: Collation) -> Value {
    let l = compare(x, lo, coll).map(|o| o != Ordering::Less);
    let h = compare(x, hi, coll).map(|o| o != Ordering::Greater);
    let r = match (l, h) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    };
    bool_val(r.map(|b| b != neg))
}

/// `x [NOT] LIKE pattern ESCAPE esc`.
pub(super) fn like(x: &Value, p: &Value, neg: bool, esc: char, coll: Collation) -> Value {
    match (text_of(x), text_of(p)) {
        (Some(s), Some(pat)) => {
            let m = like_match(&s, &pat, esc, coll.case_insensitive());
            Value::Int((m != neg) as i64)
        }
        _ => Value::Null,
    }
}

/// LIKE with `%`, `_` and an escape character.
pub fn like_match(s: &str, pat: &str, esc: char, ci: bool) -> bool {
    let fold = |c: char| -> char {
        if ci {
            c.to_uppercase().next().unwrap_or(c)
        } else {
            c
        }
    };
    let s: Vec<char> = s.chars().map(fold).collect();
    let mut p: Vec<(char, bool)> = Vec::new(); // (char, is_literal)
    let mut it = pat.chars();
    while let Some(c) = it.next() {
        if c == esc {
            match it.next() {
                Some(n) => p.push((fold(n), true)),
                None => p.push((fold(c), true)),
            }
        } else {
            p.push((fold(c), false));
        }
    }
    // Iterative matcher with backtracking on the last '%'.
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && !p[pi].1 && p[pi].0 == '%' {
            star = Some((pi, si));
            pi += 1;
        } else if pi < p.len() && ((!p[pi].1 && p[pi].0 == '_') || p[pi].0 == s[si]) {
            pi += 1;
            si += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && !p[pi].1 && p[pi].0 == '%' {
        pi += 1;
    }
    pi == p.len()
}
