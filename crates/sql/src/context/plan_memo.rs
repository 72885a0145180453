//! A prepared statement's planning memo: what planning found at one run that does not depend on
//! the parameter values, kept for the statement's next runs ([`PlanMemo`]). Today that is the
//! resolution of each base table the statement names (in FROM, or as the target of an UPDATE or
//! DELETE): its database and name, the definition, and the columns it adds to the statement's
//! scope, as the privilege check, the view and temporary-table lookups and the catalog's lookup
//! found them.
//!
//! Invariants (design.md PLC1-PLC6):
//! * An entry is a function of its key (the name as written, the alias, source or target) and of the state its
//!   [`Stamp`] records only; it is used only while that state is unchanged: the catalog's
//!   version (DDL, views, databases, grants: catalog/version.rs), the session's temporary
//!   tables' generation, the current database, the user.
//! * Only what succeeded is kept: a lookup that fails runs again at every run, so its error and
//!   warnings are those of a first run.
//! * What a run must do whatever it found before (the table-lock check and wait, the locks
//!   of the statement) is not kept: the caller does it on every run.

use std::sync::Arc;

use crate::catalog::TableDef;
use crate::context::Context;
use crate::expr::ScopeCol;

/// The state the memo's entries were found in.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamp {
    catalog: u64,
    temp: u64,
    db: Option<String>,
    user: String,
    host: String,
}

impl Stamp {
    /// The state `cx` is in now (the catalog's version read first: catalog/version.rs).
    pub fn of(cx: &Context) -> Stamp {
        Stamp {
            catalog: cx.engine.catalog.version(),
            temp: cx.temp.generation(),
            db: cx.db.clone(),
            user: cx.user.clone(),
            host: cx.host.clone(),
        }
    }

    /// Whether `cx` is still in this state (no allocation).
    pub fn holds(&self, cx: &Context) -> bool {
        self.catalog == cx.engine.catalog.version()
            && self.temp == cx.temp.generation()
            && self.db == cx.db
            && self.user == cx.user
            && self.host == cx.host
    }
}

/// One base table the statement names, as planning resolved it.
pub struct TableMemo {
    /// The key: the name's parts as written, the alias, and whether the table is the target
    /// of an UPDATE or DELETE (such an entry keeps no columns) rather than a source in FROM.
    pub parts: Vec<String>,
    pub alias: Option<String>,
    pub target: bool,
    pub db: String,
    pub name: String,
    /// The alias, or the table's name as written.
    pub alias_or_name: String,
    pub def: Arc<TableDef>,
    /// The columns the table adds to the statement's scope.
    pub cols: Vec<ScopeCol>,
}

/// What a prepared statement keeps between runs.
#[derive(Default)]
pub struct PlanMemo {
    stamp: Option<Stamp>,
    tables: Vec<TableMemo>,
}

/// A table found in the memo: what a run takes from it (copies).
pub struct TableHit {
    pub def: Arc<TableDef>,
    pub name: String,
    pub alias_or_name: String,
    pub cols: Vec<ScopeCol>,
}

impl PlanMemo {
    /// Keeps `entry`, found in the state `stamp` (taken before the lookups that found it).
    pub fn remember(&mut self, stamp: Stamp, entry: TableMemo) {
        if self.stamp.as_ref() != Some(&stamp) {
            self.forget();
            self.stamp = Some(stamp);
        }
        if !self
            .tables
            .iter()
            .any(|t| t.parts == entry.parts && t.alias == entry.alias && t.target == entry.target)
        {
            self.tables.push(entry);
        }
    }

    /// Forgets every entry.
    pub fn forget(&mut self) {
        self.stamp = None;
        self.tables.clear();
    }

    /// How many tables are kept.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }
}

impl Context {
    /// The running prepared statement's memo entry for the table named `parts` with `alias`,
    /// if it has one and the state is still the one it was found in (otherwise the memo forgets
    /// every entry). `None` when no prepared statement runs.
    pub fn memo_table(
        &mut self,
        parts: &[String],
        alias: Option<&str>,
        target: bool,
    ) -> Option<TableHit> {
        let holds = self
            .plan_memo
            .as_ref()?
            .stamp
            .as_ref()
            .is_some_and(|s| s.holds(self));
        let memo = self.plan_memo.as_mut()?;
        if !holds {
            memo.forget();
            return None;
        }
        let t = memo
            .tables
            .iter()
            .find(|t| t.parts == parts && t.alias.as_deref() == alias && t.target == target)?;
        Some(TableHit {
            def: t.def.clone(),
            name: t.name.clone(),
            alias_or_name: t.alias_or_name.clone(),
            cols: t.cols.clone(),
        })
    }

    /// Keeps `entry` in the running prepared statement's memo (nothing when none runs).
    pub fn memo_remember(&mut self, stamp: Stamp, entry: TableMemo) {
        if let Some(m) = self.plan_memo.as_mut() {
            m.remember(stamp, entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::engine::Engine;
    use crate::session::Session;

    fn session(dir: &std::path::Path) -> Session {
        let engine = Engine::open_for_test(dir);
        let mut s = engine.session(1, "root", "localhost");
        for sql in [
            "USE test",
            "CREATE TABLE t (id INT PRIMARY KEY)",
            "CREATE DATABASE d",
        ] {
            s.execute(sql, &[]).unwrap();
        }
        s
    }

    fn entry(s: &Session) -> TableMemo {
        let def = s.cx.find_table("test", "t").unwrap();
        TableMemo {
            parts: vec!["t".into()],
            alias: None,
            target: false,
            db: "test".into(),
            name: "t".into(),
            alias_or_name: "t".into(),
            def,
            cols: Vec::new(),
        }
    }

    /// After `change`, a stamp taken before it no longer holds and the memo forgets its entry.
    fn forgotten_after(change: &str) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(dir.path());
        s.cx.plan_memo = Some(Box::default());
        let (stamp, e) = (Stamp::of(&s.cx), entry(&s));
        s.cx.memo_remember(stamp.clone(), e);
        assert!(stamp.holds(&s.cx));
        assert!(s.cx.memo_table(&["t".into()], None, false).is_some());
        assert!(s.cx.memo_table(&["t".into()], Some("x"), false).is_none());
        assert!(s.cx.memo_table(&["t".into()], None, true).is_none());
        s.execute(change, &[]).unwrap();
        assert!(!stamp.holds(&s.cx), "{change}");
        assert!(
            s.cx.memo_table(&["t".into()], None, false).is_none(),
            "{change}"
        );
        assert!(s.cx.plan_memo.as_ref().unwrap().is_empty());
    }

    #[test]
    fn the_stamp_holds_until_the_catalog_temporary_tables_or_database_change() {
        for change in [
            "ALTER TABLE t ADD COLUMN c INT",
            "CREATE INDEX i ON t (id)",
            "DROP TABLE t",
            "RENAME TABLE t TO u",
            "CREATE TABLE other (a INT)",
            "CREATE VIEW v AS SELECT 1",
            "CREATE USER someone",
            "CREATE TEMPORARY TABLE t (x INT)",
            "USE d",
            "DROP DATABASE d",
        ] {
            forgotten_after(change);
        }
    }

    #[test]
    fn reads_and_rows_written_leave_the_stamp_holding() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(dir.path());
        let stamp = Stamp::of(&s.cx);
        for sql in [
            "INSERT INTO t VALUES (1)",
            "SELECT * FROM t",
            "SET sql_mode = ''",
            "UPDATE t SET id = 2",
        ] {
            s.execute(sql, &[]).unwrap();
        }
        assert!(stamp.holds(&s.cx));
    }
}
