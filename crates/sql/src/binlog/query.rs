//! The QUERY event: a statement replicated as text (DDL), with the status variables a replica
//! needs to run it as it ran here (flags2, sql_mode, catalog, character sets).

use super::codes::{event, header_flag};
use super::event::unsealed;

/// Status variable codes of the QUERY event.
const Q_FLAGS2: u8 = 0;
const Q_SQL_MODE: u8 = 1;
const Q_CATALOG_NZ: u8 = 6;
const Q_CHARSET: u8 = 4;

/// A QUERY event running `sql` in database `db` (empty: none) with client, connection and
/// server collation `collation` (a collation id) and sql_mode bits `sql_mode`.
pub fn query(
    server_id: u32,
    timestamp: u32,
    thread_id: u32,
    db: &str,
    sql: &str,
    collation: u16,
    sql_mode: u64,
) -> Vec<u8> {
    let mut status = Vec::with_capacity(32);
    status.push(Q_FLAGS2);
    status.extend_from_slice(&0u32.to_le_bytes());
    status.push(Q_SQL_MODE);
    status.extend_from_slice(&sql_mode.to_le_bytes());
    status.push(Q_CATALOG_NZ);
    status.push(3);
    status.extend_from_slice(b"std");
    status.push(Q_CHARSET);
    for _ in 0..3 {
        status.extend_from_slice(&collation.to_le_bytes());
    }
    let db = &db.as_bytes()[..db.len().min(255)];
    let mut b = Vec::with_capacity(13 + status.len() + db.len() + 1 + sql.len());
    b.extend_from_slice(&thread_id.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes()); // execution time
    b.push(db.len() as u8);
    b.extend_from_slice(&0u16.to_le_bytes()); // error code
    b.extend_from_slice(&(status.len() as u16).to_le_bytes());
    b.extend_from_slice(&status);
    b.extend_from_slice(db);
    b.push(0);
    b.extend_from_slice(sql.as_bytes());
    let flags = if db.is_empty() {
        header_flag::SUPPRESS_USE
    } else {
        0
    };
    unsealed(event::QUERY, server_id, timestamp, flags, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MariaDB 10.11 wrote this body for `create database d` (utf8mb3 client, latin1 server,
    /// sql_mode 0x54200000, thread 5) except that it names the database `d` after the text.
    #[test]
    fn layout_matches_mariadb() {
        let e = query(7, 0, 5, "", "create database d", 33, 0x5420_0000);
        let body = &e[19..];
        assert_eq!(&body[..4], &5u32.to_le_bytes());
        assert_eq!(body[8], 0, "no database");
        let status_len = u16::from_le_bytes([body[11], body[12]]) as usize;
        assert_eq!(
            status_len, 26,
            "the same four status variables as MariaDB's"
        );
        assert_eq!(&body[13..18], &[0, 0, 0, 0, 0]);
        assert_eq!(&body[18..27], &[1, 0, 0, 0x20, 0x54, 0, 0, 0, 0]);
        assert_eq!(&body[13 + status_len..13 + status_len + 1], &[0]);
        assert!(body.ends_with(b"create database d"));
    }
}
