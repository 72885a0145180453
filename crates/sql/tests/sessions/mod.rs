//! Engine and session helpers shared by the engine-level tests: an engine over a temporary data
//! directory (no sync, small cache), statement execution that fails the test with the SQL, and
//! result rows as text.
#![allow(dead_code)]

pub mod crash;

use std::sync::Arc;

use betula_sql::types::value::Value;
use betula_sql::{Engine, EngineConfig, Output, Session};
use betula_storage::vfs::Vfs;
use betula_storage::{Durability, EnvOptions, TreeOptions};

pub fn config(dir: &std::path::Path) -> EngineConfig {
    EngineConfig {
        datadir: dir.to_path_buf(),
        env: EnvOptions {
            durability: Durability::NoSync,
            cache_bytes: 16 << 20,
            ..EnvOptions::default()
        },
        port: 0,
    }
}

/// For crash tests: an engine over `vfs` (sync at commit, no background threads, 4 KiB nodes so that
/// a few statements make many blocks) and a root session; None if it does not open.
pub fn open_crash_engine(
    dir: &std::path::Path,
    vfs: Arc<dyn Vfs>,
) -> Option<(Arc<Engine>, Session)> {
    let mut config = config(dir);
    config.env = EnvOptions {
        durability: Durability::Sync,
        background: false,
        cache_bytes: 4 << 20,
        default_tree: TreeOptions {
            node_size_bytes: 4096,
            basement_size_bytes: 1024,
            ..TreeOptions::default()
        },
        ..EnvOptions::default()
    };
    let e = Engine::open_with_vfs(config, vfs).ok()?;
    let s = e.session(1, "root", "localhost");
    Some((e, s))
}

/// An engine over `dir` and a root session using database `test`, after running `setup`.
pub fn open(dir: &std::path::Path, setup: &[&str]) -> (Arc<Engine>, Session) {
    let e = Engine::open(config(dir)).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "USE test");
    for sql in setup {
        exec(&mut s, sql);
    }
    (e, s)
}

pub fn exec(s: &mut Session, sql: &str) -> Output {
    s.execute(sql, &[]).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The MySQL error code of a statement that must fail.
pub fn err_code(s: &mut Session, sql: &str) -> u16 {
    match s.execute(sql, &[]) {
        Ok(o) => panic!("{sql}: expected an error, got {o:?}"),
        Err(e) => e.code.number(),
    }
}

pub fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    match exec(s, sql) {
        Output::Rows { rows, .. } => rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v| match v {
                        Value::Null => "NULL".to_string(),
                        v => String::from_utf8_lossy(&v.to_text(None).unwrap()).into_owned(),
                    })
                    .collect()
            })
            .collect(),
        other => panic!("{sql}: no rows: {other:?}"),
    }
}

/// The sort and grouping spill directories (`#sort-tmp-*`) present in `datadir`.
pub fn sort_dirs(datadir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(datadir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("#sort-tmp-"))
        .collect()
}
