//! Time zones: the session's `time_zone` ([`TimeZone`]: a fixed offset or a zone of the system's
//! time zone database), conversions between UTC and local time, and the zones read so far.
//!
//! A TIMESTAMP is stored as UTC and read in the session's time zone; NOW() is local time.
//! Named zones are read from the TZif files under `$TZDIR` (default `/usr/share/zoneinfo`),
//! matched case-insensitively as MariaDB matches names in its time zone tables, and kept for
//! the life of the process ([`TimeZone`] is `Copy`: a zone is an index into that table).
//! `SYSTEM` is the server's zone: `$TZ` (a zone name, `:name`, or a POSIX rule), else
//! `/etc/localtime`, else UTC.
//!
//! Conversions: UTC → local is a lookup. Local → UTC picks, for a local time that happens twice
//! (clocks set back), the earlier instant; for one that does not happen (clocks set forward),
//! the instant of the change, as MariaDB's `TIME_to_gmt_sec`.
//!
//! Map: tzif.rs (TZif files), posix.rs (POSIX TZ rules).

mod posix;
mod tzif;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use crate::types::temporal::{day_number, from_day_number, DateTime, MICROS_PER_DAY};
use posix::{Rule, EPOCH_DAY};
use tzif::Zone;

/// A session's time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeZone {
    /// Seconds east of UTC (`'+05:30'`).
    Offset(i32),
    /// A zone of the database, by its index in the process's table of zones read.
    Zone(u32),
}

impl Default for TimeZone {
    fn default() -> Self {
        TimeZone::UTC
    }
}

/// Zones read so far: name as found on disk, and the zone.
#[derive(Default)]
struct Zones {
    list: Vec<(String, Arc<Zone>)>,
}

fn zones() -> &'static RwLock<Zones> {
    static ZONES: OnceLock<RwLock<Zones>> = OnceLock::new();
    ZONES.get_or_init(Default::default)
}

fn zone(id: u32) -> Option<Arc<Zone>> {
    let z = zones().read().unwrap_or_else(|e| e.into_inner());
    z.list.get(id as usize).map(|(_, z)| z.clone())
}

/// Registers `zone` under `name` (the same name twice gives the same id).
fn register(name: &str, zone: Zone) -> TimeZone {
    let mut z = zones().write().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = z.list.iter().position(|(n, _)| n == name) {
        return TimeZone::Zone(i as u32);
    }
    z.list.push((name.to_string(), Arc::new(zone)));
    TimeZone::Zone(z.list.len() as u32 - 1)
}

fn tz_dir() -> PathBuf {
    std::env::var_os("TZDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/zoneinfo"))
}

/// The file of zone `name` under `dir`, matched case-insensitively; `None` for a name that
/// leaves the directory or matches nothing.
fn zone_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = name.split('/').collect();
    let plain = |p: &&str| {
        !p.is_empty()
            && *p != "."
            && *p != ".."
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_+-.".contains(&b))
    };
    if name.len() > 64 || !parts.iter().all(plain) {
        return None;
    }
    let mut path = dir.to_path_buf();
    for part in parts {
        let exact = path.join(part);
        path = if exact.exists() {
            exact
        } else {
            std::fs::read_dir(&path)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(part))
                })?
        };
    }
    path.is_file().then_some(path)
}

impl TimeZone {
    pub const UTC: TimeZone = TimeZone::Offset(0);

    /// A `time_zone` value: `SYSTEM`, `[+-]h[h]:mm` between −12:59 and +13:00 (MariaDB's range),
    /// or a zone name; `None` if it is none of these (MariaDB's error 1298).
    pub fn parse(text: &str) -> Option<TimeZone> {
        if text.eq_ignore_ascii_case("SYSTEM") {
            return Some(TimeZone::system());
        }
        if let Some(off) = parse_offset(text) {
            return Some(TimeZone::Offset(off));
        }
        TimeZone::named(text)
    }

