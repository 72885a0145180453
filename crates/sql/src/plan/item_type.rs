//! The result type of a computed temporal select item, where MariaDB fixes it before any row:
//! `CAST(x AS DATE | DATETIME(n) | TIME(n))` (n fraction digits, 0 without), and `TIME(x)` /
//! `TIMESTAMP(x)`, whose digits are their argument's datetime precision (a DATETIME(3) column:
//! 3; `'10:00:00.5'`: 1; a DECIMAL: its scale).
//!
//! Invariant: a type is given only where the value never has more fraction digits than it
//! shows (the casts cut them; the functions keep their argument's); elsewhere `None`, and a
//! value prints with the digits it needs.

use crate::expr::decimals::unix_timestamp_decimals;
use crate::expr::{CastTo, Expr, Scope};
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
        _ => None,
    }
}
