//! Users: [`UserDef`] (password hash and database grants), its stored form, and the catalog's
//! user operations.
//!
//! Stored form (key `U\0<user>`): `<hex SHA1(SHA1(pw)) or empty>\n<db grant>\n...`; the grant
//! [`REPLICATION_SLAVE`] is the global privilege of that name, not a database.
//! Invariant: `root` may use every database, and every user may use information_schema.

use crate::catalog::persist::key;
use crate::catalog::Catalog;
use crate::error::db_error::DbResult;

/// The grant line that stands for the REPLICATION SLAVE privilege (may read the binary log).
pub const REPLICATION_SLAVE: &str = "\u{1}REPLICATION SLAVE";

/// A user: its name, its password hash and the databases it may use.
#[derive(Debug, Clone, Default)]
pub struct UserDef {
    pub name: String,
    pub password_hash: Option<[u8; 20]>,
    /// Databases the user may use (`*` = all).
    pub grants: Vec<String>,
}

impl UserDef {
    /// May dump the binary log (COM_BINLOG_DUMP): root, or REPLICATION SLAVE granted.
    pub fn may_replicate(&self) -> bool {
        self.name == "root" || self.grants.iter().any(|g| g == REPLICATION_SLAVE)
    }
    pub fn may_use(&self, db: &str) -> bool {
        self.name == "root"
            || db.eq_ignore_ascii_case("information_schema")
            || self.grants.iter().any(|g| g == "*" || g == db)
    }
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut s = match &self.password_hash {
            Some(h) => h.iter().map(|b| format!("{b:02x}")).collect(),
            None => String::new(),
        };
        for g in &self.grants {
            s.push('\n');
            s.push_str(g);
        }
        s.into_bytes()
    }
    pub(super) fn decode(name: &str, v: &[u8]) -> UserDef {
        let s = String::from_utf8_lossy(v);
        let mut lines = s.split('\n');
        let hash = lines.next().unwrap_or("");
        let password_hash = if hash.len() == 40 {
            let mut h = [0u8; 20];
            for (i, b) in h.iter_mut().enumerate() {
                *b = u8::from_str_radix(&hash[2 * i..2 * i + 2], 16).unwrap_or(0);
            }
            Some(h)
        } else {
            None
        };
        UserDef {
            name: name.into(),
            password_hash,
            grants: lines.map(String::from).collect(),
        }
    }
}

impl Catalog {
    pub fn user(&self, name: &str) -> Option<UserDef> {
        self.state.read().users.get(name).cloned()
    }
    pub fn users(&self) -> Vec<UserDef> {
        self.state.read().users.values().cloned().collect()
    }
    pub fn put_user(&self, u: UserDef) -> DbResult<()> {
        self.tree.put(&key(b'U', &[&u.name]), &u.encode())?;
        self.write_state().users.insert(u.name.clone(), u);
        Ok(())
    }
    pub fn drop_user(&self, name: &str) -> DbResult<bool> {
        let existed = self.write_state().users.remove(name).is_some();
        if existed {
            self.tree.delete(&key(b'U', &[name]))?;
        }
        Ok(existed)
    }
}
