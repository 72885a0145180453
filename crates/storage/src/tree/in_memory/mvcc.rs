//! Multi-version cells and read views (design.md, "Transactions and multi-version reads").
//!
//! A leaf entry is a [`Cell`]: a plain committed value, or a stack of versions, oldest first, each stamped
//! with the transaction that wrote it. Transaction ids and LSNs share one number space: a message outside a
//! transaction (txn 0) counts as written by "transaction" = its own MSN, committed at once.
//!
//! A [`ReadView`] sees version v iff v's txn is its own, or v's txn < `low_limit`, was not active when the
//! view was made, and is not aborted. Every transaction is active, committed, or aborted; rollback is O(1):
//! the id joins the aborted set (persisted in the catalog at checkpoints), whose versions every reader skips
//! and garbage collection drops.
//!
//! Garbage collection: versions older than the newest version whose txn is below the horizon (older than
//! every active transaction and every open view) can never be read again and are dropped; a lone version
//! below the horizon collapses to a plain value (or vanishes if it is a delete).

use super::message::{MsgRef, Op, TxnId, UpdateRegistry};
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::error::Result;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One version of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub txn: TxnId,
    /// None: the row was deleted by this version.
    pub value: Option<Vec<u8>>,
}

/// A leaf entry's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// A committed value visible to everyone.
    Plain(Vec<u8>),
    /// Versions, oldest first (never empty).
    Versions(Vec<Version>),
}

impl Cell {
    /// Approximate bytes.
    pub fn size(&self) -> usize {
        match self {
            Cell::Plain(v) => v.len(),
            Cell::Versions(vs) => vs
                .iter()
                .map(|v| 10 + v.value.as_ref().map_or(0, |x| x.len()))
                .sum(),
        }
    }

    /// The newest value not written by an aborted transaction (None: deleted or absent).
    pub fn newest(&self, aborted: &[TxnId]) -> Option<&[u8]> {
        match self {
            Cell::Plain(v) => Some(v),
            Cell::Versions(vs) => vs
                .iter()
                .rev()
                .find(|v| aborted.binary_search(&v.txn).is_err())
                .and_then(|v| v.value.as_deref()),
        }
    }

    /// The value `view` sees.
    pub fn visible(&self, view: &ReadView) -> Option<&[u8]> {
        match self {
            Cell::Plain(v) => Some(v),
            Cell::Versions(vs) => vs
                .iter()
                .rev()
                .find(|v| view.sees(v.txn))
                .and_then(|v| v.value.as_deref()),
        }
    }

    /// What [`Cell::encode`] writes for `Cell::Plain(value)`.
    pub fn encode_plain(value: &[u8], out: &mut Vec<u8>) {
        out.put_u8(ENTRY_COMMITTED);
        out.put_bytes(value);
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Cell::Plain(v) => Cell::encode_plain(v, out),
            Cell::Versions(vs) => {
                out.put_u8(ENTRY_VERSIONS);
                out.put_varint(vs.len() as u64);
                for v in vs {
                    out.put_varint(v.txn);
                    match &v.value {
                        Some(x) => {
                            out.put_u8(1);
                            out.put_bytes(x);
                        }
                        None => out.put_u8(0),
                    }
                }
            }
        }
    }

    /// Checks and steps over one encoded cell without allocating; returns what [`Cell::size`] would.
    pub fn skip(d: &mut Decoder<'_>) -> Result<usize, DecodeError> {
        match d.u8()? {
            ENTRY_COMMITTED => Ok(d.bytes()?.len()),
            ENTRY_VERSIONS => {
                let n = d.varint()?;
                if n == 0 || n > d.remaining() as u64 {
                    return Err(DecodeError(format!("bad version count {n}")));
                }
                let mut size = 0;
                for _ in 0..n {
                    d.varint()?;
                    size += 10
                        + match d.u8()? {
                            0 => 0,
                            1 => d.bytes()?.len(),
                            f => return Err(DecodeError(format!("bad version flag {f}"))),
                        };
                }
                Ok(size)
            }
            k => Err(DecodeError(format!("unknown entry kind {k}"))),
        }
    }

    /// The value of an encoded plain committed cell, borrowed (None: a version stack or bad bytes).
    pub fn plain_value<'a>(d: &mut Decoder<'a>) -> Option<&'a [u8]> {
        match d.u8().ok()? {
            ENTRY_COMMITTED => d.bytes().ok(),
            _ => None,
        }
    }

    pub fn decode(d: &mut Decoder<'_>) -> Result<Cell, DecodeError> {
        match d.u8()? {
            ENTRY_COMMITTED => Ok(Cell::Plain(d.bytes()?.to_vec())),
            ENTRY_VERSIONS => {
                let n = d.varint()?;
                if n == 0 || n > d.remaining() as u64 {
                    return Err(DecodeError(format!("bad version count {n}")));
                }
                let mut vs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let txn = d.varint()?;
                    let value = match d.u8()? {
                        0 => None,
                        1 => Some(d.bytes()?.to_vec()),
                        f => return Err(DecodeError(format!("bad version flag {f}"))),
                    };
                    vs.push(Version { txn, value });
                }
                Ok(Cell::Versions(vs))
            }
            k => Err(DecodeError(format!("unknown entry kind {k}"))),
        }
    }
}

