//! Runtime SQL values and MySQL's comparison rules between them.
//!
//! Owns: [`Value`], the value of one column or expression during execution, its numeric views
//! (MySQL's lenient string → number conversion) and [`sql_cmp`], comparison of two values of possibly
//! different types as MySQL compares them. Coercion to a column type lives in `coerce.rs` and the text
//! protocol form in `text_format.rs`.
//!
//! Invariants: for two values of the same column type (after coercion), [`sql_cmp`] is a total
//! preorder that agrees exactly with the bytewise order of their key encodings (key_codec.rs);
//! `Double(-0.0)` equals `Double(0.0)`. NaN never appears in stored values (coercion rejects it);
//! comparing NaN yields `None` like NULL.
//!
//! MySQL comparison rules implemented (`a op b`):
//! 1. either side NULL → unknown (`None`);
//! 2. both strings → by collation; if either is a binary string (`Bytes`), bytewise;
//! 3. both exact numbers (`Int`, `UInt`, `Decimal`, YEAR as `UInt`) → exactly;
//! 4. a temporal value and a string → the string is parsed as that temporal type and compared as
//!    temporal (for a TIME, a date-and-time string stands for its time of day); if it does not
//!    parse, both are compared as doubles;
//! 5. two temporal values → DATE is promoted to DATETIME at midnight, TIME to DATETIME on the
//!    statement's current date (time_on_date.rs), as MariaDB promotes them;
//! 6. anything else (number vs string, float vs anything, temporal vs number) → as doubles, with
//!    strings converted by their longest numeric prefix (`'12abc'` → 12, `'abc'` → 0) and temporal
//!    values by their numeric form (`YYYYMMDDHHMMSS.ffffff`).

use std::cmp::Ordering;

use crate::types::collation::Collation;
use crate::types::decimal::Decimal;
use crate::types::temporal::{Date, DateTime, Time};
use crate::types::time_on_date::time_as_datetime;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    /// Signed integers (all signed integer types).
    Int(i64),
    /// Unsigned integers (UNSIGNED integer types and YEAR, where 0 is the zero year).
    UInt(u64),
    Float(f32),
    Double(f64),
    Decimal(Decimal),
    /// Character strings (CHAR / VARCHAR / TEXT), always valid UTF-8.
    Text(String),
    /// Binary strings (BINARY / VARBINARY / BLOB).
    Bytes(Vec<u8>),
    Date(Date),
    /// DATETIME and TIMESTAMP.
    DateTime(DateTime),
    Time(Time),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The bytes of a string value (`Text` or `Bytes`), else `None`.
    pub fn str_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Text(s) => Some(s.as_bytes()),
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// Numeric value as a double, MySQL-style (strings by their numeric prefix, temporal values by
    /// their numeric form). `None` for NULL.
    pub fn to_f64_lenient(&self) -> Option<f64> {
        Some(match self {
            Value::Null => return None,
            Value::Int(i) => *i as f64,
            Value::UInt(u) => *u as f64,
            Value::Float(f) => *f as f64,
            Value::Double(d) => *d,
            Value::Decimal(d) => d.to_f64(),
            Value::Text(s) => str_to_f64_prefix(s.as_bytes()).0,
            Value::Bytes(b) => str_to_f64_prefix(b).0,
            Value::Date(d) => d.as_number() as f64,
            Value::DateTime(dt) => dt.as_number(),
            Value::Time(t) => t.as_number(),
        })
    }

    fn exact(&self) -> Option<Exact> {
        match self {
            Value::Int(i) => Some(Exact::Int(*i as i128)),
            Value::UInt(u) => Some(Exact::Int(*u as i128)),
            Value::Decimal(d) => Some(Exact::Dec(*d)),
            _ => None,
        }
    }
}

enum Exact {
    Int(i128),
    Dec(Decimal),
}

