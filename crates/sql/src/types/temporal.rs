//! Calendar and clock values: DATE, DATETIME / TIMESTAMP and TIME, with MySQL's string forms.
//!
//! Owns: [`Date`], [`DateTime`], [`Time`]; parsing of MySQL's literal forms, validation, cutting
//! to a fractional-seconds precision (fsp), text formatting, and the packed integer forms the codecs
//! store.
//!
//! Invariants:
//! * A `Date` is either the zero date `0000-00-00` or a valid proleptic Gregorian date with year
//!   `0..=9999` (MySQL documents 1000..=9999 but stores 0..=9999). Zero parts inside a non-zero date
//!   (`2020-00-10`) are rejected.
//! * `DateTime.micros` (time of day) is `< 86_400_000_000`. TIMESTAMP values are DateTimes in UTC; time
//!   zone conversion belongs to the session layer.
//! * `Time` is signed microseconds with `|t| <= 838:59:59.000000`.
//! * Packed forms preserve order: `Date::packed = (year*13 + month)*32 + day` (u32, < 2^23) and
//!   `DateTime::packed = date.packed * 86_400_000_000 + micros` (u64, < 2^59).

/// A YEAR column holds 0 or a year of `YEAR_FIRST..=YEAR_LAST` (MariaDB's YEAR(4)), stored as
/// the year - `YEAR_BASE` in one byte.
pub const YEAR_BASE: i64 = 1900;
pub const YEAR_FIRST: i64 = YEAR_BASE + 1;
pub const YEAR_LAST: i64 = YEAR_BASE + 255;

use std::fmt;

pub const MICROS_PER_SEC: u64 = 1_000_000;
pub const MICROS_PER_DAY: u64 = 86_400 * MICROS_PER_SEC;
/// 838:59:59, the TIME range limit, in microseconds.
pub const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    pub date: Date,
    /// Microseconds since midnight.
    pub micros: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    /// Signed microseconds.
    pub micros: i64,
}

