//! After a restart: read everything back over the protocol, decide the fate of each operation of unknown
//! outcome (all of it or none of it: a part is a failure), fold the decided ones into the model, and
//! demand that the database equals the model exactly: every acknowledged commit present, nothing refused
//! present, the bank's balances equal to what its transfer records imply (so the total is preserved), and
//! every secondary index equal to the rows (an index-only scan forced with FORCE INDEX against a full
//! scan of the primary tree), and CHECK TABLE clean on every table (each tree read whole, index entry
//! counts equal to the rows).

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use mysql::Conn;

use super::model::{bulk_id, bulk_value, AlterOp, EventRow, Model, Op, ACCOUNTS};

/// The database as read back.
#[derive(Debug, Default)]
pub struct Actual {
    pub transfers: BTreeMap<u64, (u32, u32, i64)>,
    pub balances: Vec<i64>,
    pub events: BTreeMap<u64, EventRow>,
    pub counters: BTreeMap<u32, u64>,
    /// Rows of `bulk` by batch: (id, v).
    pub bulk: BTreeMap<u64, Vec<(u64, String)>>,
    pub bulk_index: bool,
    pub bulk_width: u32,
}

/// Any failed query is a verification failure.
fn q<T>(r: mysql::Result<T>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e}"))
}

/// Reads the whole database.
pub fn read_actual(c: &mut Conn) -> Result<Actual, String> {
    let mut a = Actual::default();
    for (id, src, dst, amount) in q(
        c.query::<(u64, u32, u32, i64), _>("SELECT id, src, dst, amount FROM transfers"),
        "read transfers",
    )? {
        a.transfers.insert(id, (src, dst, amount));
    }
    a.balances = q(
        c.query::<i64, _>("SELECT balance FROM accounts ORDER BY id"),
        "read accounts",
    )?;
    for (id, stmt, tag, payload) in q(
        c.query::<(u64, u64, String, String), _>("SELECT id, stmt, tag, payload FROM events"),
        "read events",
    )? {
        a.events.insert(id, EventRow { stmt, tag, payload });
    }
    for (k, n) in q(
        c.query::<(u32, u64), _>("SELECT k, n FROM counters"),
        "read counters",
    )? {
        a.counters.insert(k, n);
    }
    for (id, batch, v) in q(
        c.query::<(u64, u64, String), _>("SELECT id, batch, v FROM bulk ORDER BY id"),
        "read bulk",
    )? {
        a.bulk.entry(batch).or_default().push((id, v));
    }
    let create: Option<(String, String)> =
        q(c.query_first("SHOW CREATE TABLE bulk"), "show create table")?;
    let create = create
        .map(|(_, s)| s.to_ascii_lowercase())
        .unwrap_or_default();
    a.bulk_index = create.contains("by_v");
    a.bulk_width = if create.contains("varchar(80)") {
        80
    } else {
        60
    };
    Ok(a)
}

/// Whether an operation of unknown outcome took effect, judged from the state read back; an error if
/// only part of it did.
fn took_effect(op: &Op, model: &Model, a: &Actual) -> Result<bool, String> {
    Ok(match op {
        Op::Transfer { id, .. } => a.transfers.contains_key(id),
        Op::InsertEvents { stmt, rows } => {
            let present = rows
                .iter()
                .filter(|(id, _)| a.events.get(id).is_some_and(|r| r.stmt == *stmt))
                .count();
            if present != 0 && present != rows.len() {
                return Err(format!(
                    "half a statement: {present} of the {} rows of {op:?}",
                    rows.len()
                ));
            }
            present == rows.len()
        }
        Op::RetagEvent { id, tag } => a.events.get(id).is_some_and(|r| &r.tag == tag),
        Op::DeleteEvent { id } => !a.events.contains_key(id),
        Op::Upsert { keys } => {
            let deltas: Vec<i64> = keys
                .iter()
                .map(|k| {
                    a.counters.get(k).copied().unwrap_or(0) as i64
                        - model.counters.get(k).copied().unwrap_or(0) as i64
                })
                .collect();
            if deltas.iter().all(|d| *d == 1) {
                true
            } else if deltas.iter().all(|d| *d == 0) {
                false
            } else {
                return Err(format!("half an upsert: deltas {deltas:?} of {op:?}"));
            }
        }
        Op::Load { batch, rows } => {
            let n = a.bulk.get(batch).map_or(0, |r| r.len());
            if n != 0 && n != *rows as usize {
                return Err(format!(
                    "half a LOAD DATA: {n} of {rows} rows of batch {batch}"
                ));
            }
            n != 0
        }
        Op::ClearBulk => a.bulk.is_empty(),
        Op::Alter(AlterOp::AddIndex) => a.bulk_index,
        Op::Alter(AlterOp::DropIndex) => !a.bulk_index,
        Op::Alter(AlterOp::Width(w)) => a.bulk_width == *w,
    })
}