/// Entry kinds (file-format.md §3.3). Never renumber.
pub const ENTRY_COMMITTED: u8 = 0;
pub const ENTRY_VERSIONS: u8 = 1;

/// The transaction a message's version belongs to.
pub fn effective_txn(msg: MsgRef<'_>) -> TxnId {
    if msg.txn == 0 {
        msg.msn
    } else {
        msg.txn
    }
}

/// Whether every reader sees `msg` (its transaction is below `horizon`), so that applying it to a row
/// that holds no versions leaves a plain value: nobody can read anything older.
pub fn seen_by_all(msg: MsgRef<'_>, horizon: TxnId) -> bool {
    effective_txn(msg) < horizon
}

/// Whether `msg` was written by a rolled-back transaction: it changes nothing, wherever it is applied.
/// (A rolled-back transaction is not active, so the horizon passes it: without this test a message still
/// in a buffer at the rollback would reach its leaf as a committed value, `seen_by_all`.)
pub fn rolled_back(msg: MsgRef<'_>, aborted: &[TxnId]) -> bool {
    msg.txn != 0 && aborted.binary_search(&msg.txn).is_ok()
}

/// Whether `view` sees every one of `msgs` and none is an abort or of a rolled-back transaction: then
/// what the view reads is the messages applied in MSN order to a plain stored value, with no versions
/// built.
pub fn all_visible<'a, I>(msgs: I, view: &ReadView, aborted: &[TxnId]) -> bool
where
    I: IntoIterator<Item = MsgRef<'a>>,
{
    msgs.into_iter().all(|m| {
        !matches!(m.op, Op::Abort) && !rolled_back(m, aborted) && view.sees(effective_txn(m))
    })
}

/// Where a reader with `view` may start applying one key's messages (given in MSN order; invariant TXN6): at the newest
/// put or delete it sees, since no older message or stored value can show through it (None: there is no
/// such message, start from the stored cell). A put or delete whose transaction a later message undoes
/// (an abort) does not count.
pub fn first_needed<'a, I>(msgs: I, view: &ReadView) -> Option<usize>
where
    I: DoubleEndedIterator<Item = MsgRef<'a>> + ExactSizeIterator,
{
    let n = msgs.len();
    let mut undone: Vec<TxnId> = Vec::new();
    for (back, m) in msgs.rev().enumerate() {
        match m.op {
            Op::Abort => undone.push(m.txn),
            Op::Put(_) | Op::Delete | Op::RangeDelete { .. }
                if !undone.contains(&m.txn) && view.sees(effective_txn(m)) =>
            {
                return Some(n - 1 - back);
            }
            _ => {}
        }
    }
    None
}

