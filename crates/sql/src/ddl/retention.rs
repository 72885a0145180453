//! The retention thread (design.md "Retention", RET1-RET7): every `betula_retention_interval`
//! seconds it adds partitions ahead of the clock and drops expired ones, in every partitioned
//! table with a `RETENTION` option, through the same partition operations as ALTER TABLE
//! (partitions.rs), and deletes the expired key range of every other such table (expiry.rs).
//!
//! Invariants: RET1 (each table's plan is made again under the exclusive schema lock, from the
//! definition read then, and carried out by the ALTER TABLE code); RET2 (catalog/partition/
//! retention.rs decides what expired); RET3 (a MAXVALUE catch-all is split, never removed). A
//! failed action is counted, logged and retried at the next round; it never stops the thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::catalog::create_table::quote_ident;
use crate::catalog::partition::retention::{is_max, plan, Plan};
use crate::catalog::partition::{part_text, PartDef};
use crate::catalog::TableDef;
use crate::context::engine::Engine;
use crate::context::{now_utc, Context};
use crate::ddl::expiry::Outcome;
use crate::ddl::partitions::{append_parts, replace_parts};
use crate::error::db_error::DbResult;
use crate::parser::alter::AlterOp;
use crate::types::temporal::DateTime;

/// Session id the thread's work runs under (shown by SHOW PROCESSLIST while it runs).
const SESSION_ID: u64 = u64::MAX - 1;

/// One round over every table with a retention at instant `now`: the log lines of what was
/// done (or failed).
pub fn run_round(engine: &Arc<Engine>, now: DateTime) -> Vec<String> {
    engine.retention.rounds.fetch_add(1, Ordering::Relaxed);
    let mut log = Vec::new();
    for t in engine.catalog.all_tables() {
        if t.retention.is_none() {
            continue;
        }
        let mut cx = Context::new(engine.clone(), SESSION_ID, "root", "localhost");
        let done = match &t.partitioning {
            Some(_) => keep(&mut cx, &t.db, &t.name, now, &mut log),
            None => expire(&mut cx, &t, now, &mut log),
        };
        if let Err(e) = done {
            engine.retention.errors.fetch_add(1, Ordering::Relaxed);
            log.push(format!("retention of `{}`.`{}` failed: {e}", t.db, t.name));
        }
    }
    log
}

/// Deletes the expired rows of `t` (not partitioned) at `now` (expiry.rs).
fn expire(cx: &mut Context, t: &TableDef, now: DateTime, log: &mut Vec<String>) -> DbResult<()> {
    let counters = &cx.engine.clone().retention;
    match crate::ddl::expiry::expire(cx, &t.db, &t.name, now)? {
        Some(Outcome::Expired(cutoff)) => {
            counters.expiries.fetch_add(1, Ordering::Relaxed);
            log.push(format!(
                "retention deleted the rows of `{}`.`{}` older than {}",
                t.db, t.name, cutoff
            ));
        }
        Some(Outcome::Busy) => log.push(format!(
            "retention of `{}`.`{}` waits for its index build",
            t.db, t.name
        )),
        None => {}
    }
    Ok(())
}

/// Carries out the retention of `db`.`name` at `now`, under the exclusive schema lock.
fn keep(
    cx: &mut Context,
    db: &str,
    name: &str,
    now: DateTime,
    log: &mut Vec<String>,
) -> DbResult<()> {
    cx.begin_ddl()?;
    let t = cx.get_table(db, name)?;
    let Plan { drop, add } = plan(&t, now)?;
    let counters = &cx.engine.clone().retention;
    if !drop.is_empty() {
        let p = t.partitioning.as_deref().expect("planned");
        let names: Vec<String> = drop.iter().map(|&i| p.parts[i].name.clone()).collect();
        crate::ddl::partitions::manage(cx, db, name, AlterOp::DropPartitions(names.clone()))?;
        let list: Vec<String> = names.iter().map(|n| quote_ident(n)).collect();
        cx.binlog_ddl(
            db,
            &format!("{} DROP PARTITION {}", alter(db, name), list.join(", ")),
        )?;
        counters
            .partitions_dropped
            .fetch_add(names.len() as u64, Ordering::Relaxed);
        log.push(format!(
            "retention dropped partition(s) {} of `{db}`.`{name}`",
            names.join(", ")
        ));
    }
    if add.is_empty() {
        return Ok(());
    }
    let t = cx.get_table(db, name)?;
    let p = t.partitioning.as_deref().expect("planned").clone();
    let new: Vec<PartDef> = add
        .iter()
        .map(|(n, b)| PartDef {
            name: n.clone(),
            id: 0,
            bound: b.clone(),
            comment: None,
            options: Vec::new(),
        })
        .collect();
    let names: Vec<String> = new.iter().map(|d| d.name.clone()).collect();
    let last = p.parts.len() - 1;
    let defs = |parts: &[PartDef]| {
        let texts: Vec<String> = parts.iter().map(|d| part_text(&p, &t, d)).collect();
        format!("({})", texts.join(", "))
    };
    // RET7: a replica gets the ALTER TABLE statement each change stands for.
    let statement = if is_max(&p.parts[last].bound) {
        // RET3: the catch-all is split; it keeps its name and takes what lies above them.
        let mut parts = new;
        parts.push(p.parts[last].clone());
        let text = format!(
            "{} REORGANIZE PARTITION {} INTO {}",
            alter(db, name),
            quote_ident(&p.parts[last].name),
            defs(&parts)
        );
        replace_parts(cx, &t, &p, &[last], parts)?;
        text
    } else {
        let text = format!("{} ADD PARTITION {}", alter(db, name), defs(&new));
        append_parts(cx, &t, &p, new)?;
        text
    };
    cx.binlog_ddl(db, &statement)?;
    counters
        .partitions_added
        .fetch_add(names.len() as u64, Ordering::Relaxed);
    log.push(format!(
        "retention added partition(s) {} to `{db}`.`{name}`",
        names.join(", ")
    ));
    Ok(())
}

/// `ALTER TABLE `db`.`name``.
fn alter(db: &str, name: &str) -> String {
    format!("ALTER TABLE {}.{}", quote_ident(db), quote_ident(name))
}

/// The running thread; stopping (or dropping) it ends the thread after its current round.
pub struct RetentionThread {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl RetentionThread {
    pub fn stop(mut self) {
        self.halt();
    }
    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

impl Drop for RetentionThread {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The seconds between rounds (`betula_retention_interval`; 0: none).
fn interval(engine: &Engine) -> u64 {
    engine
        .globals
        .read()
        .get("betula_retention_interval")
        .and_then(|v| v.to_f64_lenient())
        .map_or(60, |s| s.max(0.0) as u64)
}

/// Starts the thread; each log line goes to `log`.
pub fn start(engine: Arc<Engine>, log: fn(&str)) -> std::io::Result<RetentionThread> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let handle = std::thread::Builder::new()
        .name("betula-retention".into())
        .spawn(move || {
            let mut last = Instant::now();
            // A first round right away: partitions ahead exist before the first inserts.
            let mut due = true;
            while !flag.load(Ordering::SeqCst) {
                let every = interval(&engine);
                if due && every > 0 {
                    for line in run_round(&engine, now_utc()) {
                        log(&line);
                    }
                    last = Instant::now();
                }
                std::thread::park_timeout(Duration::from_millis(200));
                due = every > 0 && last.elapsed() >= Duration::from_secs(every);
            }
        })?;
    Ok(RetentionThread {
        stop,
        handle: Some(handle),
    })
}
