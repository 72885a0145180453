//! LOAD DATA into a non-empty table: sorted batches through one storage transaction.
//!
//! Rows are read in batches (bounded by the memory budget), sorted by primary key (ties in file
//! order), de-duplicated within the batch as REPLACE / IGNORE / error say, checked against the
//! table (a point read of the primary key through the transaction, which sees its own earlier
//! batches; a prefix scan of each UNIQUE index), and written with `Txn::write_sorted`: one
//! whole-tree lock per tree, messages in key order, no per-row lock. Secondary index changes are
//! sorted per index before they are written. Tables with a UNIQUE secondary index write each
//! row's changes at once so that later rows of the batch see them.
//!
//! Atomicity: everything is in one storage transaction: an error drops it (rollback), a crash
//! before its commit record is durable is rolled back by recovery; readers never see part of it.

use std::ops::Bound;

use betula_storage::{Isolation, Op, TreeHandle, Txn, TxnOptions};

use crate::catalog::TableDef;
use crate::codec::key::prefix_successor;
use crate::codec::row::decode_row;
use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::dml::encode;
use crate::load::{commit_durability, Counts, RowSource};
use crate::parser::load::OnDuplicate;
use crate::types::value::Value;

/// A row holding the same UNIQUE index values: (its primary key, key name, key columns).
type UniqueConflict = (Vec<u8>, String, Vec<usize>);

/// One row of a batch.
#[derive(Default)]
struct Row {
    pk: Vec<u8>,
    seq: u64,
    enc: Vec<u8>,
    /// Key and value of the row's entry in each secondary index.
    ikeys: Vec<(Vec<u8>, Vec<u8>)>,
    /// The values, only when UNIQUE secondary indexes are checked.
    row: Option<Vec<Value>>,
}

/// Duplicate-key error for the row encoded as `enc` (decoded only for the message).
fn pk_duplicate(t: &TableDef, enc: &[u8]) -> DbResult<DbError> {
    let row = decode_row(&t.layout, enc)?;
    Ok(DbError::duplicate(&t.dup_entry(&t.pk, &row), "PRIMARY"))
}

/// Rows per batch at most (the byte budget usually ends a batch first).
const BATCH_ROWS_MAX: usize = 1 << 20;

struct Writer<'a> {
    t: &'a TableDef,
    txn: Txn,
    primary: TreeHandle,
    indexes: Vec<TreeHandle>,
    prim_ops: Vec<(Vec<u8>, Op)>,
    index_ops: Vec<Vec<(Vec<u8>, Op)>>,
    /// The smallest key present in the primary tree at or after the last probe (`Some(None)`: no
    /// key after it); keys below it are known absent. Valid while probes ascend (one batch).
    bound: Option<Option<Vec<u8>>>,
    /// Entered into an online index build's epoch (design.md OIX2); after `txn`, so that it is
    /// left only once the transaction ended.
    online: Option<crate::store::online::Entered>,
    /// The engine, for the trees of that build.
    engine: std::sync::Arc<crate::context::engine::Engine>,
}

impl Writer<'_> {
    fn flush(&mut self) -> DbResult<()> {
        let ops = std::mem::take(&mut self.prim_ops);
        // The whole tree is locked (`begin_locked`): every key of `ops` is this load's.
        let online = match &self.online {
            Some(e) => e.writes_for(&self.txn, &self.primary, &self.t.primary_tree(), &ops)?,
            None => None,
        };
        self.txn.write_sorted(&self.primary, ops)?;
        if let Some(w) = online {
            w.write(&self.engine.store, &mut self.txn)?;
        }
        for (i, h) in self.indexes.iter().enumerate() {
            let mut ops = std::mem::take(&mut self.index_ops[i]);
            // Stable: a delete and a put of the same key keep their order; the last one wins.
            ops.sort_by(|a, b| a.0.cmp(&b.0));
            let mut dedup: Vec<(Vec<u8>, Op)> = Vec::with_capacity(ops.len());
            for op in ops {
                match dedup.last_mut() {
                    Some(last) if last.0 == op.0 => *last = op,
                    _ => dedup.push(op),
                }
            }
            self.txn.write_sorted(h, dedup)?;
        }
        Ok(())
    }

    fn delete_row(&mut self, pk: &[u8], row: &[Value]) -> DbResult<()> {
        for i in 0..self.t.indexes.len() {
            let k = self.t.encode_index_key(i, row, pk)?;
            self.index_ops[i].push((k, Op::Delete));
        }
        Ok(())
    }

    /// The existing row at `pk` (probes ascend within a batch): one seek per gap between present
    /// keys instead of one point read per row, so appending after existing keys costs a seek per
    /// run of new keys.
    fn probe(&mut self, pk: &[u8]) -> DbResult<Option<Vec<Value>>> {
        match &self.bound {
            Some(None) => return Ok(None),
            Some(Some(b)) if pk < b.as_slice() => return Ok(None),
            _ => {}
        }
        let first = self
            .txn
            .range(&self.primary, Bound::Included(pk), Bound::Unbounded, false)
            .next()
            .transpose()?;
        match first {
            None => {
                self.bound = Some(None);
                Ok(None)
            }
            Some((k, v)) if k == pk => {
                self.bound = None;
                Ok(Some(decode_row(&self.t.layout, &v)?))
            }
            Some((k, _)) => {
                self.bound = Some(Some(k));
                Ok(None)
            }
        }
    }

    fn get_row(&self, pk: &[u8]) -> DbResult<Option<Vec<Value>>> {
        match self.txn.get(&self.primary, pk)? {
            Some(v) => Ok(Some(decode_row(&self.t.layout, &v)?)),
            None => Ok(None),
        }
    }

    /// Another row with the same values in a UNIQUE index: (its primary key, key name, columns).
    fn unique_conflict(&self, row: &[Value], pk: &[u8]) -> DbResult<Option<UniqueConflict>> {
        for (i, ix) in self.t.indexes.iter().enumerate() {
            if !ix.unique || ix.columns.iter().any(|&c| row[c].is_null()) {
                continue;
            }
            let prefix = self.t.encode_index_prefix(i, row)?;
            let hi = prefix_successor(&prefix);
            let hi_b = match &hi {
                Some(h) => Bound::Excluded(h.as_slice()),
                None => Bound::Unbounded,
            };
            for item in self.txn.range(
                &self.indexes[i],
                Bound::Included(prefix.as_slice()),
                hi_b,
                false,
            ) {
                let (k, _) = item?;
                let other = &k[prefix.len()..];
                if other != pk {
                    return Ok(Some((other.to_vec(), ix.name.clone(), ix.columns.clone())));
                }
            }
        }
        Ok(None)
    }
}

