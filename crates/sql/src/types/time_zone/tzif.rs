//! The TZif files of the system's time zone database (RFC 8536, versions 1 to 4): a zone's
//! transitions, its local time types, and the POSIX rule that continues after the last transition.
//!
//! Owns: [`Zone`], [`Zone::parse`], [`Zone::at`]. Version 1 files are read from their 32-bit
//! data; later versions from the 64-bit block and the footer. Leap-second records are skipped
//! (the `right/` zones then read 10-27 seconds off, as MariaDB's loader also ignores them unless
//! asked).
//!
//! Invariant: a parsed zone has at least one local time type, transitions in ascending order,
//! and every transition names an existing type; anything else is refused (`None`), never a panic.

use super::posix::Rule;

/// One local time type of a zone.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LocalType {
    offset: i32,
    abbr: String,
}

/// A zone of the time zone database.
#[derive(Clone, Debug)]
pub struct Zone {
    /// Unix seconds at which a new local time type starts, ascending.
    transitions: Vec<i64>,
    /// The type starting at each transition.
    type_at: Vec<u8>,
    types: Vec<LocalType>,
    /// The type before the first transition.
    initial: usize,
    /// The rule after the last transition (version 2+ footer).
    rule: Option<Rule>,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// Counts of a TZif header.
struct Counts {
    isut: usize,
    isstd: usize,
    leap: usize,
    time: usize,
    types: usize,
    chars: usize,
}

fn header(r: &mut Reader<'_>) -> Option<(u8, Counts)> {
    if r.take(4)? != b"TZif" {
        return None;
    }
    let version = r.take(1)?[0];
    r.take(15)?;
    let mut n = [0usize; 6];
    for c in &mut n {
        *c = r.u32()? as usize;
    }
    let [isut, isstd, leap, time, types, chars] = n;
    Some((
        version,
        Counts {
            isut,
            isstd,
            leap,
            time,
            types,
            chars,
        },
    ))
}

/// The data block after a header, with times of `width` bytes (4 or 8).
fn block(r: &mut Reader<'_>, c: &Counts, width: usize) -> Option<Zone> {
    let times = r.take(c.time.checked_mul(width)?)?;
    let transitions: Vec<i64> = times
        .chunks(width)
        .map(|t| match width {
            4 => i32::from_be_bytes([t[0], t[1], t[2], t[3]]) as i64,
            _ => i64::from_be_bytes(t.try_into().unwrap_or([0; 8])),
        })
        .collect();
    let type_at = r.take(c.time)?.to_vec();
    let raw_types = r.take(c.types.checked_mul(6)?)?;
    let chars = r.take(c.chars)?;
    r.take(c.leap.checked_mul(width + 4)?)?;
    r.take(c.isstd)?;
    r.take(c.isut)?;
    let mut types = Vec::with_capacity(c.types);
    for t in raw_types.chunks(6) {
        let offset = i32::from_be_bytes([t[0], t[1], t[2], t[3]]);
        let from = chars.get(t[5] as usize..)?;
        let end = from.iter().position(|b| *b == 0).unwrap_or(from.len());
        types.push(LocalType {
            offset,
            abbr: String::from_utf8_lossy(&from[..end]).into_owned(),
        });
    }
    let ordered = transitions.windows(2).all(|w| w[0] < w[1]);
    if types.is_empty() || !ordered || type_at.iter().any(|&i| i as usize >= types.len()) {
        return None;
    }
    // RFC 8536: before the first transition, type 0.
    Some(Zone {
        transitions,
        type_at,
        types,
        initial: 0,
        rule: None,
    })
}

impl Zone {
    /// A zone of one POSIX rule (no transitions), for a `TZ` variable holding a rule.
    pub fn from_rule(rule: Rule) -> Zone {
        let (offset, abbr) = rule.at(0);
        Zone {
            transitions: Vec::new(),
            type_at: Vec::new(),
            types: vec![LocalType {
                offset,
                abbr: abbr.into(),
            }],
            initial: 0,
            rule: Some(rule),
        }
    }

    /// Parses a TZif file; `None` if it is not a valid one.
    pub fn parse(bytes: &[u8]) -> Option<Zone> {
        let mut r = Reader { b: bytes, at: 0 };
        let (version, c) = header(&mut r)?;
        let v1 = block(&mut r, &c, 4)?;
        if version < b'2' {
            return Some(v1);
        }
        let (_, c2) = header(&mut r)?;
        let mut zone = block(&mut r, &c2, 8)?;
        let rest = &bytes[r.at..];
        if rest.first() == Some(&b'\n') {
            let end = rest[1..].iter().position(|b| *b == b'\n')?;
            let text = std::str::from_utf8(&rest[1..1 + end]).ok()?;
            zone.rule = if text.is_empty() {
                None
            } else {
                Some(Rule::parse(text)?)
            };
        }
        Some(zone)
    }

