//! The result type of a computed temporal select item, where MariaDB fixes it before any row:
//! `CAST(x AS DATE | DATETIME(n) | TIME(n))` (n fraction digits, 0 without), and `TIME(x)` /
//! `TIMESTAMP(x)`, whose digits are their argument's datetime precision (a DATETIME(3) column:
//! 3; `'10:00:00.5'`: 1; a DECIMAL: its scale), and `d + INTERVAL n unit` of a typed `d`.
//!
//! Invariant: a type is given only where the value never has more fraction digits than it
//! shows (the casts cut them; the functions keep their argument's); elsewhere `None`, and a
//! value prints with the digits it needs.

use crate::expr::decimals::unix_timestamp_decimals;
use crate::expr::{CastTo, Expr, IntervalUnit, Scope};
use crate::types::value::Value;
use crate::types::SqlType;

/// The type of computed item `e`, when MariaDB's is temporal and fixed.
pub(super) fn temporal_item_type(scope: &Scope, e: &Expr) -> Option<SqlType> {
    match e {
        Expr::Cast(_, CastTo::Date) => Some(SqlType::Date),
        Expr::Cast(_, CastTo::DateTime(fsp)) => Some(SqlType::DateTime { fsp: *fsp }),
        Expr::Cast(_, CastTo::Time(fsp)) => Some(SqlType::Time { fsp: *fsp }),
        Expr::Func(name, args) if args.len() == 1 => {
            let make = match name.as_str() {
                "TIME" => |fsp| SqlType::Time { fsp },
                "TIMESTAMP" => |fsp| SqlType::DateTime { fsp },
                _ => return None,
            };
            unix_timestamp_decimals(scope, &args[0]).map(make)
        }
        Expr::DateAdd(d, n, unit, _) => date_add_type(scope, d, n, *unit),
        _ => None,
    }
}

/// The type of `d + INTERVAL n unit` where `d`'s type is known (a temporal column, a CAST, a
/// DATE literal or another such sum): a DATE moved by whole days stays a DATE, a TIME stays a
/// TIME, anything else is a DATETIME; its digits are the larger of `d`'s and the interval's
/// (6 for the MICROSECOND units, a SECOND amount's own, 0 otherwise), as in MariaDB.
fn date_add_type(scope: &Scope, d: &Expr, n: &Expr, unit: IntervalUnit) -> Option<SqlType> {
    let arg = match d.col_index() {
        Some(c) => scope.cols.get(c)?.ty?,
        None => match d {
            Expr::Lit(Value::Date(_)) => SqlType::Date,
            e => temporal_item_type(scope, e)?,
        },
    };
    let interval_fsp = match unit {
        IntervalUnit::Second => match n {
            Expr::Lit(Value::Text(_)) => 6,
            n => unix_timestamp_decimals(scope, n)?,
        },
        IntervalUnit::Microsecond
        | IntervalUnit::SecondMicrosecond
        | IntervalUnit::MinuteMicrosecond
        | IntervalUnit::HourMicrosecond
        | IntervalUnit::DayMicrosecond => 6,
        _ => 0,
    };
    Some(match arg {
        SqlType::Date if unit.is_whole_days() => SqlType::Date,
        SqlType::Date => SqlType::DateTime { fsp: interval_fsp },
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => SqlType::DateTime {
            fsp: fsp.max(interval_fsp),
        },
        SqlType::Time { fsp } => SqlType::Time {
            fsp: fsp.max(interval_fsp),
        },
        _ => return None,
    })
}
