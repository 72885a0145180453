//! GREATEST and LEAST when an argument is a DATE, DATETIME or TIME: MariaDB compares and answers
//! in the temporal type the temporal arguments aggregate to.
//!
//! Invariants (MariaDB 10.11's type aggregation for GREATEST/LEAST):
//! - the type is the temporal arguments' type when they all have one type; DATE with DATETIME,
//!   or TIME with DATE or DATETIME, is DATETIME (a TIME stands on the current date);
//! - every other argument (a string, a number) is converted to that type; one that is not a
//!   valid value of it counts as the type's zero (`GREATEST(DATE'2020-01-01', 'abc')` is the
//!   date);
//! - NULL anywhere is NULL (checked by the caller).

use std::cmp::Ordering;

use crate::expr::eval::cast;
use crate::expr::CastTo;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::value::Value;

/// GREATEST (`want` = Greater) or LEAST (Less) of `a` when one of them is temporal; `None`
/// when none is.
pub(super) fn temporal_extreme(a: &[Value], want: Ordering) -> Option<Value> {
    let mut kinds = a.iter().filter_map(|v| match v {
        Value::Date(_) => Some(CastTo::Date),
        Value::DateTime(_) => Some(CastTo::DateTime(6)),
        Value::Time(_) => Some(CastTo::Time(6)),
        _ => None,
    });
    let first = kinds.next()?;
    let to = if kinds.all(|k| k == first) {
        first
    } else {
        CastTo::DateTime(6)
    };
    let zero = match to {
        CastTo::Date => Value::Date(Date::ZERO),
        CastTo::Time(_) => Value::Time(Time { micros: 0 }),
        _ => Value::DateTime(DateTime {
            date: Date::ZERO,
            micros: 0,
        }),
    };
    let converted = a.iter().map(|v| match cast(v, to) {
        Value::Null => zero.clone(),
        c => c,
    });
    converted.reduce(|best, v| {
        if key(&v).cmp(&key(&best)) == want {
            v
        } else {
            best
        }
    })
}

/// The order of two values of one temporal type.
fn key(v: &Value) -> (Date, i64) {
    match v {
        Value::Date(d) => (*d, 0),
        Value::DateTime(dt) => (dt.date, dt.micros as i64),
        Value::Time(t) => (Date::ZERO, t.micros),
        _ => (Date::ZERO, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> Value {
        Value::Date(Date::parse(s).unwrap())
    }

    #[test]
    fn one_temporal_type_converts_the_others() {
        let d = date("2020-01-01");
        let got = temporal_extreme(
            &[d.clone(), Value::Text("2020-01-02 10:00:00".into())],
            Ordering::Greater,
        );
        assert_eq!(got, Some(date("2020-01-02")));
        let got = temporal_extreme(&[d.clone(), Value::Text("abc".into())], Ordering::Greater);
        assert_eq!(got, Some(d.clone()));
        let t = Value::Time(Time::parse("10:00:00").unwrap());
        let got = temporal_extreme(&[t, Value::Int(100)], Ordering::Less);
        assert_eq!(got, Some(Value::Time(Time::parse("00:01:00").unwrap())));
        assert_eq!(temporal_extreme(&[Value::Int(1)], Ordering::Less), None);
    }

    #[test]
    fn date_and_datetime_give_a_datetime() {
        let got = temporal_extreme(
            &[
                date("2020-01-01"),
                Value::DateTime(DateTime::parse("2019-01-01 10:00:00").unwrap()),
            ],
            Ordering::Greater,
        );
        assert_eq!(
            got,
            Some(Value::DateTime(
                DateTime::parse("2020-01-01 00:00:00").unwrap()
            ))
        );
    }
}
