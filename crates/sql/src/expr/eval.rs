//! Evaluation of compiled expressions ([`eval`]); the scalar functions are in functions/.
//!
//! Owns MySQL's value semantics for operators: three-valued logic (NULL = unknown), integer
//! arithmetic with overflow errors (1690), DECIMAL arithmetic for exact operands (division gives
//! 4 more digits of scale, as `div_precision_increment`), DOUBLE when either side is approximate
//! or a string, comparisons through [`crate::types::value::sql_cmp`] under the compiled collation.
//! Invariant: no input value makes evaluation panic; bad input is NULL or a `DbError`.

use std::cmp::Ordering;

use crate::error::db_error::{DbError, DbResult};
use crate::expr::{BinOp, CastTo, Expr, UnOp};
use crate::types::collation::Collation;
use crate::types::decimal::{pow10, Decimal};
use crate::types::temporal::{DateTime, Time, MICROS_PER_SEC};
use crate::types::value::{sql_cmp, Value};

/// The rows an expression reads.
#[derive(Clone, Copy, Default)]
pub struct EvalCtx<'a> {
    pub row: &'a [Value],
    pub aggs: &'a [Value],
    pub insert: &'a [Value],
}

impl<'a> EvalCtx<'a> {
    pub fn row(row: &'a [Value]) -> EvalCtx<'a> {
        EvalCtx {
            row,
            aggs: &[],
            insert: &[],
        }
    }
}

pub fn negate_literal(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => Value::Decimal(Decimal::new(-(*i as i128), 0)?),
        },
        Value::UInt(u) if *u == 1u64 << 63 => Value::Int(i64::MIN),
        Value::UInt(u) => Value::Decimal(Decimal::new(-(*u as i128), 0)?),
        Value::Decimal(d) => Value::Decimal(d.neg()),
        Value::Double(d) => Value::Double(-d),
        _ => return None,
    })
}

/// `None` = NULL (unknown).
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Decimal(d) => Some(!d.is_zero()),
        other => other.to_f64_lenient().map(|f| f != 0.0),
    }
}

fn bool_val(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(b as i64),
    }
}

fn out_of_range(what: &str) -> DbError {
    DbError::new(
        1690,
        "22003",
        format!("BIGINT value is out of range in '{what}'"),
    )
}

pub fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s.clone()),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        other => other
            .to_text(None)
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
    }
}

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Bytes(b) => Some(b.clone()),
        Value::Text(s) => Some(s.clone().into_bytes()),
        other => other.to_text(None),
    }
}

enum Num {
    I(i128),
    D(Decimal),
    F(f64),
}

fn num(v: &Value) -> Option<Num> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => Num::I(*i as i128),
        Value::UInt(u) => Num::I(*u as i128),
        Value::Decimal(d) => Num::D(*d),
        Value::Text(_) | Value::Bytes(_) | Value::Float(_) | Value::Double(_) => {
            Num::F(v.to_f64_lenient()?)
        }
        Value::Date(d) => Num::I(d.as_number() as i128),
        other => Num::F(other.to_f64_lenient()?),
    })
}

fn dec_of(n: &Num) -> Option<Decimal> {
    match n {
        Num::I(i) => Decimal::new(*i, 0),
        Num::D(d) => Some(*d),
        Num::F(_) => None,
    }
}

fn f_of(n: &Num) -> f64 {
    match n {
        Num::I(i) => *i as f64,
        Num::D(d) => d.to_f64(),
        Num::F(f) => *f,
    }
}

fn int_result(v: i128, what: &str, unsigned: bool) -> DbResult<Value> {
    if unsigned {
        if (0..=u64::MAX as i128).contains(&v) {
            return Ok(Value::UInt(v as u64));
        }
        return Err(out_of_range(what));
    }
    i64::try_from(v)
        .map(Value::Int)
        .map_err(|_| out_of_range(what))
}

fn dec_align(a: Decimal, b: Decimal) -> Option<(i128, i128, u8)> {
    let s = a.scale().max(b.scale());
    let am = a
        .small_mantissa()?
        .checked_mul(pow10((s - a.scale()) as u32))?;
    let bm = b
        .small_mantissa()?
        .checked_mul(pow10((s - b.scale()) as u32))?;
    Some((am, bm, s))
}

fn double(v: f64) -> Value {
    if v.is_finite() {
        Value::Double(v)
    } else {
        Value::Null
    }
}

