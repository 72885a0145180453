//! TLS for client connections against the real server (design.md "TLS"), with the test-only
//! certificate in data/tls-cert.pem / data/tls-key.pem (see data/README.tls): the `mariadb` CLI
//! (`mariadb-client`) with `--ssl`, with the certificate verified, and plain on the same server;
//! PyMySQL with `ssl=` (python3-pymysql) including KILL of an idle TLS connection; a client that
//! requires TLS against a server without certificate; a garbage TLS handshake and a client that
//! leaves after its SSLRequest (hand-made packets) do not stop the server; the options from a
//! my.cnf; startup errors for a missing or malformed certificate; client certificates checked
//! against `--ssl-ca` (a CA and a client certificate made with the `openssl` CLI).

mod betula;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use betula::BetulaServer;

const CLIENT_SSL: u32 = 1 << 11;
const CLIENT_PROTOCOL_41: u32 = 1 << 9;

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn tls_args() -> Vec<String> {
    vec![
        "--ssl-cert".into(),
        data("tls-cert.pem"),
        "--ssl-key".into(),
        data("tls-key.pem"),
    ]
}

fn start_tls(dir: &std::path::Path) -> BetulaServer {
    let args = tls_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    BetulaServer::start_with(dir, &args).expect("betula serve with TLS did not start")
}

fn mariadb(port: u16, args: &[&str], sql: &str) -> Output {
    let port = port.to_string();
    Command::new("timeout")
        .args([
            "30",
            "mariadb",
            "-h127.0.0.1",
            "-uroot",
            "-P",
            &port,
            "-N",
            "-B",
        ])
        .args(args)
        .args(["-e", sql])
        .output()
        .expect("mariadb client (apt-get install -y mariadb-client)")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "client failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim_end().to_string()
}

fn python(script: &str, port: u16) -> String {
    let o = Command::new("python3")
        .args(["-c", script, &port.to_string()])
        .output()
        .expect("python3 with pymysql (apt-get install -y python3-pymysql)");
    ok(&o)
}

/// The server's greeting's capability flags (and the stream, positioned after it).
fn greeting(port: u16) -> (TcpStream, u32) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut hdr = [0u8; 4];
    s.read_exact(&mut hdr).unwrap();
    let len = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], 0]) as usize;
    let mut p = vec![0u8; len];
    s.read_exact(&mut p).unwrap();
    let v_end = 1 + p[1..].iter().position(|&b| b == 0).unwrap();
    let at = v_end + 1 + 4 + 8 + 1;
    let lo = u16::from_le_bytes([p[at], p[at + 1]]) as u32;
    let hi = u16::from_le_bytes([p[at + 5], p[at + 6]]) as u32;
    (s, lo | hi << 16)
}

/// Sends a 32-byte SSLRequest (sequence 1).
fn ssl_request(s: &mut TcpStream) {
    let mut p = vec![32, 0, 0, 1];
    p.extend_from_slice(&(CLIENT_PROTOCOL_41 | CLIENT_SSL).to_le_bytes());
    p.extend_from_slice(&(1u32 << 24).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0; 23]);
    s.write_all(&p).unwrap();
}

/// Reads until the server closes (or the timeout): what it sent.
fn drain(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

#[test]
fn mariadb_cli_over_tls_and_plain_on_the_same_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_tls(dir.path());
    let (_, caps) = greeting(server.port);
    assert_ne!(
        caps & CLIENT_SSL,
        0,
        "a server with a certificate offers CLIENT_SSL"
    );
    let tls = ["--ssl", "--skip-ssl-verify-server-cert"];
    let out = ok(&mariadb(
        server.port,
        &tls,
        "SHOW STATUS LIKE 'Ssl_version'; SHOW SESSION STATUS LIKE 'Ssl_cipher'",
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("Ssl_version\tTLSv1."), "{out}");
    assert!(lines[1].len() > "Ssl_cipher\t".len(), "{out}");
    // The certificate verified against itself (its names include 127.0.0.1).
    let ca = data("tls-cert.pem");
    let verified = ["--ssl-ca", &ca, "--ssl-verify-server-cert"];
    let out = ok(&mariadb(
        server.port,
        &verified,
        "CREATE DATABASE d; CREATE TABLE d.t (a INT PRIMARY KEY, b MEDIUMTEXT); \
         INSERT INTO d.t VALUES (1, REPEAT('x', 100000)); SELECT a, LENGTH(b) FROM d.t; \
         SELECT @@have_ssl, @@have_openssl, @@ssl_cert = '' , @@ssl_ca",
    ));
    assert_eq!(out, "1\t100000\nYES\tYES\t0", "{out}");
    let plain = ok(&mariadb(
        server.port,
        &["--skip-ssl"],
        "SHOW STATUS LIKE 'Ssl_version'; SELECT COUNT(*) FROM d.t",
    ));
    assert_eq!(plain, "Ssl_version\t\n1");
    assert!(server.stop().success());
}

const PYMYSQL: &str = r#"
import sys, ssl
import pymysql
port = int(sys.argv[1])
ctx = {'check_hostname': False, 'verify_mode': ssl.CERT_NONE}
a = pymysql.connect(host='127.0.0.1', port=port, user='root', ssl=ctx)
cur = a.cursor()
cur.execute("SHOW STATUS LIKE 'Ssl_version'")
version = cur.fetchone()[1]
assert version.startswith('TLSv1.'), version
cur.execute("SELECT %s, REPEAT('y', 500000)", ("it's",))
row = cur.fetchone()
assert row[0] == "it's" and len(row[1]) == 500000, row[0]
b = pymysql.connect(host='127.0.0.1', port=port, user='root')
b.cursor().execute("KILL %d" % a.thread_id())
try:
    cur.execute("SELECT 1")
    raise SystemExit("a killed TLS connection still answers")
except pymysql.err.OperationalError as e:
    # Lost (2013, 2006), or the statement that raced the close got the kill (1927).
    assert e.args[0] in (1927, 2006, 2013), e.args
c = pymysql.connect(host='127.0.0.1', port=port, user='root', ssl=ctx)
c.cursor().execute("SELECT 1")
print(version)
"#;

#[test]
fn pymysql_over_tls_and_kill() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_tls(dir.path());
    let out = python(PYMYSQL, server.port);
    assert!(out.starts_with("TLSv1."), "{out}");
}