    /// The offset (seconds east of UTC) at Unix time `t`, and its abbreviation.
    pub fn at(&self, t: i64) -> (i32, &str) {
        let after = self.transitions.partition_point(|&x| x <= t);
        if after == self.transitions.len() {
            if let Some(rule) = &self.rule {
                return rule.at(t);
            }
        }
        let ty = match after {
            0 => &self.types[self.initial],
            n => &self.types[self.type_at[n - 1] as usize],
        };
        (ty.offset, &ty.abbr)
    }

    /// Whether the zone is UTC for ever (offset 0 at every instant).
    pub fn is_utc(&self) -> bool {
        self.types.iter().all(|t| t.offset == 0) && self.rule.as_ref().is_none_or(Rule::is_utc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 2 file with the given 64-bit transitions (type indexes) and types (offset,
    /// abbreviation), and a footer.
    fn tzif(transitions: &[(i64, u8)], types: &[(i32, &str)], footer: &str) -> Vec<u8> {
        let mut chars = Vec::new();
        let mut raw_types = Vec::new();
        for (off, abbr) in types {
            raw_types.extend_from_slice(&off.to_be_bytes());
            raw_types.push((*off != types[0].0) as u8);
            raw_types.push(chars.len() as u8);
            chars.extend_from_slice(abbr.as_bytes());
            chars.push(0);
        }
        let head = |n_time: usize| {
            let mut h = b"TZif2".to_vec();
            h.extend_from_slice(&[0; 15]);
            for n in [0, 0, 0, n_time, types.len(), chars.len()] {
                h.extend_from_slice(&(n as u32).to_be_bytes());
            }
            h
        };
        // Version 1 block: no transitions, same types.
        let mut out = head(0);
        out.extend_from_slice(&raw_types);
        out.extend_from_slice(&chars);
        out.extend_from_slice(&head(transitions.len()));
        for (t, _) in transitions {
            out.extend_from_slice(&t.to_be_bytes());
        }
        out.extend(transitions.iter().map(|(_, i)| *i));
        out.extend_from_slice(&raw_types);
        out.extend_from_slice(&chars);
        out.push(b'\n');
        out.extend_from_slice(footer.as_bytes());
        out.push(b'\n');
        out
    }

    #[test]
    fn transitions_then_the_footer_rule() {
        let bytes = tzif(
            &[(1_000, 1), (2_000, 0)],
            &[(3600, "CET"), (7200, "CEST")],
            "CET-1CEST,M3.5.0,M10.5.0/3",
        );
        let z = Zone::parse(&bytes).unwrap();
        assert_eq!(z.at(999), (3600, "CET"));
        assert_eq!(z.at(1_000), (7200, "CEST"));
        assert_eq!(z.at(1_999).0, 7200);
        // After the last transition the footer rule decides: 2024-07-01 is summer time.
        assert_eq!(z.at(1_719_792_000), (7200, "CEST"));
        assert_eq!(z.at(1_704_067_200), (3600, "CET"));
        assert!(!z.is_utc());
    }

    #[test]
    fn utc_zones_and_bad_files() {
        let utc = Zone::parse(&tzif(&[], &[(0, "UTC")], "UTC0")).unwrap();
        assert!(utc.is_utc());
        assert_eq!(utc.at(123), (0, "UTC"));
        assert!(Zone::parse(b"not a zone").is_none());
        let mut bad = tzif(&[(5, 3)], &[(0, "UTC")], "UTC0");
        assert!(
            Zone::parse(&bad).is_none(),
            "a transition to a missing type"
        );
        bad.truncate(30);
        assert!(Zone::parse(&bad).is_none());
        let unordered = tzif(&[(5, 0), (4, 0)], &[(0, "UTC")], "UTC0");
        assert!(Zone::parse(&unordered).is_none());
    }

    #[test]
    fn the_system_database_reads() {
        // Debian's tzdata package (part of every installation).
        let bytes = std::fs::read("/usr/share/zoneinfo/Europe/Paris").expect("tzdata installed");
        let z = Zone::parse(&bytes).unwrap();
        assert_eq!(z.at(1_719_792_000), (7200, "CEST")); // 2024-07-01 00:00 UTC
        assert_eq!(z.at(4_102_444_800).0, 3600); // 2100-01-01: the footer rule
    }
}
