//! Disk faults under the real server, injected through the engine's file layer (`FaultVfs`, armed from a
//! control file: `betula_server::fault_control`): EIO on reads and writes, ENOSPC, short writes, failed
//! fsyncs, writes torn by a crash, misdirected writes, and bits flipped in cold blocks.
//!
//! Each fault must give a clear error (the SQL error, and a log line naming the file and the block where
//! the engine knows it), never a wrong answer, never a panic or a hang (every client call has a timeout,
//! and a dead connection fails the test); reads go on where they can; a failed write or fsync latches the
//! engine until a restart (design.md, "Failure handling"), after which everything acknowledged is there.

mod reliability;

use mysql::prelude::Queryable;

use reliability::faults::{
    load, names_file_and_block, points, scan, tree_files, value, Answer, FaultRig, ROWS, SMALL_ROWS,
};
use reliability::server::assert_no_panic;

/// Reads that meet an I/O error fail with 1030 naming the file and block; reads that do not (cached
/// data) and writes go on; once the fault clears, the same reads are right again, without a restart.
#[test]
fn read_errors_fail_only_the_reads_that_meet_them() {
    let rig = FaultRig::new();
    let server = rig.start();
    load(&server, ROWS);
    assert!(server.stop().is_some_and(|s| s.success()));
    let server = rig.start();
    let mut c = server.conn(None);
    assert_eq!(scan(&mut c, "u", SMALL_ROWS), Answer::Right, "warm f.u");
    rig.arm("kind=read_error file=.bt");
    let Answer::Error(code, msg) = scan(&mut c, "t", ROWS) else {
        panic!("a cold scan read nothing from disk");
    };
    assert_eq!(code, 1030, "{msg}");
    assert!(names_file_and_block(&msg), "{msg}");
    assert!(msg.contains("os error 5"), "{msg}");
    let answers = points(&mut c, ROWS, 20);
    assert!(answers.iter().any(|a| matches!(a, Answer::Error(1030, _))));
    assert_eq!(
        scan(&mut c, "u", SMALL_ROWS),
        Answer::Right,
        "cached rows still read"
    );
    c.query_drop("INSERT INTO f.u VALUES (100000, 'after a read error')")
        .expect("a read error does not latch the engine");
    assert!(rig.wait_injected(1) > 0);
    rig.clear();
    assert_eq!(scan(&mut c, "t", ROWS), Answer::Right);
    assert!(points(&mut c, ROWS, 20).iter().all(|a| *a == Answer::Right));
    let log = server.log();
    assert!(
        log.contains("betula: error 1030") && log.contains("block at offset"),
        "{log}"
    );
    assert_no_panic(&log, "read errors");
}

/// One failed write or fsync of the log or of a tree file: the statement that met it fails, its change
/// stays invisible (log) or is kept (tree files: it was acknowledged before the checkpoint failed), reads
/// go on, every later write is refused until a restart even with the fault gone, and the restart
/// recovers everything acknowledged.
#[test]
fn write_and_fsync_failures_latch_until_restart() {
    for kind in ["write_error", "no_space", "short_write", "sync_error"] {
        for target in ["wal", ".bt"] {
            latch_case(kind, target);
        }
    }
}

