//! Accounts: [`UserDef`] (`'user'@'host'`, plugin, stored auth string, REQUIRE, database grants),
//! its stored form, and the catalog's account operations (design.md ACC1-ACC9).
//!
//! Stored form (sql-encoding.md "The SQL catalog"): key `U\0<user>\0<host>`, value lines
//! `plugin=<name>`, `auth=<hex>`, `require=NONE|SSL`, `grant=<db>`...; the grant
//! [`REPLICATION_SLAVE`] is the global privilege of that name, not a database. The older form
//! (key `U\0<user>`, value `<hex SHA1(SHA1(pw)) or empty>\n<db grant>\n...`) loads as
//! `'<user>'@'%'` with mysql_native_password and is replaced by the new form at its first change.
//! Invariant: `root` may use every database, and every user may use information_schema.

use super::account_host::{compare_hosts, host_matches};
use super::credentials::{native_auth_string, native_stage2, AuthPlugin};
use super::hex_text::{hex, unhex};
use crate::catalog::persist::key;
use crate::catalog::Catalog;
use crate::error::db_error::DbResult;

/// The grant line that stands for the REPLICATION SLAVE privilege (may read the binary log).
pub const REPLICATION_SLAVE: &str = "\u{1}REPLICATION SLAVE";

/// An account: its name and host pattern, how it authenticates and the databases it may use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserDef {
    pub name: String,
    /// The host pattern (design.md ACC2).
    pub host: String,
    pub plugin: AuthPlugin,
    /// The stored form of the password (credentials.rs; empty: no password).
    pub auth: String,
    /// REQUIRE SSL (else REQUIRE NONE).
    pub require_ssl: bool,
    /// Databases the user may use (`*` = all).
    pub grants: Vec<String>,
    /// Read from an entry of the older form (key `U\0<user>`), deleted when this one is written.
    pub legacy_key: bool,
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
        let mut s = format!(
            "plugin={}\nauth={}\nrequire={}",
            self.plugin.name(),
            hex(&self.auth),
            if self.require_ssl { "SSL" } else { "NONE" }
        );
        for g in &self.grants {
            s.push_str("\ngrant=");
            s.push_str(g);
        }
        s.into_bytes()
    }
    /// An entry of the current form (key `U\0<user>\0<host>`); `None` if damaged.
    pub(super) fn decode(name: &str, host: &str, v: &[u8]) -> Option<UserDef> {
        let s = std::str::from_utf8(v).ok()?;
        let mut u = UserDef {
            name: name.into(),
            host: host.into(),
            ..UserDef::default()
        };
        for line in s.split('\n') {
            let (k, val) = line.split_once('=')?;
            match k {
                "plugin" => u.plugin = AuthPlugin::from_name(val)?,
                "auth" => u.auth = unhex(val)?,
                "require" => u.require_ssl = val == "SSL",
                "grant" => u.grants.push(val.into()),
                _ => return None,
            }
        }
        Some(u)
    }
    /// An entry of the older form (key `U\0<user>`): `'<user>'@'%'`, mysql_native_password.
    pub(super) fn decode_legacy(name: &str, v: &[u8]) -> UserDef {
        let s = String::from_utf8_lossy(v);
        let mut lines = s.split('\n');
        let hash = lines.next().unwrap_or("");
        let auth = match native_stage2(&format!("*{hash}")) {
            Some(h) => native_auth_string(&h),
            None => String::new(),
        };
        UserDef {
            name: name.into(),
            host: "%".into(),
            plugin: AuthPlugin::Native,
            auth,
            require_ssl: false,
            grants: lines.map(String::from).collect(),
            legacy_key: true,
        }
    }
}

impl Catalog {
    /// The account `'name'@'host'` (exactly that pair).
    pub fn user(&self, name: &str, host: &str) -> Option<UserDef> {
        self.state
            .read()
            .users
            .get(&(name.to_string(), host.to_string()))
            .cloned()
    }
    pub fn users(&self) -> Vec<UserDef> {
        self.state.read().users.values().cloned().collect()
    }
    /// The account a client `user` connecting from address `client` is matched to (ACC3):
    /// that user's accounts by host specificity, then the anonymous ones.
    pub fn match_account(&self, user: &str, client: &str) -> Option<UserDef> {
        let st = self.state.read();
        let pick = |name: &str| {
            let mut cands: Vec<&UserDef> = st
                .users
                .values()
                .filter(|u| u.name == name && host_matches(&u.host, client))
                .collect();
            cands.sort_by(|a, b| compare_hosts(&a.host, &b.host));
            cands.first().map(|u| (*u).clone())
        };
        pick(user).or_else(|| pick(""))
    }
    pub fn put_user(&self, mut u: UserDef) -> DbResult<()> {
        if u.legacy_key {
            self.tree.delete(&key(b'U', &[&u.name]))?;
            u.legacy_key = false;
        }
        self.tree
            .put(&key(b'U', &[&u.name, &u.host]), &u.encode())?;
        self.write_state()
            .users
            .insert((u.name.clone(), u.host.clone()), u);
        Ok(())
    }
    pub fn drop_user(&self, name: &str, host: &str) -> DbResult<bool> {
        let removed = self
            .write_state()
            .users
            .remove(&(name.to_string(), host.to_string()));
        match removed {
            Some(u) if u.legacy_key => self.tree.delete(&key(b'U', &[name]))?,
            Some(_) => self.tree.delete(&key(b'U', &[name, host]))?,
            None => return Ok(false),
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_form_loads_as_any_host_native() {
        let v = b"14e65567abdb5135d0cfd9a70b3032c179a49ee7\ndb1\n\x01REPLICATION SLAVE";
        let u = UserDef::decode_legacy("bob", v);
        assert_eq!((u.name.as_str(), u.host.as_str()), ("bob", "%"));
        assert_eq!(u.plugin, AuthPlugin::Native);
        assert_eq!(u.auth, "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7");
        assert_eq!(u.grants, vec!["db1".to_string(), REPLICATION_SLAVE.into()]);
        assert!(u.legacy_key && u.may_replicate() && u.may_use("db1"));
        let root = UserDef::decode_legacy("root", b"\n*");
        assert_eq!((root.auth.as_str(), root.host.as_str()), ("", "%"));
    }

    #[test]
    fn new_form_round_trips() {
        let u = UserDef {
            name: "u".into(),
            host: "10.%".into(),
            plugin: AuthPlugin::CachingSha2,
            auth: "$A$005$ab\ncd".into(),
            require_ssl: true,
            grants: vec!["d".into(), "*".into()],
            legacy_key: false,
        };
        assert_eq!(UserDef::decode("u", "10.%", &u.encode()), Some(u));
        assert_eq!(
            UserDef::decode("u", "%", b"plugin=sha256_password\nauth="),
            None
        );
    }
}
