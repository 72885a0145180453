//! G1c (circular information flow) in Elle's list-append manner: each key holds a list, each transaction
//! reads some keys and appends its own unique element to others (`CONCAT`), so every read shows a prefix
//! of the key's version order. From the committed transactions' histories:
//! - every read of a key is a prefix of the longest one (else the versions have no single order);
//! - no read holds an element of a transaction that rolled back (G1a) or that never committed;
//! - the graph of write-write (consecutive elements of a key) and write-read (the last element a read
//!   saw) dependencies between committed transactions has no cycle (G1c).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::Conn;
use rand::rngs::SmallRng;
use rand::Rng;

use super::isolation::{drive, refused, Run, Work};

/// Keys of the lists: few, so that transactions depend on each other.
const KEYS: u64 = 6;

/// One micro-operation and what it saw.
#[derive(Clone, Debug)]
pub enum MicroOp {
    Read(u64, Vec<u64>),
    Append(u64, u64),
}

/// A transaction's history: its ops and whether it committed.
#[derive(Clone, Debug)]
pub struct History {
    pub ops: Vec<MicroOp>,
    pub committed: bool,
}

fn parse_list(text: &str) -> Vec<u64> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().expect("list element"))
        .collect()
}

/// Runs one transaction of two to four micro-operations; its history, or None if it was refused.
fn transaction(c: &mut Conn, rng: &mut SmallRng, element: u64) -> mysql::Result<History> {
    let mut ops = Vec::new();
    c.query_drop("BEGIN")?;
    for _ in 0..rng.gen_range(2..=4) {
        let k = rng.gen_range(0..KEYS);
        if rng.gen_bool(0.5) {
            let v: String = c
                .query_first(format!("SELECT v FROM iso.l WHERE k = {k}"))?
                .expect("row");
            ops.push(MicroOp::Read(k, parse_list(&v)));
        } else if !ops
            .iter()
            .any(|o| matches!(o, MicroOp::Append(x, _) if *x == k))
        {
            c.query_drop(format!(
                "UPDATE iso.l SET v = CONCAT(v, '{element},') WHERE k = {k}"
            ))?;
            ops.push(MicroOp::Append(k, element));
        }
    }
    let commit = rng.gen_bool(0.9);
    c.query_drop(if commit { "COMMIT" } else { "ROLLBACK" })?;
    Ok(History {
        ops,
        committed: commit,
    })
}

/// Checks the histories: the number of committed reads checked, or the first anomaly found.
pub fn check(histories: &[History]) -> Result<usize, String> {
    let mut writer: HashMap<u64, (usize, bool)> = HashMap::new();
    for (t, h) in histories.iter().enumerate() {
        for op in &h.ops {
            if let MicroOp::Append(_, e) = op {
                writer.insert(*e, (t, h.committed));
            }
        }
    }
    let committed: Vec<usize> = (0..histories.len())
        .filter(|t| histories[*t].committed)
        .collect();
    let mut longest: HashMap<u64, Vec<u64>> = HashMap::new();
    for t in &committed {
        for op in &histories[*t].ops {
            if let MicroOp::Read(k, list) = op {
                for e in list {
                    match writer.get(e) {
                        Some((_, true)) => {}
                        Some((w, false)) => {
                            return Err(format!("G1a: transaction {t} read {e} of rolled-back {w}"))
                        }
                        None => return Err(format!("transaction {t} read {e}, never written")),
                    }
                }
                let l = longest.entry(*k).or_default();
                if list.len() > l.len() {
                    *l = list.clone();
                }
            }
        }
    }
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); histories.len()];
    for t in &committed {
        for op in &histories[*t].ops {
            let MicroOp::Read(k, list) = op else { continue };
            if !longest[k].starts_with(list) {
                return Err(format!(
                    "key {k}: read {list:?} is no prefix of {:?}",
                    longest[k]
                ));
            }
            if let Some((w, _)) = list.last().and_then(|e| writer.get(e)) {
                if *w != *t {
                    edges[*w].push(*t);
                }
            }
        }
    }
    for list in longest.values() {
        for pair in list.windows(2) {
            let (a, b) = (writer[&pair[0]].0, writer[&pair[1]].0);
            if a != b {
                edges[a].push(b);
            }
        }
    }
    if let Some(cycle) = find_cycle(&edges) {
        return Err(format!(
            "G1c: a cycle of write-write/write-read dependencies: {cycle:?}"
        ));
    }
    let reads = committed
        .iter()
        .flat_map(|t| &histories[*t].ops)
        .filter(|op| matches!(op, MicroOp::Read(..)))
        .count();
    Ok(reads)
}

/// A cycle of the graph, if any (iterative depth-first search).
fn find_cycle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    let mut state = vec![0u8; edges.len()]; // 0 new, 1 on the path, 2 done
    for start in 0..edges.len() {
        if state[start] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some((node, next)) = path.last_mut() {
            if let Some(&to) = edges[*node].get(*next) {
                *next += 1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        path.push((to, 0));
                    }
                    1 => {
                        let from = path.iter().position(|(n, _)| *n == to).unwrap_or(0);
                        return Some(path[from..].iter().map(|(n, _)| *n).collect());
                    }
                    _ => {}
                }
            } else {
                state[*node] = 2;
                path.pop();
            }
        }
    }
    None
}

/// Runs the list-append workload and checks its histories (the reads checked join the run's figures).
pub fn g1c(run: &Arc<Run>, clients: usize, time: Duration) {
    let mut c = run.conn();
    c.query_drop("CREATE TABLE iso.l (k INT PRIMARY KEY, v TEXT NOT NULL)")
        .unwrap();
    let rows: Vec<String> = (0..KEYS).map(|k| format!("({k}, '')")).collect();
    c.query_drop(format!("INSERT INTO iso.l VALUES {}", rows.join(",")))
        .unwrap();
    let histories: Arc<Mutex<Vec<History>>> = Arc::default();
    let next = Arc::new(AtomicU64::new(1));
    let (log, ids) = (histories.clone(), next.clone());
    let work: Work = Arc::new(move |run, c, rng, _| {
        let element = ids.fetch_add(1, Ordering::Relaxed);
        match transaction(c, rng, element) {
            Ok(h) => {
                if h.committed {
                    run.committed.fetch_add(1, Ordering::Relaxed);
                }
                log.lock().unwrap().push(h);
            }
            Err(e) if refused(&e) => {
                run.refused.fetch_add(1, Ordering::Relaxed);
                c.query_drop("ROLLBACK").expect("rollback");
                // Whatever it appended was rolled back: a read of its element is a G1a.
                log.lock().unwrap().push(History {
                    ops: vec![MicroOp::Append(u64::MAX, element)],
                    committed: false,
                });
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    });
    drive(run, clients, time, work);
    let histories = histories.lock().unwrap();
    let checked = check(&histories).unwrap_or_else(|a| panic!("{a}"));
    run.reads.fetch_add(checked as u64, Ordering::Relaxed);
}