/// `a op b` for the arithmetic operators (+ - * / DIV %).
pub fn arith(op: BinOp, a: &Value, b: &Value) -> DbResult<Value> {
    let (Some(x), Some(y)) = (num(a), num(b)) else {
        return Ok(Value::Null);
    };
    let unsigned = matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_));
    let what = format!("{op:?}");
    if let (Num::I(i), Num::I(j)) = (&x, &y) {
        let (i, j) = (*i, *j);
        return match op {
            BinOp::Add => int_result(i + j, &what, unsigned),
            BinOp::Sub => int_result(i - j, &what, unsigned),
            BinOp::Mul => int_result(i * j, &what, unsigned),
            BinOp::IntDiv => {
                if j == 0 {
                    Ok(Value::Null)
                } else {
                    int_result(i / j, &what, false)
                }
            }
            BinOp::Mod => {
                if j == 0 {
                    Ok(Value::Null)
                } else {
                    int_result(i % j, &what, false)
                }
            }
            BinOp::Div => {
                if j == 0 {
                    return Ok(Value::Null);
                }
                let m = i.checked_mul(10_000).ok_or_else(|| out_of_range(&what))?;
                Ok(Decimal::new(div_round(m, j), 4)
                    .map(Value::Decimal)
                    .unwrap_or(Value::Double(i as f64 / j as f64)))
            }
            _ => Ok(Value::Null),
        };
    }
    if let (Some(da), Some(db)) = (dec_of(&x), dec_of(&y)) {
        let r = (|| -> Option<Value> {
            match op {
                BinOp::Add | BinOp::Sub => {
                    let (am, bm, s) = dec_align(da, db)?;
                    let m = if op == BinOp::Add {
                        am.checked_add(bm)?
                    } else {
                        am.checked_sub(bm)?
                    };
                    Decimal::new(m, s).map(Value::Decimal)
                }
                BinOp::Mul => {
                    let s = da.scale() + db.scale();
                    if s > 30 {
                        return None;
                    }
                    let m = da.small_mantissa()?.checked_mul(db.small_mantissa()?)?;
                    Decimal::new(m, s).map(Value::Decimal)
                }
                BinOp::Div => {
                    if db.is_zero() {
                        return Some(Value::Null);
                    }
                    let s = (da.scale() + 4).min(30);
                    // a/b at scale s: a.m * 10^(s - a.s + b.s) / b.m
                    let shift = s as u32 + db.scale() as u32 - da.scale() as u32;
                    let num = da.small_mantissa()?.checked_mul(pow10(shift))?;
                    Decimal::new(div_round(num, db.small_mantissa()?), s).map(Value::Decimal)
                }
                BinOp::Mod => {
                    if db.is_zero() {
                        return Some(Value::Null);
                    }
                    let (am, bm, s) = dec_align(da, db)?;
                    Decimal::new(am % bm, s).map(Value::Decimal)
                }
                BinOp::IntDiv => {
                    if db.is_zero() {
                        return Some(Value::Null);
                    }
                    let (am, bm, _) = dec_align(da, db)?;
                    i64::try_from(am / bm).ok().map(Value::Int)
                }
                _ => None,
            }
        })();
        if let Some(v) = r {
            return Ok(v);
        }
    }
    let (f, g) = (f_of(&x), f_of(&y));
    Ok(match op {
        BinOp::Add => double(f + g),
        BinOp::Sub => double(f - g),
        BinOp::Mul => double(f * g),
        BinOp::Div => {
            if g == 0.0 {
                Value::Null
            } else {
                double(f / g)
            }
        }
        BinOp::Mod => {
            if g == 0.0 {
                Value::Null
            } else {
                double(f % g)
            }
        }
        BinOp::IntDiv => {
            if g == 0.0 {
                Value::Null
            } else {
                let q = (f / g).trunc();
                if q.abs() < 9.2e18 {
                    Value::Int(q as i64)
                } else {
                    return Err(out_of_range(&what));
                }
            }
        }
        _ => Value::Null,
    })
}

fn div_round(n: i128, d: i128) -> i128 {
    let q = n / d;
    let r = n % d;
    if r.abs() * 2 >= d.abs() {
        if (n < 0) != (d < 0) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

fn as_u64_bits(v: &Value) -> Option<u64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as u64),
        Value::UInt(u) => Some(*u),
        other => other.to_f64_lenient().map(|f| f.round() as i64 as u64),
    }
}

pub fn compare(a: &Value, b: &Value, coll: Collation) -> Option<Ordering> {
    sql_cmp(a, b, coll)
}

/// Evaluates `e` against `cx`.
pub fn eval(e: &Expr, cx: &EvalCtx<'_>) -> DbResult<Value> {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || eval_inner(e, cx))
}

