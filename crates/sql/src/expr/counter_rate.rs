//! Betula's counter aggregates `DELTA(v, ts)` and `RATE(v, ts)` over a monotonic counter that may
//! reset (a device restart sets it back near zero).
//!
//! The group's rows are ordered by `ts` (ties by `v`, so the answer never depends on the order rows
//! are read in); each step from one reading to the next adds `next - prev` when the counter did not
//! go down, and `next` when it did (a reset: the counter restarted from zero). DELTA is the sum of
//! the steps, RATE the sum divided by the seconds from the first reading to the last. Rows whose
//! `v` or `ts` is NULL are skipped, as are a temporal `v` and a `ts` that is neither a time nor a
//! number; text reads as a number as SUM reads it; fewer than two readings, or readings all
//! at one instant for RATE, give NULL. Both are DOUBLE.
//!
//! `ts` is a DATE, DATETIME or TIMESTAMP (read in the session's time zone, as every TIMESTAMP is;
//! differenced as calendar time), a TIME, or a number of seconds (epoch seconds, for example).

use crate::types::temporal::DateTime;
use crate::types::value::Value;

/// The readings of one group.
#[derive(Clone, Default)]
pub struct CounterSeries {
    points: Vec<(f64, f64)>,
}

/// Seconds of a `ts` argument on one line, `None` when it is not a time or a number.
fn seconds(ts: &Value) -> Option<f64> {
    let micros = match ts {
        Value::Null => return None,
        Value::DateTime(d) => d.unix_micros()?,
        Value::Date(d) => DateTime::from_date(*d).unix_micros()?,
        Value::Time(t) => t.micros,
        Value::Text(s) => DateTime::parse(s)?.unix_micros()?,
        Value::Bytes(_) => return None,
        n => return n.to_f64_lenient().filter(|x| x.is_finite()),
    };
    Some(micros as f64 / 1e6)
}

impl CounterSeries {
    /// Adds one row's `v` and `ts`.
    pub fn add(&mut self, v: &Value, ts: &Value) {
        let v = match v {
            Value::Date(_) | Value::DateTime(_) | Value::Time(_) => return,
            // Text reads as a number as SUM reads it.
            n => n.to_f64_lenient(),
        };
        if let (Some(v), Some(t)) = (v.filter(|x| x.is_finite()), seconds(ts)) {
            self.points.push((t, v));
        }
    }

    /// The points in time order and the summed increase; `None` with fewer than two.
    fn increase(&mut self) -> Option<f64> {
        if self.points.len() < 2 {
            return None;
        }
        self.points
            .sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let total = self
            .points
            .windows(2)
            .map(|w| {
                let (prev, next) = (w[0].1, w[1].1);
                if next >= prev {
                    next - prev
                } else {
                    next
                }
            })
            .sum();
        Some(total)
    }

    /// DELTA: the counter's increase over the group.
    pub fn delta(mut self) -> Value {
        self.increase().map_or(Value::Null, Value::Double)
    }

    /// RATE: the increase per second from the first reading to the last.
    pub fn rate(mut self) -> Value {
        let Some(inc) = self.increase() else {
            return Value::Null;
        };
        let span = self.points[self.points.len() - 1].0 - self.points[0].0;
        if span > 0.0 {
            Value::Double(inc / span)
        } else {
            Value::Null
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: &[(i64, i64)]) -> CounterSeries {
        let mut s = CounterSeries::default();
        for &(t, v) in points {
            s.add(&Value::Int(v), &Value::Int(t));
        }
        s
    }

    #[test]
    fn resets_count_the_value_after_them() {
        // 10 → 15 (+5), reset to 3 (+3), → 7 (+4): 12 over 30 seconds.
        let pts = [(0, 10), (10, 15), (20, 3), (30, 7)];
        assert_eq!(series(&pts).delta(), Value::Double(12.0));
        assert_eq!(series(&pts).rate(), Value::Double(0.4));
    }

    #[test]
    fn order_of_rows_does_not_matter() {
        let a = series(&[(30, 7), (0, 10), (20, 3), (10, 15)]);
        assert_eq!(a.delta(), Value::Double(12.0));
    }

    #[test]
    fn too_few_readings_or_no_span_give_null() {
        assert_eq!(series(&[(5, 1)]).delta(), Value::Null);
        assert_eq!(series(&[]).rate(), Value::Null);
        assert_eq!(series(&[(5, 1), (5, 4)]).rate(), Value::Null);
        assert_eq!(series(&[(5, 1), (5, 4)]).delta(), Value::Double(3.0));
    }

    #[test]
    fn nulls_are_skipped_and_text_reads_as_a_number() {
        let mut s = CounterSeries::default();
        s.add(&Value::Null, &Value::Int(1));
        s.add(&Value::Int(1), &Value::Null);
        s.add(&Value::Text("1".into()), &Value::Int(2));
        s.add(&Value::Int(2), &Value::Int(3));
        s.add(&Value::Int(5), &Value::Int(4));
        assert_eq!(s.delta(), Value::Double(4.0));
    }
}
