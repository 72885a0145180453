//! KILL, COM_PROCESS_KILL, SHUTDOWN and COM_SHUTDOWN against the real `betula` binary over TCP:
//! KILL QUERY stops a SLEEP, a long join and a long UPDATE with 1317 (the UPDATE's changes rolled
//! back) and the connection goes on; KILL CONNECTION ends a connection, idle or running, and
//! rolls back its open transaction; unknown ids are 1094, another user's connection 1095;
//! SHUTDOWN by root stops the server cleanly (a running statement interrupted, data intact after a
//! restart), by another user it is 1227; the mariadb CLI's Ctrl-C (KILL QUERY on a second connection)
//! stops its query; a statement waiting for a row lock, the schema lock or a table lock ends at
//! once with 1317 on KILL QUERY (the lock's holder unaffected) and with its connection on KILL
//! CONNECTION.

mod betula;
mod common;

use std::thread;
use std::time::{Duration, Instant};

use betula::{code, BetulaServer};
use common::RawClient;
use mysql::prelude::*;
use mysql::Conn;

/// Waits until connection `id` is running a statement.
fn wait_running(admin: &mut Conn, id: u32) {
    let sql = format!("SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = {id}");
    for _ in 0..1000 {
        let info: Option<Option<String>> = admin.query_first(&sql).unwrap();
        if matches!(info, Some(Some(_))) {
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("connection {id} never started its statement");
}

/// Waits until connection `id` is gone from the process list.
fn wait_gone(admin: &mut Conn, id: u32) {
    let sql = format!("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = {id}");
    for _ in 0..1000 {
        if admin.query_first::<i64, _>(&sql).unwrap() == Some(0) {
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("connection {id} is still listed");
}

/// Runs `sql` on `c` in a thread; the result and how long it took.
type Running = thread::JoinHandle<(Conn, mysql::Result<()>, Duration)>;
fn start(mut c: Conn, sql: &'static str) -> Running {
    thread::spawn(move || {
        let t = Instant::now();
        // Rows read, not dropped: the mysql crate ignores an error that follows a result's
        // column definitions when the result is dropped unread (a grouped query sends them first).
        let r = c.query::<mysql::Row, _>(sql).map(drop);
        (c, r, t.elapsed())
    })
}

fn setup(server: &BetulaServer, rows: usize) -> Conn {
    let mut admin = server.conn(Some("test"));
    admin
        .query_drop("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
        .unwrap();
    let values: Vec<String> = (0..rows).map(|i| format!("({i}, 1)")).collect();
    admin
        .query_drop(format!("INSERT INTO t VALUES {}", values.join(",")))
        .unwrap();
    admin
}

#[test]
fn kill_query_stops_the_statement_and_the_connection_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = setup(&server, 200);
    let sum = "SELECT SUM(v) FROM t";
    for sql in [
        "SELECT SLEEP(30)",
        // 200^4 rows: far longer than the test.
        "SELECT COUNT(*) FROM t a, t b, t c, t d",
        // 200 rows at 50 ms each.
        "UPDATE t SET v = v + 1 + SLEEP(0.05)",
    ] {
        let victim = server.conn(Some("test"));
        let id = victim.connection_id();
        let running = start(victim, sql);
        wait_running(&mut admin, id);
        thread::sleep(Duration::from_millis(300));
        admin.query_drop(format!("KILL QUERY {id}")).unwrap();
        let (mut victim, r, took) = running.join().unwrap();
        assert_eq!(code(r), 1317, "{sql}");
        assert!(took < Duration::from_secs(20), "{sql} took {took:?}");
        // The connection goes on; the UPDATE's changes are gone.
        assert_eq!(
            victim.query_first::<i64, _>(sum).unwrap(),
            Some(200),
            "{sql}"
        );
        assert_eq!(
            admin.query_first::<i64, _>(sum).unwrap(),
            Some(200),
            "{sql}"
        );
    }
}

#[test]
fn kill_ends_lock_waits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = setup(&server, 10);
    let mut holder = server.conn(Some("test"));
    // Each case: what the holder takes, what then waits for it, how the holder lets go.
    let cases: [(&[&str], &'static str, &str); 3] = [
        (
            &["BEGIN", "UPDATE t SET v = 2 WHERE id = 1"],
            "UPDATE t SET v = 3 WHERE id = 1",
            "COMMIT",
        ),
        (
            &["LOCK TABLES t WRITE"],
            "SELECT COUNT(*) FROM t",
            "UNLOCK TABLES",
        ),
        (
            &["BEGIN", "INSERT INTO t VALUES (500, 1)"],
            "ALTER TABLE t ADD COLUMN w INT",
            "ROLLBACK",
        ),
    ];
    for (take, waits, release) in cases {
        for sql in take {
            holder.query_drop(*sql).unwrap();
        }
        let mut victim = server.conn(Some("test"));
        // Far longer than the test: only KILL can end these waits in time.
        victim
            .query_drop("SET SESSION innodb_lock_wait_timeout = 600, lock_wait_timeout = 600")
            .unwrap();
        let id = victim.connection_id();
        let running = start(victim, waits);
        wait_running(&mut admin, id);
        thread::sleep(Duration::from_millis(300));
        admin.query_drop(format!("KILL QUERY {id}")).unwrap();
        let (mut victim, r, took) = running.join().unwrap();
        assert_eq!(code(r), 1317, "{waits}");
        assert!(took < Duration::from_secs(60), "{waits} took {took:?}");
        // The victim's connection goes on; the holder still holds what it took.
        assert_eq!(victim.query_first::<i64, _>("SELECT 1").unwrap(), Some(1));
        holder.query_drop(release).unwrap();
    }
    assert_eq!(
        admin
            .query_first::<i64, _>("SELECT v FROM t WHERE id = 1")
            .unwrap(),
        Some(2)
    );
    let cols: Vec<String> = admin
        .query(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
        )
        .unwrap();
    assert_eq!(cols, ["id", "v"], "the killed ALTER changed nothing");

    // KILL CONNECTION of a session waiting for a row lock ends the connection.
    holder.query_drop("BEGIN").unwrap();
    holder
        .query_drop("UPDATE t SET v = 4 WHERE id = 1")
        .unwrap();
    let mut victim = server.conn(Some("test"));
    victim
        .query_drop("SET SESSION innodb_lock_wait_timeout = 600")
        .unwrap();
    let id = victim.connection_id();
    let running = start(victim, "UPDATE t SET v = 5 WHERE id = 1");
    wait_running(&mut admin, id);
    thread::sleep(Duration::from_millis(300));
    admin.query_drop(format!("KILL CONNECTION {id}")).unwrap();
    let (mut victim, r, _) = running.join().unwrap();
    assert!(r.is_err(), "the killed statement succeeded");
    assert!(
        victim.query_drop("SELECT 1").is_err(),
        "a killed connection answered"
    );
    wait_gone(&mut admin, id);
    holder.query_drop("COMMIT").unwrap();
    assert_eq!(
        admin
            .query_first::<i64, _>("SELECT v FROM t WHERE id = 1")
            .unwrap(),
        Some(4)
    );
}

#[test]
fn kill_connection_ends_it_and_rolls_back_its_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = setup(&server, 10);
    // An idle connection with an open transaction.
    let mut idle = server.conn(Some("test"));
    let id = idle.connection_id();
    idle.query_drop("BEGIN").unwrap();
    idle.query_drop("INSERT INTO t VALUES (1000, 5)").unwrap();
    idle.query_drop("UPDATE t SET v = 7 WHERE id = 1").unwrap();
    admin.query_drop(format!("KILL CONNECTION {id}")).unwrap();
    assert!(
        idle.query_drop("SELECT 1").is_err(),
        "a killed connection answered"
    );
    wait_gone(&mut admin, id);
    assert_eq!(
        admin
            .query_first::<(i64, i64), _>("SELECT COUNT(*), SUM(v) FROM t")
            .unwrap(),
        Some((10, 10))
    );
    // Its row locks are gone with it.
    admin
        .query_drop("SET innodb_lock_wait_timeout = 5")
        .unwrap();
    admin.query_drop("UPDATE t SET v = 2 WHERE id = 1").unwrap();
    admin.query_drop("INSERT INTO t VALUES (1000, 6)").unwrap();
    // A running connection: its statement stops at once (1927, or the connection is gone before
    // the client reads it).
    let victim = server.conn(Some("test"));
    let id = victim.connection_id();
    let running = start(victim, "SELECT SLEEP(30)");
    wait_running(&mut admin, id);
    admin.query_drop(format!("KILL {id}")).unwrap();
    let (mut victim, r, took) = running.join().unwrap();
    match r {
        Err(mysql::Error::MySqlError(e)) => assert_eq!(e.code, 1927),
        Err(_) => {}
        Ok(()) => panic!("the killed SLEEP succeeded"),
    }
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(victim.query_drop("SELECT 1").is_err());
    wait_gone(&mut admin, id);
}

#[test]
fn unknown_ids_and_other_users_connections() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = server.conn(None);
    assert_eq!(code(admin.query_drop("KILL 999999")), 1094);
    assert_eq!(code(admin.query_drop("KILL QUERY 999999")), 1094);
    admin.query_drop("CREATE USER u").unwrap();
    let mut u = server.conn_as("u", None, None).unwrap();
    let u2 = server.conn_as("u", None, None).unwrap();
    let root_id = admin.connection_id();
    assert_eq!(code(u.query_drop(format!("KILL {root_id}"))), 1095);
    assert_eq!(code(u.query_drop(format!("KILL QUERY {root_id}"))), 1095);
    assert_eq!(code(u.query_drop("SHUTDOWN")), 1227);
    // Its own connections a user may kill.
    let u2_id = u2.connection_id();
    u.query_drop(format!("KILL {u2_id}")).unwrap();
    wait_gone(&mut admin, u2_id);
    assert_eq!(admin.query_first::<i64, _>("SELECT 1").unwrap(), Some(1));
}

#[test]
fn com_process_kill_ends_a_connection() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = server.conn(None);
    let mut victim = server.conn(None);
    let id = victim.connection_id();
    let mut raw = RawClient::login(server.port, "root", b"");
    let mut kill = vec![0x0c];
    kill.extend_from_slice(&999_999u32.to_le_bytes());
    assert_eq!(RawClient::err_code(&raw.command(&kill)), Some(1094));
    let mut kill = vec![0x0c];
    kill.extend_from_slice(&id.to_le_bytes());
    let reply = raw.command(&kill);
    assert_eq!(reply[0], 0, "COM_PROCESS_KILL: {reply:?}");
    assert!(victim.query_drop("SELECT 1").is_err());
    wait_gone(&mut admin, id);
    // The killing connection goes on.
    let reply = raw.command(b"\x03SELECT 1");
    assert_eq!(reply, [1], "one column");
}

#[test]
fn shutdown_stops_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = setup(&server, 100);
    admin
        .query_drop("UPDATE t SET v = 2 WHERE id < 50")
        .unwrap();
    let mut idle = server.conn(None);
    let sleeper = server.conn(None);
    let id = sleeper.connection_id();
    let running = start(sleeper, "SELECT SLEEP(60)");
    wait_running(&mut admin, id);
    let t = Instant::now();
    admin.query_drop("SHUTDOWN").unwrap();
    let status = server
        .wait_exit(Duration::from_secs(30))
        .expect("the server exits after SHUTDOWN");
    assert!(status.success(), "{status:?}");
    let (_, r, _) = running.join().unwrap();
    assert!(r.is_err(), "the running SLEEP was interrupted");
    assert!(t.elapsed() < Duration::from_secs(30));
    assert!(idle.query_drop("SELECT 1").is_err());
    // Everything committed is there after a restart; COM_SHUTDOWN stops it too.
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(Some("test"));
    assert_eq!(
        c.query_first::<(i64, i64), _>("SELECT COUNT(*), SUM(v) FROM t")
            .unwrap(),
        Some((100, 150))
    );
    let check: Option<(String, String, String, String)> = c.query_first("CHECK TABLE t").unwrap();
    assert_eq!(check.map(|r| r.3).as_deref(), Some("OK"));
    let mut raw = RawClient::login(server.port, "root", b"");
    let reply = raw.command(&[0x08]);
    assert!(reply[0] == 0xfe || reply[0] == 0, "COM_SHUTDOWN: {reply:?}");
    let status = server
        .wait_exit(Duration::from_secs(30))
        .expect("the server exits after COM_SHUTDOWN");
    assert!(status.success(), "{status:?}");
    let server = BetulaServer::start(dir.path());
    let mut c = server.conn(Some("test"));
    assert_eq!(
        c.query_first::<i64, _>("SELECT SUM(v) FROM t").unwrap(),
        Some(150)
    );
}

