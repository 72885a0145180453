//! The values of a UNION column brought to the type MariaDB aggregates its branches' types to,
//! where that changes how a value prints: integers and decimals of fewer fraction digits shown
//! with the column's largest scale (`SELECT 1.5 UNION SELECT 2` gives `2.0`), exact numbers
//! beside a DOUBLE or FLOAT converted to DOUBLE, DATEs beside a DATETIME shown as DATETIMEs.
//!
//! A branch's kind comes from its column's type where the plan knows it (so an empty branch
//! counts, as in MariaDB), else from the values it produced. Beside a string, the other side's
//! numbers and temporal values become the text they print as (so they sort, compare and
//! deduplicate as the strings of MariaDB's VARCHAR column); a TIME column is left alone.
//!
//! Invariant: a value is only ever widened (more fraction digits, an exact number to the DOUBLE
//! MariaDB would compute, a date to midnight of that date); no digit is dropped. A FLOAT value
//! keeps its own form.

use crate::result::OutCol;
use crate::types::temporal::DateTime;
use crate::types::value::Value;
use crate::types::SqlType;

/// What a branch's column holds, as far as the aggregation cares.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// Nothing known yet (no type, only NULLs).
    Unknown,
    Int,
    Decimal(u8),
    Double,
    Date,
    DateTime,
    /// Character strings: the other side's values become their text.
    Text,
    /// Binary strings: the other side's values become their bytes.
    Binary,
    /// Anything else (TIME, ENUM, ...): the column is left as it is.
    Other,
}

fn kind_of_type(ty: &SqlType) -> Kind {
    match ty {
        SqlType::Int { .. } => Kind::Int,
        SqlType::Decimal { scale, .. } => Kind::Decimal(*scale),
        SqlType::Float { .. } | SqlType::Double { .. } => Kind::Double,
        SqlType::Date => Kind::Date,
        SqlType::DateTime { .. } => Kind::DateTime,
        t if t.is_text() => Kind::Text,
        SqlType::Binary { .. } | SqlType::VarBinary { .. } | SqlType::Blob(_) => Kind::Binary,
        _ => Kind::Other,
    }
}

fn kind_of_value(v: &Value) -> Kind {
    match v {
        Value::Null => Kind::Unknown,
        Value::Int(_) | Value::UInt(_) => Kind::Int,
        Value::Decimal(d) => Kind::Decimal(d.scale()),
        Value::Float(_) | Value::Double(_) => Kind::Double,
        Value::Date(_) => Kind::Date,
        Value::DateTime(_) => Kind::DateTime,
        Value::Text(_) => Kind::Text,
        Value::Bytes(_) => Kind::Binary,
        Value::Time(_) => Kind::Other,
    }
}

/// The kind two kinds aggregate to.
fn join(a: Kind, b: Kind) -> Kind {
    use Kind::*;
    match (a, b) {
        (Unknown, k) | (k, Unknown) => k,
        (Binary, _) | (_, Binary) => Binary,
        (Other, _) | (_, Other) => Other,
        (Text, _) | (_, Text) => Text,
        (Int, Int) => Int,
        (Double, Int | Decimal(_) | Double) | (Int | Decimal(_), Double) => Double,
        (Decimal(s), Int) | (Int, Decimal(s)) => Decimal(s),
        (Decimal(s), Decimal(t)) => Decimal(s.max(t)),
        (Date, Date) => Date,
        (Date | DateTime, Date | DateTime) => DateTime,
        _ => Other,
    }
}

/// A branch's kind for column `i`: its planned type, else the values it produced.
fn branch_kind(col: &OutCol, rows: &[Vec<Value>], i: usize) -> Kind {
    match &col.ty {
        Some(ty) => kind_of_type(ty),
        None => rows
            .iter()
            .filter_map(|r| r.get(i))
            .fold(Kind::Unknown, |k, v| join(k, kind_of_value(v))),
    }
}

