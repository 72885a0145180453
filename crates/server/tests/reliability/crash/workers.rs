//! The crash loop's clients: each worker owns one connection and one kind of work, sends operations until
//! the server dies under it (or it is told to stop), and returns every operation with its outcome.
//!
//! Kinds: bank transfers in explicit transactions with locking reads; multi-row INSERTs, UPDATEs and
//! DELETEs of event rows with a secondary index (text and prepared statements); `INSERT ... ON DUPLICATE
//! KEY UPDATE` upserts; LOAD DATA LOCAL batches with an ALTER TABLE now and then; checkpoints (FLUSH
//! TABLES) at random moments.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use mysql::prelude::Queryable;
use mysql::{Conn, LocalInfileHandler, OptsBuilder};
use rand::rngs::SmallRng;
use rand::Rng;

use super::model::{
    bulk_id, bulk_value, event_ids, event_payload, AlterOp, EventRow, Op, Outcome, ACCOUNTS,
    COUNTER_KEYS,
};

/// The kind of work a worker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkerKind {
    Transfers,
    /// Events worker number `n` (its own id range).
    Events(usize),
    Upserts,
    LoaderAndAlter,
    /// FLUSH TABLES (a checkpoint) every few tens of milliseconds: checkpoints meet every kind of write.
    Checkpoints,
}

/// What a worker starts from: the parts of the model its operations depend on.
#[derive(Clone, Debug, Default)]
pub struct WorkerStart {
    /// The worker's event rows (events workers).
    pub events: BTreeMap<u64, EventRow>,
    /// Batches present and the `bulk` schema (the loader).
    pub batches: Vec<u64>,
    pub bulk_index: bool,
    pub bulk_width: u32,
}

/// The result of one worker's cycle.
#[derive(Debug, Default)]
pub struct WorkerReport {
    pub ops: Vec<(Op, Outcome)>,
    /// Server errors that are neither lock waits nor deadlocks: each one fails the test.
    pub unexpected: Vec<String>,
}

/// A statement's failure, classified.
enum Failure {
    /// A deadlock (1213) or lock wait timeout (1205): the transaction or statement was rolled back.
    Lock,
    /// Any other server error.
    Server(String),
    /// The connection failed: the server is gone.
    Connection,
}

fn classify(e: mysql::Error) -> Failure {
    match e {
        mysql::Error::MySqlError(e) if e.code == 1205 || e.code == 1213 => Failure::Lock,
        mysql::Error::MySqlError(e) => Failure::Server(format!("{} {}", e.code, e.message)),
        _ => Failure::Connection,
    }
}

/// One worker's connection, generator and running state.
pub struct Worker {
    kind: WorkerKind,
    conn: Conn,
    rng: SmallRng,
    /// Unique-id prefix for this worker in this cycle (transfer ids, statement and batch numbers).
    id_base: u64,
    seq: u64,
    start: WorkerStart,
    infile: Arc<Mutex<String>>,
    report: WorkerReport,
}

impl Worker {
    /// Connects; None if the server is already gone.
    pub fn connect(
        kind: WorkerKind,
        opts: OptsBuilder,
        rng: SmallRng,
        id_base: u64,
        start: WorkerStart,
    ) -> Option<Worker> {
        let infile = Arc::new(Mutex::new(String::new()));
        let content = infile.clone();
        let handler = LocalInfileHandler::new(move |_name, writer| {
            let text = content.lock().unwrap().clone();
            writer.write_all(text.as_bytes())
        });
        let conn = Conn::new(opts.local_infile_handler(Some(handler))).ok()?;
        Some(Worker {
            kind,
            conn,
            rng,
            id_base,
            seq: 0,
            start,
            infile,
            report: WorkerReport::default(),
        })
    }

