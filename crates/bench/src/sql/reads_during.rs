//! W4's queries while sensor-stream is writing: one extra connection runs the two hot-reads queries
//! (alternately, random sensor, seed 7) every 100 ms against the newest second a writer has started to
//! send, for as long as the ingest runs. No row-count check (batches are in flight); the figures are the
//! latencies a dashboard sees during heavy ingest.

use super::outcome::classify;
use super::sensor_data::batch_ts;
use super::sensor_stream::TABLE;
use crate::peer::Server;
use crate::stats;
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The two queries (name, SQL) for sensor `s` at NOW = `now`.
pub fn queries(s: u64, now: &str) -> [(&'static str, String); 2] {
    [
        (
            "during the stream: last 60 s, one sensor",
            format!("SELECT * FROM {TABLE} WHERE sensor_id = {s} AND ts > '{now}' - INTERVAL 60 SECOND"),
        ),
        (
            "during the stream: last hour AVG+MAX, one sensor",
            format!("SELECT AVG(data1), MAX(data1) FROM {TABLE} WHERE sensor_id = {s} AND ts >= '{now}' - INTERVAL 1 HOUR"),
        ),
    ]
}

/// Latencies (ns) per query, and the first error.
#[derive(Debug, Default)]
pub struct Reads {
    pub nanos: [Vec<u64>; 2],
    pub error: Option<String>,
}

impl Reads {
    /// (name, p50 ms, p99 ms, count) per query.
    pub fn summary(&mut self) -> Vec<(&'static str, Option<stats::Latency>)> {
        let names = queries(1, "x").map(|q| q.0);
        let mut out = Vec::new();
        for (i, n) in names.into_iter().enumerate() {
            out.push((n, stats::latency(&mut self.nanos[i])));
        }
        out
    }
}

/// Runs the reader until `stop`; `newest` is the newest batch a writer has started.
pub fn read_loop(server: &Server, sensors: usize, newest: &AtomicU64, stop: &AtomicBool) -> Reads {
    let mut out = Reads::default();
    let mut conn = match mysql::Conn::new(server.opts()) {
        Ok(c) => c,
        Err(e) => {
            out.error = Some(format!("connect: {e}"));
            return out;
        }
    };
    let mut rng = StdRng::seed_from_u64(7);
    let mut i = 0usize;
    while !stop.load(Ordering::Acquire) {
        let now = batch_ts(newest.load(Ordering::Acquire));
        let sensor = rng.gen_range(1..=sensors as u64);
        let (_, sql) = &queries(sensor, &now)[i % 2];
        let t = Instant::now();
        if let Err(e) = conn.query::<mysql::Row, _>(sql) {
            out.error = Some(classify(&e, sql).label());
            return out;
        }
        out.nanos[i % 2].push(t.elapsed().as_nanos() as u64);
        i += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_queries_on_the_stream_table() {
        let q = queries(5, "2024-01-01 00:10:00");
        assert!(q[0]
            .1
            .contains("sensor_id = 5 AND ts > '2024-01-01 00:10:00' - INTERVAL 60 SECOND"));
        assert!(q[1]
            .1
            .starts_with("SELECT AVG(data1), MAX(data1) FROM sensordata_w2"));
        let mut r = Reads::default();
        r.nanos[0] = vec![2_000_000, 1_000_000];
        let s = r.summary();
        assert_eq!(s[0].1.unwrap().p50_us, 1000.0);
        assert!(s[1].1.is_none());
    }
}
