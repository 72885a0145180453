//! AUTO_INCREMENT counters survive restarts and crashes (design.md "AUTO_INCREMENT counters"):
//! a value once stored in a committed row is never handed out again, even after the row was
//! deleted. The crash test runs a script on the simulated file system, makes the machine die at
//! every sync in turn, reopens the crash image and checks the next generated value against every
//! value the script saw committed.

mod common;

use std::path::Path;
use std::sync::Arc;

use betula_sql::types::value::Value;
use betula_sql::{Engine, EngineConfig, Output, Session};
use betula_storage::vfs::{SimCrashPlan, SimVfs, Vfs};
use betula_storage::{Durability, EnvOptions};

fn config(dir: &Path) -> EngineConfig {
    EngineConfig {
        datadir: dir.to_path_buf(),
        env: EnvOptions {
            durability: Durability::Sync,
            cache_bytes: 8 << 20,
            ..EnvOptions::default()
        },
        port: 0,
    }
}

fn session(e: &Arc<Engine>) -> Session {
    let mut s = e.session(1, "root", "localhost");
    s.execute("USE test", &[]).unwrap();
    s
}

/// The generated id of an INSERT.
fn inserted_id(o: &Output) -> u64 {
    match o {
        Output::Done { last_insert_id, .. } => *last_insert_id,
        other => panic!("not done: {other:?}"),
    }
}

fn int_rows(s: &mut Session, sql: &str) -> Vec<i64> {
    match s.execute(sql, &[]).unwrap() {
        Output::Rows { rows, .. } => rows
            .iter()
            .map(|r| match &r[0] {
                Value::Int(i) => *i,
                Value::UInt(u) => *u as i64,
                v => panic!("{v:?}"),
            })
            .collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn deleted_values_are_not_reused_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (_e, mut s) = common::engine::engine(dir.path());
        common::engine::exec(
            &mut s,
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
        );
        common::engine::exec(&mut s, "INSERT INTO t (v) VALUES (1), (2), (3)");
        common::engine::exec(&mut s, "DELETE FROM t WHERE id = 3");
        common::engine::exec(
            &mut s,
            "CREATE TABLE s (id INT AUTO_INCREMENT PRIMARY KEY) AUTO_INCREMENT = 100",
        );
        common::engine::exec(&mut s, "CREATE TABLE r (id INT AUTO_INCREMENT PRIMARY KEY)");
        common::engine::exec(&mut s, "INSERT INTO r VALUES (50)");
        common::engine::exec(&mut s, "DELETE FROM r");
        common::engine::exec(&mut s, "RENAME TABLE r TO r2");
    }
    let (_e, mut s) = common::engine::engine(dir.path());
    let o = common::engine::exec(&mut s, "INSERT INTO t (v) VALUES (4)");
    assert_eq!(
        inserted_id(&o),
        4,
        "MariaDB gives 4 after 1-3, delete 3, restart"
    );
    let o = common::engine::exec(&mut s, "INSERT INTO s VALUES ()");
    assert_eq!(
        inserted_id(&o),
        100,
        "CREATE TABLE ... AUTO_INCREMENT=100 survives"
    );
    let o = common::engine::exec(&mut s, "INSERT INTO r2 VALUES ()");
    assert_eq!(
        inserted_id(&o),
        51,
        "an explicit value moves the counter, kept by RENAME"
    );
    common::engine::exec(&mut s, "TRUNCATE TABLE t");
    drop(s);
    drop(_e);
    let (_e, mut s) = common::engine::engine(dir.path());
    let o = common::engine::exec(&mut s, "INSERT INTO t (v) VALUES (5)");
    assert_eq!(inserted_id(&o), 1, "TRUNCATE starts the counter again at 1");
    common::engine::exec(&mut s, "DROP TABLE r2");
    common::engine::exec(
        &mut s,
        "CREATE TABLE r2 (id INT AUTO_INCREMENT PRIMARY KEY)",
    );
    drop(s);
    drop(_e);
    let (_e, mut s) = common::engine::engine(dir.path());
    let o = common::engine::exec(&mut s, "INSERT INTO r2 VALUES ()");
    assert_eq!(
        inserted_id(&o),
        1,
        "a dropped table's counter is gone with it"
    );
}