fn eval_inner(e: &Expr, cx: &EvalCtx<'_>) -> DbResult<Value> {
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Col(i) => cx.row.get(*i).cloned().unwrap_or(Value::Null),
        Expr::InsertValue(i) => cx.insert.get(*i).cloned().unwrap_or(Value::Null),
        Expr::Agg(i) => cx.aggs.get(*i).cloned().unwrap_or(Value::Null),
        Expr::Unary(op, a) => {
            let v = eval(a, cx)?;
            match op {
                UnOp::Not => bool_val(truth(&v).map(|b| !b)),
                UnOp::Neg => match &v {
                    Value::Null => Value::Null,
                    Value::Int(i) => match i.checked_neg() {
                        Some(n) => Value::Int(n),
                        None => return Err(out_of_range("-")),
                    },
                    other => match negate_literal(other) {
                        Some(n) => n,
                        None => double(-other.to_f64_lenient().unwrap_or(0.0)),
                    },
                },
                UnOp::BitNot => match as_u64_bits(&v) {
                    Some(u) => Value::UInt(!u),
                    None => Value::Null,
                },
            }
        }
        Expr::Binary(op, a, b, coll) => match op {
            BinOp::And => {
                let x = truth(&eval(a, cx)?);
                if x == Some(false) {
                    return Ok(Value::Int(0));
                }
                let y = truth(&eval(b, cx)?);
                bool_val(match (x, y) {
                    (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                })
            }
            BinOp::Or => {
                let x = truth(&eval(a, cx)?);
                if x == Some(true) {
                    return Ok(Value::Int(1));
                }
                let y = truth(&eval(b, cx)?);
                bool_val(match (x, y) {
                    (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                })
            }
            BinOp::Xor => {
                let (x, y) = (truth(&eval(a, cx)?), truth(&eval(b, cx)?));
                bool_val(x.zip(y).map(|(x, y)| x != y))
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (x, y) = (eval(a, cx)?, eval(b, cx)?);
                bool_val(compare(&x, &y, *coll).map(|o| match op {
                    BinOp::Eq => o == Ordering::Equal,
                    BinOp::Ne => o != Ordering::Equal,
                    BinOp::Lt => o == Ordering::Less,
                    BinOp::Le => o != Ordering::Greater,
                    BinOp::Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                }))
            }
            BinOp::NullSafeEq => {
                let (x, y) = (eval(a, cx)?, eval(b, cx)?);
                Value::Int(match (x.is_null(), y.is_null()) {
                    (true, true) => 1,
                    (true, false) | (false, true) => 0,
                    _ => (compare(&x, &y, *coll) == Some(Ordering::Equal)) as i64,
                })
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
                let (x, y) = (eval(a, cx)?, eval(b, cx)?);
                match (as_u64_bits(&x), as_u64_bits(&y)) {
                    (Some(x), Some(y)) => Value::UInt(match op {
                        BinOp::BitAnd => x & y,
                        BinOp::BitOr => x | y,
                        BinOp::BitXor => x ^ y,
                        BinOp::Shl => x.checked_shl(y.min(64) as u32).unwrap_or(0),
                        _ => x.checked_shr(y.min(64) as u32).unwrap_or(0),
                    }),
                    _ => Value::Null,
                }
            }
            _ => arith(*op, &eval(a, cx)?, &eval(b, cx)?)?,
        },
        Expr::IsNull(a, neg) => Value::Int((eval(a, cx)?.is_null() != *neg) as i64),
        Expr::IsTrue(a, want, neg) => {
            let t = truth(&eval(a, cx)?);
            Value::Int(((t == Some(*want)) != *neg) as i64)
        }
        Expr::InList(a, list, neg, coll) => {
            let x = eval(a, cx)?;
            if x.is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            let mut found = false;
            for item in list {
                let y = eval(item, cx)?;
                match compare(&x, &y, *coll) {
                    Some(Ordering::Equal) => {
                        found = true;
                        break;
                    }
                    None => saw_null = true,
                    _ => {}
                }
            }
            if found {
                Value::Int(!*neg as i64)
            } else if saw_null {
                Value::Null
            } else {
                Value::Int(*neg as i64)
            }
        }
        Expr::Between(a, lo, hi, neg, coll) => {
            let x = eval(a, cx)?;
            let l = compare(&x, &eval(lo, cx)?, *coll).map(|o| o != Ordering::Less);
            let h = compare(&x, &eval(hi, cx)?, *coll).map(|o| o != Ordering::Greater);
            let r = match (l, h) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
            bool_val(r.map(|b| b != *neg))
        }
        Expr::Like(a, p, neg, esc, coll) => {
            let (x, y) = (eval(a, cx)?, eval(p, cx)?);
            match (text_of(&x), text_of(&y)) {
                (Some(s), Some(pat)) => {
                    let ci = coll.case_insensitive();
                    let m = like_match(&s, &pat, *esc, ci);
                    Value::Int((m != *neg) as i64)
                }
                _ => Value::Null,
            }
        }
        Expr::Case(op, whens, el, coll) => {
            let base = match op {
                Some(o) => Some(eval(o, cx)?),
                None => None,
            };
            for (w, r) in whens {
                let wv = eval(w, cx)?;
                let hit = match &base {
                    Some(b) => compare(b, &wv, *coll) == Some(Ordering::Equal),
                    None => truth(&wv) == Some(true),
                };
                if hit {
                    return eval(r, cx);
                }
            }
            match el {
                Some(e) => eval(e, cx)?,
                None => Value::Null,
            }
        }
        Expr::Cast(a, to) => cast(&eval(a, cx)?, *to),
        Expr::DateAdd(d, n, unit, sub) => {
            let dv = eval(d, cx)?;
            let nv = eval(n, cx)?;
            crate::expr::functions::date_add(&dv, &nv, *unit, *sub)
        }
        Expr::Func(name, args) => {
            // IF / IFNULL / COALESCE / CASE-like functions evaluate lazily.
            if let Some(v) = crate::expr::functions::eval_lazy(name, args, cx) {
                return v;
            }
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(eval(a, cx)?);
            }
            crate::expr::functions::call(name, &vals)?
        }
    })
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

