//! Betula's time-series functions against reference computations written here: TIME_BUCKET (text and
//! INTERVAL widths, fixed and calendar units, origins, integers) and the FIRST / LAST aggregates over
//! random rows, grouped by bucket and sensor (docs/mysql-compat.md, "Time-series functions").

mod common;

use common::engine::{engine, exec, rows};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A timestamp as microseconds since 1970 (the test's own representation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Micros(i64);

const DAY_US: i64 = 86_400_000_000;

impl Micros {
    fn of(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, us: i64) -> Micros {
        Micros(days_from_civil(y, mo, d) * DAY_US + ((h * 60 + mi) * 60 + s) * 1_000_000 + us)
    }
    fn parts(self) -> (i64, i64, i64, i64, i64, i64, i64) {
        let (y, m, d) = civil_from_days(self.0.div_euclid(DAY_US));
        let r = self.0.rem_euclid(DAY_US);
        let s = r / 1_000_000;
        (y, m, d, s / 3600, s / 60 % 60, s % 60, r % 1_000_000)
    }
    fn sql(self) -> String {
        let (y, m, d, h, mi, s, us) = self.parts();
        format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}")
    }
}

/// A width in the reference: fixed microseconds or months.
#[derive(Clone, Copy, Debug)]
enum Width {
    Fixed(i64),
    Months(i64),
}

const UNITS: [(&str, i64); 8] = [
    ("SECOND", 1_000_000),
    ("MINUTE", 60_000_000),
    ("HOUR", 3_600_000_000),
    ("DAY", DAY_US),
    ("WEEK", 7 * DAY_US),
    ("MONTH", -1),
    ("QUARTER", -3),
    ("YEAR", -12),
];

fn reference_bucket(w: Width, t: Micros, origin: Option<Micros>) -> Micros {
    match w {
        Width::Fixed(us) => {
            let o = origin.unwrap_or(Micros::of(2000, 1, 3, 0, 0, 0, 0)).0;
            Micros(o + (t.0 - o).div_euclid(us) * us)
        }
        Width::Months(n) => {
            let o = origin.unwrap_or(Micros::of(2000, 1, 1, 0, 0, 0, 0));
            let month = |m: Micros| {
                let p = m.parts();
                p.0 * 12 + p.1 - 1
            };
            let k = month(o) + (month(t) - month(o)).div_euclid(n) * n;
            Micros::of(k.div_euclid(12), k.rem_euclid(12) + 1, 1, 0, 0, 0, 0)
        }
    }
}

/// A random timestamp between 1999-11-01 and 2001-03-01 (some on a coarse grid, so that rows tie).
fn random_ts(r: &mut SmallRng) -> Micros {
    let lo = Micros::of(1999, 11, 1, 0, 0, 0, 0).0;
    let hi = Micros::of(2001, 3, 1, 0, 0, 0, 0).0;
    let t = r.gen_range(lo..hi);
    if r.gen_range(0..4) == 0 {
        Micros(t - t.rem_euclid(3_600_000_000))
    } else {
        Micros(t)
    }
}

struct Row {
    sensor: i64,
    ts: Option<Micros>,
    v: Option<i64>,
}

fn random_rows(r: &mut SmallRng, n: usize) -> Vec<Row> {
    (0..n)
        .map(|_| Row {
            sensor: r.gen_range(1..=3),
            ts: (r.gen_range(0..20) != 0).then(|| random_ts(r)),
            v: (r.gen_range(0..10) != 0).then(|| r.gen_range(-50..50)),
        })
        .collect()
}