/// The script: single-row and multi-row inserts, explicit values, deletes of the largest values
/// and a transaction. `acked_max` follows the largest id of a committed insert; the script stops
/// at the first failing statement.
fn script(s: &mut Session, acked_max: &mut u64) -> Result<(), String> {
    let run = |s: &mut Session, sql: &str| s.execute(sql, &[]).map_err(|e| e.to_string());
    run(
        s,
        "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    )?;
    for round in 0..4u64 {
        let o = run(s, "INSERT INTO t (v) VALUES (1), (2), (3)")?;
        *acked_max = (*acked_max).max(inserted_id(&o) + 2);
        run(
            s,
            &format!("INSERT INTO t VALUES ({}, 9)", 20 * (round + 1)),
        )?;
        *acked_max = (*acked_max).max(20 * (round + 1));
        run(s, "DELETE FROM t ORDER BY id DESC LIMIT 2")?;
        run(s, "BEGIN")?;
        run(s, "INSERT INTO t (v) VALUES (4)")?;
        let o = run(s, "INSERT INTO t (v) VALUES (5)")?;
        let id = inserted_id(&o);
        run(s, &format!("DELETE FROM t WHERE id = {}", id - 1))?;
        run(s, "COMMIT")?;
        *acked_max = (*acked_max).max(id);
        run(s, &format!("DELETE FROM t WHERE id = {id}"))?;
    }
    Ok(())
}

#[test]
fn crashes_at_every_sync_never_reuse_a_committed_value() {
    let dir = tempfile::tempdir().unwrap();
    let total_syncs = {
        let vfs = SimVfs::new();
        let e = Engine::open_with_vfs(config(dir.path()), Arc::new(vfs.clone())).unwrap();
        let mut s = session(&e);
        let before = vfs.sync_count();
        script(&mut s, &mut 0).unwrap();
        vfs.sync_count() - before
    };
    assert!(total_syncs > 10, "the script syncs ({total_syncs})");
    let mut checked = 0;
    for crash_at in 1..=total_syncs {
        let vfs = SimVfs::new();
        let e = Engine::open_with_vfs(config(dir.path()), Arc::new(vfs.clone())).unwrap();
        let mut s = session(&e);
        let opened = vfs.sync_count();
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(opened + crash_at),
            ..Default::default()
        });
        let mut acked_max = 0;
        let _ = script(&mut s, &mut acked_max);
        drop(s);
        std::mem::forget(e); // the machine is down: no shutdown work may reach the image
        for seed in 0..2 {
            let image: Arc<dyn Vfs> = Arc::new(vfs.crash_image(crash_at * 7 + seed));
            let e = Engine::open_with_vfs(config(dir.path()), image).unwrap();
            let mut s = session(&e);
            let tables = int_rows(
                &mut s,
                "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 't'",
            );
            if tables != vec![1] {
                assert_eq!(
                    acked_max, 0,
                    "crash {crash_at}: the table of committed rows is gone"
                );
                continue;
            }
            let o = s.execute("INSERT INTO t (v) VALUES (0)", &[]).unwrap();
            let next = inserted_id(&o);
            assert!(
                next > acked_max,
                "crash at sync {crash_at}: next id {next}, but {acked_max} was committed"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// The set-oriented INSERT path (exec/dml/insert_batch.rs: an autocommit INSERT that is its own
/// transaction, also as blind upserts) persists the counters it moves as the row-at-a-time path
/// does (AIC1-AIC2): after a crash, deleted values are not handed out again.
#[test]
fn batched_inserts_persist_their_counters_before_committing() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = SimVfs::new();
    let e = Engine::open_with_vfs(config(dir.path()), Arc::new(vfs.clone())).unwrap();
    let mut s = session(&e);
    let run = |s: &mut Session, sql: &str| s.execute(sql, &[]).unwrap();
    // Batched plain inserts (a non-unique secondary index does not stop the batch path).
    run(
        &mut s,
        "CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, v INT, KEY kv (v))",
    );
    let o = run(&mut s, "INSERT INTO b (v) VALUES (1), (2), (3)");
    assert_eq!(inserted_id(&o), 1);
    // Batched blind upserts.
    run(
        &mut s,
        "CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, n INT)",
    );
    let o = run(
        &mut s,
        "INSERT INTO u (n) VALUES (1), (1) ON DUPLICATE KEY UPDATE n = n + 1",
    );
    assert_eq!(inserted_id(&o), 1);
    assert_eq!(
        e.counters_unwritten
            .load(std::sync::atomic::Ordering::SeqCst),
        0,
        "every moved counter was written by the commits"
    );
    run(&mut s, "DELETE FROM b WHERE id = 3");
    run(&mut s, "DELETE FROM u WHERE id = 2");
    drop(s);
    std::mem::forget(e); // a crash: no checkpoint, no shutdown work
    let image: Arc<dyn Vfs> = Arc::new(vfs.crash_image(1));
    let e = Engine::open_with_vfs(config(dir.path()), image).unwrap();
    let mut s = session(&e);
    assert_eq!(int_rows(&mut s, "SELECT id FROM b ORDER BY id"), vec![1, 2]);
    let o = run(&mut s, "INSERT INTO b (v) VALUES (4), (5)");
    assert_eq!(inserted_id(&o), 4, "b's 3 is not handed out again");
    let o = run(&mut s, "INSERT INTO u (n) VALUES (7)");
    assert_eq!(inserted_id(&o), 3, "u's 2 is not handed out again");
}
