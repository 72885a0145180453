//! RAND: MariaDB's pseudo-random generator (`my_rnd`, mysys/my_rnd.cc), one per `RAND` call in
//! a statement, held by its [`crate::expr::Expr::Rand`] node.
//!
//! * `RAND()` is seeded from the session when the statement is compiled; every evaluation draws
//!   the next value, so each row gets its own (`ORDER BY RAND()` shuffles).
//! * `RAND(N)` with a constant `N` is seeded from `N` at its first evaluation, so a statement
//!   gives the same sequence each time it runs (MariaDB: 0.40613597483014313, 0.8745439358749836,
//!   0.15431178561813363 for `RAND(5)` over three rows). With an `N` that varies per row it is
//!   re-seeded at each evaluation, as MariaDB's `Item_func_rand`.
//!
//! Invariants: a value is in [0, 1); the generator is never folded into a constant (the node is
//! not [`crate::expr::Expr::is_const`]) and never reaches the blind-upsert encoding, which
//! re-runs expressions at recovery and needs them deterministic.

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::types::value::Value;

/// `my_rnd`'s modulus.
const MAX: u64 = 0x3FFF_FFFF;

#[derive(Clone, Copy)]
struct Seeds {
    seed1: u64,
    seed2: u64,
}

impl Seeds {
    /// `my_rnd_init`.
    fn new(seed1: u64, seed2: u64) -> Seeds {
        Seeds {
            seed1: seed1 % MAX,
            seed2: seed2 % MAX,
        }
    }

    /// `Item_func_rand::seed_random`: the seed is the argument's integer value as a 32-bit
    /// unsigned number (NULL is 0), and the products are taken modulo 2^32.
    fn from_arg(n: i64) -> Seeds {
        let t = n as u32 as u64;
        Seeds::new(
            (t * 0x10001 + 55_555_555) as u32 as u64,
            (t * 0x1000_0001) as u32 as u64,
        )
    }

    /// `my_rnd`: the next value in [0, 1).
    fn next(&mut self) -> f64 {
        self.seed1 = (self.seed1 * 3 + self.seed2) % MAX;
        self.seed2 = (self.seed1 + self.seed2 + 33) % MAX;
        self.seed1 as f64 / MAX as f64
    }
}

/// The generator of one `RAND` call. Clones share it (an alias of `RAND()` in ORDER BY draws
/// from the same sequence); two calls are two generators, and compare unequal.
#[derive(Clone)]
pub struct Rng {
    state: Arc<Mutex<Option<Seeds>>>,
    /// `RAND(N)` with an `N` that varies per row: re-seeded at each evaluation.
    reseed: bool,
}

impl Rng {
    /// `RAND()`, seeded from the session's `seed`.
    pub fn seeded(seed: u64) -> Rng {
        Rng {
            state: Arc::new(Mutex::new(Some(Seeds::new(seed & 0xFFFF_FFFF, seed >> 32)))),
            reseed: false,
        }
    }

    /// `RAND(N)`: seeded from `N` at the first evaluation, or at each one unless `constant`.
    pub fn for_seed_argument(constant: bool) -> Rng {
        Rng {
            state: Arc::new(Mutex::new(None)),
            reseed: !constant,
        }
    }

    /// True if the next draw needs the seed argument's value.
    pub fn needs_seed(&self) -> bool {
        self.reseed || self.lock().is_none()
    }

    /// The next value, after seeding from `seed` (the argument's value) when given.
    pub fn next(&self, seed: Option<&Value>) -> Value {
        let mut state = self.lock();
        if let Some(v) = seed {
            *state = Some(Seeds::from_arg(super::int(v).unwrap_or(0)));
        }
        let seeds = state.get_or_insert_with(|| Seeds::from_arg(0));
        Value::Double(seeds.next())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Seeds>> {
        // A panic while holding the lock leaves valid seeds: recover them.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl PartialEq for Rng {
    fn eq(&self, other: &Rng) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }
}

impl fmt::Debug for Rng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.reseed { "Rng(per row)" } else { "Rng" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(rng: &Rng, seed: Option<Value>, n: usize) -> Vec<String> {
        (0..n)
            .map(|_| {
                let s = if rng.needs_seed() {
                    seed.as_ref()
                } else {
                    None
                };
                match rng.next(s) {
                    Value::Double(d) => d.to_string(),
                    other => panic!("{other:?}"),
                }
            })
            .collect()
    }

    #[test]
    fn seeded_sequences_are_mariadbs() {
        // MariaDB's documentation: SELECT i, RAND(5) FROM t (three rows).
        let r = Rng::for_seed_argument(true);
        assert_eq!(
            draws(&r, Some(Value::Int(5)), 3),
            [
                "0.40613597483014313",
                "0.8745439358749836",
                "0.15431178561813363"
            ]
        );
        // MySQL's documentation: RAND(3).
        let r = Rng::for_seed_argument(true);
        assert_eq!(draws(&r, Some(Value::Int(3)), 1), ["0.9057697559760601"]);
        // A seed that varies per row re-seeds: the same seed gives the same value.
        let r = Rng::for_seed_argument(false);
        assert_eq!(
            draws(&r, Some(Value::Int(5)), 2),
            ["0.40613597483014313", "0.40613597483014313"]
        );
        // NULL seeds as 0; a negative seed as its 32-bit two's complement.
        let r = Rng::for_seed_argument(true);
        assert_eq!(draws(&r, Some(Value::Null), 1), ["0.15522042769493574"]);
        let r = Rng::for_seed_argument(true);
        assert_eq!(draws(&r, Some(Value::Int(-1)), 1), ["0.9050373219931845"]);
    }

    #[test]
    fn unseeded_values_vary_and_stay_in_range() {
        let r = Rng::seeded(0x1234_5678_9abc_def0);
        let v = draws(&r, None, 100);
        assert!(v.iter().all(|x| {
            let f: f64 = x.parse().unwrap();
            (0.0..1.0).contains(&f)
        }));
        let distinct: std::collections::HashSet<_> = v.iter().collect();
        assert!(distinct.len() > 90);
        assert_ne!(r, Rng::seeded(0x1234_5678_9abc_def0));
        assert_eq!(r, r.clone());
    }
}
