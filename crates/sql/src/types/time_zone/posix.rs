//! POSIX TZ rules (`CET-1CEST,M3.5.0,M10.5.0/3`): the footer of a TZif file, which gives the
//! offsets after its last transition, and the `TZ` environment variable.
//!
//! Owns: [`Rule`] and [`Rule::parse`], [`Rule::at`]. Offsets are seconds east of UTC (the
//! text counts west: `EST5` is −5 h). Rules: `Jn` (day 1..365, February 29 never counted), `n`
//! (day 0..365) and `Mm.w.d` (day `d` of week `w`, 5 = last, of month `m`), each with an
//! optional `/time` (−167..167 hours, RFC 8536's extension), default 02:00.
//!
//! Invariant: [`Rule::at`] is total: any instant has exactly one offset.

use crate::types::temporal::{day_number, days_in_month, Date};

/// Days from 0000-03-01 (`day_number`) to 1970-01-01.
pub(super) const EPOCH_DAY: i64 = 719_468;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Day {
    /// `Jn`: 1..=365, February 29 not counted.
    Julian1(u16),
    /// `n`: 0..=365.
    Julian0(u16),
    /// `Mm.w.d`: month, week (1..=5, 5 = last), weekday (0 = Sunday).
    MonthWeek(u8, u8, u8),
}

/// When daylight saving starts or ends: a day and seconds after local midnight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Change {
    day: Day,
    secs: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Dst {
    abbr: String,
    offset: i32,
    start: Change,
    end: Change,
}

/// A POSIX TZ rule: standard time, and optionally daylight saving time with its yearly changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    abbr: String,
    offset: i32,
    dst: Option<Dst>,
}

/// Reads a position-tracked rule text.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.at += hit as usize;
        hit
    }
    fn number(&mut self) -> Option<i64> {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        std::str::from_utf8(&self.s[start..self.at])
            .ok()?
            .parse()
            .ok()
    }
    /// An abbreviation: letters, or anything but `>` inside `<...>`; at least 3 characters.
    fn abbr(&mut self) -> Option<String> {
        let start = self.at;
        let text = if self.eat(b'<') {
            while self.peek().is_some_and(|b| b != b'>') {
                self.at += 1;
            }
            let t = &self.s[start + 1..self.at];
            if !self.eat(b'>') {
                return None;
            }
            t
        } else {
            while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
                self.at += 1;
            }
            &self.s[start..self.at]
        };
        (text.len() >= 3).then(|| String::from_utf8_lossy(text).into_owned())
    }
    /// `[+-]hh[:mm[:ss]]` as signed seconds.
    fn hms(&mut self, max_hours: i64) -> Option<i64> {
        let sign = if self.eat(b'-') {
            -1
        } else {
            self.eat(b'+');
            1
        };
        let h = self.number()?;
        let m = if self.eat(b':') { self.number()? } else { 0 };
        let s = if self.eat(b':') { self.number()? } else { 0 };
        (h <= max_hours && m < 60 && s < 60).then_some(sign * (h * 3600 + m * 60 + s))
    }
    fn change(&mut self) -> Option<Change> {
        let day = if self.eat(b'M') {
            let m = self.number()?;
            let w = self.eat(b'.').then(|| self.number()).flatten()?;
            let d = self.eat(b'.').then(|| self.number()).flatten()?;
            if !(1..=12).contains(&m) || !(1..=5).contains(&w) || d > 6 {
                return None;
            }
            Day::MonthWeek(m as u8, w as u8, d as u8)
        } else if self.eat(b'J') {
            let n = self.number()?;
            (1..=365).contains(&n).then_some(Day::Julian1(n as u16))?
        } else {
            let n = self.number()?;
            (n <= 365).then_some(Day::Julian0(n as u16))?
        };
        let secs = if self.eat(b'/') { self.hms(167)? } else { 7200 };
        Some(Change {
            day,
            secs: secs as i32,
        })
    }
}

impl Rule {
    /// Parses a POSIX TZ rule; `None` if it is not one.
    pub fn parse(text: &str) -> Option<Rule> {
        let mut c = Cursor {
            s: text.as_bytes(),
            at: 0,
        };
        let abbr = c.abbr()?;
        let offset = -c.hms(24)? as i32;
        if c.peek().is_none() {
            return Some(Rule {
                abbr,
                offset,
                dst: None,
            });
        }
        let dst_abbr = c.abbr()?;
        let dst_offset = match c.peek() {
            Some(b',') | None => offset + 3600,
            _ => -c.hms(24)? as i32,
        };
        // Without rules POSIX leaves the dates to the implementation: the US rules, as glibc.
        let (start, end) = if c.eat(b',') {
            let start = c.change()?;
            let end = c.eat(b',').then(|| c.change()).flatten()?;
            (start, end)
        } else {
            let at2 = |m, w| Change {
                day: Day::MonthWeek(m, w, 0),
                secs: 7200,
            };
            (at2(3, 2), at2(11, 1))
        };
        if c.peek().is_some() {
            return None;
        }
        Some(Rule {
            abbr,
            offset,
            dst: Some(Dst {
                abbr: dst_abbr,
                offset: dst_offset,
                start,
                end,
            }),
        })
    }