/// Starts the load's storage transaction and takes the whole-tree lock of every tree of the table
/// (concurrent writers of the table wait until the load ends; readers do not).
pub fn begin_locked(cx: &Context, t: &TableDef) -> DbResult<Txn> {
    let store = &cx.engine.store;
    let timeout = cx
        .vars
        .get("innodb_lock_wait_timeout")
        .and_then(|v| v.to_f64_lenient())
        .unwrap_or(50.0)
        .clamp(0.0, 1e6);
    let mut txn = store.env().begin(TxnOptions {
        isolation: Isolation::ReadCommitted,
        lock_timeout: std::time::Duration::from_secs_f64(timeout),
        durability: commit_durability(cx),
    })?;
    txn.set_wait_cancel(Some(cx.interrupt.wait_cancel()));
    for name in t.all_trees() {
        txn.lock_whole_tree(&store.tree(&name)?)?;
    }
    Ok(txn)
}

/// Loads the rows of `src` into table `t` (not empty) through `txn` (from [`begin_locked`]), in
/// sorted batches of about `budget` bytes, and commits.
pub fn load(
    cx: &mut Context,
    t: &TableDef,
    src: &mut RowSource<'_>,
    on_dup: OnDuplicate,
    budget: usize,
    txn: Txn,
) -> DbResult<Counts> {
    let store = &cx.engine.store;
    let mut w = Writer {
        t,
        txn,
        primary: store.tree(&t.primary_tree())?,
        indexes: (0..t.indexes.len())
            .map(|i| store.tree(&t.index_tree(i)))
            .collect::<DbResult<_>>()?,
        prim_ops: Vec::new(),
        index_ops: vec![Vec::new(); t.indexes.len()],
        bound: None,
        online: None,
        engine: cx.engine.clone(),
    };
    w.online = store
        .online
        .enter(std::iter::once(t.primary_tree().as_str()));
    let has_unique = t.indexes.iter().any(|ix| ix.unique);
    let mut c = Counts::default();
    let mut seq = 0u64;
    loop {
        let mut batch = read_batch(cx, t, src, budget, has_unique, &mut seq)?;
        if batch.is_empty() {
            break;
        }
        c.records += batch.len() as u64;
        batch.sort_by(|a, b| a.pk.cmp(&b.pk).then(a.seq.cmp(&b.seq)));
        w.bound = None;
        let mut i = 0;
        while i < batch.len() {
            // The group of rows with this primary key, in file order.
            let mut j = i + 1;
            while j < batch.len() && batch[j].pk == batch[i].pk {
                j += 1;
            }
            let pick = i + pick_in_group(t, &batch[i..j], on_dup, src, &mut c)?;
            let row = std::mem::take(&mut batch[pick]);
            i = j;
            w.merge_row(row, on_dup, src, &mut c, has_unique)?;
        }
        w.flush()?;
    }
    w.txn.commit()?;
    Ok(c)
}

