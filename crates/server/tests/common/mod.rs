//! Test support shared by the integration tests: a small in-memory demo
//! backend (NOT part of the product) and helpers to start the server and to
//! locate client programs.
//!
//! The demo backend keeps one table `test.kv (k BIGINT PRIMARY KEY,
//! v VARCHAR)` and understands a handful of fixed statements (see
//! `DemoSession::run_one`). Users: `root` (no password) and `alice`
//! (password `secret`). Every backend call is logged in `DemoBackend::log`
//! so tests can check which protocol path a client took.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};

use betula_server::protocol::column::flags;
use betula_server::protocol::*;

pub struct DemoBackend {
    pub state: Arc<DemoState>,
}

/// The data shared by all sessions of one demo server.
#[derive(Default)]
pub struct DemoState {
    pub kv: Mutex<BTreeMap<i64, Vec<u8>>>,
    pub log: Mutex<Vec<String>>,
}

impl DemoState {
    pub fn log(&self, s: impl Into<String>) {
        self.log.lock().unwrap().push(s.into());
    }

    pub fn logged(&self, prefix: &str) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.starts_with(prefix))
            .cloned()
            .collect()
    }
}

impl Backend for DemoBackend {
    fn user_auth(&self, user: &str, _host: &str) -> Option<UserAuth> {
        match user {
            "root" => Some(UserAuth::native("root", b"")),
            "alice" => Some(UserAuth::native("alice", b"secret")),
            _ => None,
        }
    }

    fn open_session(&self, ctx: SessionContext) -> Result<Box<dyn Session>, SqlError> {
        self.state.log(format!(
            "open {} db={:?} local_infile={}",
            ctx.user, ctx.database, ctx.local_infile
        ));
        if let Some(db) = &ctx.database {
            check_db(db)?;
        }
        Ok(Box::new(DemoSession {
            backend: self.state.clone(),
            db: ctx.database,
            in_trans: false,
            stmts: BTreeMap::new(),
        }))
    }
}

fn check_db(db: &str) -> Result<(), SqlError> {
    if db == "test" {
        Ok(())
    } else {
        Err(SqlError::new(
            1049,
            b"42000",
            format!("Unknown database '{db}'"),
        ))
    }
}

pub struct DemoSession {
    backend: Arc<DemoState>,
    db: Option<String>,
    in_trans: bool,
    stmts: BTreeMap<StatementId, String>,
}

fn syntax(sql: &str) -> SqlError {
    SqlError::new(
        1064,
        b"42000",
        format!("You have an error in your SQL syntax near '{sql}'"),
    )
}

/// Splits on `;` outside single quotes.
fn split_statements(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in sql.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                cur.push(c);
            }
            ';' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn kv_columns() -> Vec<ColumnDef> {
    vec![
        ColumnDef::new("k", ColumnType::LONGLONG)
            .with_table("test", "kv")
            .with_flags(flags::NOT_NULL | flags::PRI_KEY),
        ColumnDef::new("v", ColumnType::VAR_STRING).with_table("test", "kv"),
    ]
}

fn one_column(name: &str) -> Vec<ColumnDef> {
    vec![ColumnDef::new(name, ColumnType::VAR_STRING)]
}

pub fn types_columns() -> Vec<ColumnDef> {
    use ColumnType as T;
    vec![
        ColumnDef::new("i", T::LONGLONG),
        ColumnDef::new("u", T::LONGLONG).with_flags(flags::UNSIGNED),
        ColumnDef::new("tiny", T::TINY),
        ColumnDef::new("short", T::SHORT),
        ColumnDef::new("long", T::LONG),
        ColumnDef::new("d", T::DOUBLE),
        ColumnDef::new("f", T::FLOAT),
        ColumnDef::new("dec", T::NEWDECIMAL),
        ColumnDef::new("day", T::DATE),
        ColumnDef::new("ts", T::DATETIME),
        ColumnDef::new("t", T::TIME),
        ColumnDef::new("s", T::VAR_STRING),
        ColumnDef::new("b", T::BLOB),
        ColumnDef::new("n", T::VAR_STRING),
    ]
}

