//! Periods (`YYMM` or `YYYYMM` numbers): PERIOD_ADD and PERIOD_DIFF.
//!
//! Rules (MariaDB's `convert_period_to_month` / `convert_month_to_period`): a period counts
//! months from year 0; a two-digit year below 70 is 20YY, another one 19YY; a month number is
//! not checked (`200013` is January 2001); a period above 999912 or negative counts as month 0
//! (`PERIOD_ADD(-1, 1)` is 200002); the period 0 stays 0 in PERIOD_ADD. The month count wraps
//! at 32 bits as MariaDB's does.

use super::{int, need};
use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["PERIOD_ADD", "PERIOD_DIFF"];

/// Two-digit years below this are in the 2000s (MariaDB's `YY_PART_YEAR`).
const YY_PART_YEAR: u64 = 70;

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    need(name, a, 2, 2)?;
    let (p, n) = (int(&a[0]).unwrap_or(0), int(&a[1]).unwrap_or(0));
    Ok(match name {
        "PERIOD_ADD" if p == 0 => Value::Int(0),
        "PERIOD_ADD" => {
            let months = (to_months(p as u64) as i32).wrapping_add(n as i32) as u32;
            Value::Int(to_period(u64::from(months)) as i64)
        }
        "PERIOD_DIFF" => {
            let months = |x: i64| to_months(x as u64) as i64;
            Value::Int(months(p).wrapping_sub(months(n)))
        }
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// The largest period read as one (a greater one, or a negative one, counts 0 months).
const PERIOD_MAX: u64 = 999_912;

/// The months since year 0 of `period`.
fn to_months(period: u64) -> u64 {
    if period == 0 || period > PERIOD_MAX {
        return 0;
    }
    let mut year = period / 100;
    if year < YY_PART_YEAR {
        year += 2000;
    } else if year < 100 {
        year += 1900;
    }
    year.wrapping_mul(12)
        .wrapping_add(period % 100)
        .wrapping_sub(1)
}

/// The period `YYYYMM` of `months` since year 0.
fn to_period(months: u64) -> u64 {
    if months == 0 {
        return 0;
    }
    let mut year = months / 12;
    if year < 100 {
        year += if year < YY_PART_YEAR { 2000 } else { 1900 };
    }
    year * 100 + months % 12 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period(name: &str, p: i64, n: i64) -> Value {
        call(name, &[Value::Int(p), Value::Int(n)]).unwrap()
    }

    #[test]
    fn periods_add_and_subtract_as_mariadb() {
        assert_eq!(period("PERIOD_ADD", 202401, 2), Value::Int(202403));
        assert_eq!(period("PERIOD_ADD", 2401, 13), Value::Int(202502));
        assert_eq!(period("PERIOD_ADD", 9912, 1), Value::Int(200001));
        assert_eq!(period("PERIOD_ADD", 202412, -12), Value::Int(202312));
        assert_eq!(period("PERIOD_ADD", 0, 5), Value::Int(0));
        assert_eq!(period("PERIOD_ADD", 200013, 1), Value::Int(200102));
        assert_eq!(period("PERIOD_ADD", -1, 1), Value::Int(200002));
        assert_eq!(period("PERIOD_ADD", 4294967295, 1), Value::Int(200002));
        assert_eq!(
            period("PERIOD_ADD", 202401, 2147483647),
            Value::Int(17895899408)
        );
        assert_eq!(period("PERIOD_ADD", 202401, 4294967296), Value::Int(202401));
        assert_eq!(period("PERIOD_DIFF", -202401, 202312), Value::Int(-24287));
        assert_eq!(period("PERIOD_DIFF", 0, 1), Value::Int(-24000));
        assert_eq!(period("PERIOD_DIFF", 202401, 202312), Value::Int(1));
        assert_eq!(period("PERIOD_DIFF", 2401, 9901), Value::Int(300));
        assert_eq!(period("PERIOD_DIFF", 7001, 6912), Value::Int(-1199));
    }
}
