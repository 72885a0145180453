//! The decimals MariaDB gives an expression's result (its `Item::decimals`), for the two places
//! they change an answer: a computed DOUBLE select item prints with exactly that many decimals
//! when they are fixed (`ROUND(2e0, 1)` is `2.0`, `PI()` is `3.141593`, `PI()/3` is
//! `1.0471975512`), and a DECIMAL quotient inside an arithmetic expression is rounded to them
//! where the expression ends (compile/division.rs).
//!
//! Rules (MariaDB 10.11, `sql/item_func.cc`): [`NOT_FIXED`] (31) means "as many as the value
//! needs" and wins over any fixed count in `+ - * %`, GREATEST/LEAST, IF, CASE, COALESCE; a
//! literal DOUBLE, a DOUBLE/FLOAT column, a string and the transcendental functions (SQRT, POW,
//! EXP, LN, SIN, ...) are not fixed; an integer has 0, a DECIMAL its scale, DOUBLE(M,D) its D,
//! PI() 6; `+ - %` and the choosing functions take the most of their arguments, `*` the most for
//! DOUBLE and the sum for DECIMAL results, `/` 4 more (`div_precision_increment`) than the
//! most of its operands for DOUBLE and than the dividend for DECIMAL;
//! ROUND/TRUNCATE(x, n) with a constant n take n (0 when negative, not fixed from 31 on), with
//! another n x's; SUM/MIN/MAX their argument's, AVG and the deviations their argument's plus 4.
//!
//! Invariant: [`decimals`] answers [`NOT_FIXED`] for whatever it does not know (a temporal
//! value, a column of unknown type, a function not listed), so an unknown case prints as before.

use crate::expr::{AggFunc, AggSpec, BinOp, Expr, Scope, UnOp};
use crate::types::value::Value;
use crate::types::SqlType;

/// MariaDB's `NOT_FIXED_DEC`: the decimals of a value printed in its shortest form.
pub const NOT_FIXED: u8 = 31;

/// MariaDB's `div_precision_increment` (its default; Betula does not let it change).
pub const DIV_PRECISION_INCREMENT: u8 = 4;

/// What a decimals count is computed for: a DOUBLE result takes the most of `*`'s operands, a
/// DECIMAL one their sum.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    Double,
    Decimal,
}

/// The decimals of `e` (see the module doc); `aggs` are the aggregates `Expr::Agg` indexes.
pub fn decimals(scope: &Scope, aggs: &[AggSpec], e: &Expr, kind: ResultKind) -> u8 {
    let d = |x: &Expr| decimals(scope, aggs, x, kind);
    match e {
        Expr::Lit(v) => literal(v),
        Expr::Col(i) => scope
            .cols
            .get(*i)
            .and_then(|c| c.ty.as_ref())
            .map_or(NOT_FIXED, column),
        Expr::Unary(UnOp::Neg, a) => d(a),
        Expr::Binary(op, a, b, _) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mod => most(d(a), d(b)),
            BinOp::Mul if kind == ResultKind::Decimal => sum(d(a), d(b)),
            BinOp::Mul => most(d(a), d(b)),
            BinOp::Div if kind == ResultKind::Decimal => plus_increment(d(a)),
            BinOp::Div => plus_increment(most(d(a), d(b))),
            _ => 0,
        },
        Expr::Case(_, arms, default, _) => arms
            .iter()
            .map(|(_, then)| d(then))
            .chain(default.iter().map(|x| d(x)))
            .fold(0, most),
        Expr::Func(name, args) => function(name, args, &d),
        Expr::Agg(i) => aggs.get(*i).map_or(NOT_FIXED, |a| aggregate(a, &d)),
        // An ENUM/SET read as a number is a string to MariaDB: its decimals are free.
        Expr::IsNull(..) | Expr::IsTrue(..) | Expr::InList(..) => 0,
        Expr::Between(..) | Expr::Like(..) => 0,
        _ => NOT_FIXED,
    }
}

fn literal(v: &Value) -> u8 {
    match v {
        Value::Null | Value::Int(_) | Value::UInt(_) => 0,
        Value::Decimal(d) => d.scale(),
        _ => NOT_FIXED,
    }
}

fn column(ty: &SqlType) -> u8 {
    match ty {
        SqlType::Int { .. } | SqlType::Year | SqlType::Bit { .. } => 0,
        SqlType::Decimal { scale, .. } => *scale,
        SqlType::Float { digits, .. } | SqlType::Double { digits, .. } => {
            digits.map_or(NOT_FIXED, |(_, d)| d)
        }
        _ => NOT_FIXED,
    }
}