pub fn to_datetime(v: &Value) -> Option<DateTime> {
    match v {
        Value::DateTime(d) => Some(*d),
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::Text(s) => DateTime::parse(s.trim()),
        Value::Bytes(b) => DateTime::parse(std::str::from_utf8(b).ok()?.trim()),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => DateTime::parse(&text_of(v)?),
        _ => None,
    }
}

pub fn cast(v: &Value, to: CastTo) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match to {
        CastTo::Signed | CastTo::Unsigned => {
            let i = match v {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                Value::Decimal(d) => d.round_to_i128(),
                other => {
                    let f = other.to_f64_lenient().unwrap_or(0.0).round();
                    f.clamp(i64::MIN as f64, u64::MAX as f64) as i128
                }
            };
            if to == CastTo::Unsigned {
                Value::UInt(i as u64)
            } else {
                Value::Int(i as i64)
            }
        }
        CastTo::Char => text_of(v).map(Value::Text).unwrap_or(Value::Null),
        CastTo::Binary => bytes_of(v).map(Value::Bytes).unwrap_or(Value::Null),
        CastTo::Double => v.to_f64_lenient().map(double).unwrap_or(Value::Null),
        CastTo::Decimal(p, s) => {
            let d = match v {
                Value::Decimal(d) => Some(*d),
                Value::Int(i) => Some(Decimal::from_i64(*i)),
                Value::UInt(u) => Some(Decimal::from_u64(*u)),
                Value::Text(t) => Decimal::parse_prefix(t.trim()).ok().map(|x| x.0),
                other => other.to_f64_lenient().and_then(Decimal::from_f64),
            };
            match d.and_then(|d| d.rescale(s)) {
                Some((d, _)) if d.fits(p, s) => Value::Decimal(d),
                Some((d, _)) => Value::Decimal(if d.is_negative() {
                    Decimal::max_for(p, s).neg()
                } else {
                    Decimal::max_for(p, s)
                }),
                None => Value::Null,
            }
        }
        CastTo::Date => to_datetime(v)
            .map(|d| Value::Date(d.date))
            .unwrap_or(Value::Null),
        CastTo::DateTime => to_datetime(v).map(Value::DateTime).unwrap_or(Value::Null),
        CastTo::Time => match v {
            Value::Time(t) => Value::Time(*t),
            Value::DateTime(d) => Time::from_micros(d.micros as i64)
                .map(Value::Time)
                .unwrap_or(Value::Null),
            other => text_of(other)
                .and_then(|s| {
                    // a datetime string casts to its time of day (as in MySQL)
                    Time::parse(s.trim()).or_else(|| {
                        DateTime::parse(s.trim()).and_then(|d| Time::from_micros(d.micros as i64))
                    })
                })
                .map(Value::Time)
                .unwrap_or(Value::Null),
        },
    }
}

pub fn micros_per_sec() -> u64 {
    MICROS_PER_SEC
}

