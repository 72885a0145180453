//! A TIME read where a DATETIME is wanted, as MariaDB reads it: the time added to the current
//! date (`CAST(TIME '01:00:00' AS DATETIME)` is today at 01:00; TIME '25:00:00' is tomorrow at
//! 01:00, `-01:00:00` yesterday at 23:00). A TIME compared with a DATE or DATETIME is read so.
//!
//! Invariant: "the current date" is the running statement's CURRENT_DATE (its start time in the
//! session's time zone), set when the statement starts ([`set_statement_date`]); where no
//! statement set one (an expression evaluated outside a session) it is today's UTC date. A
//! result outside the years 0000-9999 is `None` (NULL).

use std::cell::Cell;

use crate::types::temporal::{day_number, from_day_number, Date, DateTime, Time};

const MICROS_PER_DAY: i64 = 86_400_000_000;

thread_local! {
    static STATEMENT_DATE: Cell<Option<Date>> = const { Cell::new(None) };
}

/// Sets the current date of the statement this thread runs.
pub fn set_statement_date(d: Date) {
    STATEMENT_DATE.with(|c| c.set(Some(d)));
}

/// The running statement's current date (today's UTC date outside a statement).
pub fn statement_date() -> Date {
    STATEMENT_DATE.with(Cell::get).unwrap_or_else(|| {
        let micros = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64);
        crate::types::time_zone::from_unix_micros(micros).map_or(Date::ZERO, |d| d.date)
    })
}

/// `t` on `date`: the date plus the (signed, possibly longer than a day) time.
pub fn time_on_date(t: Time, date: Date) -> Option<DateTime> {
    let total = day_number(date) * MICROS_PER_DAY + t.micros;
    let day = from_day_number(total.div_euclid(MICROS_PER_DAY));
    if !(1..=9999).contains(&day.year) {
        return None;
    }
    Some(DateTime {
        date: day,
        micros: total.rem_euclid(MICROS_PER_DAY) as u64,
    })
}

/// `t` on the statement's current date.
pub fn time_as_datetime(t: Time) -> Option<DateTime> {
    time_on_date(t, statement_date())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        DateTime::parse(s).unwrap()
    }

    #[test]
    fn times_land_on_the_date_and_roll_over_days() {
        let d = Date::new(2026, 11, 30).unwrap();
        let t = |s: &str| Time::parse(s).unwrap();
        assert_eq!(
            time_on_date(t("01:00:00"), d),
            Some(dt("2026-11-30 01:00:00"))
        );
        assert_eq!(
            time_on_date(t("25:00:00.5"), d),
            Some(dt("2026-12-01 01:00:00.5"))
        );
        assert_eq!(
            time_on_date(t("-01:00:00"), d),
            Some(dt("2026-11-29 23:00:00"))
        );
        assert_eq!(
            time_on_date(t("838:59:59"), d),
            Some(dt("2027-01-03 22:59:59"))
        );
        let first = Date::new(1, 1, 1).unwrap();
        assert_eq!(time_on_date(t("-00:00:01"), first), None);
    }

    #[test]
    fn the_statement_date_is_used_once_set() {
        let d = Date::new(2020, 2, 29).unwrap();
        set_statement_date(d);
        assert_eq!(statement_date(), d);
        let t = Time::parse("12:00:00").unwrap();
        assert_eq!(time_as_datetime(t), Some(dt("2020-02-29 12:00:00")));
    }
}
