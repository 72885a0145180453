//! The simulation's clients: each either runs a transaction (REPEATABLE READ or READ COMMITTED, on trees
//! `a` and `b`) or sends single operations outside one (writes to `plain`, plain reads anywhere). Every
//! read is compared with what the model says the client must see.

use super::model::{after, diff_rows, range, txn_key, txn_write, view, Map, KEYS};
use super::{SimFailure, World};
use crate::common::{key, random_op};
use betula_storage::{Isolation, Op, Txn, TxnOptions};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::time::Duration;

/// An open transaction and what the model knows of it.
pub struct OpenTxn {
    pub txn: Txn,
    /// REPEATABLE READ: the committed state of trees a and b at begin.
    pub snapshot: Option<[Map; 2]>,
    /// Its own writes per tree: the value it wrote (None: deleted).
    pub own: [BTreeMap<Vec<u8>, Option<Vec<u8>>>; 2],
}

#[derive(Default)]
pub struct Client {
    pub txn: Option<OpenTxn>,
}

/// Bounds of a random range over the transactional keys.
fn bounds(w: &mut World) -> (Bound<Vec<u8>>, Bound<Vec<u8>>, bool) {
    let a = txn_key(w.rng.below(KEYS));
    let b = txn_key(w.rng.below(KEYS + 1));
    let lo = if w.rng.chance(20) {
        Bound::Unbounded
    } else {
        Bound::Included(a)
    };
    let hi = if w.rng.chance(20) {
        Bound::Unbounded
    } else {
        Bound::Excluded(b)
    };
    (lo, hi, w.rng.chance(30))
}