/// The decimals of function `name` of `args` (`d`: an argument's).
fn function(name: &str, args: &[Expr], d: &dyn Fn(&Expr) -> u8) -> u8 {
    let all = || args.iter().map(d).fold(0, most);
    match name {
        "PI" => 6,
        super::functions::DEC_ROUND => match args.get(1) {
            Some(Expr::Lit(Value::Int(n))) => *n as u8,
            _ => NOT_FIXED,
        },
        super::functions::DIV_PRECISE => args.first().map_or(NOT_FIXED, |a| plus_increment(d(a))),
        "ROUND" | "TRUNCATE" => match args.get(1) {
            None => 0,
            Some(Expr::Lit(n)) => rounded_to(n),
            Some(_) => args.first().map_or(NOT_FIXED, d),
        },
        "ABS" => args.first().map_or(NOT_FIXED, d),
        "FLOOR" | "CEIL" | "CEILING" | "SIGN" => 0,
        "MOD" => all(),
        "GREATEST" | "LEAST" | "COALESCE" | "IFNULL" | "NVL" => all(),
        "IF" => args.iter().skip(1).map(d).fold(0, most),
        "NULLIF" => args.first().map_or(NOT_FIXED, d),
        _ => NOT_FIXED,
    }
}

/// ROUND / TRUNCATE's decimals for the constant `n`: n itself, 0 when negative, not fixed from
/// 31 on or for NULL (MariaDB's `Item_func_round::fix_arg_double`).
fn rounded_to(n: &Value) -> u8 {
    let n = match n {
        Value::Null => return NOT_FIXED,
        Value::Int(i) => *i,
        Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        other => match other.to_f64_lenient() {
            Some(f) => f.round() as i64,
            None => return NOT_FIXED,
        },
    };
    n.clamp(0, i64::from(NOT_FIXED)) as u8
}

fn aggregate(a: &AggSpec, d: &dyn Fn(&Expr) -> u8) -> u8 {
    let arg = a.arg.first().map_or(NOT_FIXED, d);
    match a.func {
        AggFunc::Sum | AggFunc::Min | AggFunc::Max => arg,
        AggFunc::Avg | AggFunc::StdPop | AggFunc::StdSamp => plus_increment(arg),
        AggFunc::Count | AggFunc::CountStar => 0,
        _ => NOT_FIXED,
    }
}

fn most(a: u8, b: u8) -> u8 {
    a.max(b)
}

fn sum(a: u8, b: u8) -> u8 {
    if a >= NOT_FIXED || b >= NOT_FIXED {
        NOT_FIXED
    } else {
        (a + b).min(38)
    }
}

fn plus_increment(a: u8) -> u8 {
    if a >= NOT_FIXED {
        NOT_FIXED
    } else {
        (a + DIV_PRECISION_INCREMENT).min(NOT_FIXED)
    }
}

/// The decimals of `UNIX_TIMESTAMP(e)` (MariaDB's `datetime_precision` of its argument, at most
/// 6): a temporal column's fractional digits, a DECIMAL's scale, 0 for integers and dates, 6 for
/// a DOUBLE or a string that is not constant (a string column, CONCAT), a temporal CAST's
/// precision; a constant string is
/// read as MariaDB reads it (`'... 00:00:00.50'`: 2). `None`: not known before the value (a
/// function of another kind), whose value then decides (its fractional digits, if any, as 6).
pub fn unix_timestamp_decimals(scope: &Scope, e: &Expr) -> Option<u8> {
    const MAX: u8 = 6;
    if let Some(c) = e.col_index() {
        let ty = scope.cols.get(c).and_then(|c| c.ty)?;
        return Some(match ty {
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } | SqlType::Time { fsp } => fsp,
            SqlType::Date => 0,
            other => column(&other).min(MAX),
        });
    }
    match e {
        Expr::Lit(Value::Text(s)) => Some(constant_text_digits(s).min(MAX)),
        Expr::Lit(Value::DateTime(dt)) => {
            let mut us = dt.micros % 1_000_000;
            let mut digits = 6u8;
            while digits > 0 && us % 10 == 0 {
                us /= 10;
                digits -= 1;
            }
            Some(digits)
        }
        Expr::Lit(v) => Some(literal(v).min(MAX)),
        Expr::Func(name, _) if STRING_FUNCTIONS.contains(&name.as_str()) => Some(MAX),
        Expr::Cast(_, crate::expr::CastTo::Char(_) | crate::expr::CastTo::Binary(_)) => Some(MAX),
        Expr::Cast(_, crate::expr::CastTo::DateTime(fsp) | crate::expr::CastTo::Time(fsp)) => {
            Some(*fsp)
        }
        Expr::Cast(_, crate::expr::CastTo::Date) => Some(0),
        _ => None,
    }
}

