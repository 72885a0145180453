//! An engine in a temporary directory and a session on it, for the tests that drive SQL through
//! the engine without a network (LOAD DATA).

use std::io::Cursor;
use std::sync::Arc;

use betula_sql::types::value::Value;
use betula_sql::{DbError, Engine, EngineConfig, Output, Session};
use betula_storage::{Durability, EnvOptions};

/// The engine's configuration: datadir `dir`, no sync, a 32 MiB cache.
pub fn config(dir: &std::path::Path) -> EngineConfig {
    EngineConfig {
        datadir: dir.to_path_buf(),
        env: EnvOptions {
            durability: Durability::NoSync,
            cache_bytes: 32 << 20,
            ..EnvOptions::default()
        },
        port: 0,
    }
}

/// Opens (or reopens) the engine in `dir` and a root session using database `d` (created).
pub fn engine(dir: &std::path::Path) -> (Arc<Engine>, Session) {
    let e = Engine::open(config(dir)).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "CREATE DATABASE IF NOT EXISTS d");
    exec(&mut s, "USE d");
    (e, s)
}

/// Runs `sql`; panics with the statement on an error.
pub fn exec(s: &mut Session, sql: &str) -> Output {
    s.execute(sql, &[]).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// LOAD DATA LOCAL with `data` as the client's file.
pub fn local(s: &mut Session, sql: &str, data: &[u8]) -> Result<Output, DbError> {
    let mut c = Cursor::new(data.to_vec());
    s.execute_with_input(sql, &[], Some(&mut c))
}

/// The info text of a statement that returns no rows.
pub fn info(o: &Output) -> String {
    match o {
        Output::Done { info, .. } => info.clone(),
        other => panic!("not done: {other:?}"),
    }
}

/// The rows of `sql`, each as its values joined by `|` (NULL as `NULL`).
pub fn rows(s: &mut Session, sql: &str) -> Vec<String> {
    match exec(s, sql) {
        Output::Rows { rows, .. } => rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v| match v {
                        Value::Null => "NULL".to_string(),
                        v => String::from_utf8_lossy(&v.to_text(None).unwrap()).into_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect(),
        other => panic!("{sql}: no rows: {other:?}"),
    }
}

/// SHOW WARNINGS, as [`rows`].
pub fn warnings(s: &mut Session) -> Vec<String> {
    rows(s, "SHOW WARNINGS")
}

/// The error number of `sql`, which must fail.
pub fn err(s: &mut Session, sql: &str) -> u16 {
    match s.execute(sql, &[]) {
        Ok(o) => panic!("{sql}: accepted: {o:?}"),
        Err(e) => e.code.number(),
    }
}