/// Applies a message to a cell (None = no entry) and collects garbage below `horizon`.
pub fn apply(
    key: &[u8],
    cell: Option<Cell>,
    msg: MsgRef<'_>,
    reg: &UpdateRegistry,
    horizon: TxnId,
    aborted: &[TxnId],
) -> Result<Option<Cell>> {
    let cell = if let Op::Abort = msg.op {
        match cell {
            Some(Cell::Versions(mut vs)) => {
                vs.retain(|v| v.txn != msg.txn);
                (!vs.is_empty()).then_some(Cell::Versions(vs))
            }
            other => other,
        }
    } else if rolled_back(msg, aborted) {
        cell
    } else if seen_by_all(msg, horizon) && !matches!(cell, Some(Cell::Versions(_))) {
        // Fast path: nobody can read anything but the newest version, so keep a plain value.
        let old = match cell {
            Some(Cell::Plain(v)) => Some(v),
            _ => None,
        };
        if matches!(msg.op, Op::Broadcast { .. }) && old.is_none() {
            return Ok(None);
        }
        return Ok(reg.apply(key, old, msg.op)?.map(Cell::Plain));
    } else {
        let newest = cell
            .as_ref()
            .and_then(|c| c.newest(aborted))
            .map(|v| v.to_vec());
        if matches!(msg.op, Op::Broadcast { .. }) && newest.is_none() {
            return Ok(cell);
        }
        let value = reg.apply(key, newest, msg.op)?;
        let version = Version {
            txn: effective_txn(msg),
            value,
        };
        let mut vs = match cell {
            None => Vec::with_capacity(1),
            Some(Cell::Plain(v)) => vec![Version {
                txn: 0,
                value: Some(v),
            }],
            Some(Cell::Versions(vs)) => vs,
        };
        vs.push(version);
        Some(Cell::Versions(vs))
    };
    Ok(cell.and_then(|c| collect(c, horizon, aborted)))
}

/// Drops versions nobody can read any more (aborted ones, and those hidden below the horizon); collapses to
/// a plain value (or nothing) when possible. A horizon of 0 (a reader's materialization) changes nothing.
pub fn collect(cell: Cell, horizon: TxnId, aborted: &[TxnId]) -> Option<Cell> {
    let Cell::Versions(mut vs) = cell else {
        return Some(cell);
    };
    if horizon == 0 {
        return Some(Cell::Versions(vs));
    }
    if !aborted.is_empty() {
        vs.retain(|v| aborted.binary_search(&v.txn).is_err());
        if vs.is_empty() {
            return None;
        }
    }
    if let Some(i) = vs.iter().rposition(|v| v.txn < horizon) {
        vs.drain(..i);
    }
    if vs.len() == 1 && vs[0].txn < horizon {
        return vs.pop().and_then(|v| v.value).map(Cell::Plain);
    }
    Some(Cell::Versions(vs))
}

/// What a reader may see.
#[derive(Debug, Clone)]
pub struct ReadView {
    /// The reader's own transaction (0 = none).
    pub own: TxnId,
    /// Transactions (and MSNs) at or above this are invisible.
    pub low_limit: TxnId,
    /// Transactions active when the view was made, sorted.
    pub active: Arc<Vec<TxnId>>,
    /// Transactions rolled back when the view was made, sorted.
    pub aborted: Arc<Vec<TxnId>>,
}

impl ReadView {
    pub fn sees(&self, txn: TxnId) -> bool {
        txn == 0
            || (self.own != 0 && txn == self.own)
            || (txn < self.low_limit
                && self.active.binary_search(&txn).is_err()
                && self.aborted.binary_search(&txn).is_err())
    }
}

/// Active transactions, rolled-back transactions and open read views of an environment.
#[derive(Default)]
pub struct MvccState {
    inner: Mutex<MvccInner>,
    next_view: AtomicU64,
}

#[derive(Default)]
struct MvccInner {
    active: BTreeSet<TxnId>,
    active_sorted: Arc<Vec<TxnId>>,
    /// view id → the smallest txn the view cannot see (min of its low limit and its active set).
    views: BTreeMap<u64, TxnId>,
    /// Rolled-back transactions, sorted (kept: their versions may still sit in the trees).
    aborted: Arc<Vec<TxnId>>,
    /// Active transactions whose `TxnCommit` record is already in the log (they wait for its durability),
    /// with that record's LSN: a checkpoint must not name them open (TXN1).
    commit_logged: BTreeMap<TxnId, TxnId>,
    /// The same transactions by the LSN of their commit record (for [`MvccState::settle`]).
    committing: BTreeMap<TxnId, TxnId>,
}