fn latch_case(kind: &str, target: &str) {
    let case = format!("{kind} on {target}");
    let rig = FaultRig::new();
    let server = rig.start();
    load(&server, 2000);
    let mut c = server.conn(None);
    rig.arm(&format!("kind={kind} file={target}"));
    let failed = if target == "wal" {
        c.query_drop("INSERT INTO f.u VALUES (9999, 'x')")
    } else {
        c.query_drop("INSERT INTO f.u VALUES (9999, 'x')")
            .expect("a commit writes only the log");
        c.query_drop("FLUSH TABLES")
    };
    let Err(mysql::Error::MySqlError(e)) = failed else {
        panic!("{case}: the write succeeded: {failed:?}");
    };
    assert_eq!(e.code, 1030, "{case}: {}", e.message);
    if kind == "no_space" || kind == "short_write" {
        assert!(e.message.contains("os error 28"), "{case}: {}", e.message);
    }
    let visible: Option<u64> = c
        .query_first("SELECT COUNT(*) FROM f.u WHERE id = 9999")
        .unwrap();
    let expected = if target == "wal" { 0 } else { 1 };
    assert_eq!(
        visible,
        Some(expected),
        "{case}: a failed commit is invisible, an acknowledged one is not"
    );
    rig.clear();
    let again = c.query_drop("INSERT INTO f.u VALUES (10000, 'y')");
    let Err(mysql::Error::MySqlError(e)) = again else {
        panic!("{case}: a write after the failure was accepted: {again:?}");
    };
    assert!(
        e.message.contains("refuses writes until reopened"),
        "{case}: {}",
        e.message
    );
    let expect_u = SMALL_ROWS + expected;
    let got: Option<u64> = c.query_first("SELECT COUNT(*) FROM f.u").unwrap();
    assert_eq!(got, Some(expect_u), "{case}: reads go on");
    assert_eq!(scan(&mut c, "t", 2000), Answer::Right, "{case}");
    let log = server.log();
    assert!(
        log.contains("betula: error 1030"),
        "{case}: no log line:\n{log}"
    );
    server.kill9();
    let server = rig.start();
    let mut c = server.conn(None);
    assert_eq!(
        scan(&mut c, "t", 2000),
        Answer::Right,
        "{case}: after the restart"
    );
    let rows: Vec<(u64, String)> = c.query("SELECT id, v FROM f.u").unwrap();
    let old = rows.iter().filter(|(id, _)| *id < SMALL_ROWS).count() as u64;
    assert_eq!(old, SMALL_ROWS, "{case}: acknowledged rows lost");
    for (id, v) in &rows {
        match id {
            9999 => assert_eq!(v, "x", "{case}"),
            id if *id < SMALL_ROWS => assert_eq!(*v, value(*id), "{case}"),
            other => panic!("{case}: row {other} was never acknowledged"),
        }
    }
    if target == ".bt" {
        assert!(
            rows.iter().any(|(id, _)| *id == 9999),
            "{case}: acknowledged row lost"
        );
    }
    c.query_drop("INSERT INTO f.u VALUES (10001, 'z')")
        .unwrap_or_else(|e| panic!("{case}: writes after the restart: {e}"));
    assert_no_panic(&server.log(), &case);
}

/// A write torn by the death of the process (half of it lands, then the process aborts) is a crash: the
/// restart recovers every acknowledged commit, of the log's writes and of a checkpoint's.
#[test]
fn torn_writes_recover_like_crashes() {
    for (target, after) in [("wal", 30), (".bt", 3)] {
        let rig = FaultRig::new();
        let mut server = rig.start();
        load(&server, 2000);
        let mut c = server.conn(None);
        rig.arm(&format!(
            "kind=torn_write file={target} after={after} count=1"
        ));
        let mut acked = Vec::new();
        for id in 20_000..30_000u64 {
            if c.exec_drop("INSERT INTO f.t VALUES (?, ?)", (id, value(id)))
                .is_err()
            {
                break;
            }
            acked.push(id);
            if target == ".bt" && id % 100 == 0 && c.query_drop("FLUSH TABLES").is_err() {
                break;
            }
        }
        let status = server.wait_exit(std::time::Duration::from_secs(60));
        assert!(
            status.is_some_and(|s| !s.success()),
            "{target}: the torn write did not end the process"
        );
        drop(server);
        // The control file outlives the process: a new one would tear its own writes again.
        rig.clear_before_start();
        let server = rig.start();
        let mut c = server.conn(None);
        let present: Vec<u64> = c.query("SELECT id FROM f.t WHERE id >= 20000").unwrap();
        assert!(
            acked.iter().all(|id| present.contains(id)),
            "{target}: acknowledged rows lost ({} acknowledged, {} present)",
            acked.len(),
            present.len()
        );
        assert!(
            present.len() <= acked.len() + 1,
            "{target}: rows never sent"
        );
        assert_eq!(scan(&mut c, "u", SMALL_ROWS), Answer::Right);
        assert_no_panic(&server.log(), target);
    }
}

/// Whatever a query answers after bits flipped on disk, or a block landed in the wrong place, is the
/// right rows or an error: 1030 naming the file and the block. Returns whether any error was seen.
fn right_or_detected(c: &mut mysql::Conn, rows: u64, case: &str) -> bool {
    let mut answers = vec![scan(c, "t", rows), scan(c, "u", SMALL_ROWS)];
    answers.extend(points(c, rows, 10));
    let mut detected = false;
    for a in answers {
        if let Answer::Error(code, msg) = a {
            assert_eq!(code, 1030, "{case}: {msg}");
            assert!(
                msg.contains("corruption") || msg.contains("os error"),
                "{case}: {msg}"
            );
            detected = true;
        }
    }
    detected
}

