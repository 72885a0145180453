//! Foreign servers (CREATE SERVER): [`ServerDef`], its stored form, and the catalog's server
//! operations.
//!
//! Stored form (key `S\0<lower-case server name>`): name, wrapper, then option name/value pairs,
//! each a u32 little-endian length and the UTF-8 bytes. Invariant: servers are looked up by
//! their lower-case name.

use crate::catalog::persist::key;
use crate::catalog::Catalog;
use crate::error::db_error::DbResult;

/// A foreign server definition (ddl/servers.rs), stored under its lower-case name.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerDef {
    pub name: String,
    pub wrapper: String,
    /// OPTIONS as given: upper-case option name and value.
    pub options: Vec<(String, String)>,
}

impl ServerDef {
    /// Name, wrapper, then option name and value pairs, each as a u32 length and the bytes.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |s: &str| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        put(&self.name);
        put(&self.wrapper);
        for (k, v) in &self.options {
            put(k);
            put(v);
        }
        out
    }
    pub(super) fn decode(mut v: &[u8]) -> Option<ServerDef> {
        let mut fields = Vec::new();
        while !v.is_empty() {
            let n = u32::from_le_bytes(v.get(..4)?.try_into().ok()?) as usize;
            fields.push(String::from_utf8_lossy(v.get(4..4 + n)?).into_owned());
            v = &v[4 + n..];
        }
        if fields.len() < 2 || fields.len() % 2 != 0 {
            return None;
        }
        let options = fields[2..]
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        Some(ServerDef {
            name: fields[0].clone(),
            wrapper: fields[1].clone(),
            options,
        })
    }
}

impl Catalog {
    pub fn server(&self, name: &str) -> Option<ServerDef> {
        self.state.read().servers.get(&name.to_lowercase()).cloned()
    }
    pub fn put_server(&self, def: ServerDef) -> DbResult<()> {
        let name = def.name.to_lowercase();
        self.tree.put(&key(b'S', &[&name]), &def.encode())?;
        self.write_state().servers.insert(name, def);
        Ok(())
    }
    /// Removes a server definition; false if there was none.
    pub fn drop_server(&self, name: &str) -> DbResult<bool> {
        let name = name.to_lowercase();
        let existed = self.write_state().servers.remove(&name).is_some();
        if existed {
            self.tree.delete(&key(b'S', &[&name]))?;
        }
        Ok(existed)
    }
}
