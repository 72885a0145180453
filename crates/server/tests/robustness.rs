//! Misbehaving clients: garbage, malformed commands, oversized packets,
//! disconnects mid-result, too many connections, backend panics, SSL
//! requests, and shutdown with live connections. None of them may take down
//! the server or other connections.

mod common;

use std::time::{Duration, Instant};

use betula_server::protocol::ServerConfig;
use common::RawClient;
use rand::{Rng, SeedableRng};

/// Waits (bounded) until `cond` holds; panics with `what` otherwise. Used for
/// eventual server-side cleanup, never to assert on timing.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "gave up waiting for: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn ping_ok(port: u16) {
    let mut c = RawClient::login(port, "root", b"");
    assert_eq!(c.command(&[0x0e])[0], 0x00, "COM_PING answers OK");
}

#[test]
fn native_auth_by_hand_and_wrong_password() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut c = RawClient::login(port, "alice", b"secret");
    assert_eq!(c.command(&[0x0e])[0], 0);
    let (mut bad, greeting) = RawClient::open(port);
    let scramble = common::greeting_scramble(&greeting);
    let auth = betula_server::protocol::auth::scramble_response(b"wrong", &scramble);
    let mut p = common::RAW_CLIENT_CAPS.to_le_bytes().to_vec();
    p.extend_from_slice(&[0, 0, 0, 1, 45]);
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(b"alice\0");
    p.push(20);
    p.extend_from_slice(&auth);
    bad.stream.write_packet(&p).unwrap();
    bad.stream.flush().unwrap();
    assert_eq!(RawClient::err_code(&bad.read().unwrap()), Some(1045));
    server.shutdown().unwrap();
}

#[test]
fn unknown_and_malformed_commands_keep_the_connection() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut c = RawClient::login(port, "root", b"");
    assert_eq!(RawClient::err_code(&c.command(&[0x7f, 1, 2])), Some(1047));
    assert_eq!(
        RawClient::err_code(&c.command(&[0x11])),
        Some(1047),
        "COM_CHANGE_USER is not supported"
    );
    assert_eq!(RawClient::err_code(&c.command(&[])), Some(1835));
    // Execute of an unknown statement, then of a real one with garbage.
    assert_eq!(
        RawClient::err_code(&c.command(&[0x17, 9, 0, 0, 0])),
        Some(1243)
    );
    let mut prep = vec![0x16];
    prep.extend_from_slice(b"select ?, ?");
    let ok = c.command(&prep);
    assert_eq!(ok[0], 0);
    let id = [ok[1], ok[2], ok[3], ok[4]];
    // Two parameter and two column definitions follow (no EOFs:
    // DEPRECATE_EOF negotiated).
    assert_eq!(&ok[5..9], &[2, 0, 2, 0], "2 columns, 2 params");
    for _ in 0..4 {
        c.read().unwrap();
    }
    let mut exec = vec![0x17];
    exec.extend_from_slice(&id);
    exec.extend_from_slice(&[0, 1, 0, 0, 0, 0b00, 1, 8, 0, 253]);
    assert_eq!(
        RawClient::err_code(&c.command(&exec)),
        Some(1835),
        "truncated execute"
    );
    let mut exec = vec![0x17];
    exec.extend_from_slice(&id);
    exec.extend_from_slice(&[0, 1, 0, 0, 0, 0b00, 1, 77, 0, 77, 0, 1, 2, 3]);
    assert_eq!(
        RawClient::err_code(&c.command(&exec)),
        Some(1835),
        "unknown parameter type"
    );
    // Statement still usable: flag 1 with LONGLONG + STRING.
    let mut exec = vec![0x17];
    exec.extend_from_slice(&id);
    exec.extend_from_slice(&[0, 1, 0, 0, 0, 0b00, 1, 8, 0, 253, 0]);
    exec.extend_from_slice(&51i64.to_le_bytes());
    exec.extend_from_slice(&[1, b'x']);
    assert_eq!(c.command(&exec), [2], "a two-column result set");
    // Drain: 2 column defs, 1 row, OK-as-EOF.
    for _ in 0..3 {
        c.read().unwrap();
    }
    assert_eq!(c.read().unwrap()[0], 0xfe);
    assert_eq!(c.command(&[0x0e])[0], 0);
    server.shutdown().unwrap();
}

#[test]
fn random_commands_never_break_the_server() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xbe7a);
    let mut c = RawClient::login(port, "root", b"");
    // Commands that always answer exactly one packet for random payloads.
    let commands = [
        0x02u8, 0x03, 0x09, 0x0e, 0x11, 0x16, 0x17, 0x1a, 0x1b, 0x1c, 0x1f, 0x20, 0x99,
    ];
    for _ in 0..2000 {
        let mut p = vec![commands[rng.gen_range(0..commands.len())]];
        let len = rng.gen_range(0..24);
        p.extend((0..len).map(|_| rng.gen::<u8>()));
        let reply = c.command(&p);
        if p[0] == 0x16 && reply[0] == 0 {
            panic!("random text was accepted as a statement: {p:?}");
        }
        // COM_STMT_CLOSE / SEND_LONG_DATA answer nothing; send some too.
        let mut silent = vec![if rng.gen() { 0x19 } else { 0x18 }];
        silent.extend((0..rng.gen_range(0..12)).map(|_| rng.gen::<u8>()));
        c.send(&silent);
    }
    assert_eq!(c.command(&[0x0e])[0], 0);
    ping_ok(port);
    server.shutdown().unwrap();
}