/// Decides the unknown operations, folds them into `model`, then demands equality; returns how many of
/// the unknown operations had taken effect.
pub fn resolve_and_check(model: &mut Model, unknown: &[Op], a: &Actual) -> Result<usize, String> {
    let mut applied = 0;
    let before = model.clone();
    for op in unknown {
        if took_effect(op, &before, a)? {
            model.apply(op);
            applied += 1;
        }
    }
    if a.transfers != model.transfers {
        let lost: Vec<_> = model
            .transfers
            .keys()
            .filter(|k| !a.transfers.contains_key(k))
            .collect();
        let extra: Vec<_> = a
            .transfers
            .keys()
            .filter(|k| !model.transfers.contains_key(k))
            .collect();
        return Err(format!(
            "transfers differ: lost {lost:?}, not acknowledged {extra:?}"
        ));
    }
    let expected = model.balances();
    if a.balances != expected {
        return Err(format!(
            "balances {:?} (total {}) differ from the transfers' {:?} (total {})",
            a.balances,
            a.balances.iter().sum::<i64>(),
            expected,
            expected.iter().sum::<i64>()
        ));
    }
    compare_maps("events", &model.events, &a.events)?;
    compare_maps("counters", &model.counters, &a.counters)?;
    check_bulk(model, a)?;
    Ok(applied)
}

fn compare_maps<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    what: &str,
    want: &BTreeMap<K, V>,
    got: &BTreeMap<K, V>,
) -> Result<(), String> {
    for (k, v) in want {
        match got.get(k) {
            None => return Err(format!("{what}: acknowledged {k:?} = {v:?} lost")),
            Some(g) if g != v => return Err(format!("{what}: {k:?} is {g:?}, expected {v:?}")),
            _ => {}
        }
    }
    if let Some((k, v)) = got.iter().find(|(k, _)| !want.contains_key(k)) {
        return Err(format!("{what}: {k:?} = {v:?} was never acknowledged"));
    }
    Ok(())
}

fn check_bulk(model: &Model, a: &Actual) -> Result<(), String> {
    if a.bulk_index != model.bulk_index || a.bulk_width != model.bulk_width {
        return Err(format!(
            "bulk schema: index {} width {}, expected index {} width {}",
            a.bulk_index, a.bulk_width, model.bulk_index, model.bulk_width
        ));
    }
    let got: Vec<u64> = a.bulk.keys().copied().collect();
    let want: Vec<u64> = model.batches.keys().copied().collect();
    if got != want {
        return Err(format!("bulk batches {got:?}, expected {want:?}"));
    }
    for (batch, rows) in &model.batches {
        let expected: Vec<(u64, String)> = (0..*rows)
            .map(|i| (bulk_id(*batch, i), bulk_value(*batch, i)))
            .collect();
        if a.bulk[batch] != expected {
            return Err(format!(
                "bulk batch {batch}: rows differ from what was loaded"
            ));
        }
    }
    Ok(())
}

/// Every secondary index against a full scan of its table.
pub fn check_indexes(c: &mut Conn, bulk_index: bool) -> Result<(), String> {
    let by_index: Vec<(u64, String)> = q(
        c.query("SELECT id, tag FROM events FORCE INDEX (by_tag) WHERE tag >= '' ORDER BY id"),
        "events by index",
    )?;
    let by_scan: Vec<(u64, String)> = q(
        c.query("SELECT id, tag FROM events IGNORE INDEX (by_tag) ORDER BY id"),
        "events by scan",
    )?;
    if by_index != by_scan {
        return Err(format!(
            "events: index by_tag has {} entries, the table {} rows, or they differ",
            by_index.len(),
            by_scan.len()
        ));
    }
    if bulk_index {
        let by_index: Vec<(u64, String)> = q(
            c.query("SELECT id, v FROM bulk FORCE INDEX (by_v) WHERE v >= '' ORDER BY id"),
            "bulk by index",
        )?;
        let by_scan: Vec<(u64, String)> = q(
            c.query("SELECT id, v FROM bulk IGNORE INDEX (by_v) ORDER BY id"),
            "bulk by scan",
        )?;
        if by_index != by_scan {
            return Err(format!(
                "bulk: index by_v has {} entries, the table {} rows, or they differ",
                by_index.len(),
                by_scan.len()
            ));
        }
    }
    let checked: Vec<(String, String, String, String)> = q(
        c.query("CHECK TABLE accounts, transfers, events, counters, bulk"),
        "check table",
    )?;
    if checked.len() != 5 || checked.iter().any(|r| r.2 != "status" || r.3 != "OK") {
        return Err(format!("CHECK TABLE is not clean: {checked:?}"));
    }
    let total: Option<i64> = q(
        c.query_first("SELECT SUM(balance) FROM accounts"),
        "sum of balances",
    )?;
    let want = i64::from(ACCOUNTS) * super::model::INITIAL_BALANCE;
    if total != Some(want) {
        return Err(format!("sum of balances {total:?}, expected {want}"));
    }
    Ok(())
}