/// The longest prefix of `s` (after leading ASCII whitespace) that reads as a number:
/// `[+-]digits[.digits][e[+-]digits]`. Returns the number of bytes consumed including the
/// whitespace (0 when there is no number).
pub fn numeric_prefix_len(s: &[u8]) -> usize {
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut ndigits = i - digits_start;
    if i < s.len() && s[i] == b'.' {
        let f = i + 1;
        let mut j = f;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if ndigits > 0 || j > f {
            ndigits += j - f;
            i = j;
        }
    }
    if ndigits == 0 {
        return 0;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    i
}

/// MySQL's string → double: the numeric prefix's value (0 if none) and whether the whole string
/// (ignoring trailing whitespace) was numeric.
pub fn str_to_f64_prefix(s: &[u8]) -> (f64, bool) {
    let n = numeric_prefix_len(s);
    let whole = n > 0 && s[n..].iter().all(|b| b.is_ascii_whitespace());
    let text = std::str::from_utf8(&s[..n]).unwrap_or("0").trim();
    let text = text.strip_prefix('+').unwrap_or(text);
    let v = if n == 0 {
        0.0
    } else {
        text.parse::<f64>().unwrap_or(0.0)
    };
    (v, whole)
}

fn cmp_f64(a: f64, b: f64) -> Option<Ordering> {
    a.partial_cmp(&b)
}

fn cmp_exact(a: Exact, b: Exact) -> Ordering {
    match (a, b) {
        (Exact::Int(x), Exact::Int(y)) => x.cmp(&y),
        (Exact::Int(x), Exact::Dec(y)) => Decimal::new(x, 0).map_or(Ordering::Equal, |x| x.cmp(&y)),
        (Exact::Dec(x), Exact::Int(y)) => Decimal::new(y, 0).map_or(Ordering::Equal, |y| x.cmp(&y)),
        (Exact::Dec(x), Exact::Dec(y)) => x.cmp(&y),
    }
}

fn is_temporal(v: &Value) -> bool {
    matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Time(_))
}

/// Compares a temporal value with a string by parsing the string as that temporal type.
fn cmp_temporal_str(t: &Value, s: &[u8]) -> Option<Ordering> {
    let s = std::str::from_utf8(s).ok()?;
    match t {
        Value::Date(d) => {
            let o = DateTime::parse(s)?;
            Some(DateTime::from_date(*d).cmp(&o))
        }
        Value::DateTime(d) => Some(d.cmp(&DateTime::parse(s)?)),
        // A string that is not a time but a date and time stands for its time of day.
        Value::Time(t) => {
            let other = Time::parse(s)
                .or_else(|| DateTime::parse(s).and_then(|d| Time::from_micros(d.micros as i64)))?;
            Some(t.cmp(&other))
        }
        _ => None,
    }
}

/// A DATE (at midnight) or DATETIME as a DATETIME.
fn as_datetime(v: &Value) -> Option<DateTime> {
    match v {
        Value::Date(d) => Some(DateTime::from_date(*d)),
        Value::DateTime(d) => Some(*d),
        _ => None,
    }
}

/// Compares two values as MySQL's `<`, `=`, `>` do (see the module doc for the rules). `collation`
/// applies when both sides are character strings. `None` when the result is unknown (NULL or NaN).
pub fn sql_cmp(a: &Value, b: &Value, collation: Collation) -> Option<Ordering> {
    use Value::*;
    if a.is_null() || b.is_null() {
        return None;
    }
    // Rule 2: strings.
    if let (Some(x), Some(y)) = (a.str_bytes(), b.str_bytes()) {
        let coll = if matches!(a, Bytes(_)) || matches!(b, Bytes(_)) {
            Collation::Binary
        } else {
            collation
        };
        return Some(coll.compare(x, y));
    }
    // Rule 3: exact numbers.
    if let (Some(x), Some(y)) = (a.exact(), b.exact()) {
        return Some(cmp_exact(x, y));
    }
    // Rules 4 and 5: temporal values.
    if is_temporal(a) || is_temporal(b) {
        match (a, b) {
            (Date(x), Date(y)) => return Some(x.cmp(y)),
            (DateTime(x), DateTime(y)) => return Some(x.cmp(y)),
            (Time(x), Time(y)) => return Some(x.cmp(y)),
            (Date(x), DateTime(y)) => {
                return Some(crate::types::temporal::DateTime::from_date(*x).cmp(y))
            }
            (DateTime(x), Date(y)) => {
                return Some(x.cmp(&crate::types::temporal::DateTime::from_date(*y)))
            }
            (Time(t), Date(_) | DateTime(_)) => {
                if let (Some(x), Some(y)) = (time_as_datetime(*t), as_datetime(b)) {
                    return Some(x.cmp(&y));
                }
            }
            (Date(_) | DateTime(_), Time(t)) => {
                if let (Some(x), Some(y)) = (as_datetime(a), time_as_datetime(*t)) {
                    return Some(x.cmp(&y));
                }
            }
            _ => {}
        }
        if let Some(s) = b.str_bytes() {
            if let Some(o) = cmp_temporal_str(a, s) {
                return Some(o);
            }
        }
        if let Some(s) = a.str_bytes() {
            if let Some(o) = cmp_temporal_str(b, s) {
                return Some(o.reverse());
            }
        }
    }
    // Rule 6: doubles. Float vs Float compares the f32 values exactly (widening keeps order).
    cmp_f64(a.to_f64_lenient()?, b.to_f64_lenient()?)
}