#[test]
fn garbage_instead_of_handshake() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(42);
    for i in 0..50 {
        let (mut c, _) = RawClient::open(port);
        let len = rng.gen_range(0..200);
        let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if i % 2 == 0 {
            c.stream.write_packet(&junk).unwrap();
        } else {
            use std::io::Write;
            let _ = c.stream.writer_mut().write_all(&junk);
        }
        let _ = c.stream.flush();
        drop(c);
    }
    ping_ok(port);
    eventually("garbage connections to be cleaned up", || {
        server.connections() == 0
    });
    server.shutdown().unwrap();
}

#[test]
fn ssl_request_is_refused_cleanly() {
    let (server, _) = common::start();
    let (mut c, _) = RawClient::open(server.local_addr().port());
    let caps = common::RAW_CLIENT_CAPS | betula_server::protocol::capabilities::CLIENT_SSL;
    let mut p = caps.to_le_bytes().to_vec();
    p.extend_from_slice(&[0, 0, 0, 1, 45]);
    p.extend_from_slice(&[0; 23]);
    c.stream.write_packet(&p).unwrap();
    c.stream.flush().unwrap();
    let reply = c.read().unwrap();
    assert_eq!(RawClient::err_code(&reply), Some(1043));
    assert!(String::from_utf8_lossy(&reply).contains("SSL"));
    assert!(c.read().is_err(), "connection closed after the refusal");
    server.shutdown().unwrap();
}

#[test]
fn oversized_packet_gets_an_error_and_closes() {
    let (server, _) = common::start_with(ServerConfig {
        max_packet: 1024,
        ..Default::default()
    });
    let port = server.local_addr().port();
    let mut c = RawClient::login(port, "root", b"");
    let mut q = vec![0x03];
    q.extend_from_slice(&vec![b'x'; 4096]);
    let reply = c.command(&q);
    assert_eq!(RawClient::err_code(&reply), Some(1153));
    ping_ok(port);
    server.shutdown().unwrap();
}

#[test]
fn client_disconnecting_mid_result() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    for _ in 0..3 {
        let mut c = RawClient::login(port, "root", b"");
        c.send(b"\x03select seq 100000000");
        for _ in 0..100 {
            c.read().unwrap();
        }
        drop(c);
    }
    eventually("abandoned connections to end", || server.connections() == 0);
    ping_ok(port);
    server.shutdown().unwrap();
}

#[test]
fn backend_panic_ends_only_that_connection() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut other = RawClient::login(port, "root", b"");
    let mut c = RawClient::login(port, "root", b"");
    c.send(b"\x03panic");
    assert!(c.read().is_err(), "the panicking connection is closed");
    assert_eq!(other.command(&[0x0e])[0], 0);
    ping_ok(port);
    server.shutdown().unwrap();
}

#[test]
fn too_many_connections() {
    let (server, _) = common::start_with(ServerConfig {
        max_connections: 2,
        ..Default::default()
    });
    let port = server.local_addr().port();
    let a = RawClient::login(port, "root", b"");
    let _b = RawClient::login(port, "root", b"");
    let (_c, first) = RawClient::open(port);
    assert_eq!(RawClient::err_code(&first), Some(1040));
    assert!(String::from_utf8_lossy(&first).contains("Too many connections"));
    drop(a);
    eventually("a slot to free up", || server.connections() < 2);
    ping_ok(port);
    server.shutdown().unwrap();
}

#[test]
fn shutdown_closes_live_connections() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut idle = RawClient::login(port, "root", b"");
    let mut busy = RawClient::login(port, "root", b"");
    busy.send(b"\x03select seq 100000000");
    busy.read().unwrap();
    server.shutdown().unwrap();
    assert!(idle.read().is_err(), "idle connection closed by shutdown");
    // The busy one may still have buffered rows; it must end eventually.
    let mut ended = false;
    for _ in 0..10_000_000 {
        if busy.read().is_err() {
            ended = true;
            break;
        }
    }
    assert!(ended);
}

#[test]
fn quit_closes_and_statistics_answer() {
    let (server, _) = common::start();
    let port = server.local_addr().port();
    let mut c = RawClient::login(port, "root", b"");
    let stats = c.command(&[0x09]);
    let stats = String::from_utf8_lossy(&stats).into_owned();
    assert!(
        stats.starts_with("Uptime: ") && stats.contains("Threads: 1 "),
        "{stats}"
    );
    c.send(&[0x01]);
    assert!(c.read().is_err());
    eventually("quit connection to end", || server.connections() == 0);
    server.shutdown().unwrap();
}