pub fn types_row() -> Vec<Value> {
    let day = Date {
        year: 2024,
        month: 2,
        day: 29,
    };
    vec![
        Value::Int(-5),
        Value::UInt(u64::MAX),
        Value::Int(-7),
        Value::Int(300),
        Value::Int(-70000),
        Value::Double(2.5),
        Value::Float(1.5),
        Value::Decimal("12.340".into()),
        Value::Date(day),
        Value::DateTime(DateTime {
            date: day,
            hour: 13,
            minute: 14,
            second: 15,
            micros: 123,
        }),
        Value::Time(Time {
            negative: true,
            days: 0,
            hours: 1,
            minutes: 2,
            seconds: 3,
            micros: 0,
        }),
        Value::from("héllo"),
        Value::Bytes(vec![0, 1, 2, 255]),
        Value::Null,
    ]
}

fn lower(s: &str) -> String {
    s.trim().trim_end_matches(';').trim().to_ascii_lowercase()
}

fn parse_int(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

impl DemoSession {
    fn status(&self) -> StatusFlags {
        if self.in_trans {
            StatusFlags::IN_TRANS
        } else {
            StatusFlags::AUTOCOMMIT
        }
    }

    fn done(&self) -> Completion {
        Completion {
            status: self.status(),
            ..Default::default()
        }
    }

    fn rows(
        &self,
        out: &mut dyn ResultSink,
        cols: &[ColumnDef],
        rows: impl IntoIterator<Item = Vec<Value>>,
    ) -> Result<(), SqlError> {
        out.begin_rows(cols)?;
        for r in rows {
            out.row(&r)?;
        }
        out.end_rows(&self.done())
    }

    /// Runs one statement; `params` are the bound values of `?` (prepared).
    fn run_one(
        &mut self,
        sql: &str,
        params: &[Value],
        out: &mut dyn ResultSink,
    ) -> Result<(), SqlError> {
        let l = lower(sql);
        let kv = &self.backend.kv;
        if l == "select @@version_comment limit 1" {
            return self.rows(
                out,
                &one_column("@@version_comment"),
                [vec![Value::from("Betula demo")]],
            );
        }
        if l == "select database()" {
            return self.rows(
                out,
                &one_column("DATABASE()"),
                [vec![self.db.clone().into()]],
            );
        }
        if l == "show databases" {
            return self.rows(out, &one_column("Database"), [vec![Value::from("test")]]);
        }
        if l.starts_with("show tables") {
            return self.rows(
                out,
                &one_column("Tables_in_test"),
                [vec![Value::from("kv")]],
            );
        }
        if l == "panic" {
            panic!("demo backend asked to panic");
        }
        if l.starts_with("set ") {
            // SET NAMES / SET autocommit / ...: accepted and ignored.
            return out.ok(&self.done());
        }
        if l == "begin" || l == "start transaction" {
            self.in_trans = true;
            return out.ok(&self.done());
        }
        if l == "commit" || l == "rollback" {
            self.in_trans = false;
            return out.ok(&self.done());
        }
        if l == "select types" {
            return self.rows(out, &types_columns(), [types_row()]);
        }
        if let Some(n) = l.strip_prefix("select seq ").and_then(parse_int) {
            let cols = [
                ColumnDef::new("i", ColumnType::LONGLONG),
                ColumnDef::new("pad", ColumnType::VAR_STRING),
            ];
            out.begin_rows(&cols)?;
            let pad = Value::from("x".repeat(100));
            for i in 0..n {
                out.row(&[Value::Int(i), pad.clone()])?;
            }
            return out.end_rows(&self.done());
        }
        if l == "select k, v from kv" {
            let rows: Vec<Vec<Value>> = kv
                .lock()
                .unwrap()
                .iter()
                .map(|(k, v)| vec![Value::Int(*k), Value::Bytes(v.clone())])
                .collect();
            return self.rows(out, &kv_columns(), rows);
        }
        if l == "delete from kv" {
            let n = {
                let mut m = kv.lock().unwrap();
                let n = m.len();
                m.clear();
                n
            };
            return out.ok(&Completion {
                affected_rows: n as u64,
                ..self.done()
            });
        }
        if l == "insert into kv values (?, ?)" {
            let k = params
                .first()
                .and_then(Value::as_i64)
                .ok_or_else(|| syntax(sql))?;
            let v = params.get(1).and_then(Value::to_text).unwrap_or_default();
            kv.lock().unwrap().insert(k, v);
            return out.ok(&Completion {
                affected_rows: 1,
                last_insert_id: k as u64,
                ..self.done()
            });
        }
        if let Some(rest) = l.strip_prefix("insert into kv values (") {
            // insert into kv values (N, 'text')
            let original = sql.trim().trim_end_matches(';');
            let body = &original[original.len() - rest.len()..];
            let body = body.trim().strip_suffix(')').ok_or_else(|| syntax(sql))?;
            let (k, v) = body.split_once(',').ok_or_else(|| syntax(sql))?;
            let k = parse_int(k).ok_or_else(|| syntax(sql))?;
            let v = v.trim().trim_matches('\'').as_bytes().to_vec();
            kv.lock().unwrap().insert(k, v);
            return out.ok(&Completion {
                affected_rows: 1,
                last_insert_id: k as u64,
                ..self.done()
            });
        }
        if l == "select v from kv where k = ?" {
            let k = params.first().and_then(Value::as_i64);
            let v = k.and_then(|k| kv.lock().unwrap().get(&k).cloned());
            return self.rows(out, &one_column("v"), v.map(|v| vec![Value::Bytes(v)]));
        }
        if let Some(k) = l
            .strip_prefix("select v from kv where k = ")
            .and_then(parse_int)
        {
            let v = kv.lock().unwrap().get(&k).cloned();
            return self.rows(out, &one_column("v"), v.map(|v| vec![Value::Bytes(v)]));
        }
        if is_echo(&l) {
            // Echo each parameter as its Rust debug form, to check decoding.
            let cols: Vec<ColumnDef> = params
                .iter()
                .map(|_| ColumnDef::new("?", ColumnType::VAR_STRING))
                .collect();
            let row: Vec<Value> = params
                .iter()
                .map(|p| Value::from(format!("{p:?}")))
                .collect();
            return self.rows(out, &cols, [row]);
        }
        Err(syntax(sql))
    }
}

fn is_echo(l: &str) -> bool {
    l.strip_prefix("select ")
        .is_some_and(|r| r.split(',').all(|p| p.trim() == "?"))
}

fn placeholders(sql: &str) -> u16 {
    sql.matches('?').count() as u16
}

impl Session for DemoSession {
    fn query(&mut self, sql: &str, out: &mut dyn ResultSink) -> Result<(), SqlError> {
        self.backend.log(format!("query {sql}"));
        let stmts = split_statements(sql);
        if stmts.len() > 1 && !out.multi_statements() {
            return Err(syntax(sql));
        }
        if stmts.is_empty() {
            return Err(SqlError::new(1065, b"42000", "Query was empty"));
        }
        for s in stmts {
            self.run_one(&s, &[], out)?;
        }
        Ok(())
    }

    fn prepare(&mut self, stmt: StatementId, sql: &str) -> Result<PreparedInfo, SqlError> {
        self.backend.log(format!("prepare {stmt} {sql}"));
        let l = lower(sql);
        let n = placeholders(sql);
        let columns = match l.as_str() {
            "select types" => types_columns(),
            "select k, v from kv" => kv_columns(),
            "select v from kv where k = ?" => one_column("v"),
            "insert into kv values (?, ?)" | "delete from kv" => vec![],
            "select seq 1000" => vec![
                ColumnDef::new("i", ColumnType::LONGLONG),
                ColumnDef::new("pad", ColumnType::VAR_STRING),
            ],
            _ if is_echo(&l) => (0..n)
                .map(|_| ColumnDef::new("?", ColumnType::VAR_STRING))
                .collect(),
            _ => return Err(syntax(sql)),
        };
        self.stmts.insert(stmt, sql.to_string());
        Ok(PreparedInfo {
            param_count: n,
            columns,
        })
    }

    fn execute(
        &mut self,
        stmt: StatementId,
        params: &[Value],
        out: &mut dyn ResultSink,
    ) -> Result<(), SqlError> {
        self.backend.log(format!("execute {stmt} {params:?}"));
        let sql = self
            .stmts
            .get(&stmt)
            .cloned()
            .ok_or_else(|| SqlError::unknown("no such statement"))?;
        self.run_one(&sql, params, out)
    }

    fn close_statement(&mut self, stmt: StatementId) {
        self.backend.log(format!("close {stmt}"));
        self.stmts.remove(&stmt);
    }

    fn init_db(&mut self, db: &str) -> Result<(), SqlError> {
        self.backend.log(format!("init_db {db}"));
        check_db(db)?;
        self.db = Some(db.to_string());
        Ok(())
    }

    fn field_list(&mut self, table: &str, _wildcard: &str) -> Result<Vec<ColumnDef>, SqlError> {
        self.backend.log(format!("field_list {table}"));
        if table == "kv" {
            Ok(kv_columns())
        } else {
            Err(SqlError::new(
                1146,
                b"42S02",
                format!("Table 'test.{table}' doesn't exist"),
            ))
        }
    }

    fn status_flags(&self) -> StatusFlags {
        self.status()
    }

    fn reset(&mut self) -> Result<(), SqlError> {
        self.backend.log("reset");
        self.in_trans = false;
        Ok(())
    }
}

/// Starts a server on an ephemeral loopback port with a fresh demo backend.
pub fn start() -> (ServerHandle, Arc<DemoState>) {
    start_with(ServerConfig::default())
}

pub fn start_with(config: ServerConfig) -> (ServerHandle, Arc<DemoState>) {
    let state = Arc::new(DemoState::default());
    let backend = Arc::new(DemoBackend {
        state: state.clone(),
    });
    let server = Server::bind("127.0.0.1:0", backend, config).expect("bind");
    (server.spawn().expect("spawn"), state)
}

/// Finds a client program on PATH or fails the test with what to install.
pub fn require_program(names: &[&str], install_hint: &str) -> String {
    for n in names {
        if Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {n}"))
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
        {
            return n.to_string();
        }
    }
    panic!("none of {names:?} found on PATH: this test needs a real client; install it with: {install_hint}");
}

/// A minimal hand-driven client for misbehaviour tests: it speaks just
/// enough of the protocol (native auth, raw commands) to send anything.
pub struct RawClient {
    pub stream:
        betula_server::protocol::packet::PacketStream<std::net::TcpStream, std::net::TcpStream>,
}

pub const RAW_CLIENT_CAPS: u32 = {
    use betula_server::protocol::capabilities::*;
    CLIENT_PROTOCOL_41
        | CLIENT_SECURE_CONNECTION
        | CLIENT_PLUGIN_AUTH
        | CLIENT_MULTI_RESULTS
        | CLIENT_DEPRECATE_EOF
};

impl RawClient {
    /// Opens a socket and reads the greeting; returns the client and the
    /// greeting payload.
    pub fn open(port: u16) -> (RawClient, Vec<u8>) {
        let sock = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        sock.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        sock.set_nodelay(true).unwrap();
        let mut stream = betula_server::protocol::packet::PacketStream::new(
            sock.try_clone().unwrap(),
            sock,
            1 << 30,
        );
        let greeting = stream.read_packet().expect("greeting");
        (RawClient { stream }, greeting)
    }

    /// Connects and logs in as `user` with `password`.
    pub fn login(port: u16, user: &str, password: &[u8]) -> RawClient {
        let (mut c, greeting) = RawClient::open(port);
        assert_eq!(greeting[0], 10, "expected a v10 greeting, got {greeting:?}");
        let scramble = greeting_scramble(&greeting);
        let auth = if password.is_empty() {
            vec![]
        } else {
            betula_server::protocol::auth::scramble_response(password, &scramble).to_vec()
        };
        let mut p = Vec::new();
        p.extend_from_slice(&RAW_CLIENT_CAPS.to_le_bytes());
        p.extend_from_slice(&(1u32 << 24).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(user.as_bytes());
        p.push(0);
        p.push(auth.len() as u8);
        p.extend_from_slice(&auth);
        p.extend_from_slice(b"mysql_native_password\0");
        c.stream.write_packet(&p).unwrap();
        c.stream.flush().unwrap();
        let ok = c.stream.read_packet().expect("auth reply");
        assert_eq!(ok[0], 0, "login failed: {}", String::from_utf8_lossy(&ok));
        c
    }

    /// Sends one command packet (sequence 0).
    pub fn send(&mut self, payload: &[u8]) {
        self.stream.reset_seq();
        self.stream.write_packet(payload).unwrap();
        self.stream.flush().unwrap();
    }

    pub fn read(&mut self) -> Result<Vec<u8>, ProtocolError> {
        self.stream.read_packet()
    }

    /// Sends a command and returns its first reply packet.
    pub fn command(&mut self, payload: &[u8]) -> Vec<u8> {
        self.send(payload);
        self.read().expect("reply")
    }

    /// Error code of an ERR packet.
    pub fn err_code(p: &[u8]) -> Option<u16> {
        (p.first() == Some(&0xff) && p.len() >= 3).then(|| u16::from_le_bytes([p[1], p[2]]))
    }
}

/// Extracts the 20-byte scramble from a v10 greeting.
pub fn greeting_scramble(g: &[u8]) -> Vec<u8> {
    let ver_end = g[1..].iter().position(|&b| b == 0).unwrap() + 1;
    let p1 = ver_end + 1 + 4;
    let mut s = g[p1..p1 + 8].to_vec();
    let p2 = p1 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
    s.extend_from_slice(&g[p2..p2 + 12]);
    s
}