fn as_ref(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(k) => Bound::Included(k.as_slice()),
        Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl World {
    /// One operation of client `c`.
    pub fn client_step(&mut self, c: usize) -> Result<(), SimFailure> {
        match self.clients[c].txn.take() {
            None if self.rng.chance(55) => self.begin(c),
            None => self.outside(),
            Some(open) => self.in_txn(c, open),
        }
    }

    fn begin(&mut self, c: usize) -> Result<(), SimFailure> {
        let rr = self.rng.chance(70);
        let opts = TxnOptions {
            isolation: if rr {
                Isolation::RepeatableRead
            } else {
                Isolation::ReadCommitted
            },
            lock_timeout: Duration::ZERO,
            durability: None,
        };
        match self.env.as_ref().expect("open").begin(opts) {
            Ok(txn) => {
                self.log(|| format!("client {c} begin rr {rr} id {}", txn.id()));
                self.clients[c].txn = Some(OpenTxn {
                    txn,
                    snapshot: rr.then(|| self.state.txn.clone()),
                    own: Default::default(),
                });
                Ok(())
            }
            Err(e) => self.failed(e, None),
        }
    }

    /// A write to `plain` or a read of any tree, outside a transaction.
    fn outside(&mut self) -> Result<(), SimFailure> {
        let tree = self.rng.below(3) as usize;
        if tree == 2 && self.rng.chance(60) {
            let n = 1 + self.rng.below(3);
            let ops: Vec<(Vec<u8>, Op)> = (0..n).map(|_| random_op(&mut self.rng, KEYS)).collect();
            let mut pending = self.state.clone();
            for (k, op) in &ops {
                pending.plain.apply(k, op);
            }
            let t = self.trees[2].clone();
            self.log(|| format!("plain write {ops:?}"));
            return match t.write_batch(ops) {
                Ok(()) => {
                    self.committed(pending);
                    Ok(())
                }
                Err(e) => self.failed(e, Some(pending)),
            };
        }
        let t = self.trees[tree].clone();
        if self.rng.chance(50) {
            let k = if tree == 2 {
                key(self.rng.below(KEYS))
            } else {
                txn_key(self.rng.below(KEYS))
            };
            let want = self.state.tree(tree).get(&k).cloned();
            return match t.get(&k) {
                Ok(got) => self.expect(got == want, || {
                    format!("get {k:?} of tree {tree}: {got:?}, expected {want:?}")
                }),
                Err(e) => self.read_failed(e),
            };
        }
        let (lo, hi, rev) = bounds(self);
        let want = range(self.state.tree(tree), as_ref(&lo), as_ref(&hi), rev);
        let got: Result<Vec<_>, _> = t.range(as_ref(&lo), as_ref(&hi), rev).collect();
        match got {
            Ok(got) => self.expect(got == want, || {
                format!(
                    "range {lo:?}..{hi:?} rev {rev} of tree {tree}: {}",
                    diff_rows(&got, &want)
                )
            }),
            Err(e) => self.read_failed(e),
        }
    }

    /// A read that failed: acceptable only when a fault or a crash explains it.
    fn read_failed(&mut self, e: betula_storage::Error) -> Result<(), SimFailure> {
        if self.disk.is_dead() || matches!(e, betula_storage::Error::Poisoned(_)) {
            return self.failed(e, None);
        }
        if self.explained() && matches!(e, betula_storage::Error::Io { .. }) {
            self.trace.add(b"read error");
            return Ok(());
        }
        Err(self.fail(format!("read failed: {e}")))
    }

    pub fn expect(&mut self, ok: bool, what: impl FnOnce() -> String) -> Result<(), SimFailure> {
        self.trace.num(ok as u64);
        if ok {
            Ok(())
        } else {
            Err(self.fail(format!("WRONG ANSWER: {}", what())))
        }
    }

    fn in_txn(&mut self, c: usize, mut open: OpenTxn) -> Result<(), SimFailure> {
        let roll = self.rng.below(100);
        let t = self.rng.below(2) as usize;
        let k = txn_key(self.rng.below(KEYS));
        let handle = self.trees[t].clone();
        let base = |w: &World, open: &OpenTxn| match &open.snapshot {
            Some(s) => s[t].clone(),
            None => w.state.txn[t].clone(),
        };
        match roll {
            0..=24 => {
                let want = view(&base(self, &open), &open.own[t]).get(&k).cloned();
                match open.txn.get(&handle, &k) {
                    Ok(got) => self.expect(got == want, || {
                        format!("txn get {k:?}: {got:?}, expected {want:?}")
                    })?,
                    Err(e) => self.read_failed(e)?,
                }
            }
            25..=32 => {
                let (lo, hi, rev) = bounds(self);
                let want = range(
                    &view(&base(self, &open), &open.own[t]),
                    as_ref(&lo),
                    as_ref(&hi),
                    rev,
                );
                let got: Result<Vec<_>, _> = open
                    .txn
                    .range(&handle, as_ref(&lo), as_ref(&hi), rev)
                    .collect();
                match got {
                    Ok(got) => self.expect(got == want, || {
                        format!(
                            "txn range {lo:?}..{hi:?} rev {rev} of tree {t} (rr {}): {}",
                            open.snapshot.is_some(),
                            diff_rows(&got, &want)
                        )
                    })?,
                    Err(e) => self.read_failed(e)?,
                }
            }
            33..=42 => {
                let want = view(&self.state.txn[t], &open.own[t]).get(&k).cloned();
                match open.txn.get_for_update(&handle, &k) {
                    Ok(got) => self.expect(got == want, || {
                        format!("get_for_update {k:?}: {got:?}, expected {want:?}")
                    })?,
                    Err(e) => {
                        self.clients[c].txn = Some(open);
                        return self.failed(e, None);
                    }
                }
            }
            43..=79 => {
                let op = txn_write(&mut self.rng);
                let before = view(&self.state.txn[t], &open.own[t]).get(&k).cloned();
                let r = match &op {
                    Op::Put(v) => open.txn.put(&handle, &k, v),
                    Op::Delete => open.txn.delete(&handle, &k),
                    Op::Upsert { func, arg } => open.txn.upsert(&handle, &k, *func, arg),
                    _ => unreachable!(),
                };
                self.log(|| {
                    format!(
                        "client {c} txn {} write tree {t} {} {op:?}: {}",
                        open.txn.id(),
                        String::from_utf8_lossy(&k),
                        r.is_ok()
                    )
                });
                match r {
                    Ok(()) => {
                        open.own[t].insert(k, after(before.as_deref(), &op));
                    }
                    Err(e) => {
                        self.clients[c].txn = Some(open);
                        return self.failed(e, None);
                    }
                }
            }
            80..=91 => return self.commit(c, open),
            _ => {
                self.log(|| format!("client {c} txn {} rollback", open.txn.id()));
                self.report.rollbacks += 1;
                return match open.txn.rollback() {
                    Ok(()) => Ok(()),
                    Err(e) => self.failed(e, None),
                };
            }
        }
        self.clients[c].txn = Some(open);
        Ok(())
    }

    fn commit(&mut self, c: usize, open: OpenTxn) -> Result<(), SimFailure> {
        self.log(|| format!("client {c} txn {} commit", open.txn.id()));
        let mut pending = self.state.clone();
        for t in 0..2 {
            pending.txn[t] = view(&pending.txn[t], &open.own[t]);
        }
        match open.txn.commit() {
            Ok(()) => {
                self.report.commits += 1;
                self.committed(pending);
                Ok(())
            }
            Err(e) => self.failed(e, Some(pending)),
        }
    }
}
