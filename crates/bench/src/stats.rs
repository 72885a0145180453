//! The arithmetic behind the reported figures: percentiles, per-second bucketing and the worst-window ratio.
//! Pure functions, unit-tested; nothing here reads a clock.

/// The `p`-th percentile (0.0..=100.0) of `sorted` by the nearest-rank method: the smallest value such that at
/// least `p`% of the values are ≤ it. `None` for an empty slice.
pub fn percentile<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let p = p.clamp(0.0, 100.0);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The median of `values` (mean of the two middle values for an even count). `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Turns cumulative counts read at whole-second marks into per-second counts.
///
/// `marks[i]` is the count reached at second `i + 1` after the phase began (the sampler reads the counter at
/// each second boundary). The result has one entry per full second: `marks[0]`, `marks[1] - marks[0]`, ….
/// A counter never goes down; a mark lower than the previous one (which would be a sampler bug) counts as 0.
pub fn per_second(marks: &[u64]) -> Vec<u64> {
    let mut prev = 0u64;
    marks
        .iter()
        .map(|&m| {
            let d = m.saturating_sub(prev);
            prev = prev.max(m);
            d
        })
        .collect()
}

/// Steadiness of a throughput series: the worst 1-second window, the median, and worst ÷ median (1.0 =
/// perfectly even; a checkpoint that stalls writers for a whole second gives 0). `None` when the series is
/// empty or its median is 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steadiness {
    pub worst: f64,
    pub median: f64,
    pub ratio: f64,
}

pub fn steadiness(per_second: &[u64]) -> Option<Steadiness> {
    let values: Vec<f64> = per_second.iter().map(|&v| v as f64).collect();
    let median = median(&values)?;
    if median <= 0.0 {
        return None;
    }
    let worst = values.iter().copied().fold(f64::INFINITY, f64::min);
    Some(Steadiness {
        worst,
        median,
        ratio: worst / median,
    })
}

/// Latency summary in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    pub count: usize,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// Summarizes latencies given in nanoseconds (sorts them in place).
pub fn latency(nanos: &mut [u64]) -> Option<Latency> {
    nanos.sort_unstable();
    let us = |v: u64| v as f64 / 1000.0;
    Some(Latency {
        count: nanos.len(),
        p50_us: us(percentile(nanos, 50.0)?),
        p99_us: us(percentile(nanos, 99.0)?),
        max_us: us(*nanos.last()?),
    })
}

/// `a / b`, or `None` when `b` is 0 (so a ratio column shows "n/a" rather than inf).
pub fn ratio(a: f64, b: f64) -> Option<f64> {
    if b == 0.0 || !a.is_finite() || !b.is_finite() {
        None
    } else {
        Some(a / b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), Some(50));
        assert_eq!(percentile(&v, 99.0), Some(99));
        assert_eq!(percentile(&v, 100.0), Some(100));
        assert_eq!(percentile(&v, 0.0), Some(1));
        assert_eq!(percentile(&v, 0.5), Some(1));
        assert_eq!(percentile(&v, 1.5), Some(2));
        let one = [7u64];
        assert_eq!(percentile(&one, 50.0), Some(7));
        assert_eq!(percentile(&one, 99.0), Some(7));
        assert_eq!(percentile::<u64>(&[], 50.0), None);
        // 10 values: p99 is the 10th (ceil(9.9) = 10), p50 the 5th.
        let ten: Vec<u64> = (10..20).collect();
        assert_eq!(percentile(&ten, 99.0), Some(19));
        assert_eq!(percentile(&ten, 50.0), Some(14));
    }

    #[test]
    fn median_odd_even_unsorted() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn per_second_from_cumulative_marks() {
        assert_eq!(per_second(&[100, 250, 250, 400]), vec![100, 150, 0, 150]);
        assert_eq!(per_second(&[]), Vec::<u64>::new());
        // A mark that goes backwards counts as nothing and does not inflate the next one.
        assert_eq!(per_second(&[100, 90, 200]), vec![100, 0, 100]);
    }

    #[test]
    fn steadiness_worst_over_median() {
        let s = steadiness(&[100, 100, 20, 100, 90]).unwrap();
        assert_eq!(s.worst, 20.0);
        assert_eq!(s.median, 100.0);
        assert!((s.ratio - 0.2).abs() < 1e-12);
        let even = steadiness(&[50, 50, 50]).unwrap();
        assert_eq!(even.ratio, 1.0);
        let stall = steadiness(&[10, 0, 10]).unwrap();
        assert_eq!(stall.ratio, 0.0);
        assert_eq!(steadiness(&[]), None);
        assert_eq!(steadiness(&[0, 0, 5]), None);
    }

    #[test]
    fn latency_summary_in_micros() {
        let mut ns: Vec<u64> = (1..=1000).map(|i| i * 1000).collect();
        ns.reverse();
        let l = latency(&mut ns).unwrap();
        assert_eq!(l.count, 1000);
        assert_eq!(l.p50_us, 500.0);
        assert_eq!(l.p99_us, 990.0);
        assert_eq!(l.max_us, 1000.0);
        assert_eq!(latency(&mut []), None);
    }

    #[test]
    fn ratio_guards_zero() {
        assert_eq!(ratio(6.0, 3.0), Some(2.0));
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(f64::NAN, 1.0), None);
    }
}
