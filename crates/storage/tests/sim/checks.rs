//! The simulation's two heavy checks: a restart (after a power loss, a crash at a sync, or a latched
//! failure), whose recovered contents must be one of the states the model allows; and, at the end of a
//! run, a bit flipped in a tree file, after which every read answers right or fails, never wrongly.

use super::model::{range, State, PLAIN_TREE, TXN_TREES};
use super::{SimFailure, World, DIR};
use betula_storage::vfs::Vfs;
use betula_storage::{Env, Error, TreeHandle};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

/// Reads the three trees whole.
fn contents(trees: &[TreeHandle]) -> Result<State, Error> {
    let mut s = State::default();
    for (i, t) in trees.iter().enumerate() {
        t.check_invariants()?;
        let rows: Vec<_> = t
            .range(Bound::Unbounded, Bound::Unbounded, false)
            .collect::<Result<_, _>>()?;
        let map = rows.into_iter().collect();
        match i {
            0 | 1 => s.txn[i] = map,
            _ => s.plain.map = map,
        }
    }
    Ok(s)
}

fn open_trees(w: &World, env: &Env) -> Result<Vec<TreeHandle>, SimFailure> {
    TXN_TREES
        .iter()
        .chain([&PLAIN_TREE])
        .map(|n| {
            env.open_tree(n)
                .map_err(|e| w.fail(format!("tree {n} lost: {e}")))
        })
        .collect()
}

/// Restarts the engine: after a power loss (the disk as a crash would leave it) or a process restart (the
/// disk as it is). The recovered contents must be the committed state, `pending` (the operation in flight
/// took effect) or, without sync at commit, a state since the last sync.
pub fn restart(w: &mut World, power_loss: bool, pending: Option<State>) -> Result<(), SimFailure> {
    for c in &mut w.clients {
        c.txn = None;
    }
    w.trees.clear();
    if power_loss {
        let image = w.disk.crash_image(w.rng.next());
        w.disk = Arc::new(image);
        w.report.power_losses += 1;
    } else {
        w.disk.set_plan(Default::default());
    }
    // A process restart: the old engine stops (its drop syncs the log, as an exit would).
    w.env = None;
    w.report.restarts += 1;
    w.log(|| {
        format!(
            "restart (power loss {power_loss}, pending {})",
            pending.is_some()
        )
    });
    w.trace.num(power_loss as u64);
    let env = w.open()?;
    let trees = open_trees(w, &env)?;
    let got = contents(&trees).map_err(|e| w.fail(format!("reading after recovery: {e}")))?;
    let mut allowed: Vec<&State> = vec![&w.state];
    allowed.extend(pending.as_ref());
    if !w.sync_at_commit {
        allowed.extend(w.since_sync.iter());
    }
    if !allowed.contains(&&got) {
        let mut lost = Vec::new();
        for t in 0..3 {
            let (want, have) = (w.state.tree(t), got.tree(t));
            let keys = want.keys().chain(have.keys());
            for k in keys.filter(|k| want.get(*k) != have.get(*k)).take(4) {
                lost.push((t, String::from_utf8_lossy(k).into_owned()));
            }
        }
        return Err(w.fail(format!(
            "recovered state is none of the {} allowed (power loss {power_loss}); differing keys \
             include {lost:?}",
            allowed.len()
        )));
    }
    w.state = got;
    w.since_sync = vec![w.state.clone()];
    w.trees = trees;
    w.env = Some(env);
    Ok(())
}

/// Checkpoints, flips four bits of one tree file, restarts, and reads everything: each answer must be right
/// or an error (opening may refuse too); never a wrong row.
pub fn flip_a_bit_and_read(w: &mut World) -> Result<(), SimFailure> {
    for c in &mut w.clients {
        c.txn = None;
    }
    let Some(env) = w.env.as_ref() else {
        return Ok(());
    };
    if env.checkpoint().is_err() {
        return Ok(());
    }
    w.trees.clear();
    w.env = None;
    let dir = Path::new(DIR);
    let files: Vec<String> = w
        .disk
        .list(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.ends_with(".bt"))
        .collect();
    if files.is_empty() {
        return Ok(());
    }
    let file = dir.join(&files[w.rng.below(files.len() as u64) as usize]);
    let len = w.disk.read_all(&file).map_or(0, |b| b.len() as u64);
    if len == 0 {
        return Ok(());
    }
    // A few bits, so that one lands in a block in use more often than not (free space is common in a
    // copy-on-write file).
    let offset = w.rng.below(len);
    for i in 0..4 {
        let at = (offset + i * len / 4) % len;
        let bit = w.rng.below(8) as u8;
        w.disk
            .flip_bit(&file, at, bit)
            .map_err(|e| w.fail(format!("flip: {e}")))?;
    }
    let Ok(env) = w.open() else {
        w.report.corruption_detected = true;
        return Ok(());
    };
    let state = w.state.clone();
    for (i, name) in TXN_TREES.iter().chain([&PLAIN_TREE]).enumerate() {
        let t = match env.open_tree(name) {
            Ok(t) => t,
            Err(_) => {
                w.report.corruption_detected = true;
                continue;
            }
        };
        let want = range(state.tree(i), Bound::Unbounded, Bound::Unbounded, false);
        let mut got = Vec::new();
        for item in t.range(Bound::Unbounded, Bound::Unbounded, false) {
            match item {
                Ok(kv) => got.push(kv),
                Err(e) => {
                    detected(w, &e)?;
                    break;
                }
            }
        }
        if got.len() > want.len() || got[..] != want[..got.len()] {
            return Err(w.fail(format!(
                "WRONG ANSWER after a bit flip at {}:{offset}: tree {name} scans {} rows not a prefix of \
                 the {} expected",
                file.display(),
                got.len(),
                want.len()
            )));
        }
        for (k, v) in state.tree(i) {
            match t.get(k) {
                Ok(got) if got.as_ref() == Some(v) => {}
                Ok(got) => {
                    return Err(w.fail(format!(
                        "WRONG ANSWER after a bit flip at {}:{offset}: get {k:?} of {name} gave {got:?}",
                        file.display()
                    )))
                }
                Err(e) => detected(w, &e)?,
            }
        }
    }
    w.env = Some(env);
    Ok(())
}

/// An error after a bit flip must be a detected corruption (or the I/O error reading it).
fn detected(w: &mut World, e: &Error) -> Result<(), SimFailure> {
    if matches!(e, Error::Corruption(_) | Error::Io { .. }) {
        w.report.corruption_detected = true;
        Ok(())
    } else {
        Err(w.fail(format!("after a bit flip: {e}")))
    }
}
