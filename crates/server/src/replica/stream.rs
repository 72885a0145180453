//! The replica thread: connects to the primary as a replica (the `mysql` crate's client), asks for
//! the binlog from the recorded GTID position (or the configured file and position when none is
//! recorded), and hands each event to the applier; reconnects after a network error every
//! MASTER_CONNECT_RETRY seconds.
//!
//! Invariants: RPA4 (a primary not logging ROW is refused before any event is read); RPA5 (the
//! stop flag is checked after every event, and the primary sends a heartbeat at least every
//! heartbeat period, so a stop waits at most about that long); an applier error stops the thread
//! (SQL error), a network error or a panic in the event decoder reconnects or stops it with the
//! error shown (I/O error).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use betula_sql::Engine;
use mysql::prelude::Queryable;
use mysql::{BinlogRequest, Conn, OptsBuilder};
use mysql_common::binlog::consts::StatusVarKey;
use mysql_common::binlog::events::{EventData, StatusVarVal};

use super::apply::Applier;
use super::position;
use super::settings::Settings;
use super::{IoState, Shared};

/// MariaDB's GTID event type.
const MARIADB_GTID_EVENT: u8 = 0xa2;
/// MariaDB's replica capability that makes the primary send GTID events.
const MARIA_SLAVE_CAPABILITY_GTID: u32 = 4;

/// How a connection ended.
enum End {
    /// STOP SLAVE or shutdown.
    Stopped,
    /// The applier failed: the replica stops (SQL error).
    Apply(betula_sql::DbError),
    /// The primary refused us for good (I/O error, no retry): MariaDB's code and message.
    Fatal(u16, String),
    /// The connection failed: retry.
    Retry(String),
}