#[test]
fn mariadb_cli_ctrl_c_kills_the_running_query() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let client =
        common::require_program(&["mariadb", "mysql"], "apt-get install -y mariadb-client");
    let script = common::require_program(&["script"], "apt-get install -y bsdutils");
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let mut admin = server.conn(None);
    // Under a pseudo-terminal (script) a typed Ctrl-C is SIGINT to the client, which then sends
    // KILL QUERY on a second connection.
    let cmd = format!(
        "{client} --no-defaults --protocol=TCP -h127.0.0.1 -P{} -uroot -e 'SELECT SLEEP(30)'",
        server.port
    );
    let mut child = Command::new(script)
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sql = "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP%'";
    let mut running = None;
    for _ in 0..1000 {
        running = admin.query_first::<u64, _>(sql).unwrap();
        if running.is_some() {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let mut stdin = child.stdin.take().unwrap();
    let mut status = None;
    if running.is_some() {
        let t = Instant::now();
        stdin.write_all(b"\x03").unwrap();
        stdin.flush().unwrap();
        while t.elapsed() < Duration::from_secs(25) {
            status = child.try_wait().unwrap();
            if status.is_some() {
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
    drop(stdin);
    if status.is_none() {
        let _ = child.kill();
    }
    let _ = child.wait();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(running.is_some(), "the client never ran its query: {out}");
    assert!(
        status.is_some(),
        "the client did not end after Ctrl-C: {out}"
    );
    assert!(out.contains("ERROR 1317"), "{out}");
    assert_eq!(admin.query_first::<i64, _>("SELECT 1").unwrap(), Some(1));
}