/// Functions whose value is a string (their decimals are not fixed).
const STRING_FUNCTIONS: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "SUBSTRING",
    "SUBSTR",
    "LEFT",
    "RIGHT",
    "LPAD",
    "RPAD",
    "REPLACE",
    "TRIM",
    "LTRIM",
    "RTRIM",
    "LOWER",
    "UPPER",
    "LCASE",
    "UCASE",
    "REVERSE",
];

/// The fractional digits of the time written in `s` (`'2020-01-01 10:00:00.50'`: 2).
pub(crate) fn constant_text_digits(s: &str) -> u8 {
    let Some(colon) = s.find(':') else {
        return 0;
    };
    let Some(dot) = s[colon..].find('.') else {
        return 0;
    };
    s[colon + dot + 1..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count()
        .min(usize::from(u8::MAX)) as u8
}

/// The decimals a computed DOUBLE select item prints with: `Some(n)` when MariaDB fixes them.
pub fn fixed_double_decimals(scope: &Scope, aggs: &[AggSpec], e: &Expr) -> Option<u8> {
    let n = decimals(scope, aggs, e, ResultKind::Double);
    (n < NOT_FIXED).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::decimal::Decimal;

    fn call(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Func(name.into(), args)
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b), Default::default())
    }

    fn lit(v: Value) -> Expr {
        Expr::Lit(v)
    }

    #[test]
    fn doubles_take_mariadb_decimals() {
        let scope = Scope::default();
        let d = |e: &Expr| fixed_double_decimals(&scope, &[], e);
        let two = || lit(Value::Double(2.0));
        assert_eq!(d(&call("ROUND", vec![two(), lit(Value::Int(1))])), Some(1));
        assert_eq!(d(&call("ROUND", vec![two(), lit(Value::Int(-2))])), Some(0));
        assert_eq!(d(&call("ROUND", vec![two(), lit(Value::Int(31))])), None);
        assert_eq!(d(&call("ROUND", vec![two(), lit(Value::Null)])), None);
        assert_eq!(d(&call("PI", vec![])), Some(6));
        assert_eq!(
            d(&bin(BinOp::Div, call("PI", vec![]), lit(Value::Int(3)))),
            Some(10)
        );
        assert_eq!(d(&bin(BinOp::Mul, call("PI", vec![]), two())), None);
        let half = lit(Value::Decimal(Decimal::parse("1.55").unwrap()));
        assert_eq!(d(&bin(BinOp::Add, call("PI", vec![]), half)), Some(6));
        assert_eq!(d(&call("SQRT", vec![two()])), None);
        assert_eq!(d(&call("FLOOR", vec![call("PI", vec![])])), Some(0));
    }

    #[test]
    fn unix_timestamp_takes_its_arguments_decimals() {
        let scope = Scope::default();
        let d = |e: Expr| unix_timestamp_decimals(&scope, &e);
        let text = |s: &str| lit(Value::Text(s.into()));
        assert_eq!(d(text("2020-01-01 00:00:00.50")), Some(2));
        assert_eq!(d(text("2020-01-01 00:00:00.1234567")), Some(6));
        assert_eq!(d(text("2020-01-01")), Some(0));
        assert_eq!(d(lit(Value::Int(20200101))), Some(0));
        assert_eq!(
            d(lit(Value::Decimal(Decimal::parse("1.5").unwrap()))),
            Some(1)
        );
        assert_eq!(d(call("CONCAT", vec![text("2020-01-01")])), Some(6));
        assert_eq!(d(call("DATE_ADD", vec![])), None);
    }

    #[test]
    fn decimal_products_add_their_decimals() {
        let scope = Scope::default();
        let dec = |s: &str| lit(Value::Decimal(Decimal::parse(s).unwrap()));
        let e = bin(BinOp::Mul, dec("1.25"), dec("0.125"));
        assert_eq!(decimals(&scope, &[], &e, ResultKind::Decimal), 5);
        assert_eq!(decimals(&scope, &[], &e, ResultKind::Double), 3);
        let q = bin(BinOp::Div, dec("1.5"), dec("0.125"));
        assert_eq!(decimals(&scope, &[], &q, ResultKind::Decimal), 5);
        assert_eq!(decimals(&scope, &[], &q, ResultKind::Double), 7);
    }
}