/// The thread's body: runs until stopped or a fatal error.
pub fn run(engine: Arc<Engine>, shared: Arc<Shared>, settings: Settings) {
    let mut applier = match Applier::new(&engine) {
        Ok(a) => a,
        Err(e) => {
            shared.sql_failed(&e);
            shared.set_io(IoState::No);
            return;
        }
    };
    shared.set_sql_running(true);
    let mut first = true;
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        shared.set_io(IoState::Connecting);
        let end = catch_unwind(AssertUnwindSafe(|| {
            session(&shared, &settings, &mut applier, first)
        }))
        .unwrap_or_else(|_| {
            End::Fatal(
                1236,
                "the primary sent an event that could not be read".into(),
            )
        });
        applier.abandon();
        first = false;
        match end {
            End::Stopped => break,
            End::Apply(e) => {
                shared.sql_failed(&e);
                break;
            }
            End::Fatal(code, m) => {
                shared.io_failed(code, &m);
                break;
            }
            End::Retry(m) => {
                shared.io_failed(2003, &m);
                let until = Instant::now() + Duration::from_secs(settings.connect_retry);
                while Instant::now() < until && !shared.stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }
    shared.set_io(IoState::No);
    shared.set_sql_running(false);
}

fn query_one(conn: &mut Conn, sql: &str) -> Result<Option<String>, mysql::Error> {
    conn.query_first::<Option<String>, _>(sql)
        .map(Option::flatten)
}

/// One connection to the primary, from the handshake to its end.
fn session(shared: &Shared, s: &Settings, applier: &mut Applier, first: bool) -> End {
    let period = Duration::from_secs_f64(s.heartbeat_period);
    let opts = OptsBuilder::new()
        .ip_or_hostname(Some(s.host.clone()))
        .tcp_port(s.port)
        .user(Some(s.user.clone()))
        .pass(Some(s.password.clone()))
        .prefer_socket(false)
        .tcp_connect_timeout(Some(Duration::from_secs(10)))
        .read_timeout(Some(period * 2 + Duration::from_secs(2)));
    let mut conn = match Conn::new(opts) {
        Ok(c) => c,
        Err(e) => {
            return End::Retry(format!(
                "error connecting to master '{}@{}:{}': {e}",
                s.user, s.host, s.port
            ))
        }
    };
    let format = match query_one(&mut conn, "SELECT @@GLOBAL.binlog_format") {
        Ok(f) => f.unwrap_or_default(),
        Err(e) => return End::Retry(e.to_string()),
    };
    if !format.eq_ignore_ascii_case("ROW") {
        return End::Fatal(
            1236,
            format!("the primary logs binlog_format={format}; a Betula replica needs ROW"),
        );
    }
    let pos = match applier.position() {
        Ok(p) => p,
        Err(e) => return End::Apply(e),
    };
    // With no recorded GTID, the first connection may start at a file and position.
    let by_file = pos.is_empty() && (first || !shared.any_applied()) && !s.log_file.is_empty();
    let mut setup = vec![
        format!("SET @master_heartbeat_period = {}", period.as_nanos()),
        format!("SET @mariadb_slave_capability = {MARIA_SLAVE_CAPABILITY_GTID}"),
        "SET @slave_gtid_strict_mode = 0".into(),
        "SET @slave_gtid_ignore_duplicates = 0".into(),
    ];
    if !by_file {
        setup.push(format!(
            "SET @slave_connect_state = '{}'",
            position::list_text(&pos)
        ));
    }
    for q in &setup {
        if let Err(e) = conn.query_drop(q) {
            return End::Retry(e.to_string());
        }
    }
    match query_one(&mut conn, "SELECT @@GLOBAL.server_id") {
        Ok(Some(id)) if id == shared.server_id().to_string() => {
            return End::Fatal(
                1593,
                "Fatal error: The slave I/O thread stops because master and slave have equal \
                 MariaDB server ids; these ids must be different for replication to work"
                    .into(),
            )
        }
        Ok(_) => {}
        Err(e) => return End::Retry(e.to_string()),
    }
    let server_id = shared.server_id();
    let mut req = BinlogRequest::new(server_id);
    if by_file {
        req = req
            .with_filename(s.log_file.as_bytes().to_vec())
            .with_pos(s.log_pos);
    } else {
        req = req.with_pos(4u64);
    }
    let stream = match conn.get_binlog_stream(req) {
        Ok(st) => st,
        Err(e) => return End::Retry(e.to_string()),
    };
    shared.set_io(IoState::Yes);
    super::log(&format!(
        "connected to {}:{}, from {}",
        s.host,
        s.port,
        if by_file {
            format!("{} at {}", s.log_file, s.log_pos)
        } else {
            format!("GTID position '{}'", position::list_text(&pos))
        }
    ));
    events(shared, applier, stream)
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Reads and applies events until the stream ends, fails or the replica is stopped.
fn events(shared: &Shared, applier: &mut Applier, mut stream: mysql::BinlogStream) -> End {
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return End::Stopped;
        }
        let ev = match stream.next() {
            None => return End::Retry("the primary closed the binlog stream".into()),
            Some(Err(mysql::Error::MySqlError(e))) => {
                return End::Fatal(
                    1236,
                    format!("Got fatal error {} from master: {}", e.code, e.message),
                )
            }
            Some(Err(e)) => return End::Retry(e.to_string()),
            Some(Ok(ev)) => ev,
        };
        let header = ev.header();
        shared.read_event(header.log_pos() as u64);
        if header.event_type_raw() == MARIADB_GTID_EVENT {
            if let Err(e) = applier.gtid_event(header.server_id(), ev.data()) {
                return End::Apply(e);
            }
            continue;
        }
        let data = match ev.read_data() {
            Ok(Some(d)) => d,
            Ok(None) => continue,
            Err(e) => return End::Fatal(1236, format!("unreadable event: {e}")),
        };
        let ts = header.timestamp() as u64;
        let applied = match data {
            EventData::RotateEvent(r) => {
                shared.rotate(&r.name(), r.position());
                Ok(false)
            }
            EventData::HeartbeatEvent => {
                if !applier.in_transaction() {
                    shared.caught_up();
                }
                Ok(false)
            }
            EventData::QueryEvent(q) => {
                shared.behind(now_secs().saturating_sub(ts));
                let server = q
                    .status_vars()
                    .get_status_var(StatusVarKey::Charset)
                    .and_then(|v| match v.get_value() {
                        Ok(StatusVarVal::Charset {
                            collation_server, ..
                        }) => Some(collation_server),
                        _ => None,
                    });
                applier
                    .query(&q.schema(), &q.query(), server)
                    .map(|_| !applier.in_transaction())
            }
            EventData::XidEvent(_) => applier.commit().map(|_| true),
            EventData::RowsEvent(r) => {
                shared.behind(now_secs().saturating_sub(ts));
                match stream.get_tme(r.table_id()) {
                    Some(tme) => applier.rows(&r, tme).map(|_| false),
                    None => return End::Fatal(1236, "a rows event without its table map".into()),
                }
            }
            EventData::IntvarEvent(_) | EventData::RandEvent(_) | EventData::UserVarEvent(_) => {
                return End::Fatal(
                    1236,
                    "a statement-format event (the primary must log binlog_format=ROW)".into(),
                )
            }
            _ => Ok(false),
        };
        match applied {
            Ok(true) => shared.executed(header.log_pos() as u64),
            Ok(false) => {}
            Err(e) => return End::Apply(e),
        }
    }
}
