//! Histories of concurrent transactions over the protocol, checked for what REPEATABLE READ must exclude
//! (Jepsen's spirit, on known workloads rather than a general history checker):
//! - lost update: read-modify-write increments under `SELECT ... FOR UPDATE`, and `UPDATE SET n = n + 1`;
//!   the final counters equal the acknowledged increments;
//! - write skew with locking reads: "at least one doctor on call per shift", each leave decided on a
//!   `FOR UPDATE` count; the invariant holds in every snapshot and at the end;
//! - G1a (aborted read): values written by transactions that roll back are never read;
//! - G1b (intermediate read): a value a transaction overwrote before committing is never read;
//! - G-single / read skew: a transaction's two reads of the bank total see the same, the invariant total.
//!
//! Each workload runs `clients` connections for a while; a refused transaction (deadlock, lock wait
//! timeout) is retried by the next iteration and counted, any other error fails the run.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Counters, shifts, doctors, accounts: few, so that transactions conflict.
pub const KEYS: u64 = 8;
pub const SHIFTS: u64 = 4;
pub const DOCTORS: u64 = 4;
pub const ACCOUNTS: u64 = 10;
pub const BALANCE: i64 = 100;

/// What a workload measured.
#[derive(Debug, Default, Clone)]
pub struct IsoFigures {
    pub committed: u64,
    pub refused: u64,
    /// Reads checked (snapshots, G1 probes).
    pub reads: u64,
}

/// The shared state of one run.
pub struct Run {
    pub opts: OptsBuilder,
    pub stop: AtomicBool,
    pub committed: AtomicU64,
    pub refused: AtomicU64,
    pub reads: AtomicU64,
    /// The first anomaly seen.
    pub anomaly: Mutex<Option<String>>,
}

impl Run {
    pub fn new(opts: OptsBuilder) -> Arc<Run> {
        Arc::new(Run {
            opts,
            stop: AtomicBool::new(false),
            committed: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            anomaly: Mutex::new(None),
        })
    }

    pub fn conn(&self) -> Conn {
        Conn::new(self.opts.clone()).expect("connect")
    }