#[test]
fn garbage_handshakes_end_only_their_connection() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_tls(dir.path());
    // SSLRequest, then bytes that are no TLS record.
    let (mut s, _) = greeting(server.port);
    ssl_request(&mut s);
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let _ = s.write_all(&junk);
    drain(&mut s);
    // A ClientHello-looking record header with a lying length, then a close.
    let (mut s, _) = greeting(server.port);
    ssl_request(&mut s);
    let _ = s.write_all(&[0x16, 0x03, 0x01, 0xff, 0xff, 0x01, 0x00]);
    let _ = s.shutdown(std::net::Shutdown::Write);
    drain(&mut s);
    // An SSLRequest and nothing more.
    let (mut s, _) = greeting(server.port);
    ssl_request(&mut s);
    drop(s);
    let out = ok(&mariadb(
        server.port,
        &["--ssl", "--skip-ssl-verify-server-cert"],
        "SELECT 1",
    ));
    assert_eq!(out, "1");
    assert_eq!(ok(&mariadb(server.port, &["--skip-ssl"], "SELECT 2")), "2");
}

#[test]
fn without_certificate_tls_is_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let (mut s, caps) = greeting(server.port);
    assert_eq!(caps & CLIENT_SSL, 0, "no certificate: no CLIENT_SSL");
    ssl_request(&mut s);
    let reply = drain(&mut s);
    assert!(reply.len() > 7 && reply[4] == 0xff, "{reply:?}");
    assert_eq!(u16::from_le_bytes([reply[5], reply[6]]), 1043);
    // A client that requires TLS stops with its own error.
    let o = mariadb(
        server.port,
        &["--ssl", "--ssl-verify-server-cert"],
        "SELECT 1",
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("2026") && err.contains("SSL"), "{err}");
    assert_eq!(
        ok(&mariadb(server.port, &[], "SELECT @@have_ssl, @@ssl_cert")),
        "DISABLED"
    );
}

#[test]
fn options_from_my_cnf() {
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("my.cnf");
    std::fs::write(
        &cnf,
        format!(
            "[mysqld]\nssl-cert = {}\nssl-key = {}\nssl-cipher = AES256\n",
            data("tls-cert.pem"),
            data("tls-key.pem")
        ),
    )
    .unwrap();
    let data_dir = dir.path().join("data");
    let cnf = cnf.display().to_string();
    let server = BetulaServer::start_with(&data_dir, &["--config", &cnf]).unwrap();
    let out = ok(&mariadb(
        server.port,
        &["--ssl", "--skip-ssl-verify-server-cert"],
        "SELECT @@have_ssl; SHOW STATUS LIKE 'Ssl_version'",
    ));
    assert!(out.starts_with("YES\nSsl_version\tTLSv1."), "{out}");
}