    /// A zone of the time zone database by name (case-insensitive).
    pub fn named(name: &str) -> Option<TimeZone> {
        {
            let z = zones().read().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = z
                .list
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                return Some(TimeZone::Zone(i as u32));
            }
        }
        let file = zone_file(&tz_dir(), name)?;
        let zone = Zone::parse(&std::fs::read(&file).ok()?)?;
        let shown = file
            .strip_prefix(tz_dir())
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| name.to_string());
        Some(register(&shown, zone))
    }

    /// The server's own zone (`SYSTEM`), found once.
    pub fn system() -> TimeZone {
        static SYSTEM: OnceLock<TimeZone> = OnceLock::new();
        *SYSTEM.get_or_init(|| {
            let from_tz = std::env::var("TZ").ok().and_then(|tz| {
                let name = tz.strip_prefix(':').unwrap_or(&tz);
                if name.is_empty() {
                    return Some(TimeZone::UTC);
                }
                TimeZone::named(name).or_else(|| {
                    let zone = Zone::from_rule(Rule::parse(name)?);
                    Some(register(&format!("\0{name}"), zone))
                })
            });
            from_tz
                .or_else(|| {
                    let zone = Zone::parse(&std::fs::read("/etc/localtime").ok()?)?;
                    Some(register("\0localtime", zone))
                })
                .unwrap_or(TimeZone::UTC)
        })
    }

    /// The name of a zone of the database as its file is named (`Europe/Paris` for
    /// `europe/paris`), as MariaDB shows `@@time_zone`; `None` for an offset or the system zone.
    pub fn name(self) -> Option<String> {
        let TimeZone::Zone(id) = self else {
            return None;
        };
        let z = zones().read().unwrap_or_else(|e| e.into_inner());
        let name = &z.list.get(id as usize)?.0;
        (!name.starts_with('\0')).then(|| name.clone())
    }

    /// Whether local time is UTC at every instant (conversions change nothing).
    pub fn is_utc(self) -> bool {
        match self {
            TimeZone::Offset(o) => o == 0,
            TimeZone::Zone(id) => zone(id).is_none_or(|z| z.is_utc()),
        }
    }

    /// The offset (seconds east of UTC) at Unix time `t`, and its abbreviation (`+05:30` for
    /// an offset).
    pub fn at(self, t: i64) -> (i32, String) {
        match self {
            TimeZone::Offset(o) => (o, format_offset(o)),
            TimeZone::Zone(id) => match zone(id) {
                Some(z) => {
                    let (o, a) = z.at(t);
                    (o, a.to_string())
                }
                None => (0, "UTC".into()),
            },
        }
    }

    fn offset_at(self, t: i64) -> i32 {
        match self {
            TimeZone::Offset(o) => o,
            TimeZone::Zone(id) => zone(id).map_or(0, |z| z.at(t).0),
        }
    }

    /// Local time of Unix time `t` (seconds), as Unix-style seconds of the local wall clock.
    pub fn local_secs(self, t: i64) -> i64 {
        t + self.offset_at(t) as i64
    }

    /// The Unix time (seconds) of local wall-clock seconds `local` (see the module's rules for
    /// times that happen twice or never), and whether `local` never happened.
    pub fn utc_secs(self, local: i64) -> (i64, bool) {
        let TimeZone::Zone(_) = self else {
            return (local - self.offset_at(local) as i64, false);
        };
        // Every offset in force within a day of `local`: a change is never closer to another.
        let mut offsets = [-86_400i64, 0, 86_400].map(|d| self.offset_at(local + d) as i64);
        offsets.sort_unstable();
        // The largest offset gives the earliest instant: the first of a repeated hour.
        for &o in offsets.iter().rev() {
            if self.offset_at(local - o) as i64 == o {
                return (local - o, false);
            }
        }
        // A skipped time: the instant of the change, found between the two candidates.
        let (mut lo, mut hi) = (local - offsets[2], local - offsets[0]);
        let before = self.offset_at(lo);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.offset_at(mid) == before {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (hi, true)
    }

    /// `dt` (UTC) in this zone. The zero date and values outside years 1..9999 are unchanged.
    pub fn utc_to_local(self, dt: DateTime) -> DateTime {
        self.shift(dt, |s| self.local_secs(s))
    }

    /// `dt` (local time in this zone) in UTC. The zero date and values outside years 1..9999 are
    /// unchanged.
    pub fn local_to_utc(self, dt: DateTime) -> DateTime {
        self.shift(dt, |s| self.utc_secs(s).0)
    }

    /// Whether local time `dt` never happened in this zone (clocks were set forward over it).
    pub fn skipped(self, dt: DateTime) -> bool {
        !dt.date.is_zero() && self.utc_secs(unix_secs(dt)).1
    }

    fn shift(self, dt: DateTime, f: impl Fn(i64) -> i64) -> DateTime {
        if self == TimeZone::UTC || dt.date.is_zero() {
            return dt;
        }
        let secs = unix_secs(dt);
        let frac = dt.micros % 1_000_000;
        match from_unix_micros(f(secs) * 1_000_000 + frac as i64) {
            Some(out) if (1..=9999).contains(&out.date.year) => out,
            _ => dt,
        }
    }
}

/// Unix seconds of `dt` read as UTC (any year, whole seconds).
pub fn unix_secs(dt: DateTime) -> i64 {
    (day_number(dt.date) - EPOCH_DAY) * 86_400 + (dt.micros / 1_000_000) as i64
}

/// The DATETIME of Unix microseconds `us` (UTC); `None` before year 0.
pub fn from_unix_micros(us: i64) -> Option<DateTime> {
    let days = us.div_euclid(MICROS_PER_DAY as i64) + EPOCH_DAY;
    if days < 0 {
        return None;
    }
    Some(DateTime {
        date: from_day_number(days),
        micros: us.rem_euclid(MICROS_PER_DAY as i64) as u64,
    })
}

/// `[+-]h[h]:mm` within MariaDB's range −12:59 ..= +13:00, as seconds east of UTC.
pub fn parse_offset(text: &str) -> Option<i32> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let digits = |s: &str| (1..=2).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) || !digits(m) {
        return None;
    }
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    let secs = h * 3600 + m * 60;
    let ok = m < 60
        && if sign > 0 {
            secs <= 13 * 3600
        } else {
            secs < 13 * 3600
        };
    ok.then_some(sign * secs)
}

/// `+hh:mm` as MariaDB shows an offset zone.
pub fn format_offset(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    format!("{sign}{:02}:{:02}", a / 3600, a % 3600 / 60)
}

#[cfg(test)]
mod tests;