fn show(v: Option<i64>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

/// The reference rows of the grouped query: bucket|sensor|count|first|last, ordered.
fn reference(rows: &[Row], w: Width, origin: Option<Micros>) -> Vec<String> {
    use std::collections::BTreeMap;
    // (bucket, sensor) -> the group's (ts, v)
    type Groups = BTreeMap<(Micros, i64), Vec<(Micros, Option<i64>)>>;
    let mut groups = Groups::new();
    for row in rows {
        if let Some(ts) = row.ts {
            groups
                .entry((reference_bucket(w, ts, origin), row.sensor))
                .or_default()
                .push((ts, row.v));
        }
    }
    groups
        .into_iter()
        .map(|((b, sensor), members)| {
            // Option orders None first: NULL below every value, as the definition says.
            let first = members.iter().min().unwrap().1;
            let last = members.iter().max().unwrap().1;
            format!(
                "{}|{sensor}|{}|{}|{}",
                b.sql(),
                members.len(),
                show(first),
                show(last)
            )
        })
        .collect()
}

#[test]
fn time_bucket_first_and_last_match_the_reference_on_random_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE r (id INT PRIMARY KEY, sensor INT NOT NULL, ts DATETIME(6), v INT)",
    );
    let mut r = SmallRng::seed_from_u64(0x7157);
    let data = random_rows(&mut r, 600);
    let values: Vec<String> = data
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let ts = row.ts.map_or("NULL".into(), |t| format!("'{}'", t.sql()));
            format!("({i}, {}, {ts}, {})", row.sensor, show(row.v))
        })
        .collect();
    exec(
        &mut s,
        &format!("INSERT INTO r VALUES {}", values.join(",")),
    );
    for round in 0..40 {
        let (unit, per) = UNITS[r.gen_range(0..UNITS.len())];
        let n = r.gen_range(1..=13);
        let w = if per > 0 {
            Width::Fixed(n * per)
        } else {
            Width::Months(n * -per)
        };
        let origin = match (r.gen_range(0..3), w) {
            (0, _) => None,
            (_, Width::Fixed(_)) => Some(random_ts(&mut r)),
            (_, Width::Months(_)) => Some(Micros::of(
                r.gen_range(1995..2005),
                r.gen_range(1..=12),
                1,
                0,
                0,
                0,
                0,
            )),
        };
        let origin_arg = origin.map_or(String::new(), |o| format!(", '{}'", o.sql()));
        let text_width = format!("'{n} {}s'", unit.to_lowercase());
        let interval = format!("INTERVAL {n} {unit}");
        let want = reference(&data, w, origin);
        for width in [&text_width, &interval] {
            let sql = format!(
                "SELECT DATE_FORMAT(TIME_BUCKET({width}, ts{origin_arg}), '%Y-%m-%d %H:%i:%s.%f') AS b, \
                 sensor, COUNT(*), FIRST(v, ts), LAST(v, ts) FROM r WHERE ts IS NOT NULL \
                 GROUP BY b, sensor ORDER BY b, sensor"
            );
            assert_eq!(rows(&mut s, &sql), want, "round {round}: {sql}");
        }
    }
}

#[test]
fn first_and_last_of_whole_tables_and_integer_buckets() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(&mut s, "CREATE TABLE e (ts INT, v VARCHAR(5))");
    assert_eq!(
        rows(&mut s, "SELECT FIRST(v, ts), LAST(v, ts) FROM e"),
        ["NULL|NULL"]
    );
    exec(
        &mut s,
        "INSERT INTO e VALUES (5, 'b'), (5, 'a'), (NULL, 'z'), (9, NULL), (9, 'c'), (1, 'q')",
    );
    assert_eq!(
        rows(&mut s, "SELECT FIRST(v, ts), LAST(v, ts) FROM e"),
        ["q|c"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME_BUCKET(4, ts) AS b, FIRST(v, ts), LAST(v, ts) FROM e \
             WHERE ts IS NOT NULL GROUP BY b ORDER BY b"
        ),
        ["0|q|q", "4|a|b", "8|NULL|c"]
    );
    let mut r = SmallRng::seed_from_u64(11);
    for _ in 0..200 {
        let (w, ts, o) = (
            r.gen_range(1..1000i64),
            r.gen_range(-100_000..100_000i64),
            r.gen_range(-5000..5000i64),
        );
        let want = o + (ts - o).div_euclid(w) * w;
        let got = rows(&mut s, &format!("SELECT TIME_BUCKET({w}, {ts}, {o})"));
        assert_eq!(got, [want.to_string()], "TIME_BUCKET({w}, {ts}, {o})");
    }
    for bad in [
        "SELECT TIME_BUCKET('0 minutes', NOW())",
        "SELECT TIME_BUCKET('5 fortnights', NOW())",
        "SELECT TIME_BUCKET(INTERVAL 0 HOUR, NOW())",
        "SELECT TIME_BUCKET('1 month', NOW(), '2024-01-15')",
    ] {
        let e = s.execute(bad, &[]).unwrap_err();
        assert_eq!(e.code, betula_sql::ErrorCode::WrongArguments, "{bad}");
    }
    let e = s.execute("SELECT FIRST(v) FROM e", &[]).unwrap_err();
    assert_eq!(e.code, betula_sql::ErrorCode::WrongParamcountToNativeFct);
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME_BUCKET('1 day', NULL), TIME_BUCKET(INTERVAL 1 DAY, NULL)"
        ),
        ["NULL|NULL"]
    );
}