/// The next batch of rows of `src`, numbered from `seq` on, until `budget` bytes (estimated) or
/// [`BATCH_ROWS_MAX`] rows; rows are kept decoded only when UNIQUE indexes need them.
fn read_batch(
    cx: &mut Context,
    t: &TableDef,
    src: &mut RowSource<'_>,
    budget: usize,
    has_unique: bool,
    seq: &mut u64,
) -> DbResult<Vec<Row>> {
    let mut batch: Vec<Row> = Vec::new();
    let mut bytes = 0usize;
    while bytes < budget && batch.len() < BATCH_ROWS_MAX {
        let Some((_, row)) = src.next_row(cx)? else {
            break;
        };
        let pk = t.encode_pk(&row)?;
        let enc = encode(t, &row)?;
        let ikeys = (0..t.indexes.len())
            .map(|ix| {
                Ok((
                    t.encode_index_key(ix, &row, &pk)?,
                    crate::catalog::index_entry::entry_value(t, ix, &row)?,
                ))
            })
            .collect::<DbResult<Vec<_>>>()?;
        bytes += pk.len()
            + enc.len()
            + ikeys
                .iter()
                .map(|(k, v)| k.len() + v.len() + 24)
                .sum::<usize>()
            + 96;
        batch.push(Row {
            pk,
            seq: *seq,
            enc,
            ikeys,
            row: has_unique.then_some(row),
        });
        *seq += 1;
    }
    Ok(batch)
}

/// Which row of `group` (rows of a batch with the same primary key, in file order) is written:
/// the last for REPLACE (the others count as deleted), the first for IGNORE (the others are
/// skipped with a warning) and for ERROR, where a second row is the error.
fn pick_in_group(
    t: &TableDef,
    group: &[Row],
    on_dup: OnDuplicate,
    src: &mut RowSource<'_>,
    c: &mut Counts,
) -> DbResult<usize> {
    let extra = group.len() - 1;
    Ok(match on_dup {
        OnDuplicate::Replace => {
            c.deleted += extra as u64;
            extra
        }
        OnDuplicate::Ignore => {
            for r in &group[1..] {
                src.warn(&pk_duplicate(t, &r.enc)?);
            }
            c.skipped += extra as u64;
            0
        }
        OnDuplicate::Error if extra > 0 => {
            let r = &group[1];
            return Err(at_file_row(pk_duplicate(t, &r.enc)?, r.seq));
        }
        OnDuplicate::Error => 0,
    })
}

/// `e` with the file row of the row numbered `seq` (0-based) appended to its message.
fn at_file_row(e: DbError, seq: u64) -> DbError {
    DbError {
        message: format!("{} (file row {})", e.message, seq + 1),
        ..e
    }
}

impl Writer<'_> {
    /// Writes the row picked from its group against the table: the existing row with its
    /// primary key and the rows holding its UNIQUE values are replaced, skipped or an error as
    /// `on_dup` says.
    fn merge_row(
        &mut self,
        r: Row,
        on_dup: OnDuplicate,
        src: &mut RowSource<'_>,
        c: &mut Counts,
        has_unique: bool,
    ) -> DbResult<()> {
        let Row {
            pk,
            seq: rseq,
            enc,
            ikeys,
            row,
        } = r;
        if let Some(old) = self.probe(&pk)? {
            match on_dup {
                OnDuplicate::Replace => {
                    self.delete_row(&pk, &old)?;
                    c.deleted += 1;
                }
                OnDuplicate::Ignore => {
                    src.warn(&pk_duplicate(self.t, &enc)?);
                    c.skipped += 1;
                    return Ok(());
                }
                OnDuplicate::Error => {
                    return Err(at_file_row(pk_duplicate(self.t, &enc)?, rseq));
                }
            }
        }
        if let Some(row) = row.as_deref() {
            if !self.resolve_unique(row, &pk, rseq, on_dup, src, c)? {
                return Ok(());
            }
        }
        for (ix, (k, v)) in ikeys.into_iter().enumerate() {
            self.index_ops[ix].push((k, Op::Put(v)));
        }
        self.prim_ops.push((pk, Op::Put(enc)));
        c.inserted += 1;
        if has_unique {
            self.flush()?;
        }
        Ok(())
    }

    /// Resolves the rows holding `row`'s UNIQUE index values (file row `rseq`): deleted one by
    /// one for REPLACE; for IGNORE the row is skipped (`false`); for ERROR the first is the
    /// error.
    fn resolve_unique(
        &mut self,
        row: &[Value],
        pk: &[u8],
        rseq: u64,
        on_dup: OnDuplicate,
        src: &mut RowSource<'_>,
        c: &mut Counts,
    ) -> DbResult<bool> {
        while let Some((other, key, cols)) = self.unique_conflict(row, pk)? {
            let e = DbError::duplicate(&self.t.dup_entry(&cols, row), &key);
            match on_dup {
                OnDuplicate::Replace => {
                    let Some(old) = self.get_row(&other)? else {
                        break;
                    };
                    self.delete_row(&other, &old)?;
                    self.prim_ops.push((other.clone(), Op::Delete));
                    self.flush()?;
                    self.bound = None;
                    c.deleted += 1;
                }
                OnDuplicate::Ignore => {
                    src.warn(&e);
                    c.skipped += 1;
                    return Ok(false);
                }
                OnDuplicate::Error => return Err(at_file_row(e, rseq)),
            }
        }
        Ok(true)
    }
}