/// Bits flipped in cold blocks, on disk while the server was down and by the file layer as blocks are
/// read: detected by checksums, never returned.
#[test]
fn flipped_bits_in_cold_blocks_are_detected() {
    let rig = FaultRig::new();
    let server = rig.start();
    load(&server, ROWS);
    assert!(server.stop().is_some_and(|s| s.success()));
    let file = tree_files(&rig.spec.datadir).remove(0);
    let len = std::fs::metadata(&file).unwrap().len();
    let (mut detected, mut refused_start) = (0, 0);
    for i in 0..8u64 {
        let offset = 8192 + (len - 8192) * (2 * i + 1) / 16;
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[offset as usize] ^= 0x10;
        std::fs::write(&file, &bytes).unwrap();
        let case = format!("bit flipped at offset {offset} of {}", file.display());
        match reliability::server::Server::start(&rig.spec) {
            Ok(server) => {
                let mut c = server.conn(None);
                if right_or_detected(&mut c, ROWS, &case) {
                    detected += 1;
                    let log = server.log();
                    assert!(
                        log.contains("block at offset"),
                        "{case}: no log line naming the block"
                    );
                }
                assert_no_panic(&server.log(), &case);
                server.kill9();
            }
            Err(e) => {
                assert!(
                    e.stderr.contains("corruption"),
                    "{case}: start refused unclearly:\n{}",
                    e.stderr
                );
                refused_start += 1;
            }
        }
        bytes[offset as usize] ^= 0x10;
        std::fs::write(&file, &bytes).unwrap();
    }
    println!("bit flips on disk: 8 flipped, {detected} detected by queries, {refused_start} refused at start");
    assert!(
        detected + refused_start > 0,
        "no flipped bit was ever noticed"
    );
    let server = rig.start();
    let mut c = server.conn(None);
    rig.arm("kind=bit_flip_read file=.bt");
    let Answer::Error(1030, msg) = scan(&mut c, "t", ROWS) else {
        panic!("a flipped bit on read went unnoticed");
    };
    assert!(
        msg.contains("corruption") && names_file_and_block(&msg),
        "{msg}"
    );
    rig.clear();
    assert_eq!(scan(&mut c, "t", ROWS), Answer::Right);
    assert_no_panic(&server.log(), "bit flips");
}

/// A checkpoint block written one place off (the disk reports success): the place it should have gone
/// to keeps old bytes. After a restart every answer is right or an error; a start refused for corruption
/// is a clear error too.
#[test]
fn misdirected_writes_never_give_wrong_answers() {
    let mut outcomes = Vec::new();
    for after in [0, 2, 6] {
        let rig = FaultRig::new();
        let server = rig.start();
        load(&server, ROWS);
        let mut c = server.conn(None);
        rig.arm(&format!(
            "kind=misdirected_write file=.bt after={after} count=1"
        ));
        for chunk in (ROWS..ROWS + 2000).collect::<Vec<_>>().chunks(500) {
            let rows: Vec<String> = chunk
                .iter()
                .map(|id| format!("({id}, '{}')", value(*id)))
                .collect();
            c.query_drop(format!("INSERT INTO f.t VALUES {}", rows.join(",")))
                .unwrap();
        }
        c.query_drop("FLUSH TABLES")
            .expect("a misdirected write reports success");
        assert_eq!(rig.wait_injected(1), 1, "after={after}");
        rig.clear();
        server.kill9();
        let case = format!("misdirected write after {after}");
        match reliability::server::Server::start(&rig.spec) {
            Ok(server) => {
                let mut c = server.conn(None);
                let seen = right_or_detected(&mut c, ROWS + 2000, &case);
                outcomes.push(if seen { "detected" } else { "harmless" });
                assert_no_panic(&server.log(), &case);
            }
            Err(e) => {
                assert!(
                    e.stderr.contains("corruption"),
                    "{case}: start refused unclearly:\n{}",
                    e.stderr
                );
                outcomes.push("start refused (corruption)");
            }
        }
    }
    println!("misdirected writes: {outcomes:?}");
}