pub fn is_leap(y: u32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 0000-03-01 for a valid date (civil-calendar arithmetic, year 0 is a leap year).
/// Days since 0000-03-01 in the proleptic Gregorian calendar (for date arithmetic).
pub fn day_number(d: Date) -> i64 {
    let (y, m) = if d.month <= 2 {
        (d.year as i64 - 1, d.month as i64 + 9)
    } else {
        (d.year as i64, d.month as i64 - 3)
    };
    365 * y + y.div_euclid(4) - y.div_euclid(100)
        + y.div_euclid(400)
        + (153 * m + 2) / 5
        + d.day as i64
        - 1
}

/// Inverse of [`day_number`].
pub fn from_day_number(n: i64) -> Date {
    // Inverse of day_number, by 400-year eras of 146097 days.
    let era = n.div_euclid(146_097);
    let doe = n.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    Date {
        year: year as u16,
        month: month as u8,
        day: day as u8,
    }
}

impl Date {
    pub const ZERO: Date = Date {
        year: 0,
        month: 0,
        day: 0,
    };

    /// A valid calendar date or the zero date; `None` otherwise.
    pub fn new(year: u32, month: u32, day: u32) -> Option<Date> {
        if year == 0 && month == 0 && day == 0 {
            return Some(Date::ZERO);
        }
        if year > 9999 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month)
        {
            return None;
        }
        Some(Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }
    pub fn is_zero(&self) -> bool {
        *self == Date::ZERO
    }
    pub fn packed(&self) -> u32 {
        (self.year as u32 * 13 + self.month as u32) * 32 + self.day as u32
    }
    /// Inverse of [`Date::packed`]; `None` if the parts are not a valid date.
    pub fn from_packed(p: u32) -> Option<Date> {
        let d = Date::new(p / 32 / 13, p / 32 % 13, p % 32)?;
        (d.packed() == p).then_some(d)
    }
    /// The next day (`None` after 9999-12-31 or for the zero date).
    pub fn succ(&self) -> Option<Date> {
        if self.is_zero() {
            return None;
        }
        let d = from_day_number(day_number(*self) + 1);
        (d.year <= 9999).then_some(d)
    }
    /// YYYYMMDD as a number, MySQL's numeric value of a DATE.
    pub fn as_number(&self) -> u64 {
        self.year as u64 * 10_000 + self.month as u64 * 100 + self.day as u64
    }
    /// Parses `YYYY-MM-DD` (any punctuation as separator, 2-digit years allowed), `YYYYMMDD`,
    /// `YYMMDD`; a time part, if present, must be valid and is dropped.
    pub fn parse(s: &str) -> Option<Date> {
        DateTime::parse(s).map(|dt| dt.date)
    }
}

fn two_digit_year(y: u32) -> u32 {
    if y < 70 {
        2000 + y
    } else {
        1900 + y
    }
}

/// Parses digits `s[..]` as a number; `None` if empty or not all digits.
fn num(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Fraction digits `.ddd` → microseconds, rounded at the 7th digit (returns 1_000_000 on carry).
fn fraction_micros(f: &str) -> Option<u64> {
    if f.is_empty() {
        return Some(0);
    }
    if !f.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut us: u64 = 0;
    for i in 0..6 {
        us = us * 10 + f.as_bytes().get(i).map_or(0, |b| (b - b'0') as u64);
    }
    if f.as_bytes().get(6).is_some_and(|&b| b >= b'5') {
        us += 1;
    }
    Some(us)
}

impl DateTime {
    pub const ZERO: DateTime = DateTime {
        date: Date::ZERO,
        micros: 0,
    };

    pub fn new(date: Date, hour: u32, minute: u32, second: u32, micro: u32) -> Option<DateTime> {
        if hour > 23 || minute > 59 || second > 59 || micro > 999_999 {
            return None;
        }
        let micros = ((hour * 3600 + minute * 60 + second) as u64) * MICROS_PER_SEC + micro as u64;
        Some(DateTime { date, micros })
    }
    pub fn from_date(date: Date) -> DateTime {
        DateTime { date, micros: 0 }
    }
    pub fn is_zero(&self) -> bool {
        *self == DateTime::ZERO
    }
    pub fn packed(&self) -> u64 {
        self.date.packed() as u64 * MICROS_PER_DAY + self.micros
    }
    pub fn from_packed(p: u64) -> Option<DateTime> {
        let date = Date::from_packed(u32::try_from(p / MICROS_PER_DAY).ok()?)?;
        Some(DateTime {
            date,
            micros: p % MICROS_PER_DAY,
        })
    }
    /// The integer the codecs store for a column of this fsp, and its width in bytes: for fsp 0,
    /// `packed / 1_000_000` in 5 bytes (< 2^39); otherwise `packed` in 8 bytes. `None` if fsp is 0 but
    /// the value has a fraction (coercion rounds it away first).
    pub fn packed_for_fsp(&self, fsp: u8) -> Option<(u64, usize)> {
        if fsp == 0 {
            (self.micros % MICROS_PER_SEC == 0).then(|| (self.packed() / MICROS_PER_SEC, 5))
        } else {
            Some((self.packed(), 8))
        }
    }
    /// Inverse of [`DateTime::packed_for_fsp`].
    pub fn from_packed_for_fsp(v: u64, fsp: u8) -> Option<DateTime> {
        if fsp == 0 {
            DateTime::from_packed(v.checked_mul(MICROS_PER_SEC)?)
        } else {
            DateTime::from_packed(v)
        }
    }
    /// Seconds since midnight and the microsecond part.
    pub fn hms(&self) -> (u32, u32, u32, u32) {
        let secs = (self.micros / MICROS_PER_SEC) as u32;
        (
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            (self.micros % MICROS_PER_SEC) as u32,
        )
    }
    /// The value with its fraction cut to `fsp` digits, as MariaDB stores and casts values
    /// (without TIME_ROUND_FRACTIONAL).
    pub fn to_fsp(&self, fsp: u8) -> DateTime {
        let unit = 10u64.pow(6 - fsp.min(6) as u32);
        DateTime {
            date: self.date,
            micros: self.micros - self.micros % unit,
        }
    }
    /// YYYYMMDDHHMMSS.ffffff, MySQL's numeric value of a DATETIME.
    pub fn as_number(&self) -> f64 {
        let (h, m, s, us) = self.hms();
        (self.date.as_number() * 1_000_000 + h as u64 * 10_000 + m as u64 * 100 + s as u64) as f64
            + us as f64 / 1e6
    }
    /// Unix seconds (with fraction in micros) of this value read as UTC; the zero date gives `None`.
    pub fn unix_micros(&self) -> Option<i64> {
        if self.date.is_zero() {
            return None;
        }
        const EPOCH: i64 = 719_468; // day_number(1970-01-01)
        Some((day_number(self.date) - EPOCH) * MICROS_PER_DAY as i64 + self.micros as i64)
    }

    /// Parses MySQL datetime literals: `YYYY-MM-DD[( |T)HH:MM:SS[.f]]` with any ASCII punctuation as
    /// separators and 2-digit years, or the digit-only forms `YYYYMMDD[HHMMSS[.f]]`,
    /// `YYMMDD[HHMMSS[.f]]`. Fractions beyond 6 digits round. `None` if not a valid value.
    pub fn parse(s: &str) -> Option<DateTime> {
        let s = s.trim_matches(|c: char| c.is_ascii_whitespace());
        let (main, frac) = match s.find('.') {
            Some(p) if s.bytes().take(p).all(|b| b.is_ascii_digit()) => {
                (&s[..p], Some(&s[p + 1..]))
            }
            _ => (s, None),
        };
        let (y, mo, d, h, mi, sec, fpart) = if main.bytes().all(|b| b.is_ascii_digit()) {
            let n = main.len();
            let (y, rest) = match n {
                8 | 14 => (num(&main[..4])?, &main[4..]),
                6 | 12 => (two_digit_year(num(&main[..2])?), &main[2..]),
                _ => return None,
            };
            let (mo, d) = (num(&rest[..2])?, num(&rest[2..4])?);
            let (h, mi, sec) = if rest.len() > 4 {
                (num(&rest[4..6])?, num(&rest[6..8])?, num(&rest[8..10])?)
            } else {
                if frac.is_some() {
                    return None;
                }
                (0, 0, 0)
            };
            (y, mo, d, h, mi, sec, frac.unwrap_or(""))
        } else {
            // Delimited: split date and time at the first ' ' or 'T' after the date part.
            let b = s.as_bytes();
            let mut parts: Vec<&str> = Vec::with_capacity(7);
            let mut frac_part = "";
            let mut i = 0;
            while i < b.len() && parts.len() < 6 {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                parts.push(&s[start..i]);
                if i == b.len() {
                    break;
                }
                let sep = b[i];
                if parts.len() == 6 {
                    if sep != b'.' {
                        return None;
                    }
                    frac_part = &s[i + 1..];
                    i = b.len();
                    break;
                }
                if parts.len() == 3 {
                    if !(sep == b' ' || sep == b'T') {
                        return None;
                    }
                    i += 1;
                    while i < b.len() && b[i] == b' ' {
                        i += 1;
                    }
                } else if sep.is_ascii_punctuation() {
                    i += 1;
                } else {
                    return None;
                }
            }
            if i != b.len() || !(parts.len() == 3 || parts.len() >= 5) {
                return None;
            }
            let yraw = parts[0];
            let y = if yraw.len() <= 2 {
                two_digit_year(num(yraw)?)
            } else {
                num(yraw)?
            };
            let get = |k: usize| parts.get(k).map_or(Some(0), |p| num(p));
            (y, get(1)?, get(2)?, get(3)?, get(4)?, get(5)?, frac_part)
        };
        let date = Date::new(y, mo, d)?;
        let us = fraction_micros(fpart)?;
        let base = DateTime::new(date, h, mi, sec, 0)?;
        let micros = base.micros + us;
        if micros >= MICROS_PER_DAY {
            return Some(DateTime {
                date: date.succ()?,
                micros: micros - MICROS_PER_DAY,
            });
        }
        Some(DateTime { date, micros })
    }

    /// `YYYY-MM-DD HH:MM:SS` plus `.` and `fsp` fraction digits when `fsp > 0`.
    pub fn format(&self, fsp: u8) -> String {
        let (h, m, s, us) = self.hms();
        let mut out = format!("{} {:02}:{:02}:{:02}", self.date, h, m, s);
        push_fraction(&mut out, us, fsp);
        out
    }
}

fn push_fraction(out: &mut String, us: u32, fsp: u8) {
    if fsp > 0 {
        let digits = format!("{us:06}");
        out.push('.');
        out.push_str(&digits[..fsp.min(6) as usize]);
    }
}

/// The number of fraction digits needed to show `micros` exactly (0..=6).
pub fn needed_fsp(micros: u64) -> u8 {
    let mut us = micros % MICROS_PER_SEC;
    if us == 0 {
        return 0;
    }
    let mut fsp = 6;
    while us % 10 == 0 {
        us /= 10;
        fsp -= 1;
    }
    fsp
}

impl Time {
    /// `None` if outside ±838:59:59.
    pub fn from_micros(micros: i64) -> Option<Time> {
        (micros.abs() <= TIME_MAX_MICROS).then_some(Time { micros })
    }
    /// Parses `[-][D ]HH:MM[:SS][.f]`, or digits `[-]HHMMSS[.f]` / `MMSS` / `SS`. Minutes and seconds
    /// must be < 60. Out-of-range values are returned unclamped (the caller clamps and warns).
    pub fn parse(s: &str) -> Option<Time> {
        let s = s.trim_matches(|c: char| c.is_ascii_whitespace());
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (main, frac) = match s.find('.') {
            Some(p) => (&s[..p], &s[p + 1..]),
            None => (s, ""),
        };
        let (h, m, sec) = if main.bytes().all(|b| b.is_ascii_digit()) && !main.is_empty() {
            let v = num(main)?;
            (v / 10_000, v / 100 % 100, v % 100)
        } else {
            let (days, clock) = match main.split_once(' ') {
                Some((d, c)) => (num(d)?, c.trim_start()),
                None => (0, main),
            };
            let mut it = clock.split(':');
            let h = num(it.next()?)?;
            let m = num(it.next()?)?;
            let sec = match it.next() {
                Some(x) => num(x)?,
                None => 0,
            };
            if it.next().is_some() {
                return None;
            }
            (days.checked_mul(24)?.checked_add(h)?, m, sec)
        };
        if m > 59 || sec > 59 {
            return None;
        }
        let us = fraction_micros(frac)? as i64;
        let total = (h as i64 * 3600 + m as i64 * 60 + sec as i64) * 1_000_000 + us;
        Some(Time {
            micros: if neg { -total } else { total },
        })
    }
    /// The value with its fraction cut to `fsp` digits, toward zero, as MariaDB stores and
    /// casts values (without TIME_ROUND_FRACTIONAL).
    pub fn to_fsp(&self, fsp: u8) -> Time {
        let unit = 10i64.pow(6 - fsp.min(6) as u32);
        Time {
            micros: self.micros - self.micros % unit,
        }
    }
    /// HHMMSS.ffffff as a number.
    pub fn as_number(&self) -> f64 {
        let a = self.micros.unsigned_abs();
        let secs = a / MICROS_PER_SEC;
        let n = (secs / 3600 * 10_000 + secs / 60 % 60 * 100 + secs % 60) as f64
            + (a % MICROS_PER_SEC) as f64 / 1e6;
        if self.micros < 0 {
            -n
        } else {
            n
        }
    }
    /// `[-]HH:MM:SS` (hours may have 3 digits) plus `fsp` fraction digits.
    pub fn format(&self, fsp: u8) -> String {
        let a = self.micros.unsigned_abs();
        let secs = a / MICROS_PER_SEC;
        let mut out = format!(
            "{}{:02}:{:02}:{:02}",
            if self.micros < 0 { "-" } else { "" },
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        push_fraction(&mut out, (a % MICROS_PER_SEC) as u32, fsp);
        out
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_validate() {
        assert!(Date::new(2024, 2, 29).is_some());
        assert!(Date::new(2023, 2, 29).is_none());
        assert!(Date::new(1900, 2, 29).is_none());
        assert!(Date::new(2000, 2, 29).is_some());
        assert!(Date::new(2020, 0, 10).is_none());
        assert!(Date::new(0, 0, 0).unwrap().is_zero());
        assert_eq!(
            Date::new(2023, 12, 31).unwrap().succ(),
            Date::new(2024, 1, 1)
        );
        assert_eq!(Date::new(9999, 12, 31).unwrap().succ(), None);
        for p in [
            Date::ZERO,
            Date::new(1, 1, 1).unwrap(),
            Date::new(9999, 12, 31).unwrap(),
        ] {
            assert_eq!(Date::from_packed(p.packed()), Some(p));
        }
        assert_eq!(Date::from_packed((13 + 2) * 32 + 30), None); // 0001-02-30
        assert_eq!(Date::from_packed(13 * 32), None); // 0001-00-00
    }

    #[test]
    fn day_numbers_round_trip() {
        let mut d = Date::new(0, 1, 1).unwrap();
        let mut n = day_number(d);
        while d.year < 2500 {
            assert_eq!(from_day_number(n), d);
            d = d.succ().unwrap();
            n += 1;
            assert_eq!(day_number(d), n);
        }
        assert_eq!(day_number(Date::parse("1970-01-01").unwrap()), 719_468);
    }

    #[test]
    fn parse_datetime_forms() {
        let p = |s| DateTime::parse(s).map(|d| d.format(6));
        assert_eq!(
            p("2024-03-05 07:08:09").unwrap(),
            "2024-03-05 07:08:09.000000"
        );
        assert_eq!(
            p("2024-03-05T07:08:09.5").unwrap(),
            "2024-03-05 07:08:09.500000"
        );
        assert_eq!(p("24/3/5 7.8.9").unwrap(), "2024-03-05 07:08:09.000000");
        assert_eq!(p("20240305").unwrap(), "2024-03-05 00:00:00.000000");
        assert_eq!(
            p("20240305070809.123").unwrap(),
            "2024-03-05 07:08:09.123000"
        );
        assert_eq!(p("991231").unwrap(), "1999-12-31 00:00:00.000000");
        assert_eq!(
            p("2024-12-31 23:59:59.9999999").unwrap(),
            "2025-01-01 00:00:00.000000"
        );
        assert_eq!(p("0000-00-00").unwrap(), "0000-00-00 00:00:00.000000");
        assert_eq!(p("2024-02-30"), None);
        assert_eq!(p("2024-01-01 24:00:00"), None);
        assert_eq!(p("hello"), None);
        assert_eq!(p("2024-01"), None);
        assert_eq!(
            p("2024-01-01 10:11"),
            Some("2024-01-01 10:11:00.000000".into())
        );
        assert_eq!(Date::parse("2024-1-2").unwrap().to_string(), "2024-01-02");
    }

    #[test]
    fn cut_and_format() {
        let dt = DateTime::parse("2024-03-05 23:59:59.999500").unwrap();
        assert_eq!(dt.to_fsp(3).format(3), "2024-03-05 23:59:59.999");
        assert_eq!(dt.to_fsp(6).format(0), "2024-03-05 23:59:59");
        assert_eq!(dt.format(2), "2024-03-05 23:59:59.99");
        assert_eq!(needed_fsp(500_000), 1);
        assert_eq!(needed_fsp(123_456), 6);
        assert_eq!(
            DateTime::parse("1970-01-01 00:00:01")
                .unwrap()
                .unix_micros(),
            Some(1_000_000)
        );
    }

    #[test]
    fn times() {
        let t = |s| Time::parse(s).map(|t| t.format(0));
        assert_eq!(t("12:34:56").unwrap(), "12:34:56");
        assert_eq!(t("-1 02:03:04").unwrap(), "-26:03:04");
        assert_eq!(t("123456").unwrap(), "12:34:56");
        assert_eq!(t("10:30").unwrap(), "10:30:00");
        assert_eq!(t("12:60:00"), None);
        assert_eq!(Time::parse("838:59:59.5").unwrap().format(1), "838:59:59.5");
        assert!(Time::from_micros(Time::parse("839:00:00").unwrap().micros).is_none());
        assert_eq!(
            Time::parse("-00:00:01.25").unwrap().to_fsp(1).format(1),
            "-00:00:01.2"
        );
    }
}