    /// The offset (seconds east of UTC) at Unix time `t`, and the abbreviation in use.
    pub fn at(&self, t: i64) -> (i32, &str) {
        let Some(dst) = &self.dst else {
            return (self.offset, &self.abbr);
        };
        let year = year_of(t + self.offset as i64);
        // Local standard time of the start, local daylight time of the end.
        let start = change_unix(year, dst.start) - self.offset as i64;
        let end = change_unix(year, dst.end) - dst.offset as i64;
        let in_dst = if start < end {
            start <= t && t < end
        } else {
            !(end <= t && t < start)
        };
        if in_dst {
            (dst.offset, &dst.abbr)
        } else {
            (self.offset, &self.abbr)
        }
    }

    /// Whether the rule is UTC for ever.
    pub fn is_utc(&self) -> bool {
        self.offset == 0 && self.dst.is_none()
    }
}

/// The year of Unix time `t` (seconds).
fn year_of(t: i64) -> i32 {
    crate::types::temporal::from_day_number(t.div_euclid(86_400) + EPOCH_DAY).year as i32
}

/// Unix seconds (as if UTC) of a change in `year`: its day at midnight plus its time.
fn change_unix(year: i32, c: Change) -> i64 {
    let jan1 = day_number(Date {
        year: year as u16,
        month: 1,
        day: 1,
    });
    let leap = crate::types::temporal::is_leap(year as u32);
    let day = match c.day {
        Day::Julian0(n) => jan1 + n as i64,
        Day::Julian1(n) => jan1 + n as i64 - 1 + (leap && n > 59) as i64,
        Day::MonthWeek(m, w, d) => {
            let first = day_number(Date {
                year: year as u16,
                month: m,
                day: 1,
            });
            // 0000-03-01 (day 0) was a Wednesday (3).
            let first_wd = (first + 3).rem_euclid(7);
            let mut day = first + (d as i64 - first_wd).rem_euclid(7) + 7 * (w as i64 - 1);
            let last = first + days_in_month(year as u32, m as u32) as i64 - 1;
            while day > last {
                day -= 7;
            }
            day
        }
    };
    (day - EPOCH_DAY) * 86_400 + c.secs as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unix seconds of a UTC date and time.
    fn utc(y: u16, mo: u8, d: u8, h: i64) -> i64 {
        (day_number(Date {
            year: y,
            month: mo,
            day: d,
        }) - EPOCH_DAY)
            * 86_400
            + h * 3600
    }

    #[test]
    fn central_europe_changes_on_the_last_sundays() {
        let r = Rule::parse("CET-1CEST,M3.5.0,M10.5.0/3").unwrap();
        // 2024: DST from 2024-03-31 01:00 UTC to 2024-10-27 01:00 UTC.
        assert_eq!(r.at(utc(2024, 3, 31, 0) + 3599), (3600, "CET"));
        assert_eq!(r.at(utc(2024, 3, 31, 1)), (7200, "CEST"));
        assert_eq!(r.at(utc(2024, 10, 27, 1) - 1).0, 7200);
        assert_eq!(r.at(utc(2024, 10, 27, 1)).0, 3600);
        assert_eq!(r.at(utc(2024, 12, 31, 23)).0, 3600);
    }

    #[test]
    fn southern_and_fixed_rules() {
        // Sydney: DST from the first Sunday of October to the first Sunday of April.
        let r = Rule::parse("AEST-10AEDT,M10.1.0,M4.1.0/3").unwrap();
        assert_eq!(r.at(utc(2024, 1, 15, 0)).0, 11 * 3600);
        assert_eq!(r.at(utc(2024, 7, 15, 0)).0, 10 * 3600);
        let ny = Rule::parse("EST5EDT,M3.2.0,M11.1.0").unwrap();
        assert_eq!(ny.at(utc(2024, 3, 10, 7)).0, -4 * 3600);
        assert_eq!(ny.at(utc(2024, 3, 10, 7) - 1).0, -5 * 3600);
        assert_eq!(Rule::parse("<+0530>-5:30").unwrap().at(0).0, 19_800);
        assert_eq!(Rule::parse("UTC0").unwrap().at(0), (0, "UTC"));
        assert_eq!(Rule::parse("IST-5:30").unwrap().at(0).0, 19_800);
        // Julian day rules: J60 is March 1 in every year.
        let j = Rule::parse("XST0XDT,J60/0,J305/0").unwrap();
        assert_eq!(j.at(utc(2024, 3, 1, 0)).0, 3600);
        assert_eq!(j.at(utc(2024, 2, 29, 23)).0, 0);
    }

    #[test]
    fn bad_rules_are_refused() {
        for bad in [
            "",
            "C1",
            "CET",
            "CET-1CEST,M13.5.0,M10.5.0",
            "CET-1CEST,M3.5.0",
            "CET-25",
        ] {
            assert_eq!(Rule::parse(bad), None, "{bad}");
        }
    }
}
