//! LOAD DATA into an empty table: every tree built bottom-up from sorted streams.
//!
//! Rows are converted in file order and pushed, with a sequence number, into one external
//! sorter for the primary tree and one per secondary index (index key = index columns ++ primary
//! key, empty value: the layout INSERT writes). Then `Store::bulk_replace` builds the staging
//! trees from the merged streams and swaps them in with one log record; the rows never reach the
//! log.
//!
//! Duplicates (equal primary keys, adjacent after the sort, in file order): REPLACE keeps the
//! last, IGNORE the first (warning 1062), otherwise error 1062 naming the file and line order.
//! The sequence numbers of dropped rows are collected while the primary stream is consumed
//! (bulk_replace builds the trees in order, primary first) and their index entries are skipped.
//!
//! A KILL of the connection stops the build at the next entry of any stream (the load fails, the
//! table is unchanged).
//!
//! Eligibility (checked under the whole-tree locks of the load's transaction, `merge::begin_locked`): no UNIQUE secondary index (their conflicts need
//! per-row checks, done by `merge`), and no visible row in the primary tree.

use std::cell::RefCell;
use std::collections::HashSet;
use std::iter::Peekable;
use std::rc::Rc;

use crate::catalog::TableDef;
use crate::codec::row::decode_row;
use crate::context::interrupt::Interrupt;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::load::sorter::{Entry, Merge, Sorter, TempDir};
use crate::load::{Counts, RowSource};
use crate::parser::load::OnDuplicate;

/// Whether the bulk build applies; `txn` holds the whole-tree locks of the table's trees (so no
/// other writer can add a row between this check and the swap).
pub fn eligible(cx: &Context, t: &TableDef, txn: &betula_storage::Txn) -> DbResult<bool> {
    // An index being built online reads the change log of the writes (design.md OIX2): a
    // swap of trees would bypass it.
    if t.indexes.iter().any(|ix| ix.unique) || cx.engine.store.online.is_active() {
        return Ok(false);
    }
    let tree = cx.engine.store.tree(&t.primary_tree())?;
    let first = txn
        .range(
            &tree,
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            false,
        )
        .next()
        .transpose()?;
    Ok(first.is_none())
}

/// Shared by the primary stream (which writes) and the index streams (which read).
#[derive(Default)]
struct Shared {
    dropped: HashSet<u64>,
    error: Option<DbError>,
    deleted: u64,
    skipped: u64,
    duplicates: Vec<DbError>,
}

struct Primary<'a> {
    inner: Peekable<Merge>,
    shared: Rc<RefCell<Shared>>,
    on_dup: OnDuplicate,
    t: &'a TableDef,
    interrupt: Interrupt,
}

fn storage_error(shared: &Rc<RefCell<Shared>>, e: DbError) -> betula_storage::Error {
    let msg = e.message.clone();
    shared.borrow_mut().error.get_or_insert(e);
    betula_storage::Error::InvalidArgument(msg)
}

impl Primary<'_> {
    fn duplicate(&self, e: &Entry) -> DbError {
        match decode_row(&self.t.layout, &e.2) {
            Ok(row) => DbError::duplicate(&self.t.dup_entry(&self.t.pk, &row), "PRIMARY"),
            Err(err) => err.into(),
        }
    }
}

impl Iterator for Primary<'_> {
    type Item = betula_storage::Result<(Vec<u8>, Vec<u8>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Err(e) = self.interrupt.check() {
            return Some(Err(storage_error(&self.shared, e)));
        }
        let mut cur = match self.inner.next()? {
            Ok(e) => e,
            Err(e) => return Some(Err(storage_error(&self.shared, e))),
        };
        loop {
            let same = match self.inner.peek() {
                Some(Ok(n)) => n.0 == cur.0,
                Some(Err(_)) => match self.inner.next() {
                    Some(Err(e)) => return Some(Err(storage_error(&self.shared, e))),
                    _ => unreachable!("peeked an error"),
                },
                None => false,
            };
            if !same {
                break;
            }
            let Some(Ok(next)) = self.inner.next() else {
                break;
            };
            match self.on_dup {
                OnDuplicate::Error => {
                    let mut e = self.duplicate(&next);
                    e.message = format!("{} (file row {})", e.message, next.1 + 1);
                    return Some(Err(storage_error(&self.shared, e)));
                }
                OnDuplicate::Replace => {
                    let mut s = self.shared.borrow_mut();
                    s.dropped.insert(cur.1);
                    s.deleted += 1;
                    cur = next;
                }
                OnDuplicate::Ignore => {
                    let e = self.duplicate(&next);
                    let mut s = self.shared.borrow_mut();
                    s.dropped.insert(next.1);
                    s.skipped += 1;
                    s.duplicates.push(e);
                }
            }
        }
        Some(Ok((cur.0, cur.2)))
    }
}

pub fn load(
    cx: &mut Context,
    t: &TableDef,
    src: &mut RowSource<'_>,
    on_dup: OnDuplicate,
    budget: usize,
) -> DbResult<Counts> {
    let tmp = TempDir::new(&cx.engine.config.datadir)?;
    let share = budget / (1 + t.indexes.len());
    let mut primary = Sorter::new(tmp.path(), "primary", share);
    let mut indexes: Vec<Sorter> = (0..t.indexes.len())
        .map(|i| Sorter::new(tmp.path(), &format!("index{i}"), share))
        .collect();
    let mut seq = 0u64;
    let mut bytes = Vec::new();
    while let Some((_, row)) = src.next_row(cx)? {
        let pk = t.encode_pk(&row)?;
        bytes.clear();
        crate::codec::row::encode_row(&t.layout, &row, &mut bytes)?;
        primary.push(&pk, seq, &bytes)?;
        for (i, s) in indexes.iter_mut().enumerate() {
            let v = crate::catalog::index_entry::entry_value(t, i, &row)?;
            s.push(&t.encode_index_key(i, &row, &pk)?, seq, &v)?;
        }
        seq += 1;
    }
    let records = seq;
    let shared = Rc::new(RefCell::new(Shared::default()));
    let mut loads: Vec<(String, betula_storage::SortedRows<'_>)> = vec![(
        t.primary_tree(),
        Box::new(Primary {
            inner: primary.finish()?.peekable(),
            shared: shared.clone(),
            on_dup,
            t,
            interrupt: cx.interrupt.clone(),
        }),
    )];
    for (i, s) in indexes.into_iter().enumerate() {
        let sh = shared.clone();
        let sh2 = shared.clone();
        let interrupt = cx.interrupt.clone();
        let merged = s.finish()?;
        loads.push((
            t.index_tree(i),
            Box::new(merged.filter_map(move |r| {
                if let Err(e) = interrupt.check() {
                    return Some(Err(storage_error(&sh2, e)));
                }
                match r {
                    Ok((k, seq, v)) => {
                        if sh.borrow().dropped.contains(&seq) {
                            None
                        } else {
                            Some(Ok((k, v)))
                        }
                    }
                    Err(e) => Some(Err(storage_error(&sh2, e))),
                }
            })),
        ));
    }
    let result = cx.engine.store.bulk_replace(loads);
    let mut s = shared.borrow_mut();
    if let Some(e) = s.error.take() {
        return Err(e);
    }
    result?;
    for e in std::mem::take(&mut s.duplicates) {
        src.warn(&e);
    }
    Ok(Counts {
        records,
        inserted: records - s.skipped,
        deleted: s.deleted,
        skipped: s.skipped,
    })
}
