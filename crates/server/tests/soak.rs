//! Soak: many connections doing mixed work for a while (point and range reads, inserts, updates,
//! deletes, upserts, multi-statement transactions on a table with a secondary index); no error but
//! deadlocks and lock wait timeouts, and the server's resident memory stays within its cache budget plus
//! a fixed allowance plus a per-connection allowance (stated below; docs/testing.md).
//!
//! Short form (CI): 16 connections for 5 s. Long form:
//! `BETULA_SOAK_CONNS=200 BETULA_SOAK_SECS=600 cargo test -p betula-server --test soak -- --nocapture`.

mod reliability;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use reliability::env_number;
use reliability::server::{assert_no_panic, Server, ServerSpec};

/// The server's cache budget in the soak.
const CACHE_MIB: u64 = 64;
/// Memory beyond the cache budget and the connections: code, the log buffer, the catalog, allocator slack.
const FIXED_ALLOWANCE_MIB: u64 = 96;
/// Memory per open connection: its thread's stack pages, its session and protocol buffers, and the
/// allocator's pages of its thread (one thread per connection). Measured: about 0.5 MiB per idle
/// connection and 3 MiB per busy one (200 connections: 190 MiB connected, 600-710 MiB under load).
const PER_CONNECTION_KIB: u64 = 4096;
/// How often the long form prints its progress and memory, in seconds.
const REPORT_EVERY_S: u64 = 5;
/// Rows the table starts with.
const ROWS: u64 = 20_000;

/// What the clients did.
#[derive(Default)]
struct Counts {
    ops: AtomicU64,
    refused: AtomicU64,
    unexpected: Mutex<Vec<String>>,
}

fn fill(c: &mut Conn) {
    c.query_drop("CREATE DATABASE soak").unwrap();
    c.query_drop(
        "CREATE TABLE soak.t (id BIGINT PRIMARY KEY, k INT NOT NULL, v VARCHAR(100) NOT NULL, \
         n BIGINT NOT NULL DEFAULT 0, KEY by_k (k))",
    )
    .unwrap();
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(2000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|id| format!("({id}, {}, 'row {id}', 0)", id % 1000))
            .collect();
        c.query_drop(format!("INSERT INTO soak.t VALUES {}", rows.join(",")))
            .unwrap();
    }
}

/// One operation of client `w`; the statement's error, if any.
fn op(c: &mut Conn, rng: &mut SmallRng, w: u64, seq: u64) -> mysql::Result<()> {
    let id = rng.gen_range(0..ROWS);
    let k = rng.gen_range(0..1000);
    match rng.gen_range(0..100) {
        0..=39 => c
            .exec_drop("SELECT id, k, v FROM soak.t WHERE id = ?", (id,))
            .map(drop),
        40..=54 => c
            .query_drop(format!(
                "SELECT id, v FROM soak.t WHERE k = {k} ORDER BY id LIMIT 20"
            ))
            .map(drop),
        55..=69 => {
            let new = 1_000_000 + w * 10_000_000 + seq;
            c.exec_drop(
                "INSERT INTO soak.t (id, k, v) VALUES (?, ?, ?)",
                (new, k, format!("new {new}")),
            )
        }
        70..=79 => c.query_drop(format!(
            "UPDATE soak.t SET v = 'updated {seq}', k = {k} WHERE id = {id}"
        )),
        80..=84 => c.query_drop(format!(
            "DELETE FROM soak.t WHERE id = {}",
            1_000_000 + w * 10_000_000 + rng.gen_range(0..=seq)
        )),
        85..=89 => c.query_drop(format!(
            "INSERT INTO soak.t (id, k, v) VALUES ({id}, {k}, 'upsert') \
             ON DUPLICATE KEY UPDATE n = n + 1"
        )),
        _ => {
            let other = rng.gen_range(0..ROWS);
            let r = c.query_drop("BEGIN").and_then(|_| {
                c.query_drop(format!("UPDATE soak.t SET n = n + 1 WHERE id = {id}"))?;
                c.query_drop(format!("UPDATE soak.t SET n = n - 1 WHERE id = {other}"))?;
                c.query_drop("COMMIT")
            });
            if r.is_err() {
                let _ = c.query_drop("ROLLBACK");
            }
            r
        }
    }
}

