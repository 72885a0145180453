//! The crash-at-every-sync loop the crash tests share: a scenario is run once on a clean simulated
//! file system to count its syncs, then once per sync point n (1..=syncs + 1: the last is a power
//! loss after the statement returned, losing only unsynced writes) on a file system that dies at
//! its n-th sync; the engine is reopened on what the power loss left and handed to the test's check.

use std::path::Path;
use std::sync::Arc;

use betula_sql::{Engine, Session};
use betula_storage::vfs::{SimCrashPlan, SimVfs, Vfs};

/// One crash point after the scenario's setup: the engine reopened on the crash image (its
/// session using database `d`) and whether the scenario's statement was acknowledged.
pub struct CrashPoint {
    pub at: u64,
    pub engine: Arc<Engine>,
    pub session: Session,
    pub acked: bool,
}

/// Runs `scenario` (the setup and the statement on the given file system; returns (setup done,
/// statement acknowledged)) crashed at every sync point and calls `check` for each point where
/// the setup was done. Asserts that the clean run is acknowledged, that at least two points were
/// checked and that one of them was acknowledged; returns the number of points checked.
pub fn at_every_sync(
    dir: &Path,
    scenario: impl Fn(&Path, Arc<SimVfs>) -> (bool, bool),
    mut check: impl FnMut(CrashPoint),
) -> usize {
    let clean = Arc::new(SimVfs::new());
    assert_eq!(scenario(dir, clean.clone()), (true, true), "the clean run");
    let syncs = clean.sync_count();
    let (mut checked, mut acked_seen) = (0, false);
    for at in 1..=syncs + 1 {
        let vfs = Arc::new(SimVfs::new());
        vfs.set_plan(SimCrashPlan {
            crash_at_sync: Some(at),
            fail_write: None,
        });
        let (setup_done, acked) = scenario(dir, vfs.clone());
        let image: Arc<dyn Vfs> = Arc::new(vfs.crash_image(at));
        let (engine, mut session) =
            super::open_crash_engine(dir, image).expect("reopens after a crash");
        if !setup_done {
            continue;
        }
        super::exec(&mut session, "USE d");
        check(CrashPoint {
            at,
            engine,
            session,
            acked,
        });
        checked += 1;
        acked_seen |= acked;
    }
    assert!(
        checked >= 2 && acked_seen,
        "{checked} crash points after the setup of {syncs} syncs"
    );
    checked
}

/// Runs `setup` then `op` on an engine over `vfs`; returns (setup done, `op` acknowledged).
pub fn run_statements(dir: &Path, vfs: Arc<SimVfs>, setup: &[String], op: &str) -> (bool, bool) {
    let Some((_e, mut s)) = super::open_crash_engine(dir, vfs) else {
        return (false, false);
    };
    for sql in setup {
        if s.execute(sql, &[]).is_err() {
            return (false, false);
        }
    }
    (true, s.execute(op, &[]).is_ok())
}

/// `op` after `setup` is all or nothing at every sync point: each reopened engine shows `state`
/// as before `op` or as after it, and as after it once `op` was acknowledged; `check` runs on each
/// reopened engine as well.
pub fn all_or_nothing<S: PartialEq + std::fmt::Debug>(
    setup: &[String],
    op: &str,
    state: impl Fn(&mut Session) -> S,
    check: impl Fn(&Engine),
) {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = {
        let (_e, mut s) = super::open_crash_engine(dir.path(), Arc::new(SimVfs::new())).unwrap();
        for sql in setup {
            super::exec(&mut s, sql);
        }
        let before = state(&mut s);
        super::exec(&mut s, op);
        (before, state(&mut s))
    };
    assert_ne!(before, after, "{op} changed nothing");
    let scenario = |d: &Path, vfs: Arc<SimVfs>| run_statements(d, vfs, setup, op);
    at_every_sync(dir.path(), scenario, |mut p| {
        let now = state(&mut p.session);
        check(&p.engine);
        if p.acked {
            assert_eq!(
                now, after,
                "{op}: crash at sync {} lost the acknowledged change",
                p.at
            );
        } else {
            assert!(
                now == before || now == after,
                "{op}: crash at sync {} left a mix:\n{now:#?}\nbefore {before:#?}\nafter {after:#?}",
                p.at
            );
        }
    });
}
