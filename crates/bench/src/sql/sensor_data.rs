//! The sensor readings of the time-series workloads, modelled on shared/bench/peers/gen_csv.py: 1000
//! sensors, one reading per sensor per second from 2024-01-01 00:00:00, six channels per reading that are
//! mean-reverting random walks around per-sensor baselines (≈20 °C, ≈50 %RH, ≈1013 hPa, ≈3.3 V, ≈1.5 A,
//! ≈0.35), printed with 2 decimals, seed 42. Same model and constants as the script; the random stream is
//! Rust's (rand's StdRng), not Python's, so individual values differ from the CSV.
//!
//! Batch `b` is timestamp step `b`: one row per sensor, in sensor order (arrival order).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// 2024-01-01 00:00:00 UTC in seconds since the epoch.
pub const START_EPOCH: i64 = 1_704_067_200;

/// Mean-reversion rate and random step per channel (gen_csv.py).
const REVERT: [f64; 6] = [0.001, 0.001, 0.001, 0.001, 0.01, 0.05];
const STEP: [f64; 6] = [0.02, 0.05, 0.03, 0.002, 0.01, 0.005];

/// A deterministic stream of readings: call `next_step` once per timestamp, in order.
pub struct SensorStream {
    means: Vec<[f64; 6]>,
    state: Vec<[f64; 6]>,
    rng: StdRng,
    step: u64,
}

impl SensorStream {
    pub fn new(sensors: usize, seed: u64) -> SensorStream {
        let mut rng = StdRng::seed_from_u64(seed);
        let means: Vec<[f64; 6]> = (0..sensors)
            .map(|_| {
                [
                    20.0 + rng.gen_range(-5.0..5.0),
                    50.0 + rng.gen_range(-15.0..15.0),
                    1013.0 + rng.gen_range(-10.0..10.0),
                    3.3 + rng.gen_range(-0.2..0.2),
                    1.5 + rng.gen_range(-1.0..1.0),
                    0.2 + rng.gen_range(0.0..0.3),
                ]
            })
            .collect();
        SensorStream {
            state: means.clone(),
            means,
            rng,
            step: 0,
        }
    }

    /// Index of the step `next_step` will produce.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Advances every sensor by one second; returns the readings (sensor i+1 at index i).
    pub fn next_step(&mut self) -> &[[f64; 6]] {
        for (st, m) in self.state.iter_mut().zip(&self.means) {
            for c in 0..6 {
                st[c] += (m[c] - st[c]) * REVERT[c] + (self.rng.gen::<f64>() - 0.5) * STEP[c];
            }
        }
        self.step += 1;
        &self.state
    }

    /// Advances to step `b` (the next call of `next_step` then produces batch `b`).
    pub fn skip_to(&mut self, b: u64) {
        while self.step() < b {
            self.next_step();
        }
    }
}

/// 'YYYY-MM-DD HH:MM:SS' of an epoch second (UTC).
pub fn datetime(epoch: i64) -> String {
    let (y, m, d) = crate::machine::civil_from_days(epoch.div_euclid(86_400));
    let s = epoch.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The timestamp of batch `b`.
pub fn batch_ts(b: u64) -> String {
    datetime(START_EPOCH + b as i64)
}

/// `(ts,sensor_id,data1..data6)` tuples of one batch, comma-separated, for a multi-row INSERT.
pub fn values_sql(b: u64, readings: &[[f64; 6]]) -> String {
    use std::fmt::Write as _;
    let ts = batch_ts(b);
    let mut s = String::with_capacity(readings.len() * 64);
    for (i, r) in readings.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "('{ts}',{},{:.2},{:.2},{:.2},{:.2},{:.2},{:.2})",
            i + 1,
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5]
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes() {
        assert_eq!(datetime(START_EPOCH), "2024-01-01 00:00:00");
        assert_eq!(batch_ts(3661), "2024-01-01 01:01:01");
        assert_eq!(batch_ts(86_400 * 59), "2024-02-29 00:00:00");
    }

    #[test]
    fn stream_is_deterministic_and_skippable() {
        let mut a = SensorStream::new(10, 42);
        let mut b = SensorStream::new(10, 42);
        let a0 = a.next_step().to_vec();
        let a1 = a.next_step().to_vec();
        a.next_step();
        let a3 = a.next_step().to_vec();
        assert_eq!(b.next_step(), &a0[..]);
        assert_eq!(b.next_step(), &a1[..]);
        b.skip_to(3);
        assert_eq!(b.step(), 3);
        assert_eq!(b.next_step(), &a3[..]);
        let mut other = SensorStream::new(10, 43);
        assert_ne!(other.next_step(), &a0[..]);
    }

    #[test]
    fn readings_stay_near_their_baselines() {
        let mut s = SensorStream::new(50, 42);
        for _ in 0..2000 {
            s.next_step();
        }
        let r = s.next_step().to_vec();
        for v in &r {
            assert!((10.0..=30.0).contains(&v[0]), "temperature {}", v[0]);
            assert!((30.0..=70.0).contains(&v[1]), "humidity {}", v[1]);
            assert!((1000.0..=1026.0).contains(&v[2]), "pressure {}", v[2]);
            assert!((3.0..=3.6).contains(&v[3]), "voltage {}", v[3]);
            assert!((0.3..=2.7).contains(&v[4]), "current {}", v[4]);
            assert!((0.1..=0.6).contains(&v[5]), "vibration {}", v[5]);
        }
        // Consecutive readings of a sensor are close (a walk, not noise).
        let next = s.next_step().to_vec();
        for (a, b) in r.iter().zip(&next) {
            assert!((a[0] - b[0]).abs() <= 0.02);
        }
    }

    #[test]
    fn values_sql_has_one_tuple_per_sensor() {
        let sql = values_sql(
            1,
            &[
                [20.0, 50.0, 1013.0, 3.3, 1.5, 0.2],
                [1.0, 2.0, 3.0, 4.0, 5.0, 6.126],
            ],
        );
        assert_eq!(
            sql,
            "('2024-01-01 00:00:01',1,20.00,50.00,1013.00,3.30,1.50,0.20),\
             ('2024-01-01 00:00:01',2,1.00,2.00,3.00,4.00,5.00,6.13)"
        );
    }
}
