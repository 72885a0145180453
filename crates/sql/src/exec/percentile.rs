//! The value of PERCENTILE_CONT and PERCENTILE_DISC (MEDIAN is PERCENTILE_CONT(0.5)) over one
//! partition, from its rows in the window's order (the WITHIN GROUP key's), as MariaDB 10.11
//! computes it (`Item_sum_percentile_cont` / `_disc`).
//!
//! Rules:
//! * rows whose argument is NULL are skipped, and their own value is NULL;
//! * the first other argument is the percentile p: outside [0,1] it is 4103, and every later one
//!   must equal it (4102); a value of a non-numeric type is 4104 (the compiler refuses the
//!   types it knows, compile/percentile.rs);
//! * rows whose key is NULL are not counted: N is the number of keys that are not NULL;
//! * PERCENTILE_DISC is the first key (in the window's order) whose row number divided by N is
//!   at least p; PERCENTILE_CONT interpolates between the keys at rows floor(RN) and ceil(RN),
//!   RN = 1 + p * (N - 1), read as DOUBLEs (a date as its number, 20200201), and shows 10
//!   decimals;
//! * with N = 0 the value is NULL.

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::compile::percentile::{
    interpolable_value, numeric_value, wrong_argument, wrong_key,
};
use crate::expr::window::WinFunc;
use crate::types::value::Value;

/// The partition's value; `rows` are each row's (argument, key) in the window's order.
pub fn partition_value(func: &WinFunc, rows: &[(&Value, &Value)]) -> DbResult<Value> {
    let cont = *func == WinFunc::PercentileCont;
    let name = if cont {
        "percentile_cont"
    } else {
        "percentile_disc"
    };
    let n = rows.iter().filter(|(_, k)| !k.is_null()).count();
    let mut p: Option<f64> = None;
    let mut counted = 0usize;
    let mut done = false;
    let (mut floor, mut ceil): (Option<f64>, Option<f64>) = (None, None);
    let mut disc = Value::Null;
    for (arg, key) in rows {
        if arg.is_null() {
            continue;
        }
        if !numeric_value(arg) {
            return Err(wrong_argument(name));
        }
        let a = arg.to_f64_lenient().unwrap_or(0.0);
        match p {
            None if !(0.0..=1.0).contains(&a) => return Err(out_of_range(name)),
            None => p = Some(a),
            Some(q) if q != a => return Err(not_constant(name)),
            Some(_) => {}
        }
        if done || key.is_null() {
            continue;
        }
        if cont && !interpolable_value(key) {
            return Err(wrong_key(name));
        }
        counted += 1;
        let p = p.unwrap_or(0.0);
        if !cont {
            if counted as f64 / n as f64 >= p {
                disc = (*key).clone();
                done = true;
            }
            continue;
        }
        let rn = 1.0 + p * (n as f64 - 1.0);
        let k = key.to_f64_lenient().unwrap_or(0.0);
        if floor.is_none() {
            if counted as f64 == rn.floor() {
                floor = Some(k);
            }
        } else if ceil.is_none() {
            ceil = Some(k);
        }
        if floor.is_some() && counted as f64 >= rn.ceil() {
            done = true;
        }
    }
    if n == 0 || !cont {
        return Ok(if n == 0 { Value::Null } else { disc });
    }
    let rn = 1.0 + p.unwrap_or(0.0) * (n as f64 - 1.0);
    let Some(lo) = floor else {
        return Ok(Value::Null);
    };
    let v = if rn.ceil() == rn.floor() {
        lo
    } else {
        (rn - rn.floor()) * ceil.unwrap_or(lo) + (rn.ceil() - rn) * lo
    };
    Ok(ten_decimals(v))
}

/// A DOUBLE shown with 10 decimals, as MariaDB shows PERCENTILE_CONT, PERCENT_RANK and
/// CUME_DIST.
pub fn ten_decimals(x: f64) -> Value {
    let m = (x * 1e10).round();
    if m.abs() >= 1e37 {
        return Value::Double(x);
    }
    crate::types::decimal::Decimal::new(m as i128, 10).map_or(Value::Double(x), Value::Decimal)
}

fn out_of_range(name: &str) -> DbError {
    DbError::new(
        ErrorCode::ArgumentOutOfRange,
        format!("Argument to the {name} function does not belong to the range [0,1]"),
    )
}

fn not_constant(name: &str) -> DbError {
    DbError::new(
        ErrorCode::ArgumentNotConstant,
        format!("Argument to the {name} function is not a constant for a partition"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(x: &str) -> Value {
        Value::Decimal(crate::types::decimal::Decimal::parse(x).unwrap())
    }

    fn run(func: WinFunc, p: &str, keys: &[Value]) -> DbResult<Value> {
        let p = d(p);
        let rows: Vec<(&Value, &Value)> = keys.iter().map(|k| (&p, k)).collect();
        partition_value(&func, &rows)
    }

    #[test]
    fn disc_takes_the_first_key_whose_row_reaches_p_without_nulls() {
        let keys = [
            Value::Null,
            Value::Null,
            Value::Int(1),
            Value::Int(4),
            Value::Int(5),
        ];
        let disc = |p| run(WinFunc::PercentileDisc, p, &keys).unwrap();
        assert_eq!(disc("0.3"), Value::Int(1));
        assert_eq!(disc("0.5"), Value::Int(4));
        assert_eq!(disc("0"), Value::Int(1));
        assert_eq!(disc("1"), Value::Int(5));
    }

    #[test]
    fn cont_interpolates_between_the_floor_and_ceiling_rows() {
        let keys = [Value::Int(3), Value::Int(4), Value::Int(7)];
        let cont = |p| run(WinFunc::PercentileCont, p, &keys).unwrap();
        assert_eq!(cont("0.5"), d("4.0000000000"));
        assert_eq!(cont("0.1"), d("3.2000000000"));
        assert_eq!(cont("0.7"), d("5.2000000000"));
        assert_eq!(cont("1"), d("7.0000000000"));
        assert_eq!(
            run(WinFunc::PercentileCont, "0.5", &[Value::Null]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn the_percentile_must_be_in_range_and_constant() {
        let keys = [Value::Int(3)];
        let e = run(WinFunc::PercentileCont, "1.5", &keys).unwrap_err();
        assert_eq!(e.code, ErrorCode::ArgumentOutOfRange);
        let (a, b, k) = (d("0.5"), d("0.6"), Value::Int(1));
        let e = partition_value(&WinFunc::PercentileDisc, &[(&a, &k), (&b, &k)]).unwrap_err();
        assert_eq!(e.code, ErrorCode::ArgumentNotConstant);
        let s = Value::Text("0.5".into());
        let e = partition_value(&WinFunc::PercentileDisc, &[(&s, &k)]).unwrap_err();
        assert_eq!(e.code, ErrorCode::WrongTypeOfArgument);
    }
}