/// `v` (of a branch column of type `ty`) as a value of kind `to` (only widenings: see the
/// module invariant).
fn widen(v: &mut Value, to: Kind, ty: Option<&SqlType>) {
    if matches!(to, Kind::Text | Kind::Binary) && !matches!(v, Value::Text(_) | Value::Bytes(_)) {
        if let Some(b) = v.to_text(ty) {
            *v = match (to, String::from_utf8(b)) {
                (Kind::Text, Ok(s)) => Value::Text(s),
                (_, Ok(s)) => Value::Bytes(s.into_bytes()),
                (_, Err(e)) => Value::Bytes(e.into_bytes()),
            };
        }
        return;
    }
    let new = match (&*v, to) {
        (Value::Int(i), Kind::Decimal(s)) => {
            crate::types::decimal::Decimal::from_i64(*i).rescale(s)
        }
        (Value::UInt(u), Kind::Decimal(s)) => {
            crate::types::decimal::Decimal::from_u64(*u).rescale(s)
        }
        (Value::Decimal(d), Kind::Decimal(s)) if d.scale() < s => d.rescale(s),
        (Value::Int(i), Kind::Double) => {
            *v = Value::Double(*i as f64);
            return;
        }
        (Value::UInt(u), Kind::Double) => {
            *v = Value::Double(*u as f64);
            return;
        }
        (Value::Decimal(d), Kind::Double) => {
            *v = Value::Double(d.to_f64());
            return;
        }
        (Value::Date(d), Kind::DateTime) => {
            *v = Value::DateTime(DateTime::from_date(*d));
            return;
        }
        _ => return,
    };
    if let Some((d, _)) = new {
        *v = Value::Decimal(d);
    }
}

/// Brings the rows of a UNION (`left_rows` rows of the left branch, then the right branch's) to
/// the aggregated kinds of their columns; a column whose values changed kind loses the left
/// branch's planned type (`cols`), so its metadata follows the values.
pub fn unify(
    cols: &mut [OutCol],
    left: &[OutCol],
    right: &[OutCol],
    rows: &mut [Vec<Value>],
    left_rows: usize,
) {
    let split = left_rows.min(rows.len());
    for (i, col) in cols.iter_mut().enumerate() {
        let (Some(lc), Some(rc)) = (left.get(i), right.get(i)) else {
            continue;
        };
        let (l, r) = rows.split_at(split);
        let (lk, rk) = (branch_kind(lc, l, i), branch_kind(rc, r, i));
        let to = join(lk, rk);
        if matches!(to, Kind::Other | Kind::Unknown | Kind::Int) || (lk == to && rk == to) {
            continue;
        }
        for (n, row) in rows.iter_mut().enumerate() {
            let ty = if n < split { &lc.ty } else { &rc.ty };
            if let Some(v) = row.get_mut(i) {
                widen(v, to, ty.as_ref());
            }
        }
        if lk != to {
            col.ty = rc.ty.filter(|t| kind_of_type(t) == to);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::decimal::Decimal;

    fn dec(s: &str) -> Value {
        Value::Decimal(Decimal::parse(s).unwrap())
    }

    #[test]
    fn integers_take_the_largest_scale() {
        let cols = vec![OutCol::named("a", None)];
        let mut out = cols.clone();
        let mut rows = vec![vec![dec("1.5")], vec![Value::Int(2)], vec![dec("0.25")]];
        unify(&mut out, &cols, &cols, &mut rows, 1);
        assert_eq!(
            rows,
            vec![vec![dec("1.50")], vec![dec("2.00")], vec![dec("0.25")]]
        );
    }

    #[test]
    fn exact_numbers_beside_a_double_become_doubles() {
        let cols = vec![OutCol::named("a", None)];
        let mut out = cols.clone();
        let mut rows = vec![vec![dec("1.5")], vec![Value::Double(2.5)]];
        unify(&mut out, &cols, &cols, &mut rows, 1);
        assert_eq!(
            rows,
            vec![vec![Value::Double(1.5)], vec![Value::Double(2.5)]]
        );
    }

    #[test]
    fn numbers_beside_a_string_become_text() {
        let cols = vec![OutCol::named("a", None)];
        let mut out = cols.clone();
        let mut rows = vec![
            vec![dec("1.5")],
            vec![Value::Int(2)],
            vec![Value::Text("x".into())],
        ];
        unify(&mut out, &cols, &cols, &mut rows, 2);
        let text = |s: &str| vec![Value::Text(s.into())];
        assert_eq!(rows, vec![text("1.5"), text("2"), text("x")]);
    }

    #[test]
    fn an_empty_branch_counts_by_its_planned_type() {
        let left = vec![OutCol::named("a", None)];
        let right = vec![OutCol::named(
            "d",
            Some(SqlType::Decimal {
                precision: 5,
                scale: 2,
                unsigned: false,
            }),
        )];
        let mut out = left.clone();
        let mut rows = vec![vec![Value::Int(1)]];
        unify(&mut out, &left, &right, &mut rows, 1);
        assert_eq!(rows, vec![vec![dec("1.00")]]);
        assert_eq!(out[0].ty, right[0].ty);
    }
}