    pub fn anomaly(&self, what: String) {
        let mut a = self.anomaly.lock().unwrap();
        if a.is_none() {
            *a = Some(what);
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn figures(&self) -> IsoFigures {
        IsoFigures {
            committed: self.committed.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            reads: self.reads.load(Ordering::Relaxed),
        }
    }
}

/// Whether an error is a refusal the client must retry (deadlock 1213, lock wait timeout 1205).
pub fn refused(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(e) if e.code == 1205 || e.code == 1213)
}

/// Runs `body` as one transaction; a refusal rolls back and counts, any other error panics.
pub fn txn(run: &Run, c: &mut Conn, body: impl FnOnce(&mut Conn) -> mysql::Result<()>) -> bool {
    let r = c.query_drop("BEGIN").and_then(|_| body(c));
    let r = r.and_then(|_| c.query_drop("COMMIT"));
    match r {
        Ok(()) => {
            run.committed.fetch_add(1, Ordering::Relaxed);
            true
        }
        Err(e) if refused(&e) => {
            run.refused.fetch_add(1, Ordering::Relaxed);
            c.query_drop("ROLLBACK").expect("rollback after a refusal");
            false
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// What one client does once (a transaction or a probe).
pub type Work = Arc<dyn Fn(&Run, &mut Conn, &mut SmallRng, usize) + Send + Sync>;

/// Runs `clients` threads of `work` for `time`; panics with the first anomaly.
pub fn drive(run: &Arc<Run>, clients: usize, time: Duration, work: Work) {
    let handles: Vec<_> = (0..clients)
        .map(|i| {
            let (run, work) = (run.clone(), work.clone());
            std::thread::spawn(move || {
                let mut c = run.conn();
                let mut rng = SmallRng::seed_from_u64(i as u64 + 1);
                while !run.stop.load(Ordering::Relaxed) {
                    work(&run, &mut c, &mut rng, i);
                }
            })
        })
        .collect();
    let t0 = Instant::now();
    while t0.elapsed() < time && !run.stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
    run.stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().expect("a client panicked");
    }
    if let Some(a) = run.anomaly.lock().unwrap().as_ref() {
        panic!("anomaly: {a}");
    }
}

/// Lost update, both ways: each transaction increments a random counter, by a locking read-modify-write
/// or by `n = n + 1`; at the end every counter equals its acknowledged increments.
pub fn lost_update(run: &Arc<Run>, clients: usize, time: Duration) {
    let mut c = run.conn();
    c.query_drop("CREATE TABLE iso.c (k INT PRIMARY KEY, n BIGINT NOT NULL)")
        .unwrap();
    let rows: Vec<String> = (0..KEYS).map(|k| format!("({k}, 0)")).collect();
    c.query_drop(format!("INSERT INTO iso.c VALUES {}", rows.join(",")))
        .unwrap();
    let acked: Arc<Vec<AtomicU64>> = Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect());
    let counts = acked.clone();
    let work: Work = Arc::new(move |run, c, rng, _| {
        let k = rng.gen_range(0..KEYS);
        let locking = rng.gen_bool(0.5);
        let ok = txn(run, c, |c| {
            if locking {
                let n: u64 = c
                    .query_first(format!("SELECT n FROM iso.c WHERE k = {k} FOR UPDATE"))?
                    .expect("row");
                c.query_drop(format!("UPDATE iso.c SET n = {} WHERE k = {k}", n + 1))
            } else {
                c.query_drop(format!("UPDATE iso.c SET n = n + 1 WHERE k = {k}"))
            }
        });
        if ok {
            counts[k as usize].fetch_add(1, Ordering::Relaxed);
        }
    });
    drive(run, clients, time, work);
    let got: Vec<u64> = c.query("SELECT n FROM iso.c ORDER BY k").unwrap();
    let want: Vec<u64> = acked.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    assert_eq!(
        got, want,
        "lost update: counters differ from acknowledged increments"
    );
}

/// Checks "at least one doctor on call in every shift" on a snapshot.
fn on_call_per_shift(c: &mut Conn) -> mysql::Result<Vec<(u64, u64)>> {
    c.query("SELECT shift, SUM(on_call) FROM iso.oncall GROUP BY shift ORDER BY shift")
}

/// Write skew with locking reads: a doctor leaves only if the `FOR UPDATE` count of the shift's doctors
/// on call is at least two; another comes back on call. Readers check the invariant in their snapshots.
pub fn write_skew(run: &Arc<Run>, clients: usize, time: Duration) {
    let mut c = run.conn();
    c.query_drop(
        "CREATE TABLE iso.oncall (shift INT NOT NULL, doctor INT NOT NULL, on_call INT NOT NULL, \
         PRIMARY KEY (shift, doctor))",
    )
    .unwrap();
    let rows: Vec<String> = (0..SHIFTS)
        .flat_map(|s| (0..DOCTORS).map(move |d| format!("({s}, {d}, 1)")))
        .collect();
    c.query_drop(format!("INSERT INTO iso.oncall VALUES {}", rows.join(",")))
        .unwrap();
    let work: Work = Arc::new(|run, c, rng, i| {
        let (s, d) = (rng.gen_range(0..SHIFTS), rng.gen_range(0..DOCTORS));
        if i % 4 == 3 {
            let snapshot = c.query_drop("BEGIN").and_then(|_| on_call_per_shift(c));
            let _ = c.query_drop("COMMIT");
            match snapshot {
                Ok(rows) => {
                    run.reads.fetch_add(1, Ordering::Relaxed);
                    if let Some((s, n)) = rows.iter().find(|(_, n)| *n == 0) {
                        run.anomaly(format!("write skew: shift {s} has {n} doctors on call"));
                    }
                }
                Err(e) if refused(&e) => {}
                Err(e) => panic!("unexpected error: {e}"),
            }
            return;
        }
        let leave = rng.gen_bool(0.6);
        txn(run, c, |c| {
            let n: u64 = c
                .query_first(format!(
                    "SELECT COUNT(*) FROM iso.oncall WHERE shift = {s} AND on_call = 1 FOR UPDATE"
                ))?
                .expect("count");
            if !leave {
                c.query_drop(format!(
                    "UPDATE iso.oncall SET on_call = 1 WHERE shift = {s} AND doctor = {d}"
                ))
            } else if n >= 2 {
                c.query_drop(format!(
                    "UPDATE iso.oncall SET on_call = 0 WHERE shift = {s} AND doctor = {d}"
                ))
            } else {
                Ok(())
            }
        });
    });
    drive(run, clients, time, work);
    let rows = on_call_per_shift(&mut c).unwrap();
    assert_eq!(rows.len() as u64, SHIFTS);
    assert!(
        rows.iter().all(|(_, n)| *n >= 1),
        "write skew at the end: {rows:?}"
    );
}

/// G1a and G1b: writers put a value they then overwrite (the intermediate, negative) and either commit
/// the final one or roll back; readers must only ever see final committed values (positive, and never a
/// value of a rolled-back transaction, which are odd).
pub fn g1(run: &Arc<Run>, clients: usize, time: Duration) {
    let mut c = run.conn();
    c.query_drop("CREATE TABLE iso.g (k INT PRIMARY KEY, v BIGINT NOT NULL)")
        .unwrap();
    let rows: Vec<String> = (0..KEYS).map(|k| format!("({k}, 0)")).collect();
    c.query_drop(format!("INSERT INTO iso.g VALUES {}", rows.join(",")))
        .unwrap();
    let work: Work = Arc::new(|run, c, rng, i| {
        if i % 2 == 1 {
            let r: mysql::Result<Vec<i64>> = c.query("SELECT v FROM iso.g");
            match r {
                Ok(vs) => {
                    run.reads.fetch_add(1, Ordering::Relaxed);
                    if let Some(v) = vs.iter().find(|v| **v < 0) {
                        run.anomaly(format!("G1b: intermediate value {v} read"));
                    } else if let Some(v) = vs.iter().find(|v| **v % 2 == 1) {
                        run.anomaly(format!("G1a: value {v} of a rolled-back transaction read"));
                    }
                }
                Err(e) if refused(&e) => {}
                Err(e) => panic!("unexpected error: {e}"),
            }
            return;
        }
        let k = rng.gen_range(0..KEYS);
        let commit = rng.gen_bool(0.5);
        // Even values commit, odd ones roll back; negatives are overwritten before the end.
        let v = 2 * rng.gen_range(1..1_000_000i64) + i64::from(!commit);
        let r = c
            .query_drop("BEGIN")
            .and_then(|_| c.query_drop(format!("UPDATE iso.g SET v = {} WHERE k = {k}", -v)))
            .and_then(|_| c.query_drop(format!("UPDATE iso.g SET v = {v} WHERE k = {k}")))
            .and_then(|_| c.query_drop(if commit { "COMMIT" } else { "ROLLBACK" }));
        match r {
            Ok(()) if commit => {
                run.committed.fetch_add(1, Ordering::Relaxed);
            }
            Ok(()) => {}
            Err(e) if refused(&e) => {
                run.refused.fetch_add(1, Ordering::Relaxed);
                c.query_drop("ROLLBACK").expect("rollback");
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    });
    drive(run, clients, time, work);
    let vs: Vec<i64> = c.query("SELECT v FROM iso.g").unwrap();
    assert!(
        vs.iter().all(|v| *v >= 0 && v % 2 == 0),
        "G1 at the end: {vs:?}"
    );
}

/// Read skew (G-single): transfers between accounts; a reader's two sums in one transaction are equal
/// and equal the invariant total.
pub fn read_skew(run: &Arc<Run>, clients: usize, time: Duration) {
    let mut c = run.conn();
    c.query_drop("CREATE TABLE iso.bank (id INT PRIMARY KEY, balance BIGINT NOT NULL)")
        .unwrap();
    let rows: Vec<String> = (0..ACCOUNTS).map(|a| format!("({a}, {BALANCE})")).collect();
    c.query_drop(format!("INSERT INTO iso.bank VALUES {}", rows.join(",")))
        .unwrap();
    let total = BALANCE * ACCOUNTS as i64;
    let work: Work = Arc::new(move |run, c, rng, i| {
        if i % 2 == 1 {
            let sums = c.query_drop("BEGIN").and_then(|_| {
                let a: Option<i64> = c.query_first("SELECT SUM(balance) FROM iso.bank")?;
                let b: Option<i64> =
                    c.query_first("SELECT SUM(balance) FROM iso.bank WHERE id >= 0")?;
                c.query_drop("COMMIT")?;
                Ok((a, b))
            });
            match sums {
                Ok((a, b)) => {
                    run.reads.fetch_add(1, Ordering::Relaxed);
                    if a != Some(total) || b != Some(total) {
                        run.anomaly(format!("read skew: sums {a:?} and {b:?}, total {total}"));
                    }
                }
                Err(e) if refused(&e) => {
                    let _ = c.query_drop("ROLLBACK");
                }
                Err(e) => panic!("unexpected error: {e}"),
            }
            return;
        }
        let src = rng.gen_range(0..ACCOUNTS);
        let dst = (src + rng.gen_range(1..ACCOUNTS)) % ACCOUNTS;
        let amount = rng.gen_range(1..10);
        txn(run, c, |c| {
            c.query_drop(format!(
                "UPDATE iso.bank SET balance = balance - {amount} WHERE id = {src}"
            ))?;
            c.query_drop(format!(
                "UPDATE iso.bank SET balance = balance + {amount} WHERE id = {dst}"
            ))
        });
    });
    drive(run, clients, time, work);
    let sum: Option<i64> = c.query_first("SELECT SUM(balance) FROM iso.bank").unwrap();
    assert_eq!(sum, Some(total));
}