impl MvccInner {
    /// `txn` is no longer active (the caller refreshes `active_sorted`).
    fn forget(&mut self, txn: TxnId) {
        self.active.remove(&txn);
        if let Some(lsn) = self.commit_logged.remove(&txn) {
            self.committing.remove(&lsn);
        }
    }

    fn refresh(&mut self) {
        self.active_sorted = Arc::new(self.active.iter().copied().collect());
    }
}

impl MvccState {
    /// Allocates a transaction id with `allocate` (which appends the Begin record and returns its LSN) and
    /// registers it as active, atomically with respect to view creation: a view either predates the id
    /// (its low limit is at most the id) or lists the transaction as active.
    pub fn begin<E>(&self, allocate: impl FnOnce() -> Result<TxnId, E>) -> Result<TxnId, E> {
        let mut g = self.inner.lock();
        let id = allocate()?;
        g.active.insert(id);
        g.refresh();
        Ok(id)
    }

    /// Registers an active transaction (recovery).
    pub fn activate(&self, txn: TxnId) {
        let mut g = self.inner.lock();
        g.active.insert(txn);
        g.refresh();
    }

    /// Appends a transaction's commit record with `append` (which returns its LSN) under this state's
    /// mutex, and remembers that it is logged: a checkpoint that begins later finds the record before its
    /// own and must not name the transaction open (TXN1), although it stays active until the record is
    /// durable (TXN2).
    pub fn log_commit<E>(
        &self,
        txn: TxnId,
        append: impl FnOnce() -> Result<TxnId, E>,
    ) -> Result<TxnId, E> {
        let mut g = self.inner.lock();
        let lsn = append()?;
        g.commit_logged.insert(txn, lsn);
        g.committing.insert(lsn, txn);
        Ok(lsn)
    }

    /// Runs a checkpoint's `append` (its `Checkpoint` record, then a `TxnsOpen` record naming the given
    /// transactions) under this state's mutex, with the transactions that are active and whose commit
    /// record is not in the log: no commit record can fall before the checkpoint's begin while its
    /// transaction is named open after it (TXN1). Returns what `append` returns (the begin LSN).
    pub fn log_checkpoint_begin<E>(
        &self,
        append: impl FnOnce(Vec<TxnId>) -> Result<TxnId, E>,
    ) -> Result<TxnId, E> {
        let g = self.inner.lock();
        let open = g
            .active
            .iter()
            .copied()
            .filter(|t| !g.commit_logged.contains_key(t))
            .collect();
        append(open)
    }

    /// A transaction committed: it stops being active, which makes its versions visible to new views.
    pub fn deactivate(&self, txn: TxnId) {
        let mut g = self.inner.lock();
        g.forget(txn);
        g.refresh();
    }

    /// Every transaction whose commit record is durable (its LSN at most `durable`) stops being active,
    /// whichever thread waited for it: a transaction that sees one version never misses one it was built
    /// on (TXN5).
    pub fn settle(&self, durable: TxnId) {
        let mut g = self.inner.lock();
        let mut changed = false;
        while let Some((&lsn, &txn)) = g.committing.first_key_value() {
            if lsn > durable {
                break;
            }
            g.forget(txn);
            changed = true;
        }
        if changed {
            g.refresh();
        }
    }

    /// A transaction rolled back: O(1); its versions become invisible to everyone.
    pub fn abort(&self, txn: TxnId) {
        let mut g = self.inner.lock();
        if let Err(i) = g.aborted.binary_search(&txn) {
            Arc::make_mut(&mut g.aborted).insert(i, txn);
        }
        g.forget(txn);
        g.refresh();
    }

    /// The aborted set now (for applying messages at leaves, and for the catalog).
    pub fn aborted(&self) -> Arc<Vec<TxnId>> {
        self.inner.lock().aborted.clone()
    }

