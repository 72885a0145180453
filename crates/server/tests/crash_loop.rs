//! Crash loop: the real `betula serve` under mixed SQL load (bank transfers in transactions, inserts,
//! updates and deletes under a secondary index, ON DUPLICATE KEY UPDATE upserts, LOAD DATA LOCAL, ALTER
//! TABLE), killed with SIGKILL at random moments (a tenth of the restarts also killed during recovery),
//! restarted and checked: every acknowledged commit present, no statement half-applied, the bank's total
//! preserved, every secondary index equal to its table (reliability/crash/).
//!
//! Short form (CI): 20 cycles. Long form:
//! `BETULA_CRASH_CYCLES=500 BETULA_CRASH_SEED=7 cargo test -p betula-server --test crash_loop -- --nocapture kill9`
//! (`BETULA_CRASH_KEEP=1` keeps the data directory). The periodic-durability test takes
//! `BETULA_PERIODIC_CYCLES`.

mod reliability;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use reliability::crash::{self, LoopConfig};
use reliability::env_number;
use reliability::server::{assert_no_panic, Server, ServerSpec};

#[test]
fn kill9_loop_under_mixed_load_loses_no_acknowledged_commit() {
    let cycles = env_number("BETULA_CRASH_CYCLES", 20) as usize;
    let seed = env_number("BETULA_CRASH_SEED", 1);
    let (workdir, _guard) = crash::workdir(std::env::var_os("BETULA_CRASH_KEEP").is_some());
    let cfg = LoopConfig {
        cycles,
        seed,
        workdir: workdir.clone(),
        // A small cache, so that eviction writes and reads from disk happen within a short run.
        settings: vec![("cache_size".into(), "8M".into())],
        load_ms: (150, 1200),
    };
    let t0 = Instant::now();
    let fig = crash::run(&cfg).unwrap_or_else(|e| {
        panic!(
            "crash loop failed (replay: BETULA_CRASH_SEED={seed} BETULA_CRASH_CYCLES={cycles}): {e}"
        )
    });
    println!(
        "crash loop: seed {seed}, {} cycles, {} restarts ({} more killed during recovery), {} acknowledged \
         operations, {} refused (deadlock/timeout), {} of unknown outcome ({} of them had taken effect), \
         0 lost, longest restart {} ms, {:.0} s in all",
        fig.cycles,
        fig.restarts,
        fig.kills_during_recovery,
        fig.acked,
        fig.refused,
        fig.unknown,
        fig.unknown_applied,
        fig.recovery_ms_max,
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(fig.cycles, cycles);
    assert!(
        fig.acked > cycles,
        "the load acknowledged too little: {fig:?}"
    );
}

/// Acknowledged inserts of one client, in order, with the moment of each acknowledgement.
type Acks = Vec<(u64, Instant)>;

/// Single-row autocommit inserts from `clients` connections until the server dies.
fn insert_until_killed(
    server: &Server,
    clients: u64,
    base: u64,
) -> (Vec<Arc<Mutex<Acks>>>, Vec<std::thread::JoinHandle<()>>) {
    let mut acks = Vec::new();
    let mut handles = Vec::new();
    for w in 0..clients {
        let log = Arc::new(Mutex::new(Vec::new()));
        acks.push(log.clone());
        let mut c = server.conn(Some("p"));
        handles.push(std::thread::spawn(move || {
            for i in 0.. {
                let id = base + w * 10_000_000 + i;
                if c.exec_drop("INSERT INTO ticks VALUES (?, ?)", (id, w))
                    .is_err()
                {
                    break;
                }
                log.lock().unwrap().push((id, Instant::now()));
            }
        }));
    }
    (acks, handles)
}

/// `durability = periodic:<ms>` promises that a kill loses no commit acknowledged more than the period
/// before it. Checked per client: the commits that survived are a prefix of the ones acknowledged (the log
/// is written in commit order), and every lost one was acknowledged less than the period (plus a margin
/// for scheduling on a loaded machine, stated below) before the kill.
#[test]
fn periodic_durability_loses_nothing_older_than_its_period() {
    const PERIOD_MS: u64 = 100;
    /// Allowance for the log thread being scheduled late on a busy two-core machine.
    const MARGIN_MS: u64 = 2000;
    let cycles = env_number("BETULA_PERIODIC_CYCLES", 4);
    let dir = tempfile::tempdir().unwrap();
    let spec = ServerSpec {
        datadir: dir.path().join("data"),
        config: vec![("durability".into(), format!("periodic:{PERIOD_MS}"))],
        env: Vec::new(),
    };
    let server = Server::start(&spec).expect("start");
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE p").unwrap();
    c.query_drop("CREATE TABLE p.ticks (id BIGINT PRIMARY KEY, w INT)")
        .unwrap();
    drop(c);
    let mut rng = SmallRng::seed_from_u64(5);
    let mut server = Some(server);
    let (mut lost_total, mut window_ms_max) = (0usize, 0u128);
    for cycle in 0..cycles {
        let s = server
            .take()
            .unwrap_or_else(|| Server::start(&spec).expect("restart"));
        let (acks, handles) = insert_until_killed(&s, 4, (cycle + 1) * 1_000_000_000);
        std::thread::sleep(Duration::from_millis(rng.gen_range(300..1500)));
        let killed_at = Instant::now();
        s.kill9();
        for h in handles {
            h.join().unwrap();
        }
        let s = Server::start(&spec).expect("restart after the kill");
        let mut c = s.conn(Some("p"));
        let present: BTreeMap<u64, ()> = c
            .query::<u64, _>("SELECT id FROM ticks")
            .unwrap()
            .into_iter()
            .map(|id| (id, ()))
            .collect();
        for log in &acks {
            let log = log.lock().unwrap();
            let kept = log
                .iter()
                .take_while(|(id, _)| present.contains_key(id))
                .count();
            assert!(
                log[kept..].iter().all(|(id, _)| !present.contains_key(id)),
                "cycle {cycle}: a commit survived after one that was lost (the log has a hole)"
            );
            if let Some((_, first_lost)) = log.get(kept) {
                let window = killed_at.duration_since(*first_lost).as_millis();
                window_ms_max = window_ms_max.max(window);
                lost_total += log.len() - kept;
                assert!(
                    window <= u128::from(PERIOD_MS + MARGIN_MS),
                    "cycle {cycle}: lost a commit acknowledged {window} ms before the kill"
                );
            }
        }
        assert_no_panic(&s.log(), "periodic durability");
        server = Some(s);
    }
    println!(
        "periodic:{PERIOD_MS}: {cycles} kills, {lost_total} acknowledged commits lost, the oldest \
         acknowledged {window_ms_max} ms before its kill"
    );
}
