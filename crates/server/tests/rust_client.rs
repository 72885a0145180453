//! Drives the protocol server with the Rust `mysql` crate (a dev-dependency):
//! server-side prepared statements executed repeatedly with different
//! parameters, binary-protocol rows of every value type, DEPRECATE_EOF
//! result terminators (this client negotiates it), multi-results, streaming
//! of a large result, COM_INIT_DB / COM_PING / COM_RESET_CONNECTION.

mod common;

use mysql::prelude::*;
use mysql::{Conn, OptsBuilder, Row, Value as MyValue};

fn connect(port: u16, user: &str, pass: Option<&str>, db: Option<&str>) -> mysql::Result<Conn> {
    let opts = OptsBuilder::new()
        .ip_or_hostname(Some("127.0.0.1"))
        .tcp_port(port)
        .user(Some(user))
        .pass(pass)
        .db_name(db)
        .prefer_socket(false)
        .max_allowed_packet(Some(16 << 20));
    Conn::new(opts)
}

#[test]
fn prepared_statement_reexecuted_with_different_params() {
    let (server, state) = common::start();
    let mut conn = connect(
        server.local_addr().port(),
        "alice",
        Some("secret"),
        Some("test"),
    )
    .unwrap();
    let stmt = conn.prep("select ?, ?, ?").unwrap();
    let r1: Vec<(String, String, String)> = conn.exec(&stmt, (51i64, "first", 2.5f64)).unwrap();
    let r2: Vec<(String, String, String)> = conn.exec(&stmt, (13056i64, "", -1i64)).unwrap();
    let r3: Vec<(String, String, String)> = conn
        .exec(&stmt, (MyValue::NULL, "x".repeat(300), u64::MAX))
        .unwrap();
    assert_eq!(
        r1,
        vec![(
            "Int(51)".into(),
            "Bytes([102, 105, 114, 115, 116])".into(),
            "Double(2.5)".into()
        )]
    );
    assert_eq!(
        r2,
        vec![("Int(13056)".into(), "Bytes([])".into(), "Int(-1)".into())]
    );
    assert_eq!(r3[0].0, "Null");
    assert_eq!(r3[0].2, "UInt(18446744073709551615)");
    assert_eq!(
        state.logged("prepare").len(),
        1,
        "prepared once, executed three times"
    );
    assert_eq!(state.logged("execute").len(), 3);

    // Same statement text against the kv table.
    let ins = conn.prep("insert into kv values (?, ?)").unwrap();
    conn.exec_drop(&ins, (1, "one")).unwrap();
    assert_eq!(conn.affected_rows(), 1);
    assert_eq!(conn.last_insert_id(), 1);
    conn.exec_drop(&ins, (2, "two")).unwrap();
    let sel = conn.prep("select v from kv where k = ?").unwrap();
    let a: Option<String> = conn.exec_first(&sel, (2,)).unwrap();
    let b: Option<String> = conn.exec_first(&sel, (1,)).unwrap();
    let c: Option<String> = conn.exec_first(&sel, (3,)).unwrap();
    assert_eq!(
        (a.as_deref(), b.as_deref(), c),
        (Some("two"), Some("one"), None)
    );
    conn.close(stmt).unwrap();
    conn.query_drop("select database()").unwrap();
    assert_eq!(state.logged("close").len(), 1);
    server.shutdown().unwrap();
}

#[test]
fn binary_rows_of_every_type() {
    let (server, _) = common::start();
    let mut conn = connect(server.local_addr().port(), "root", None, None).unwrap();
    let row: Row = conn.exec_first("select types", ()).unwrap().unwrap();
    let v: Vec<MyValue> = row.unwrap();
    assert_eq!(
        v,
        vec![
            MyValue::Int(-5),
            MyValue::UInt(u64::MAX),
            MyValue::Int(-7),
            MyValue::Int(300),
            MyValue::Int(-70000),
            MyValue::Double(2.5),
            MyValue::Float(1.5),
            MyValue::Bytes(b"12.340".to_vec()),
            MyValue::Date(2024, 2, 29, 0, 0, 0, 0),
            MyValue::Date(2024, 2, 29, 13, 14, 15, 123),
            MyValue::Time(true, 0, 1, 2, 3, 0),
            MyValue::Bytes("héllo".as_bytes().to_vec()),
            MyValue::Bytes(vec![0, 1, 2, 255]),
            MyValue::NULL,
        ]
    );
    // The same row through the text protocol.
    let row: Row = conn.query_first("select types").unwrap().unwrap();
    let v: Vec<MyValue> = row.unwrap();
    assert_eq!(v[0], MyValue::Bytes(b"-5".to_vec()));
    assert_eq!(v[9], MyValue::Bytes(b"2024-02-29 13:14:15.000123".to_vec()));
    assert_eq!(v[13], MyValue::NULL);
    server.shutdown().unwrap();
}

#[test]
fn multi_results_streaming_and_commands() {
    let (server, state) = common::start();
    let mut conn = connect(server.local_addr().port(), "root", None, Some("test")).unwrap();
    let mut result = conn
        .query_iter("select seq 2; insert into kv values (9, 'nine'); select seq 3")
        .unwrap();
    let mut counts = Vec::new();
    while let Some(set) = result.iter() {
        counts.push(set.count());
    }
    drop(result);
    assert_eq!(counts, vec![2, 0, 3]);
    assert_eq!(
        state.kv.lock().unwrap().get(&9).map(Vec::as_slice),
        Some(&b"nine"[..])
    );

    // A large result streams through both protocols.
    let n = conn.query_iter("select seq 200000").unwrap().count();
    assert_eq!(n, 200000);
    let rows: Vec<(i64, String)> = conn.exec("select seq 1000", ()).unwrap();
    assert_eq!(rows.len(), 1000);
    assert_eq!(rows[999].0, 999);

    conn.select_db("test").unwrap();
    assert!(conn.select_db("nosuchdb").is_err());
    assert!(conn.ping().is_ok());
    conn.reset().unwrap();
    assert_eq!(state.logged("reset").len(), 1);
    let err = conn.query_drop("bogus").unwrap_err();
    match err {
        mysql::Error::MySqlError(e) => {
            assert_eq!(e.code, 1064);
            assert_eq!(e.state, "42000");
        }
        other => panic!("unexpected error {other:?}"),
    }
    let db: Option<String> = conn.query_first("select database()").unwrap();
    assert_eq!(db.as_deref(), Some("test"));
    server.shutdown().unwrap();
}

#[test]
fn wrong_password_is_refused() {
    let (server, _) = common::start();
    let err = connect(server.local_addr().port(), "alice", Some("nope"), None).unwrap_err();
    match err {
        mysql::Error::MySqlError(e) => assert_eq!(e.code, 1045),
        other => panic!("unexpected error {other:?}"),
    }
    server.shutdown().unwrap();
}