    /// Sends operations until the connection fails or `stop` is set.
    pub fn run(mut self, stop: &AtomicBool) -> WorkerReport {
        while !stop.load(Ordering::Relaxed) {
            self.seq += 1;
            let alive = match self.kind {
                WorkerKind::Transfers => self.transfer(),
                WorkerKind::Events(n) => self.events(n),
                WorkerKind::Upserts => self.upsert(),
                WorkerKind::LoaderAndAlter => self.load_or_alter(),
                WorkerKind::Checkpoints => self.checkpoint(),
            };
            if !alive {
                break;
            }
        }
        self.report
    }

    fn unique(&self) -> u64 {
        self.id_base + self.seq
    }

    /// Records the outcome of an operation whose last statement (the commit) got `result`; returns
    /// whether the connection is still usable.
    fn finish(&mut self, op: Op, result: Result<(), mysql::Error>) -> bool {
        let (outcome, alive) = match result {
            Ok(()) => (Outcome::Acked, true),
            Err(e) => match classify(e) {
                Failure::Lock => (Outcome::Refused, true),
                Failure::Server(msg) => {
                    self.report.unexpected.push(format!("{op:?}: {msg}"));
                    (Outcome::Unknown, true)
                }
                Failure::Connection => (Outcome::Unknown, false),
            },
        };
        self.report.ops.push((op, outcome));
        alive
    }

    fn transfer(&mut self) -> bool {
        let src = self.rng.gen_range(0..ACCOUNTS);
        let dst = (src + self.rng.gen_range(1..ACCOUNTS)) % ACCOUNTS;
        let amount = self.rng.gen_range(1..50i64);
        let op = Op::Transfer {
            id: self.unique(),
            src,
            dst,
            amount,
        };
        let (lo, hi) = (src.min(dst), src.max(dst));
        let steps = [
            "BEGIN".to_string(),
            format!("SELECT balance FROM accounts WHERE id IN ({lo}, {hi}) FOR UPDATE"),
            format!("UPDATE accounts SET balance = balance - {amount} WHERE id = {src}"),
            format!("UPDATE accounts SET balance = balance + {amount} WHERE id = {dst}"),
            format!(
                "INSERT INTO transfers VALUES ({}, {src}, {dst}, {amount})",
                self.unique()
            ),
        ];
        for sql in &steps {
            if let Err(e) = self.conn.query_drop(sql) {
                // Before COMMIT nothing is committed, whatever the failure.
                let alive = match classify(e) {
                    Failure::Lock => true,
                    Failure::Server(msg) => {
                        self.report.unexpected.push(format!("{sql}: {msg}"));
                        true
                    }
                    Failure::Connection => false,
                };
                self.report.ops.push((op, Outcome::Refused));
                return alive && self.conn.query_drop("ROLLBACK").is_ok();
            }
        }
        let r = self.conn.query_drop("COMMIT");
        self.finish(op, r)
    }

    fn events(&mut self, n: usize) -> bool {
        let roll = self.rng.gen_range(0..100);
        let present: Vec<u64> = self.start.events.keys().copied().collect();
        let tag = format!("tag{:02}", self.rng.gen_range(0..20));
        if present.is_empty() || (roll < 50 && present.len() < 400) {
            let stmt = self.unique();
            let count = self.rng.gen_range(1..=20);
            let ids = event_ids(n);
            let mut rows = Vec::new();
            while rows.len() < count {
                let id = self.rng.gen_range(ids.start..ids.start + 2000);
                if !self.start.events.contains_key(&id) && !rows.iter().any(|(r, _)| *r == id) {
                    rows.push((id, format!("tag{:02}", self.rng.gen_range(0..20))));
                }
            }
            let values: Vec<String> = rows
                .iter()
                .map(|(id, tag)| format!("({id}, {stmt}, '{tag}', '{}')", event_payload(*id, stmt)))
                .collect();
            let sql = format!("INSERT INTO events VALUES {}", values.join(", "));
            let op = Op::InsertEvents { stmt, rows };
            let r = self.conn.query_drop(sql);
            self.track(&op, &r);
            return self.finish(op, r);
        }
        let id = present[self.rng.gen_range(0..present.len())];
        let (op, r) = if roll < 80 {
            let r = self
                .conn
                .exec_drop("UPDATE events SET tag = ? WHERE id = ?", (&tag, id));
            (Op::RetagEvent { id, tag }, r)
        } else {
            let r = self
                .conn
                .exec_drop("DELETE FROM events WHERE id = ?", (id,));
            (Op::DeleteEvent { id }, r)
        };
        self.track(&op, &r);
        self.finish(op, r)
    }

