//! [`LatencyHistogram`]: how long something took, counted into fixed buckets with relaxed atomics, for
//! monitoring (the server's metrics endpoint, SHOW ENGINE BETULA STATUS).
//!
//! Invariants: recording takes no lock and two relaxed atomic additions (the bucket and the sum), so it
//! may sit on any path, however hot; the bucket bounds never change (dashboards and the exposition
//! format name them); a [`LatencySnapshot`] is read without stopping writers, so its count may be a few
//! observations ahead of its sum or behind it, never decreasing from one snapshot to the next.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets, in microseconds (an observation above the last one counts only in the
/// total, Prometheus's `+Inf` bucket). From 50 µs (a log fsync on a fast disk) to 10 s (a checkpoint of a
/// large cache).
pub const BUCKET_BOUNDS_MICROS: [u64; 16] = [
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 10_000_000,
];

const BUCKETS: usize = BUCKET_BOUNDS_MICROS.len() + 1;

/// Durations counted into [`BUCKET_BOUNDS_MICROS`] (the last slot holds those above every bound).
#[derive(Default)]
pub struct LatencyHistogram {
    buckets: [AtomicU64; BUCKETS],
    sum_micros: AtomicU64,
}

/// A histogram's figures at one instant: counts per bucket (not cumulative), their total and the sum.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LatencySnapshot {
    /// Observations per bucket of [`BUCKET_BOUNDS_MICROS`], then those above the last bound.
    pub buckets: Vec<u64>,
    pub count: u64,
    pub sum_micros: u64,
}

impl LatencyHistogram {
    /// Counts one observation of `d`.
    pub fn record(&self, d: Duration) {
        let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        let i = BUCKET_BOUNDS_MICROS.partition_point(|&b| b < us);
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(us, Ordering::Relaxed);
    }

    /// The figures now.
    pub fn snapshot(&self) -> LatencySnapshot {
        let buckets: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        LatencySnapshot {
            count: buckets.iter().sum(),
            buckets,
            sum_micros: self.sum_micros.load(Ordering::Relaxed),
        }
    }
}

impl LatencySnapshot {
    /// Observations at or below each bound of [`BUCKET_BOUNDS_MICROS`] (cumulative, as Prometheus's
    /// `le` buckets count).
    pub fn cumulative(&self) -> Vec<(u64, u64)> {
        let mut total = 0;
        BUCKET_BOUNDS_MICROS
            .iter()
            .zip(&self.buckets)
            .map(|(&bound, &n)| {
                total += n;
                (bound, total)
            })
            .collect()
    }

    /// The mean in microseconds (0 without observations).
    pub fn mean_micros(&self) -> u64 {
        self.sum_micros.checked_div(self.count).unwrap_or(0)
    }

    /// An upper bound of quantile `q` (0..=1) in microseconds: the bound of the bucket holding it (the
    /// last bound doubled for observations above every bound; 0 without observations).
    pub fn quantile_bound_micros(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((self.count as f64) * q.clamp(0.0, 1.0)).ceil().max(1.0) as u64;
        for (bound, total) in self.cumulative() {
            if total >= rank {
                return bound;
            }
        }
        BUCKET_BOUNDS_MICROS[BUCKETS - 2] * 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_whose_bound_they_do_not_exceed() {
        let h = LatencyHistogram::default();
        for us in [0, 50, 51, 999, 1_000, 20_000_000] {
            h.record(Duration::from_micros(us));
        }
        let s = h.snapshot();
        assert_eq!(s.count, 6);
        assert_eq!(s.sum_micros, 50 + 51 + 999 + 1_000 + 20_000_000);
        assert_eq!(s.buckets[0], 2, "0 and 50 µs");
        assert_eq!(s.buckets[1], 1, "51 µs");
        assert_eq!(s.buckets[4], 2, "999 and 1000 µs");
        assert_eq!(s.buckets[BUCKETS - 1], 1, "above every bound");
        let c = s.cumulative();
        assert_eq!(c.len(), BUCKET_BOUNDS_MICROS.len());
        assert_eq!(c[0], (50, 2));
        assert_eq!(c.last().unwrap().1, 5, "the +Inf bucket is the count");
        assert!(c.windows(2).all(|w| w[0].1 <= w[1].1));
        assert_eq!(
            s.quantile_bound_micros(0.5),
            100,
            "the third of six is 51 µs"
        );
        assert_eq!(s.quantile_bound_micros(0.8), 1_000);
        assert_eq!(s.quantile_bound_micros(0.1), 50);
        assert_eq!(s.quantile_bound_micros(1.0), 20_000_000);
        assert_eq!(LatencySnapshot::default().quantile_bound_micros(0.99), 0);
        assert_eq!(s.mean_micros(), s.sum_micros / 6);
    }
}
