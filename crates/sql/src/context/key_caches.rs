//! Named key caches (MyISAM's `name.key_buffer_size` structured variables): the engine-wide
//! state behind `SET GLOBAL cache.param = v`, CACHE INDEX and LOAD INDEX (session/key_cache.rs).
//!
//! Betula has one node cache for every tree (cache_size), so a key cache holds nothing: the
//! caches exist only so that scripts written for MariaDB run. Their parameters are kept and read
//! back as MariaDB keeps them.
//!
//! Invariants: the cache `default` always exists; setting a cache's key_buffer_size to 0 removes
//! it (except `default`); setting any parameter of an unknown cache creates it. Caches live in
//! memory only, as in MariaDB, where they are gone after a restart.

use std::collections::BTreeMap;

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