pub use crate::expr::functions::is_known_function;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::CompileEnv;
    use crate::expr::Compiler;
    use crate::expr::Scope;
    use sqlparser::ast;

    struct Env;
    impl CompileEnv for Env {
        fn system_var(&mut self, n: &str, _: bool) -> DbResult<Value> {
            Err(DbError::unknown_var(n))
        }
        fn user_var(&mut self, _: &str) -> Value {
            Value::Null
        }
        fn param(&mut self, i: usize) -> DbResult<Value> {
            Ok(Value::Int(i as i64 + 100))
        }
        fn subquery(&mut self, _: &ast::Query) -> DbResult<Vec<Vec<Value>>> {
            Ok(vec![vec![Value::Int(1)], vec![Value::Int(2)]])
        }
        fn session_fn(&mut self, _: &str, _: &[Value]) -> Option<DbResult<Value>> {
            None
        }
    }

    fn run(sql: &str) -> DbResult<Value> {
        let e = sqlparser::parser::Parser::new(&sqlparser::dialect::MySqlDialect {})
            .try_with_sql(sql)
            .unwrap()
            .parse_expr()
            .unwrap();
        let scope = Scope::default();
        let mut env = Env;
        let mut c = Compiler {
            scope: &scope,
            env: &mut env,
            aggs: None,
            insert_scope: None,
            aliases: &[],
            place: "field list",
        };
        let ex = c.compile(&e)?;
        eval(&ex, &EvalCtx::default())
    }

    fn text(sql: &str) -> String {
        match run(sql).unwrap() {
            Value::Null => "NULL".into(),
            v => text_of(&v).unwrap(),
        }
    }

    #[test]
    fn arithmetic_follows_mysql_types() {
        assert_eq!(text("1 + 2 * 3"), "7");
        assert_eq!(text("7 / 2"), "3.5000");
        assert_eq!(text("1 / 0"), "NULL");
        assert_eq!(text("7 DIV 2"), "3");
        assert_eq!(text("-7 % 3"), "-1");
        assert_eq!(text("0.1 + 0.2"), "0.3");
        assert_eq!(text("2.50 * 2"), "5.00");
        assert_eq!(text("'3abc' + 1"), "4");
        assert_eq!(run("9223372036854775807 + 1").unwrap_err().code, 1690);
        assert_eq!(text("-9223372036854775808"), "-9223372036854775808");
    }

    #[test]
    fn three_valued_logic_and_comparisons() {
        assert_eq!(text("NULL AND 0"), "0");
        assert_eq!(text("NULL AND 1"), "NULL");
        assert_eq!(text("NULL OR 1"), "1");
        assert_eq!(text("NOT NULL"), "NULL");
        assert_eq!(text("NULL <=> NULL"), "1");
        assert_eq!(text("'abc' = 'ABC'"), "1");
        assert_eq!(text("2 IN (1, NULL)"), "NULL");
        assert_eq!(text("2 NOT IN (1, 3)"), "1");
        assert_eq!(text("5 BETWEEN 1 AND 5"), "1");
        assert_eq!(text("?1 + ?2"), "201");
        assert_eq!(text("2 IN (SELECT 1)"), "1");
    }

    #[test]
    fn strings_dates_and_like() {
        assert!(like_match("hello", "h%o", '\\', false));
        assert!(like_match("h_llo", "h\\_llo", '\\', false));
        assert!(!like_match("hallo", "h\\_llo", '\\', false));
        assert!(like_match("ABC", "a%", '\\', true));
        assert!(!like_match("ABC", "a%", '\\', false));
        assert_eq!(text("CONCAT('a', 1, 2.5)"), "a12.5");
        assert_eq!(
            text("DATE_ADD('2024-02-29', INTERVAL 1 YEAR)"),
            "2025-02-28"
        );
        assert_eq!(
            text("DATE_SUB('2024-01-01 00:00:00', INTERVAL 1 SECOND)"),
            "2023-12-31 23:59:59"
        );
        assert_eq!(
            text("DATE_FORMAT('2024-01-02 03:04:05', '%d/%m/%y %H-%i-%s')"),
            "02/01/24 03-04-05"
        );
        assert_eq!(text("FROM_UNIXTIME(0)"), "1970-01-01 00:00:00");
        assert_eq!(text("CAST('12.6' AS UNSIGNED)"), "13");
        assert_eq!(text("CASE 2 WHEN 1 THEN 'a' WHEN 2 THEN 'b' END"), "b");
        assert_eq!(run("NO_SUCH(1)").unwrap_err().code, 1305);
    }
}
