//! Persisting AUTO_INCREMENT counters (design.md "AUTO_INCREMENT counters", AIC1-AIC4): the
//! tables whose counter moved since it was last written, and writing them before a commit or DDL.
//!
//! Invariants: a table enters the moved list at most once until it is written (its `Counters`
//! flag says whether it is listed); [`Engine::persist_auto_inc`] writes every listed counter that
//! is above its persisted value while it holds the list's mutex, so a commit that calls it finds
//! every counter moved before it written to the log ahead of its own commit record.
//! `Engine::counters_unwritten` counts the listed counters plus the one being written: it rises
//! before a table is listed and falls only once its counter is written, so a commit that reads 0
//! has nothing to wait for and skips the mutex (a commit that moved no counter does one atomic
//! load).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::engine::Engine;
use crate::catalog::{Counters, TableDef};
use crate::error::db_error::DbResult;

/// A table whose counter moved: its name when it moved, and its counters.
pub struct MovedCounter {
    db: String,
    name: String,
    counters: Arc<Counters>,
}

impl Engine {
    /// Notes that `t`'s AUTO_INCREMENT counter may have moved (AIC1). Cheap when already noted.
    pub fn auto_inc_moved(&self, t: &TableDef) {
        let c = &t.counters;
        if t.temporary.is_some()
            || c.auto_inc.load(Ordering::SeqCst) <= c.auto_inc_persisted.load(Ordering::SeqCst)
            || c.auto_inc_moved.load(Ordering::Relaxed)
            || c.auto_inc_moved.swap(true, Ordering::SeqCst)
        {
            return;
        }
        self.counters_unwritten.fetch_add(1, Ordering::SeqCst);
        self.moved_counters.lock().push(MovedCounter {
            db: t.db.clone(),
            name: t.name.clone(),
            counters: t.counters.clone(),
        });
    }

    /// Writes every moved counter (AIC2); called before a commit writes its commit record and
    /// before DDL.
    pub fn persist_auto_inc(&self) -> DbResult<()> {
        if self.counters_unwritten.load(Ordering::SeqCst) == 0 {
            return Ok(());
        }
        let mut moved = self.moved_counters.lock();
        while let Some(m) = moved.pop() {
            // Cleared first: a value taken from now on lists the table again.
            m.counters.auto_inc_moved.store(false, Ordering::SeqCst);
            let next = m.counters.auto_inc.load(Ordering::SeqCst);
            if next <= m.counters.auto_inc_persisted.load(Ordering::SeqCst) {
                self.counters_unwritten.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
            let written = self
                .catalog
                .write_auto_inc(self.store.env(), &m.db, &m.name, Some(next));
            if let Err(e) = written {
                m.counters.auto_inc_moved.store(true, Ordering::SeqCst);
                moved.push(m);
                return Err(e);
            }
            m.counters.auto_inc_persisted.store(next, Ordering::SeqCst);
            self.counters_unwritten.fetch_sub(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// DDL stored `t` (AIC3): its counter is written with its catalog entry.
    pub fn auto_inc_stored(&self, t: &TableDef) -> DbResult<()> {
        if t.temporary.is_some() {
            return Ok(());
        }
        if t.auto_inc_col().is_none() {
            // An ALTER that dropped the column drops the persisted counter too.
            if t.counters.auto_inc_persisted.swap(0, Ordering::SeqCst) > 0 {
                self.catalog
                    .write_auto_inc(self.store.env(), &t.db, &t.name, None)?;
            }
            return Ok(());
        }
        let next = t.counters.auto_inc.load(Ordering::SeqCst).max(1);
        self.catalog
            .write_auto_inc(self.store.env(), &t.db, &t.name, Some(next))?;
        t.counters.auto_inc_persisted.store(next, Ordering::SeqCst);
        Ok(())
    }

    /// DDL removed `t`'s catalog entry (DROP, or the old name of a RENAME): its counter goes too.
    pub fn auto_inc_forgotten(&self, t: &TableDef) -> DbResult<()> {
        if t.temporary.is_some() || t.auto_inc_col().is_none() {
            return Ok(());
        }
        self.catalog
            .write_auto_inc(self.store.env(), &t.db, &t.name, None)
    }
}
