//! Isolation checks through the protocol (reliability/isolation.rs, list_append.rs): lost update, write
//! skew with locking reads, G1a/G1b, G1c over list-append histories, read skew, each with
//! `BETULA_ISO_CLIENTS` clients (8 by default) for `BETULA_ISO_SECS` seconds (3 by default); the
//! list-append checker is itself checked on planted anomalies. Long form:
//! `BETULA_ISO_CLIENTS=64 BETULA_ISO_SECS=60 cargo test -p betula-server --test isolation -- --nocapture --test-threads=1`.

mod reliability;

use std::sync::Arc;
use std::time::Duration;

use mysql::prelude::Queryable;

use reliability::env_number;
use reliability::isolation::{self, Run};
use reliability::server::{assert_no_panic, Server, ServerSpec};

type Workload = fn(&Arc<Run>, usize, Duration);

fn check(name: &str, workload: Workload) {
    let clients = env_number("BETULA_ISO_CLIENTS", 8) as usize;
    let secs = env_number("BETULA_ISO_SECS", 3);
    let dir = tempfile::tempdir().unwrap();
    let spec = ServerSpec {
        datadir: dir.path().join("data"),
        // Up to 64 clients in the long form, plus the checker's connection.
        config: vec![("max_connections".into(), "300".into())],
        env: Vec::new(),
    };
    let server = Server::start(&spec).expect("start");
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE iso").unwrap();
    let run = Run::new(server.opts(Some("iso")));
    workload(&run, clients, Duration::from_secs(secs));
    let f = run.figures();
    println!(
        "{name}: {clients} clients, {secs} s: {} transactions committed, {} refused (deadlock/timeout), \
         {} reads checked, 0 anomalies",
        f.committed, f.refused, f.reads
    );
    assert!(f.committed > 0, "{name}: nothing committed");
    assert_no_panic(&server.log(), name);
}

#[test]
fn no_lost_updates() {
    check("lost update", isolation::lost_update);
}

#[test]
fn no_write_skew_under_locking_reads() {
    check("write skew", isolation::write_skew);
}

#[test]
fn no_aborted_or_intermediate_reads() {
    check("G1a/G1b", isolation::g1);
}

#[test]
fn no_circular_information_flow() {
    check("G1c (list append)", reliability::list_append::g1c);
}

#[test]
fn no_read_skew() {
    check("read skew", isolation::read_skew);
}

/// The list-append checker finds what it looks for: a cycle, a read of a rolled-back element, and two
/// reads of one key that disagree on its order.
#[test]
fn the_list_append_checker_finds_planted_anomalies() {
    use reliability::list_append::{check, History, MicroOp::*};
    let h = |ops, committed| History { ops, committed };
    let cycle = vec![
        h(vec![Append(0, 1)], true),
        h(vec![Append(0, 2), Read(1, vec![3])], true),
        h(vec![Append(1, 3), Read(0, vec![1, 2])], true),
    ];
    assert!(check(&cycle).unwrap_err().starts_with("G1c"));
    let aborted = vec![
        h(vec![Append(2, 4)], false),
        h(vec![Read(2, vec![4])], true),
    ];
    assert!(check(&aborted).unwrap_err().starts_with("G1a"));
    let orders = vec![
        h(vec![Append(0, 1)], true),
        h(vec![Append(0, 2)], true),
        h(vec![Read(0, vec![1, 2])], true),
        h(vec![Read(0, vec![2])], true),
    ];
    assert!(check(&orders).unwrap_err().contains("no prefix"));
    let fine = vec![
        h(vec![Append(0, 1)], true),
        h(vec![Read(0, vec![1]), Append(1, 2)], true),
        h(vec![Read(1, vec![2]), Read(0, vec![1])], true),
    ];
    assert_eq!(check(&fine), Ok(3));
}
