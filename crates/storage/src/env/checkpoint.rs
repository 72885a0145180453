//! The checkpoint driver and the background threads: maintenance (periodic log sync, checkpoints; design.md,
//! "Checkpoint protocol", steps 1, 5 and 6) and the flusher (`tree::maintenance::flusher`).
//!
//! Step 1 appends the `Checkpoint` record and snapshots the catalog under the catalog lock, so the catalog and
//! the log agree on which trees exist at `begin_lsn`. Each tree's capture holds only that tree's lock, for
//! pointer copies (CKP7). The log is made durable up to everything captured before any tree header is written
//! (a tree never gets ahead of the log). The environment header is written after every tree header is durable
//! (CKP3), and old log segments and the old catalog are deleted only after it is (CKP4).

use super::catalog::{catalog_name, EnvHeader};
use super::recovery::ENV_FILE;
use super::{Durability, EnvInner};
use crate::block::slots;
use crate::error::{Error, Result};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the maintenance thread looks for work: a busy log fills a 64 MiB segment in about a second,
/// and its spare (SPR1-SPR5) should be ready well before.
const TICK: Duration = Duration::from_millis(50);

/// What a completed checkpoint was, for a caller that acts on it before the next one can begin (a backup
/// pins its places, design.md BKP1).
pub(crate) struct CheckpointDone<'a> {
    pub seq: u64,
    pub begin_lsn: u64,
    pub catalog_bytes: &'a [u8],
    /// Every tree the checkpoint wrote, in id order.
    pub trees: &'a [Arc<crate::tree::Tree>],
}

/// Runs one checkpoint (one at a time).
pub(crate) fn run(env: &EnvInner) -> Result<()> {
    run_then(env, |_| Ok(()))
}

/// Runs one checkpoint, then `then` while still holding the checkpoint mutex: no other checkpoint can
/// supersede this one before `then` returns.
pub(crate) fn run_then<R>(
    env: &EnvInner,
    then: impl FnOnce(&CheckpointDone<'_>) -> Result<R>,
) -> Result<R> {
    let mut ck = env.ckpt.lock();
    env.check_writable()?;
    let started = Instant::now();
    let seq = ck.seq + 1;
    let log_bytes = env.wal.bytes_appended();

    // Step 1. Roll the log first, so the segments before this checkpoint's records can all be deleted in
    // step 6 (without the roll, the current segment, up to `wal_segment_bytes` of records the checkpoint
    // makes unnecessary, would stay on disk until it filled).
    env.wal.roll()?;
    let (begin_lsn, mut catalog, trees) = {
        let trees = env.trees.lock();
        // Transactions open now may have changes in the trees this checkpoint captures that the replayed
        // log will not show: name them, so recovery rolls them back if their commit never comes. Not those
        // whose commit record is already logged (before the begin, so never replayed), and no commit record
        // may come between the two records (TXN1).
        let begin_lsn = env.mvcc.log_checkpoint_begin(|open| {
            let begin = env.wal.append(&crate::wal::Record::Checkpoint { seq })?;
            if !open.is_empty() {
                env.wal
                    .append(&crate::wal::Record::TxnsOpen { txns: open })?;
            }
            Ok::<_, Error>(begin)
        })?;
        // In tree order: the same run writes the same files in the same order (the simulation replays
        // a seed exactly).
        let mut list: Vec<_> = trees.open.values().cloned().collect();
        list.sort_by_key(|t| t.id());
        let mut catalog = trees.catalog.clone();
        catalog.aborted = env.mvcc.aborted().to_vec();
        (begin_lsn, catalog, list)
    };
    // Step 2.
    let captures: Vec<_> = trees.iter().map(|t| t.capture()).collect();
    env.wal.sync_all()?;
    // Steps 3 and 4.
    for (t, cap) in trees.iter().zip(captures) {
        let tree_seq = cap.seq();
        t.write_capture(cap)?;
        if let Some(e) = catalog.trees.get_mut(&t.id()) {
            e.ckpt_seq = tree_seq;
        }
    }
    // Step 5.
    let fail = |op: &'static str, path: &std::path::Path, e: std::io::Error| {
        env.health
            .fail(Error::io(op, path.display().to_string(), e))
    };
    let cat_bytes = catalog.encode();
    let cat_path = env.dir.join(catalog_name(seq));
    let cat_file = env
        .vfs
        .open(&cat_path, true)
        .map_err(|e| fail("create", &cat_path, e))?;
    cat_file
        .set_len(0)
        .and_then(|_| cat_file.write_all_at(&cat_bytes, 0))
        .and_then(|_| cat_file.sync())
        .map_err(|e| fail("write catalog", &cat_path, e))?;
    env.vfs
        .sync_dir(&env.dir)
        .map_err(|e| fail("fsync directory", &env.dir, e))?;
    let header = EnvHeader {
        seq,
        replay_lsn: begin_lsn,
        next_lsn: begin_lsn + 1,
        catalog_len: cat_bytes.len() as u32,
        catalog_crc: crc32c::crc32c(&cat_bytes),
    };
    let env_path = env.dir.join(ENV_FILE);
    let env_file = env
        .vfs
        .open(&env_path, true)
        .map_err(|e| fail("open", &env_path, e))?;
    slots::write_slot(&*env_file, seq, &header.encode())
        .and_then(|_| env_file.sync())
        .map_err(|e| fail("write environment header", &env_path, e))?;
    if seq == 1 {
        env.vfs
            .sync_dir(&env.dir)
            .map_err(|e| fail("fsync directory", &env.dir, e))?;
    }
    // Step 6.
    if seq > 1 {
        let old = env.dir.join(catalog_name(seq - 1));
        if env.vfs.exists(&old) {
            env.vfs.remove(&old).map_err(|e| fail("remove", &old, e))?;
        }
    }
    env.wal.delete_before(begin_lsn)?;
    ck.seq = seq;
    ck.began = started;
    ck.log_bytes_at_begin = log_bytes;
    let took = started.elapsed();
    env.last_checkpoint_ms
        .store(took.as_millis() as u64, Ordering::Relaxed);
    env.checkpoint_latency.record(took);
    env.checkpoints_done.fetch_add(1, Ordering::Relaxed);
    then(&CheckpointDone {
        seq,
        begin_lsn,
        catalog_bytes: &cat_bytes,
        trees: &trees,
    })
}