    /// Installs the aborted set read from the catalog (recovery).
    pub fn load_aborted(&self, ids: &[TxnId]) {
        let mut v = ids.to_vec();
        v.sort_unstable();
        v.dedup();
        self.inner.lock().aborted = Arc::new(v);
    }

    /// Whether a transaction is active.
    pub fn is_active(&self, txn: TxnId) -> bool {
        self.inner.lock().active.contains(&txn)
    }

    /// A view of everything committed before `low_limit()`, for transaction `own`. With `register`, the
    /// view holds back garbage collection until [`MvccState::release_view`].
    ///
    /// Atomic (invariant TXN4): the low limit is read, the active set snapshotted and the view registered under
    /// this state's mutex, under which ids are also allocated and activated, transactions deactivated and the
    /// horizon computed. So every transaction with a smaller id is either listed as active or finished before
    /// the view, and no transaction that began after the view is visible: a visible transaction never depends
    /// on an invisible one. `low_limit` runs under the mutex and must not take a lock that is held while this
    /// mutex is requested (the log's is fine; a tree's lock must be taken before calling).
    pub fn view(
        &self,
        own: TxnId,
        low_limit: impl FnOnce() -> TxnId,
        register: bool,
    ) -> (ReadView, Option<u64>) {
        let mut g = self.inner.lock();
        let low_limit = low_limit();
        let active = g.active_sorted.clone();
        let aborted = g.aborted.clone();
        let id = register.then(|| {
            let id = self.next_view.fetch_add(1, Ordering::Relaxed);
            let bound = active.first().copied().unwrap_or(low_limit).min(low_limit);
            g.views.insert(id, bound);
            id
        });
        (
            ReadView {
                own,
                low_limit,
                active,
                aborted,
            },
            id,
        )
    }

    pub fn release_view(&self, id: u64) {
        self.inner.lock().views.remove(&id);
    }

    /// Versions of transactions below this are visible to every present and future reader.
    pub fn horizon(&self) -> TxnId {
        let g = self.inner.lock();
        let a = g.active.first().copied().unwrap_or(TxnId::MAX);
        let v = g.views.values().min().copied().unwrap_or(TxnId::MAX);
        a.min(v)
    }

    /// Open views and the oldest view's bound (status output).
    pub fn open_views(&self) -> (usize, Option<TxnId>) {
        let g = self.inner.lock();
        (g.views.len(), g.views.values().min().copied())
    }

    /// Active transactions, ascending.
    pub fn active_list(&self) -> Vec<TxnId> {
        self.inner.lock().active.iter().copied().collect()
    }

