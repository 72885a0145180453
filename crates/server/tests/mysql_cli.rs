//! Drives the protocol server with the real `mariadb`/`mysql` command-line
//! client (Debian package `mariadb-client`), in batch mode and along the
//! interactive start-up path (table-name completion via COM_FIELD_LIST,
//! under a pseudo-terminal made by `script` from `bsdutils`).

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn client() -> String {
    common::require_program(&["mariadb", "mysql"], "apt-get install -y mariadb-client")
}

fn base_args(port: u16) -> Vec<String> {
    [
        "--no-defaults",
        "--protocol=TCP",
        "-h",
        "127.0.0.1",
        "-P",
        &port.to_string(),
        "--connect-timeout=10",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run(port: u16, args: &[&str]) -> Output {
    Command::new(client())
        .args(base_args(port))
        .args(args)
        .output()
        .expect("run mysql client")
}

/// Runs the client with `input` on stdin (batch mode, statements separated
/// by the client itself).
fn run_stdin(port: u16, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(client())
        .args(base_args(port))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mysql client");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout_bytes(o: &Output) -> Vec<u8> {
    assert!(
        o.status.success(),
        "client failed: {}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout.clone()
}

fn stdout_ok(o: &Output) -> String {
    String::from_utf8_lossy(&stdout_bytes(o)).into_owned()
}

#[test]
fn batch_insert_and_select_round_trip() {
    let (server, state) = common::start();
    let port = server.local_addr().port();
    let out = run(port, &["-u", "root", "-B", "-N", "test", "-e",
        "insert into kv values (1, 'one'); insert into kv values (2, 'two words'); select k, v from kv"]);
    assert_eq!(stdout_ok(&out), "1\tone\n2\ttwo words\n");
    assert_eq!(state.kv.lock().unwrap().len(), 2);
    // With column headers.
    let out = run(
        port,
        &[
            "-u",
            "root",
            "-B",
            "test",
            "-e",
            "select v from kv where k = 2",
        ],
    );
    assert_eq!(stdout_ok(&out), "v\ntwo words\n");
    server.shutdown().unwrap();
}

#[test]
fn text_protocol_value_types() {
    let (server, _) = common::start();
    let out = run(
        server.local_addr().port(),
        &["-u", "root", "-B", "-N", "-e", "select types"],
    );
    let mut expect = b"-5\t18446744073709551615\t-7\t300\t-70000\t2.5\t1.5\t12.340\t2024-02-29\t2024-02-29 13:14:15.000123\t-01:02:03\t".to_vec();
    expect.extend_from_slice("héllo\t".as_bytes());
    // Batch mode prints NUL as \0 and other bytes raw.
    expect.extend_from_slice(b"\\0\x01\x02\xff\tNULL\n");
    assert_eq!(stdout_bytes(&out), expect);
    server.shutdown().unwrap();
}

#[test]
fn multi_statement_results_and_error_in_the_middle() {
    let (server, _) = common::start();
    let out = run(
        server.local_addr().port(),
        &[
            "-u",
            "root",
            "-B",
            "-N",
            "-e",
            "select seq 2; bogus statement; select seq 3",
        ],
    );
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout.lines().count(), 2, "stdout: {stdout}");
    assert!(stderr.contains("ERROR 1064 (42000)"), "stderr: {stderr}");
    server.shutdown().unwrap();
}

#[test]
fn native_password_and_auth_switch() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let out = run(
        port,
        &[
            "-u",
            "alice",
            "-psecret",
            "-B",
            "-N",
            "-e",
            "select database()",
        ],
    );
    assert_eq!(stdout_ok(&out), "NULL\n");
    // The client starts with another plugin: the server answers with an
    // AuthSwitchRequest to mysql_native_password.
    let out = run(
        port,
        &[
            "-u",
            "alice",
            "-psecret",
            "--default-auth=caching_sha2_password",
            "-B",
            "-N",
            "test",
            "-e",
            "select database()",
        ],
    );
    assert_eq!(stdout_ok(&out), "test\n");
    let out = run(port, &["-u", "alice", "-pwrong", "-e", "select 1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ERROR 1045 (28000)") && err.contains("Access denied for user 'alice'"),
        "{err}"
    );
    let out = run(port, &["-u", "nobody", "-e", "select 1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERROR 1045"));
    server.shutdown().unwrap();
}

#[test]
fn errors_keep_the_connection_usable() {
    let (server, state) = common::start();
    let port = server.local_addr().port();
    let out = run(port, &["-u", "root", "nosuchdb", "-e", "select 1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERROR 1049 (42000)"));
    // --force continues after errors, on the same connection.
    let out = run_stdin(
        port,
        &["-u", "root", "-B", "-N", "--force", "test"],
        "bogus;\nselect database();\nuse nosuchdb;\nselect database();\n",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "test\ntest\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ERROR 1064") && err.contains("ERROR 1049"),
        "{err}"
    );
    assert_eq!(
        state.logged("open root db=Some(\"test\")").len(),
        1,
        "one connection only"
    );
    server.shutdown().unwrap();
}

/// Without -A the interactive client reads table information at start-up
/// ("Reading table information for completion of table and column names"):
/// SHOW TABLES, then COM_FIELD_LIST per table. A wrong terminator there
/// hangs the client. The client only does this on a terminal, so it runs
/// under `script` (a pseudo-terminal), bounded by `timeout`.
#[test]
fn interactive_startup_uses_field_list() {
    let (server, state) = common::start();
    let script = common::require_program(&["script"], "apt-get install -y bsdutils");
    let client_cmd = format!(
        "{} --no-defaults --protocol=TCP -h 127.0.0.1 -P {} -u root test",
        client(),
        server.local_addr().port()
    );
    let mut child = Command::new("timeout")
        .args(["60", &script, "-qec", &client_cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn script");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"select database();\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = stdout_ok(&out);
    assert!(
        stdout.contains("Reading table information"),
        "stdout: {stdout}"
    );
    assert!(stdout.contains("| test "), "stdout: {stdout}");
    assert_eq!(
        state.logged("field_list"),
        vec!["field_list kv".to_string()]
    );
    server.shutdown().unwrap();
}
