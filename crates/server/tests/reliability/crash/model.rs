//! What the crash loop knows the database holds: the state every acknowledged statement left, and the
//! statements whose outcome a kill made unknown.
//!
//! Each worker owns a disjoint part of the state (its event ids, the loader's batches, the counters'
//! upserter), except the transfers, whose effects commute, so acknowledged operations apply in any order
//! across workers. A worker has at most one operation of unknown outcome per cycle: the one in flight when
//! the server died. After a restart the verifier decides, for each of those, whether it took effect (all
//! of it, never part: that is the atomicity check) and folds it into the model.

use std::collections::BTreeMap;

/// Accounts of the bank; each starts with [`INITIAL_BALANCE`].
pub const ACCOUNTS: u32 = 32;
pub const INITIAL_BALANCE: i64 = 1000;
/// Keys of the upsert counters.
pub const COUNTER_KEYS: u32 = 40;

/// An events row: the statement that inserted it, its tag (indexed) and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub stmt: u64,
    pub tag: String,
    pub payload: String,
}

/// A schema change of the `bulk` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlterOp {
    /// ADD INDEX by_v (v): in place, the index built from a scan.
    AddIndex,
    /// DROP INDEX by_v.
    DropIndex,
    /// MODIFY v VARCHAR(width): a type change, so the table is rebuilt into new trees.
    Width(u32),
}

/// One operation a worker sent.
#[derive(Clone, Debug)]
pub enum Op {
    /// BEGIN; lock both accounts; move `amount` from `src` to `dst`; record it in `transfers`; COMMIT.
    Transfer {
        id: u64,
        src: u32,
        dst: u32,
        amount: i64,
    },
    /// One multi-row INSERT into `events` (autocommit).
    InsertEvents { stmt: u64, rows: Vec<(u64, String)> },
    /// UPDATE events SET tag = ? WHERE id = ? (changes the secondary index entry).
    RetagEvent { id: u64, tag: String },
    /// DELETE FROM events WHERE id = ?.
    DeleteEvent { id: u64 },
    /// INSERT INTO counters ... ON DUPLICATE KEY UPDATE n = n + 1, for each key of one statement.
    Upsert { keys: Vec<u32> },
    /// LOAD DATA LOCAL INFILE of `rows` rows of batch `batch` into `bulk` (one transaction).
    Load { batch: u64, rows: u32 },
    /// DELETE FROM bulk (every batch).
    ClearBulk,
    /// ALTER TABLE bulk ...
    Alter(AlterOp),
}

/// How an operation ended, as its client saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The server acknowledged it: it must be there after any crash.
    Acked,
    /// The server refused it (deadlock, lock timeout, a statement error): it must not be there.
    Refused,
    /// The connection died before the answer: it may be there, wholly, or not at all.
    Unknown,
}

/// The payload of an event row: derived from its id and statement, so a wrong payload is detected.
pub fn event_payload(id: u64, stmt: u64) -> String {
    format!(
        "event {id} of statement {stmt} {}",
        "x".repeat((id % 50) as usize)
    )
}

/// The id of row `i` of a bulk batch.
pub fn bulk_id(batch: u64, i: u32) -> u64 {
    batch * 100_000 + u64::from(i)
}

/// The `v` of row `i` of a bulk batch.
pub fn bulk_value(batch: u64, i: u32) -> String {
    format!("batch {batch} row {i}")
}

/// The known state of the database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Transfers present (id → (src, dst, amount)).
    pub transfers: BTreeMap<u64, (u32, u32, i64)>,
    pub events: BTreeMap<u64, EventRow>,
    pub counters: BTreeMap<u32, u64>,
    /// Batches present in `bulk` (batch → rows).
    pub batches: BTreeMap<u64, u32>,
    /// Whether `bulk` has the index by_v.
    pub bulk_index: bool,
    /// The width of `bulk.v`.
    pub bulk_width: u32,
}

impl Default for Model {
    fn default() -> Model {
        Model {
            transfers: BTreeMap::new(),
            events: BTreeMap::new(),
            counters: BTreeMap::new(),
            batches: BTreeMap::new(),
            bulk_index: false,
            bulk_width: 60,
        }
    }
}

impl Model {
    /// Applies the effect of an operation that took effect.
    pub fn apply(&mut self, op: &Op) {
        match op {
            Op::Transfer {
                id,
                src,
                dst,
                amount,
            } => {
                self.transfers.insert(*id, (*src, *dst, *amount));
            }
            Op::InsertEvents { stmt, rows } => {
                for (id, tag) in rows {
                    self.events.insert(
                        *id,
                        EventRow {
                            stmt: *stmt,
                            tag: tag.clone(),
                            payload: event_payload(*id, *stmt),
                        },
                    );
                }
            }
            Op::RetagEvent { id, tag } => {
                if let Some(row) = self.events.get_mut(id) {
                    row.tag = tag.clone();
                }
            }
            Op::DeleteEvent { id } => {
                self.events.remove(id);
            }
            Op::Upsert { keys } => {
                for k in keys {
                    *self.counters.entry(*k).or_insert(0) += 1;
                }
            }
            Op::Load { batch, rows } => {
                self.batches.insert(*batch, *rows);
            }
            Op::ClearBulk => self.batches.clear(),
            Op::Alter(AlterOp::AddIndex) => self.bulk_index = true,
            Op::Alter(AlterOp::DropIndex) => self.bulk_index = false,
            Op::Alter(AlterOp::Width(w)) => self.bulk_width = *w,
        }
    }

    /// The balance of each account the present transfers imply.
    pub fn balances(&self) -> Vec<i64> {
        let mut b = vec![INITIAL_BALANCE; ACCOUNTS as usize];
        for (src, dst, amount) in self.transfers.values() {
            b[*src as usize] -= amount;
            b[*dst as usize] += amount;
        }
        b
    }
}

/// Ids of the event rows of events worker `w`: a range of its own.
pub fn event_ids(w: usize) -> std::ops::Range<u64> {
    let base = (w as u64 + 1) * 1_000_000;
    base..base + 1_000_000
}
