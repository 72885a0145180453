//! Betula's counter aggregates DELTA(v, ts) and RATE(v, ts) against a reference computed here:
//! random counters per sensor that reset at random, grouped by sensor and by TIME_BUCKET, with NULL
//! readings, ties in time and rows inserted out of order (docs/mysql-compat.md, "Time-series
//! functions").

mod common;

use std::collections::BTreeMap;

use common::engine::{engine, exec, rows};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// One reading: sensor, epoch seconds, counter value (None: a NULL reading).
type Reading = (i64, i64, Option<i64>);

/// Counters that climb by random steps and now and then restart from a small value.
fn readings(r: &mut SmallRng, n: usize) -> Vec<Reading> {
    let mut value: BTreeMap<i64, i64> = BTreeMap::new();
    let mut out = Vec::new();
    for _ in 0..n {
        let sensor = r.gen_range(1..=4);
        let v = value.entry(sensor).or_insert(0);
        *v = if r.gen_range(0..15) == 0 {
            r.gen_range(0..5)
        } else {
            *v + r.gen_range(0..40)
        };
        let t = 1_700_000_000 + r.gen_range(0..7200);
        out.push((sensor, t, (r.gen_range(0..12) != 0).then_some(*v)));
    }
    out
}

/// DELTA and RATE of one group's readings by the definition: time order (ties by value), a step
/// adds `next - prev`, or `next` after a reset.
fn reference(mut pts: Vec<(i64, i64)>) -> (Option<i64>, Option<f64>) {
    if pts.len() < 2 {
        return (None, None);
    }
    pts.sort();
    let inc: f64 = pts
        .windows(2)
        .map(|w| {
            let (p, n) = (w[0].1, w[1].1);
            (if n >= p { n - p } else { n }) as f64
        })
        .sum();
    let span = (pts[pts.len() - 1].0 - pts[0].0) as f64;
    (Some(inc as i64), (span > 0.0).then(|| inc / span))
}

fn show<T: ToString>(v: Option<T>) -> String {
    v.map_or("NULL".into(), |v| v.to_string())
}

#[test]
fn delta_and_rate_match_the_reference_per_sensor_and_bucket() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(
        &mut s,
        "CREATE TABLE c (id INT PRIMARY KEY AUTO_INCREMENT, sensor INT, t INT, dt DATETIME, v BIGINT)",
    );
    let mut r = SmallRng::seed_from_u64(7);
    let data = readings(&mut r, 3000);
    for chunk in data.chunks(500) {
        let values: Vec<String> = chunk
            .iter()
            .map(|(sensor, t, v)| format!("({sensor}, {t}, FROM_UNIXTIME({t}), {})", show(*v)))
            .collect();
        exec(
            &mut s,
            &format!(
                "INSERT INTO c (sensor, t, dt, v) VALUES {}",
                values.join(",")
            ),
        );
    }
    let mut groups: BTreeMap<(i64, i64), Vec<(i64, i64)>> = BTreeMap::new();
    for &(sensor, t, v) in &data {
        let bucket = t.div_euclid(600) * 600;
        let g = groups.entry((bucket, sensor)).or_default();
        if let Some(v) = v {
            g.push((t, v));
        }
    }
    let expected: Vec<String> = groups
        .into_iter()
        .map(|((b, sensor), pts)| {
            let (delta, rate) = reference(pts);
            let rate = rate.map(|x| (x * 1e6).round() as i64);
            format!("{b}|{sensor}|{}|{}", show(delta), show(rate))
        })
        .collect();
    // Epoch seconds as `ts`.
    let by_seconds = rows(
        &mut s,
        "SELECT TIME_BUCKET(600, t) AS b, sensor, CAST(DELTA(v, t) AS SIGNED), \
         CAST(RATE(v, t) * 1000000 AS SIGNED) FROM c GROUP BY b, sensor ORDER BY b, sensor",
    );
    assert_eq!(by_seconds, expected);
    // The same readings with DATETIME times give the same answers.
    let by_datetime = rows(
        &mut s,
        "SELECT TIME_BUCKET(600, t) AS b, sensor, CAST(DELTA(v, dt) AS SIGNED), \
         CAST(RATE(v, dt) * 1000000 AS SIGNED) FROM c GROUP BY b, sensor ORDER BY b, sensor",
    );
    assert_eq!(by_datetime, expected);
}

#[test]
fn delta_and_rate_edge_cases_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    exec(&mut s, "CREATE TABLE k (t DATETIME(3), v DOUBLE)");
    assert_eq!(
        rows(&mut s, "SELECT DELTA(v, t), RATE(v, t) FROM k"),
        ["NULL|NULL"]
    );
    exec(
        &mut s,
        "INSERT INTO k VALUES ('2026-01-01 00:00:00.500', 1.5), ('2026-01-01 00:00:02.500', 4), \
         (NULL, 100), ('2026-01-01 00:00:01', NULL), ('2026-01-01 00:00:04.500', 1)",
    );
    // 1.5 → 4 (+2.5), reset to 1 (+1): 3.5 over 4 seconds.
    assert_eq!(
        rows(&mut s, "SELECT DELTA(v, t), RATE(v, t) FROM k"),
        ["3.5|0.875"]
    );
    let err = s.execute("SELECT RATE(v) FROM k", &[]).unwrap_err();
    assert_eq!(err.code.number(), 1582, "{err:?}");
    let err = s
        .execute("SELECT DELTA(DISTINCT v, t) FROM k", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 1582, "{err:?}");
    // Not (yet) a window function: refused, never a wrong answer.
    let err = s
        .execute("SELECT RATE(v, t) OVER (ORDER BY t) FROM k", &[])
        .unwrap_err();
    assert_eq!(err.code.number(), 1235, "{err:?}");
}
