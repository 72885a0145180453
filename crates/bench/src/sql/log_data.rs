//! Rows of text and noise for the compression matrix: a web server's log line and a random double
//! per row, the two kinds of column that column encodings cannot shrink by structure (text takes
//! the general codec; random doubles should cost little over their 8 bytes).
//!
//! Invariant: batch `b` of a seed is the same rows whatever was generated before it (each batch
//! seeds its own generator), so every engine and every setting load identical data; lines hold no
//! quote or backslash, and doubles are finite and printed exactly (shortest round-trip form), so the
//! SQL text stores exactly the generated values.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const LEVELS: [&str; 4] = ["INFO", "INFO", "WARN", "ERROR"];
const MODULES: [&str; 5] = ["http", "db.pool", "auth", "cache", "scheduler"];
const PATHS: [&str; 4] = [
    "/api/v1/users",
    "/api/v1/orders",
    "/static/app.js",
    "/health",
];

/// One log line of second `second`.
fn line(rng: &mut StdRng, second: u64) -> String {
    let message = match rng.gen_range(0..3) {
        0 => format!(
            "GET {} {} {}ms from 10.0.{}.{}",
            PATHS[rng.gen_range(0..PATHS.len())],
            [200, 200, 304, 404, 500][rng.gen_range(0..5)],
            rng.gen_range(1..900),
            rng.gen_range(0..255),
            rng.gen_range(0..255)
        ),
        1 => format!(
            "pool size {} idle {} waiters {}",
            rng.gen_range(8..64),
            rng.gen_range(0..8),
            rng.gen_range(0..4)
        ),
        _ => format!("session {:016x} expired", rng.gen::<u64>()),
    };
    format!(
        "2026-11-27T{:02}:{:02}:{:02}Z {} [{}] {message}",
        second / 3600 % 24,
        second / 60 % 60,
        second % 60,
        LEVELS[rng.gen_range(0..LEVELS.len())],
        MODULES[rng.gen_range(0..MODULES.len())],
    )
}

/// A finite double of random bits.
fn noise(rng: &mut StdRng) -> f64 {
    loop {
        let x = f64::from_bits(rng.gen());
        if x.is_finite() {
            return x;
        }
    }
}

/// The `VALUES` list of batch `b` of `rows` rows: `(id, 'line', noise)`, ids `b * rows + 1 ...`,
/// and the bytes of their content (line bytes + 8 per double).
pub fn values_sql(seed: u64, b: u64, rows: usize) -> (String, u64) {
    let mut rng = StdRng::seed_from_u64(seed ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut raw = 0u64;
    let values: Vec<String> = (0..rows as u64)
        .map(|i| {
            let id = b * rows as u64 + i + 1;
            let l = line(&mut rng, id / 3);
            raw += l.len() as u64 + 8;
            format!("({id},'{l}',{:e})", noise(&mut rng))
        })
        .collect();
    (values.join(","), raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_repeat_and_values_print_exactly() {
        let (a, raw) = values_sql(42, 3, 50);
        assert_eq!(values_sql(42, 3, 50), (a.clone(), raw));
        assert_ne!(values_sql(42, 4, 50).0, a);
        assert!(!a.contains('\\') && a.matches('\'').count() == 100);
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..1000 {
            let x = noise(&mut rng);
            assert_eq!(
                format!("{x:e}").parse::<f64>().unwrap().to_bits(),
                x.to_bits()
            );
        }
        assert!(raw > 50 * 40);
    }
}
