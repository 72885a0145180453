//! TIMESTAMPDIFF(unit, a, b), compiled as `__TIMESTAMPDIFF_<unit>(a, b)` (the compiler reads the
//! unit keyword, expr/compile/call.rs).
//!
//! Invariants: the result is `b - a` in whole units, truncated toward zero, as MariaDB's
//! `Item_func_timestamp_diff` computes it: MONTH, QUARTER and YEAR count whole months (a month
//! is complete when the later value's day and time of day reach the earlier one's), the other
//! units divide the exact difference in microseconds. A value that is not a date is NULL.

use crate::expr::eval::to_datetime;
use crate::types::temporal::{day_number, DateTime};
use crate::types::value::Value;

const DAY_US: i128 = 86_400_000_000;

/// `__TIMESTAMPDIFF_<unit>` with the unit as IntervalUnit's Debug name.
pub(super) fn call(unit: &str, a: &[Value]) -> Value {
    let (Some(x), Some(y)) = (
        a.first().and_then(to_datetime),
        a.get(1).and_then(to_datetime),
    ) else {
        return Value::Null;
    };
    let instant = |d: &DateTime| day_number(d.date) as i128 * DAY_US + d.micros as i128;
    let diff = instant(&y) - instant(&x);
    let (neg, beg, end) = if diff < 0 {
        (true, y, x)
    } else {
        (false, x, y)
    };
    let per: i128 = match unit {
        "Microsecond" => 1,
        "Second" => 1_000_000,
        "Minute" => 60_000_000,
        "Hour" => 3_600_000_000,
        "Day" => DAY_US,
        "Week" => 7 * DAY_US,
        "Month" | "Quarter" | "Year" => {
            let months = whole_months(&beg, &end);
            let n = match unit {
                "Month" => months,
                "Quarter" => months / 3,
                _ => months / 12,
            };
            return Value::Int(if neg { -n } else { n });
        }
        _ => return Value::Null,
    };
    let n = (diff.abs() / per) as i64;
    Value::Int(if neg { -n } else { n })
}

/// Whole months from `beg` to `end` (`end` not before `beg`).
fn whole_months(beg: &DateTime, end: &DateTime) -> i64 {
    let (yb, mb, db) = (
        beg.date.year as i64,
        beg.date.month as i64,
        beg.date.day as i64,
    );
    let (ye, me, de) = (
        end.date.year as i64,
        end.date.month as i64,
        end.date.day as i64,
    );
    let mut months = (ye - yb) * 12 + (me - mb);
    if de < db || (de == db && end.micros < beg.micros) {
        months -= 1;
    }
    months
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(unit: &str, x: &str, y: &str) -> Value {
        call(unit, &[Value::Text(x.into()), Value::Text(y.into())])
    }

    #[test]
    fn differences_truncate_toward_zero() {
        assert_eq!(
            d("Hour", "2024-01-01", "2024-01-02 05:59:59"),
            Value::Int(29)
        );
        assert_eq!(
            d("Hour", "2024-01-02 05:59:59", "2024-01-01"),
            Value::Int(-29)
        );
        assert_eq!(
            d("Day", "2024-01-01 12:00", "2024-01-03 11:00"),
            Value::Int(1)
        );
        assert_eq!(d("Week", "2024-01-01", "2024-01-15"), Value::Int(2));
        assert_eq!(
            d("Second", "2024-01-01", "2024-01-01 00:01:01.9"),
            Value::Int(61)
        );
        assert_eq!(
            d("Microsecond", "2024-01-01", "2024-01-01 00:00:01.25"),
            Value::Int(1_250_000)
        );
        assert_eq!(d("Day", "junk", "2024-01-01"), Value::Null);
    }

    #[test]
    fn months_are_whole_calendar_months() {
        assert_eq!(d("Month", "2024-01-31", "2024-02-29"), Value::Int(0));
        assert_eq!(d("Month", "2024-01-31", "2024-03-31"), Value::Int(2));
        assert_eq!(
            d("Month", "2024-01-15 10:00", "2024-02-15 09:59"),
            Value::Int(0)
        );
        assert_eq!(d("Month", "2024-03-31", "2024-01-31"), Value::Int(-2));
        assert_eq!(d("Quarter", "2024-01-01", "2024-12-31"), Value::Int(3));
        assert_eq!(d("Year", "2020-02-29", "2024-02-28"), Value::Int(3));
        assert_eq!(d("Year", "2020-02-29", "2024-02-29"), Value::Int(4));
    }
}