/// Total order used by indexes and ORDER BY: NULL first, then [`sql_cmp`]; an unknown result (NaN)
/// is treated as equal.
pub fn cmp_nulls_first(a: &Value, b: &Value, collation: Collation) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => sql_cmp(a, b, collation).unwrap_or(Ordering::Equal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    fn cmp(a: &Value, b: &Value) -> Option<Ordering> {
        sql_cmp(a, b, Collation::default())
    }
    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn numbers_vs_strings_compare_numerically() {
        assert_eq!(cmp(&Value::Int(10), &t("9")), Some(Greater)); // as strings '10' < '9'
        assert_eq!(cmp(&Value::Int(12), &t("12abc")), Some(Equal));
        assert_eq!(cmp(&Value::Int(0), &t("abc")), Some(Equal));
        assert_eq!(cmp(&t("1e3"), &Value::Double(1000.0)), Some(Equal));
        assert_eq!(
            cmp(&t(" 2.5"), &Value::Decimal(Decimal::parse("2.50").unwrap())),
            Some(Equal)
        );
        assert_eq!(cmp(&t("10"), &t("9")), Some(Less));
    }

    #[test]
    fn exact_numbers() {
        assert_eq!(cmp(&Value::Int(-1), &Value::UInt(u64::MAX)), Some(Less));
        assert_eq!(
            cmp(&Value::UInt(u64::MAX), &Value::Int(i64::MAX)),
            Some(Greater)
        );
        let d = |s| Value::Decimal(Decimal::parse(s).unwrap());
        assert_eq!(cmp(&Value::Int(3), &d("2.99")), Some(Greater));
        assert_eq!(cmp(&d("3.0"), &Value::UInt(3)), Some(Equal));
        assert_eq!(cmp(&Value::Double(-0.0), &Value::Double(0.0)), Some(Equal));
        assert_eq!(cmp(&Value::Double(f64::NAN), &Value::Double(0.0)), None);
        assert_eq!(cmp(&Value::Float(0.1), &Value::Float(0.2)), Some(Less));
    }

    #[test]
    fn nulls_and_strings() {
        assert_eq!(cmp(&Value::Null, &Value::Int(1)), None);
        assert_eq!(
            cmp_nulls_first(&Value::Null, &Value::Int(1), Collation::Binary),
            Less
        );
        assert_eq!(cmp(&t("abc"), &t("ABC ")), Some(Equal));
        assert_eq!(
            cmp(&Value::Bytes(b"abc".to_vec()), &t("ABC")),
            Some(Greater)
        );
        assert_eq!(
            sql_cmp(&t("a"), &t("A"), Collation::Utf8mb4Bin),
            Some(Greater)
        );
    }

    #[test]
    fn temporal() {
        let d = Value::Date(Date::new(2024, 3, 5).unwrap());
        let dt = Value::DateTime(DateTime::parse("2024-03-05 00:00:01").unwrap());
        assert_eq!(cmp(&d, &dt), Some(Less));
        assert_eq!(cmp(&d, &t("2024-03-05")), Some(Equal));
        assert_eq!(cmp(&t("2024-03-06"), &d), Some(Greater));
        assert_eq!(cmp(&d, &Value::Int(20240305)), Some(Equal));
        assert_eq!(
            cmp(
                &Value::Time(Time::parse("10:00:00").unwrap()),
                &t("9:59:59")
            ),
            Some(Greater)
        );
    }

    #[test]
    fn numeric_prefix() {
        assert_eq!(str_to_f64_prefix(b"  -1.5e2xyz"), (-150.0, false));
        assert_eq!(str_to_f64_prefix(b"3.7 "), (3.7, true));
        assert_eq!(str_to_f64_prefix(b".5"), (0.5, true));
        assert_eq!(str_to_f64_prefix(b"1e"), (1.0, false));
        assert_eq!(str_to_f64_prefix(b"-"), (0.0, false));
        assert_eq!(str_to_f64_prefix(b""), (0.0, false));
    }
}