/// Runs `betula serve` expecting it to refuse to start: its exit status and stderr.
fn refused(dir: &std::path::Path, extra: &[&str]) -> (std::process::ExitStatus, String) {
    let o = Command::new("timeout")
        .arg("30")
        .arg(env!("CARGO_BIN_EXE_betula"))
        .args(["serve", "--port", "0", "--datadir"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    (o.status, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn bad_certificates_stop_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let key = data("tls-key.pem");
    let cert = data("tls-cert.pem");
    let missing = dir.path().join("missing.pem").display().to_string();
    let (st, err) = refused(dir.path(), &["--ssl-cert", &missing, "--ssl-key", &key]);
    assert!(!st.success() && st.code() != Some(124), "{st:?}");
    assert!(
        err.contains("cannot read certificate") && err.contains("missing.pem"),
        "{err}"
    );
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "-----BEGIN CERTIFICATE-----\nnot base64!\n").unwrap();
    let junk = junk.display().to_string();
    let (st, err) = refused(dir.path(), &["--ssl-cert", &junk, "--ssl-key", &key]);
    assert!(!st.success() && st.code() != Some(124), "{st:?}");
    assert!(err.contains("junk.pem") && err.contains("PEM"), "{err}");
    // The certificate given as its own key: no private key in it.
    let (st, err) = refused(dir.path(), &["--ssl-cert", &cert, "--ssl-key", &cert]);
    assert!(!st.success() && st.code() != Some(124), "{st:?}");
    assert!(err.contains("private key"), "{err}");
    let (st, err) = refused(dir.path(), &["--ssl-cert", &cert]);
    assert!(!st.success() && st.code() != Some(124), "{st:?}");
    assert!(err.contains("ssl_key"), "{err}");
}

fn openssl(dir: &std::path::Path, args: &[&str]) {
    let o = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl (apt-get install -y openssl)");
    assert!(
        o.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// With `--ssl-ca`, a client certificate signed by that CA is accepted, one that is not is
/// refused, and a client without certificate still connects.
#[test]
fn client_certificates_are_verified_against_ssl_ca() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    openssl(
        d,
        &[
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
        ]
        .into_iter()
        .chain(["-out", "ca.pem", "-days", "2", "-subj", "/CN=test ca"])
        .collect::<Vec<_>>(),
    );
    openssl(
        d,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "client.key",
            "-out",
        ]
        .into_iter()
        .chain(["client.csr", "-subj", "/CN=client"])
        .collect::<Vec<_>>(),
    );
    std::fs::write(
        d.join("ext"),
        "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
    )
    .unwrap();
    openssl(
        d,
        &[
            "x509",
            "-req",
            "-in",
            "client.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
        ]
        .into_iter()
        .chain([
            "-CAcreateserial",
            "-out",
            "client.pem",
            "-days",
            "2",
            "-extfile",
            "ext",
        ])
        .collect::<Vec<_>>(),
    );
    let ca = d.join("ca.pem").display().to_string();
    let mut args = tls_args();
    args.extend(["--ssl-ca".to_string(), ca.clone()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = BetulaServer::start_with(&d.join("data"), &args).unwrap();
    let sql = "SHOW STATUS LIKE 'Ssl_version'; SELECT @@ssl_ca";
    let tls = ["--ssl", "--skip-ssl-verify-server-cert"];
    let out = ok(&mariadb(server.port, &tls, sql));
    assert!(
        out.starts_with("Ssl_version\tTLSv1.") && out.ends_with(&ca),
        "{out}"
    );
    let (cert, key) = (d.join("client.pem"), d.join("client.key"));
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    let signed = [tls[0], tls[1], "--ssl-cert", &cert, "--ssl-key", &key];
    assert!(ok(&mariadb(server.port, &signed, sql)).starts_with("Ssl_version\tTLSv1."));
    // The server's own self-signed certificate is not signed by that CA.
    let (cert, key) = (data("tls-cert.pem"), data("tls-key.pem"));
    let foreign = [tls[0], tls[1], "--ssl-cert", &cert, "--ssl-key", &key];
    let o = mariadb(server.port, &foreign, sql);
    assert!(
        !o.status.success(),
        "an untrusted client certificate was accepted"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("2026"));
    assert_eq!(ok(&mariadb(server.port, &tls, "SELECT 1")), "1");
}

/// Accounts over TLS (design.md ACC): REQUIRE SSL opens only over TLS, and caching_sha2_password's
/// full authentication reads the cleartext password over TLS, after which the plaintext fast path
/// from the server's cache opens the account too.
#[test]
fn accounts_that_require_or_use_tls() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_tls(dir.path());
    ok(&mariadb(
        server.port,
        &[],
        "CREATE USER rs@'%' IDENTIFIED BY 'p3' REQUIRE SSL; \
         CREATE USER s2@'%' IDENTIFIED WITH caching_sha2_password BY 'pw'",
    ));
    let tls = ["--ssl", "--skip-ssl-verify-server-cert"];
    let plain = mariadb(server.port, &["-urs", "-pp3", "--skip-ssl"], "SELECT 1");
    assert!(!plain.status.success());
    assert!(String::from_utf8_lossy(&plain.stderr).contains("1045"));
    let as_rs = [&tls[..], &["-urs", "-pp3"]].concat();
    assert_eq!(
        ok(&mariadb(server.port, &as_rs, "SELECT CURRENT_USER()")),
        "rs@%"
    );
    let as_s2 = [&tls[..], &["-us2", "-ppw"]].concat();
    assert_eq!(
        ok(&mariadb(server.port, &as_s2, "SELECT CURRENT_USER()")),
        "s2@%"
    );
    let fast = ["-us2", "-ppw", "--skip-ssl"];
    assert_eq!(
        ok(&mariadb(server.port, &fast, "SELECT CURRENT_USER()")),
        "s2@%"
    );
    let wrong = mariadb(
        server.port,
        &[&tls[..], &["-us2", "-pbad"]].concat(),
        "SELECT 1",
    );
    assert!(!wrong.status.success());
}