    /// Keeps the worker's own view of its rows current after an acknowledged change.
    fn track(&mut self, op: &Op, r: &Result<(), mysql::Error>) {
        if r.is_err() {
            return;
        }
        let mut m = super::model::Model {
            events: std::mem::take(&mut self.start.events),
            ..Default::default()
        };
        m.apply(op);
        self.start.events = m.events;
    }

    /// A checkpoint; it changes no row, so it is not an operation of the model.
    fn checkpoint(&mut self) -> bool {
        std::thread::sleep(std::time::Duration::from_millis(self.rng.gen_range(5..60)));
        match self.conn.query_drop("FLUSH TABLES") {
            Ok(()) => true,
            Err(e) => match classify(e) {
                Failure::Lock => true,
                Failure::Server(msg) => {
                    self.report.unexpected.push(format!("FLUSH TABLES: {msg}"));
                    true
                }
                Failure::Connection => false,
            },
        }
    }

    fn upsert(&mut self) -> bool {
        let n = self.rng.gen_range(1..=3);
        let mut keys: Vec<u32> = Vec::new();
        while keys.len() < n {
            let k = self.rng.gen_range(0..COUNTER_KEYS);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys.sort_unstable();
        let values: Vec<String> = keys.iter().map(|k| format!("({k}, 1)")).collect();
        let sql = format!(
            "INSERT INTO counters (k, n) VALUES {} ON DUPLICATE KEY UPDATE n = n + 1",
            values.join(", ")
        );
        let r = self.conn.query_drop(sql);
        self.finish(Op::Upsert { keys }, r)
    }

    fn load_or_alter(&mut self) -> bool {
        let roll = self.rng.gen_range(0..100);
        let (op, sql) = if roll < 10 {
            let alter = match self.rng.gen_range(0..2) {
                0 if self.start.bulk_index => AlterOp::DropIndex,
                0 => AlterOp::AddIndex,
                _ => AlterOp::Width(if self.start.bulk_width == 60 { 80 } else { 60 }),
            };
            let sql = match alter {
                AlterOp::AddIndex => "ALTER TABLE bulk ADD INDEX by_v (v)".to_string(),
                AlterOp::DropIndex => "ALTER TABLE bulk DROP INDEX by_v".to_string(),
                AlterOp::Width(w) => format!("ALTER TABLE bulk MODIFY v VARCHAR({w}) NOT NULL"),
            };
            (Op::Alter(alter), sql)
        } else if self.start.batches.len() >= 6 {
            (Op::ClearBulk, "DELETE FROM bulk".to_string())
        } else {
            let batch = self.unique();
            let rows = self.rng.gen_range(100..1500);
            let text: String = (0..rows)
                .map(|i| format!("{},{batch},{}\n", bulk_id(batch, i), bulk_value(batch, i)))
                .collect();
            *self.infile.lock().unwrap() = text;
            let sql = "LOAD DATA LOCAL INFILE 'batch.csv' INTO TABLE bulk FIELDS TERMINATED BY ','";
            (Op::Load { batch, rows }, sql.to_string())
        };
        let r = self.conn.query_drop(sql);
        if r.is_ok() {
            match &op {
                Op::Alter(AlterOp::AddIndex) => self.start.bulk_index = true,
                Op::Alter(AlterOp::DropIndex) => self.start.bulk_index = false,
                Op::Alter(AlterOp::Width(w)) => self.start.bulk_width = *w,
                Op::ClearBulk => self.start.batches.clear(),
                Op::Load { batch, .. } => self.start.batches.push(*batch),
                _ => {}
            }
        }
        self.finish(op, r)
    }
}