    pub fn active_count(&self) -> usize {
        self.inner.lock().active.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::message::Message;
    use super::*;

    fn msg(msn: u64, txn: u64, op: Op) -> Message {
        Message {
            msn,
            txn,
            key: b"k".to_vec(),
            op,
        }
    }

    #[test]
    fn versions_visibility_abort_and_collection() {
        let reg = UpdateRegistry::new();
        let put = |v: &[u8]| Op::Put(v.to_vec());
        // Committed base (txn 0 at msn 5), then txn 10 writes, viewed by someone who began at 8.
        let c = apply(b"k", None, msg(5, 0, put(b"a")).as_ref(), &reg, 0, &[]).unwrap();
        let c = apply(b"k", c, msg(11, 10, put(b"b")).as_ref(), &reg, 0, &[])
            .unwrap()
            .unwrap();
        let none = Arc::new(vec![]);
        let old = ReadView {
            own: 0,
            low_limit: 8,
            active: none.clone(),
            aborted: none.clone(),
        };
        let mine = ReadView {
            own: 10,
            low_limit: 9,
            active: none.clone(),
            aborted: none.clone(),
        };
        let later_active = ReadView {
            own: 0,
            low_limit: 20,
            active: Arc::new(vec![10]),
            aborted: none.clone(),
        };
        let after_rollback = ReadView {
            own: 0,
            low_limit: 20,
            active: none.clone(),
            aborted: Arc::new(vec![10]),
        };
        assert_eq!(c.visible(&after_rollback), Some(&b"a"[..]));
        assert_eq!(c.newest(&[10]), Some(&b"a"[..]));
        assert_eq!(c.visible(&old), Some(&b"a"[..]));
        assert_eq!(c.visible(&mine), Some(&b"b"[..]));
        assert_eq!(c.visible(&later_active), Some(&b"a"[..]));
        // Abort erases txn 10's version.
        let aborted = apply(
            b"k",
            Some(c.clone()),
            msg(12, 10, Op::Abort).as_ref(),
            &reg,
            0,
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(aborted.newest(&[]), Some(&b"a"[..]));
        // Garbage collection drops the versions of rolled-back transactions.
        assert_eq!(
            collect(c.clone(), 100, &[10]),
            Some(Cell::Plain(b"a".to_vec()))
        );
        // With everyone past txn 10, the stack collapses to the newest value.
        assert_eq!(collect(c, 100, &[]), Some(Cell::Plain(b"b".to_vec())));
        let del = apply(
            b"k",
            Some(Cell::Plain(b"x".to_vec())),
            msg(30, 0, Op::Delete).as_ref(),
            &reg,
            100,
            &[],
        )
        .unwrap();
        assert_eq!(del, None);
        let mut buf = Vec::new();
        aborted.encode(&mut buf);
        assert_eq!(Cell::decode(&mut Decoder::new(&buf)).unwrap(), aborted);
    }

    /// A reader that starts at `first_needed` sees what one applying every message from the stored cell
    /// sees, for random message runs (puts, deletes, upserts, aborts; committed, active and rolled-back
    /// transactions) and random views.
    #[test]
    fn starting_at_the_newest_visible_reset_changes_nothing() {
        use rand::{Rng, SeedableRng};
        let mut reg = UpdateRegistry::new();
        reg.register(1, |_, old, arg| {
            let mut v = old.unwrap_or_default().to_vec();
            v.extend_from_slice(arg);
            Some(v)
        });
        let mut r = rand::rngs::SmallRng::seed_from_u64(11);
        for _ in 0..20_000 {
            let n = r.gen_range(1..8);
            let mut msgs = Vec::new();
            for i in 0..n {
                let msn = 10 + i as u64;
                let txn = [0, 3, 4, 5, 40][r.gen_range(0..5)];
                let op = match r.gen_range(0..5) {
                    0 => Op::Put(vec![b'a' + i as u8]),
                    1 => Op::Delete,
                    2 if txn != 0 => Op::Abort,
                    _ => Op::Upsert {
                        func: 1,
                        arg: vec![b'0' + i as u8],
                    },
                };
                msgs.push(msg(msn, txn, op));
            }
            let stored = match r.gen_range(0..3) {
                0 => None,
                1 => Some(Cell::Plain(b"s".to_vec())),
                _ => Some(Cell::Versions(vec![Version {
                    txn: 4,
                    value: Some(b"v".to_vec()),
                }])),
            };
            let active: Vec<TxnId> = [3, 4, 40].into_iter().filter(|_| r.gen_bool(0.4)).collect();
            let aborted: Vec<TxnId> = [5].into_iter().filter(|_| r.gen_bool(0.5)).collect();
            let view = ReadView {
                own: [0, 3, 40][r.gen_range(0..3)],
                low_limit: r.gen_range(1..30),
                active: Arc::new(active),
                aborted: Arc::new(aborted.clone()),
            };
            let run = |from: usize, start: Option<Cell>| {
                let mut cell = start;
                for m in &msgs[from..] {
                    cell = apply(b"k", cell, m.as_ref(), &reg, 0, &aborted).unwrap();
                }
                cell.and_then(|c| c.visible(&view).map(<[u8]>::to_vec))
            };
            let all = run(0, stored.clone());
            let short = match first_needed(msgs.iter().map(Message::as_ref), &view) {
                Some(j) => run(j, None),
                None => run(0, stored.clone()),
            };
            assert_eq!(short, all, "{msgs:?} {stored:?} {view:?}");
        }
    }
}