fn client(server_opts: mysql::OptsBuilder, w: u64, stop: Arc<AtomicBool>, counts: Arc<Counts>) {
    let mut c = Conn::new(server_opts).expect("connect");
    let mut rng = SmallRng::seed_from_u64(w + 1);
    let mut seq = 0;
    while !stop.load(Ordering::Relaxed) {
        seq += 1;
        match op(&mut c, &mut rng, w, seq) {
            Ok(()) => {}
            Err(mysql::Error::MySqlError(e)) if e.code == 1205 || e.code == 1213 => {
                counts.refused.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                counts
                    .unexpected
                    .lock()
                    .unwrap()
                    .push(format!("client {w}: {e}"));
                return;
            }
        }
        counts.ops.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn mixed_work_on_many_connections_stays_error_free_and_within_memory() {
    let conns = env_number("BETULA_SOAK_CONNS", 16);
    let secs = env_number("BETULA_SOAK_SECS", 5);
    let dir = tempfile::tempdir().unwrap();
    let spec = ServerSpec {
        datadir: dir.path().join("data"),
        config: vec![
            ("cache_size".into(), format!("{CACHE_MIB}M")),
            ("max_connections".into(), (conns + 10).to_string()),
        ],
        env: Vec::new(),
    };
    let server = Server::start(&spec).expect("start");
    fill(&mut server.conn(None));
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let handles: Vec<_> = (0..conns)
        .map(|w| {
            let (opts, stop, counts) = (server.opts(None), stop.clone(), counts.clone());
            std::thread::spawn(move || client(opts, w, stop, counts))
        })
        .collect();
    let t0 = Instant::now();
    let mut rss_max = 0;
    let mut next_report = 0;
    while t0.elapsed() < Duration::from_secs(secs) {
        std::thread::sleep(Duration::from_millis(500));
        let rss = server.rss_bytes().expect("server memory");
        rss_max = rss_max.max(rss);
        if t0.elapsed().as_secs() >= next_report {
            println!(
                "soak: {:4} s, {} statements, resident {} MiB",
                t0.elapsed().as_secs(),
                counts.ops.load(Ordering::Relaxed),
                rss >> 20
            );
            next_report += REPORT_EVERY_S;
        }
        if !counts.unexpected.lock().unwrap().is_empty() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().expect("a client panicked");
    }
    let unexpected = counts.unexpected.lock().unwrap().clone();
    assert!(unexpected.is_empty(), "unexpected errors: {unexpected:#?}");
    let limit = (CACHE_MIB + FIXED_ALLOWANCE_MIB) * (1 << 20) + conns * PER_CONNECTION_KIB * 1024;
    let ops = counts.ops.load(Ordering::Relaxed);
    println!(
        "soak: {conns} connections, {secs} s: {ops} statements, {} refused (deadlock/timeout), 0 \
         unexpected errors; resident memory at most {} MiB (limit {} MiB = cache {CACHE_MIB} + \
         {FIXED_ALLOWANCE_MIB} + {PER_CONNECTION_KIB} KiB per connection)",
        counts.refused.load(Ordering::Relaxed),
        rss_max >> 20,
        limit >> 20
    );
    assert!(ops > conns, "the clients did too little: {ops} statements");
    assert!(rss_max <= limit, "resident memory {rss_max} over {limit}");
    let mut c = server.conn(None);
    let rows: Option<u64> = c.query_first("SELECT COUNT(*) FROM soak.t").unwrap();
    assert!(rows.is_some_and(|n| n >= ROWS / 2));
    assert_no_panic(&server.log(), "soak");
}
