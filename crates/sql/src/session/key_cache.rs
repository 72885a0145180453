//! Named key caches (MyISAM's `name.key_buffer_size` structured variables) and the statements
//! that use them: `CACHE INDEX ... IN name` and `LOAD INDEX INTO CACHE ...`.
//!
//! Betula has one node cache for every tree (cache_size), so a key cache holds nothing: the
//! caches exist only so that scripts written for MariaDB run. Their parameters are kept and read
//! back as MariaDB keeps them; CACHE INDEX and LOAD INDEX answer, per table, the note MariaDB
//! gives for an engine without key caches (as InnoDB does).
//!
//! Invariants: the cache `default` always exists; setting a cache's key_buffer_size to 0 removes
//! it (except `default`); setting any parameter of an unknown cache creates it. Caches live in
//! memory only, as in MariaDB, where they are gone after a restart.

use std::collections::BTreeMap;

use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::scan::Output;
use crate::parser::tokens::Cursor;
use crate::session::admin::{expect_end, syntax};
use crate::types::value::Value;

/// A key cache's parameters and their MariaDB defaults.
pub const PARAMS: [(&str, u64); 6] = [
    ("key_buffer_size", 134_217_728),
    ("key_cache_age_threshold", 300),
    ("key_cache_block_size", 1024),
    ("key_cache_division_limit", 100),
    ("key_cache_file_hash_size", 512),
    ("key_cache_segments", 0),
];

/// Every named key cache and its parameters.
pub struct KeyCaches {
    caches: BTreeMap<String, BTreeMap<&'static str, u64>>,
}

impl Default for KeyCaches {
    fn default() -> KeyCaches {
        let mut caches = BTreeMap::new();
        caches.insert("default".to_string(), defaults());
        KeyCaches { caches }
    }
}

fn defaults() -> BTreeMap<&'static str, u64> {
    PARAMS.iter().copied().collect()
}

/// The canonical name of a key-cache parameter, if `name` is one.
pub fn param(name: &str) -> Option<&'static str> {
    PARAMS
        .iter()
        .map(|(p, _)| *p)
        .find(|p| p.eq_ignore_ascii_case(name))
}

impl KeyCaches {
    pub fn exists(&self, name: &str) -> bool {
        self.caches.contains_key(&name.to_ascii_lowercase())
    }
    /// A parameter's value (`None`: no such cache).
    pub fn get(&self, cache: &str, param: &'static str) -> Option<u64> {
        let c = self.caches.get(&cache.to_ascii_lowercase())?;
        c.get(param).copied()
    }
    /// `SET GLOBAL cache.param = value`.
    pub fn set(&mut self, cache: &str, param: &'static str, value: u64) {
        let name = cache.to_ascii_lowercase();
        if param == "key_buffer_size" && value == 0 && name != "default" {
            self.caches.remove(&name);
            return;
        }
        self.caches
            .entry(name)
            .or_insert_with(defaults)
            .insert(param, value);
    }
}

/// `SET GLOBAL cache.param = v` (the caller has checked `param`).
pub fn assign(cx: &mut Context, cache: &str, param: &'static str, v: &Value) -> DbResult<()> {
    let n = match v {
        Value::Int(i) if *i >= 0 => *i as u64,
        Value::UInt(u) => *u,
        Value::Double(d) if *d >= 0.0 => *d as u64,
        Value::Decimal(d) if !d.is_negative() => d.round_to_i128() as u64,
        _ => {
            return Err(DbError::new(
                1232,
                "42000",
                format!("Incorrect argument type to variable '{param}'"),
            ))
        }
    };
    cx.engine.key_caches.lock().set(cache, param, n);
    Ok(())
}

/// `CACHE INDEX t [{INDEX|KEY} (i, ...)], ... IN cache` after `CACHE INDEX`.
pub fn cache_index(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    let tables = table_list(c, false)?;
    if !c.kw("IN") {
        return Err(syntax(c));
    }
    let cache = c.name().ok_or_else(|| syntax(c))?;
    expect_end(c)?;
    if !cx.engine.key_caches.lock().exists(&cache) {
        return Err(DbError::new(
            1284,
            "HY000",
            format!("Unknown key cache '{cache}'"),
        ));
    }
    report(cx, tables, "assign_to_keycache")
}