/// Flushes the trees writers left over-full, until the flush queue is stopped.
pub(crate) fn flusher_loop(env: Arc<EnvInner>) {
    while env.flushq.is_active() {
        for id in env.flushq.take(Duration::from_millis(200)) {
            if env.health.failure().is_some() {
                break;
            }
            let tree = env.trees.lock().open.get(&id).cloned();
            if let Some(t) = tree {
                if let Err(e) = t.flush_pending() {
                    // A failed write latches the environment (writers see it); nothing else to do here.
                    let _ = env.health.fail(e);
                }
            }
        }
    }
}

/// Periodic log sync and checkpoints, until asked to stop.
pub(crate) fn background_loop(env: Arc<EnvInner>) {
    lower_priority();
    let tick = match env.opts.durability {
        Durability::Periodic(d) => d.min(TICK),
        _ => TICK,
    };
    let mut last_sync = Instant::now();
    loop {
        {
            let mut stop = env.stop.lock();
            if *stop {
                return;
            }
            env.wake.wait_for(&mut stop, tick);
            if *stop {
                return;
            }
        }
        if env.health.failure().is_some() {
            continue;
        }
        // A failed spare latches nothing and stops spares (SPR4); the log appends as before.
        let _ = env.wal.prepare_spare();
        match env.opts.durability {
            Durability::Periodic(d) if last_sync.elapsed() >= d => {
                let _ = env.wal.sync_all();
                last_sync = Instant::now();
            }
            _ => {}
        }
        let (due, until_checkpoint) = {
            let ck = env.ckpt.lock();
            let elapsed = ck.began.elapsed();
            let logged = env.wal.bytes_appended() - ck.log_bytes_at_begin;
            let limit = env.opts.checkpoint_log_bytes;
            let due = elapsed >= env.opts.checkpoint_interval || logged >= limit;
            // When the next checkpoint comes: by the clock, or by the log at its rate since the last.
            let by_time = env.opts.checkpoint_interval.saturating_sub(elapsed);
            let by_log = match limit.checked_sub(logged) {
                Some(left) if logged > 0 => elapsed.mul_f64(left as f64 / logged as f64),
                _ => by_time,
            };
            (due, by_time.min(by_log))
        };
        if due {
            // A failure latches the environment; writers see it.
            let _ = run(&env);
        } else {
            write_out_aged(&env, until_checkpoint, tick);
        }
    }
}

/// CKP10: the blocks written back a while ago go to the disk shortly before the checkpoint, not all at it.
/// Each tree writes out its share of the round's bytes by what it has waiting.
fn write_out_aged(env: &EnvInner, until_checkpoint: Duration, round: Duration) {
    use crate::tree::maintenance::aged_write_out::{pace, WRITE_OUT_AGE};
    let trees: Vec<_> = env.trees.lock().open.values().cloned().collect();
    let waiting: Vec<u64> = trees.iter().map(|t| t.aging.waiting_bytes()).collect();
    let total: u64 = waiting.iter().sum();
    let budget = pace(total, until_checkpoint, round);
    if budget == 0 {
        return;
    }
    for (t, w) in trees.iter().zip(waiting) {
        if w > 0 {
            let share = (budget as u128 * w as u128 / total as u128) as u64;
            t.write_out_aged(WRITE_OUT_AGE, share.max(1));
        }
    }
}

/// Niceness of the maintenance thread (checkpoints, periodic log syncs) relative to the writers.
const MAINTENANCE_NICE: i32 = 5;

/// Lowers this thread's CPU priority (Linux: `setpriority` on the thread id affects this thread only),
/// so that a checkpoint writing a cache full of dirty nodes takes CPU from the writers and the flusher
/// only where they leave it idle: the first checkpoint of a table outgrowing the cache cut the insert
/// rate of its second to under half the median (design.md "Checkpoint protocol"). Failure is ignored
/// (the thread then runs at normal priority).
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        let _ = rustix::process::setpriority_process(Some(tid), MAINTENANCE_NICE);
    }
}
