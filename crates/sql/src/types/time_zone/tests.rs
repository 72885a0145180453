//! Time zone conversions against the system's tz database (Debian's tzdata) and offsets.

use super::*;

fn dt(s: &str) -> DateTime {
    DateTime::parse(s).unwrap()
}

fn paris() -> TimeZone {
    TimeZone::named("Europe/Paris").expect("tzdata installed")
}

#[test]
fn offsets_follow_mariadb_range_and_spelling() {
    assert_eq!(parse_offset("+13:00"), Some(13 * 3600));
    assert_eq!(parse_offset("-12:59"), Some(-(12 * 3600 + 59 * 60)));
    assert_eq!(parse_offset("+5:3"), Some(5 * 3600 + 180));
    assert_eq!(parse_offset("-00:00"), Some(0));
    for bad in [
        "+13:01",
        "-13:00",
        "+00:00:00",
        " +01:00",
        "01:00",
        "+1:60",
        "+:00",
        "+001:00",
    ] {
        assert_eq!(parse_offset(bad), None, "{bad}");
    }
    assert_eq!(format_offset(5 * 3600 + 180), "+05:03");
    assert_eq!(format_offset(-(12 * 3600 + 59 * 60)), "-12:59");
    assert_eq!(TimeZone::parse("+01:00"), Some(TimeZone::Offset(3600)));
    assert_eq!(TimeZone::parse("bogus"), None);
    assert_eq!(TimeZone::parse("../../etc/passwd"), None);
    assert_eq!(TimeZone::parse("/etc/localtime"), None);
}

#[test]
fn names_are_case_insensitive_and_read_once() {
    let a = paris();
    assert_eq!(TimeZone::named("europe/PARIS"), Some(a));
    assert!(TimeZone::named("UTC").unwrap().is_utc());
    assert!(!a.is_utc());
    assert_eq!(a.at(1_719_792_000), (7200, "CEST".to_string()));
}

#[test]
fn utc_and_local_convert_both_ways() {
    let p = paris();
    assert_eq!(
        p.utc_to_local(dt("2024-01-01 00:00:00")),
        dt("2024-01-01 01:00:00")
    );
    assert_eq!(
        p.utc_to_local(dt("2024-07-01 00:00:00.25")),
        dt("2024-07-01 02:00:00.25")
    );
    assert_eq!(
        p.local_to_utc(dt("2024-07-01 02:00:00")),
        dt("2024-07-01 00:00:00")
    );
    let plus = TimeZone::Offset(-(5 * 3600 + 30 * 60));
    assert_eq!(
        plus.utc_to_local(dt("2024-01-01 00:00:00")),
        dt("2023-12-31 18:30:00")
    );
    assert_eq!(
        plus.local_to_utc(dt("2023-12-31 18:30:00")),
        dt("2024-01-01 00:00:00")
    );
    // The zero date stays.
    assert_eq!(p.local_to_utc(DateTime::ZERO), DateTime::ZERO);
}

#[test]
fn skipped_and_repeated_local_times() {
    let p = paris();
    // 2024-03-31: 02:00 local became 03:00 (01:00 UTC); 02:30 never happened.
    assert_eq!(
        p.local_to_utc(dt("2024-03-31 02:30:00")),
        dt("2024-03-31 01:00:00")
    );
    assert_eq!(
        p.local_to_utc(dt("2024-03-31 03:00:00")),
        dt("2024-03-31 01:00:00")
    );
    assert_eq!(
        p.local_to_utc(dt("2024-03-31 01:59:59")),
        dt("2024-03-31 00:59:59")
    );
    // 2024-10-27: 03:00 local became 02:00 (01:00 UTC); 02:30 happened twice: the first.
    assert_eq!(
        p.local_to_utc(dt("2024-10-27 02:30:00")),
        dt("2024-10-27 00:30:00")
    );
    assert_eq!(
        p.utc_to_local(dt("2024-10-27 01:30:00")),
        dt("2024-10-27 02:30:00")
    );
    assert_eq!(
        p.local_to_utc(dt("2024-10-27 03:00:00")),
        dt("2024-10-27 02:00:00")
    );
    assert!(p.skipped(dt("2024-03-31 02:30:00")));
    assert!(!p.skipped(dt("2024-03-31 03:00:00")) && !p.skipped(dt("2024-10-27 02:30:00")));
}

#[test]
fn round_trips_outside_changes() {
    let p = paris();
    let mut t = 0i64;
    while t < 4_000_000_000 {
        let local = p.local_secs(t);
        let (back, skipped) = p.utc_secs(local);
        assert!(!skipped);
        // Only the repeated hour maps back to its first occurrence.
        assert!(back == t || (back < t && t - back <= 3600 && p.local_secs(back) == local));
        t += 7_777_777;
    }
}
