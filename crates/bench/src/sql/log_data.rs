//! Rows of text and noise for the compression matrix's side tables ([`SideTable`]): a web
//! server's log line and a random double per row, and rows of random doubles alone, the kinds of
//! column that column encodings cannot shrink by structure (text takes the general codec; random
//! doubles should cost little over their 8 bytes).
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

/// Random doubles per row of the doubles table.
pub const DOUBLES: usize = 4;

/// A table of the compression matrix beside the sensor rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideTable {
    /// `(id BIGINT PK, line VARCHAR(255), noise DOUBLE)`; content = line bytes + 8 per double.
    LogLines,
    /// `(id BIGINT PK, d1 .. d4 DOUBLE NOT NULL)` of random bits; content = 8 per double (the id
    /// is not counted, so the figure holds the whole overhead of the row, its key included).
    RandomDoubles,
}

impl SideTable {
    pub const ALL: [SideTable; 2] = [SideTable::LogLines, SideTable::RandomDoubles];

    /// The table name's prefix and the figures' label.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            SideTable::LogLines => ("log_c", "log lines + random doubles"),
            SideTable::RandomDoubles => ("noise_c", "random doubles"),
        }
    }

    /// The column definitions (before the primary key).
    pub fn columns_sql(self) -> &'static str {
        match self {
            SideTable::LogLines => "id BIGINT NOT NULL, line VARCHAR(255), noise DOUBLE",
            SideTable::RandomDoubles => {
                "id BIGINT NOT NULL, d1 DOUBLE NOT NULL, d2 DOUBLE NOT NULL, \
                 d3 DOUBLE NOT NULL, d4 DOUBLE NOT NULL"
            }
        }
    }

    /// The INSERT's column list.
    pub fn insert_columns(self) -> &'static str {
        match self {
            SideTable::LogLines => "id,line,noise",
            SideTable::RandomDoubles => "id,d1,d2,d3,d4",
        }
    }

    /// The `VALUES` list of batch `b` of `rows` rows and the bytes of their content.
    pub fn values_sql(self, seed: u64, b: u64, rows: usize) -> (String, u64) {
        match self {
            SideTable::LogLines => values_sql(seed, b, rows),
            SideTable::RandomDoubles => doubles_sql(seed, b, rows),
        }
    }
}

/// The generator of batch `b`.
fn batch_rng(seed: u64, b: u64) -> StdRng {
    StdRng::seed_from_u64(seed ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The `VALUES` list of batch `b` of `rows` rows: `(id, d1, .., d4)` of random finite doubles, ids
/// `b * rows + 1 ...`, and the bytes of their content (8 per double).
pub fn doubles_sql(seed: u64, b: u64, rows: usize) -> (String, u64) {
    let mut rng = batch_rng(seed, b);
    let values: Vec<String> = (0..rows as u64)
        .map(|i| {
            let id = b * rows as u64 + i + 1;
            let ds: Vec<String> = (0..DOUBLES)
                .map(|_| format!("{:e}", noise(&mut rng)))
                .collect();
            format!("({id},{})", ds.join(","))
        })
        .collect();
    (values.join(","), (rows * DOUBLES * 8) as u64)
}

/// The `VALUES` list of batch `b` of `rows` rows: `(id, 'line', noise)`, ids `b * rows + 1 ...`,
/// and the bytes of their content (line bytes + 8 per double).
pub fn values_sql(seed: u64, b: u64, rows: usize) -> (String, u64) {
    let mut rng = batch_rng(seed, b);
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

    #[test]
    fn doubles_batches_repeat_and_count_eight_bytes_a_value() {
        let (a, raw) = SideTable::RandomDoubles.values_sql(42, 2, 10);
        assert_eq!(doubles_sql(42, 2, 10), (a.clone(), raw));
        assert_eq!(raw, 10 * DOUBLES as u64 * 8);
        assert!(a.starts_with("(21,"));
        let first: Vec<&str> = a[1..a.find(')').unwrap()].split(',').collect();
        assert_eq!(first.len(), 1 + DOUBLES);
        assert!(first[1..]
            .iter()
            .all(|d| d.parse::<f64>().unwrap().is_finite()));
    }
}
