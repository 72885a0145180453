//! Where the replica is: the last applied GTID of each replication domain, in the table
//! `mysql.gtid_slave_pos` (MariaDB's name and columns), written by the transaction that applied it
//! (design.md RPA1).
//!
//! Invariants: one row per domain (`sub_id` 0), replaced by each applied transaction inside that
//! transaction; the table is created with the `mysql` database the first time the replica is set
//! up; the connect state sent to the primary is read from the table, never from memory alone.

use betula_sql::types::value::Value;
use betula_sql::{DbResult, Output, Session};

/// A MariaDB GTID: replication domain, the primary's server id, sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gtid {
    pub domain: u32,
    pub server: u32,
    pub seq: u64,
}

impl std::fmt::Display for Gtid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.domain, self.server, self.seq)
    }
}

/// Creates `mysql.gtid_slave_pos` if it is missing.
pub fn ensure_table(s: &mut Session) -> DbResult<()> {
    s.execute("CREATE DATABASE IF NOT EXISTS mysql", &[])?;
    s.execute(
        "CREATE TABLE IF NOT EXISTS mysql.gtid_slave_pos (domain_id INT UNSIGNED NOT NULL, \
         sub_id BIGINT UNSIGNED NOT NULL, server_id INT UNSIGNED NOT NULL, \
         seq_no BIGINT UNSIGNED NOT NULL, PRIMARY KEY (domain_id, sub_id)) \
         COMMENT='Replication slave GTID position'",
        &[],
    )?;
    Ok(())
}

/// Records `g` as applied, in the session's open transaction.
pub fn record(s: &mut Session, g: Gtid) -> DbResult<()> {
    s.execute(
        &format!(
            "REPLACE INTO mysql.gtid_slave_pos (domain_id, sub_id, server_id, seq_no) \
             VALUES ({}, 0, {}, {})",
            g.domain, g.server, g.seq
        ),
        &[],
    )?;
    Ok(())
}

/// The recorded position of every domain (empty if none, or no table yet).
pub fn load(s: &mut Session) -> DbResult<Vec<Gtid>> {
    let exists = s.execute(
        "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'mysql' \
         AND TABLE_NAME = 'gtid_slave_pos'",
        &[],
    )?;
    if !matches!(exists, Output::Rows { ref rows, .. } if !rows.is_empty()) {
        return Ok(Vec::new());
    }
    let out = s.execute(
        "SELECT domain_id, server_id, seq_no FROM mysql.gtid_slave_pos ORDER BY domain_id",
        &[],
    )?;
    let Output::Rows { rows, .. } = out else {
        return Ok(Vec::new());
    };
    let num = |v: &Value| v.to_f64_lenient().unwrap_or(0.0) as u64;
    Ok(rows
        .iter()
        .map(|r| Gtid {
            domain: num(&r[0]) as u32,
            server: num(&r[1]) as u32,
            seq: num(&r[2]),
        })
        .collect())
}

/// Removes every recorded position (RESET SLAVE).
pub fn clear(s: &mut Session) -> DbResult<()> {
    if !load(s)?.is_empty() {
        s.execute("DELETE FROM mysql.gtid_slave_pos", &[])?;
    }
    Ok(())
}

/// MariaDB's text of a GTID list: `d-s-n,d-s-n`.
pub fn list_text(list: &[Gtid]) -> String {
    list.iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
