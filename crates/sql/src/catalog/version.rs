//! The catalog's version: a counter that moves on every change of the in-memory maps (tables,
//! views, databases, users and their grants, servers), so that what was derived from the catalog
//! can tell whether it still holds (a prepared statement's planning memo: design.md PLC2).
//!
//! Invariant: every write to the maps goes through [`Catalog::write_state`], whose guard counts
//! the new version when it is dropped, after the change and before the lock is released. A reader
//! that reads the version first and the maps after therefore never pairs an old map with the
//! version that follows the change: at worst it pairs a new map with the version before it, and
//! its next check finds the version moved on.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::RwLockWriteGuard;

use super::persist::{Catalog, State};

/// A write to the catalog's maps; dropping it counts a new version.
pub(super) struct StateWrite<'a> {
    guard: RwLockWriteGuard<'a, State>,
    version: &'a AtomicU64,
}

impl Deref for StateWrite<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl DerefMut for StateWrite<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

impl Drop for StateWrite<'_> {
    fn drop(&mut self) {
        // Runs before the guard field is dropped: the lock is still held.
        self.version.fetch_add(1, Ordering::Release);
    }
}

impl Catalog {
    /// The maps, for a change (the only way to write them).
    pub(super) fn write_state(&self) -> StateWrite<'_> {
        StateWrite {
            guard: self.state.write(),
            version: &self.version,
        }
    }

    /// The catalog's version (read it before reading the maps).
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use crate::context::engine::Engine;

    #[test]
    fn every_write_moves_the_version_and_reads_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open_for_test(dir.path());
        let cat = &engine.catalog;
        let v0 = cat.version();
        let _ = cat.has_db("test");
        let _ = cat.table("test", "t");
        assert_eq!(cat.version(), v0);
        cat.put_db("d", Default::default()).unwrap();
        let v1 = cat.version();
        assert!(v1 > v0);
        cat.drop_db("d").unwrap();
        assert!(cat.version() > v1);
    }
}