/// `LOAD INDEX INTO CACHE t [{INDEX|KEY} (i, ...)] [IGNORE LEAVES], ...` after `LOAD INDEX`.
pub fn load_index(cx: &mut Context, c: &mut Cursor<'_>) -> DbResult<Output> {
    if !c.kws(&["INTO", "CACHE"]) {
        return Err(syntax(c));
    }
    let tables = table_list(c, true)?;
    expect_end(c)?;
    report(cx, tables, "preload_keys")
}

/// One table of the list with the index names given for it.
type Named = (Vec<String>, Vec<String>);

fn table_list(c: &mut Cursor<'_>, leaves: bool) -> DbResult<Vec<Named>> {
    let mut out = Vec::new();
    loop {
        let parts = c.qualified().ok_or_else(|| syntax(c))?;
        let mut indexes = Vec::new();
        if c.kw("INDEX") || c.kw("KEY") {
            if !c.sym('(') {
                return Err(syntax(c));
            }
            if !c.sym(')') {
                loop {
                    indexes.push(c.name().ok_or_else(|| syntax(c))?);
                    if c.sym(')') {
                        break;
                    }
                    if !c.sym(',') {
                        return Err(syntax(c));
                    }
                }
            }
        }
        if leaves && c.kw("IGNORE") && !c.kw("LEAVES") {
            return Err(syntax(c));
        }
        out.push((parts, indexes));
        if !c.sym(',') {
            return Ok(out);
        }
    }
}

/// The result rows: per table the note that Betula keeps no key caches, or why the table could
/// not be used (missing table, unknown index) as MariaDB reports it.
fn report(cx: &mut Context, tables: Vec<Named>, op: &str) -> DbResult<Output> {
    let mut rows = Vec::new();
    let text = |s: &str| Value::Text(s.to_string());
    for (parts, indexes) in tables {
        let (db, t) = cx.resolve_table_name(&parts)?;
        let label = text(&format!("{db}.{t}"));
        let problem = match cx.get_table(&db, &t) {
            Err(e) => Some(e.message),
            Ok(def) => indexes
                .iter()
                .find(|i| {
                    !i.eq_ignore_ascii_case("PRIMARY")
                        && !def.indexes.iter().any(|x| x.name.eq_ignore_ascii_case(i))
                })
                .map(|i| format!("Key '{i}' doesn't exist in table '{t}'")),
        };
        match problem {
            Some(msg) => {
                rows.push(vec![label.clone(), text(op), text("Error"), text(&msg)]);
                rows.push(vec![
                    label,
                    text(op),
                    text("status"),
                    text("Operation failed"),
                ]);
            }
            None => rows.push(vec![
                label,
                text(op),
                text("note"),
                text(&format!(
                    "The storage engine for the table doesn't support {op}"
                )),
            ]),
        }
    }
    Ok(Output::text(&["Table", "Op", "Msg_type", "Msg_text"], rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_are_created_by_any_parameter_and_dropped_by_a_zero_size() {
        let mut k = KeyCaches::default();
        assert!(k.exists("DEFAULT"));
        assert!(!k.exists("c1"));
        k.set("c1", "key_cache_block_size", 512);
        assert_eq!(k.get("c1", "key_cache_block_size"), Some(512));
        assert_eq!(k.get("C1", "key_buffer_size"), Some(134_217_728));
        k.set("c1", "key_buffer_size", 0);
        assert!(!k.exists("c1"));
        k.set("default", "key_buffer_size", 0);
        assert!(k.exists("default"));
        assert_eq!(param("KEY_BUFFER_SIZE"), Some("key_buffer_size"));
        assert_eq!(param("sort_buffer_size"), None);
    }
}
