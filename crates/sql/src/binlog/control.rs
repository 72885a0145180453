//! The events that frame the data: FORMAT_DESCRIPTION (a file's first), GTID_LIST (the GTID
//! state a file starts from), BINLOG_CHECKPOINT, GTID (a group's first), XID (a transaction's
//! commit), ROTATE (a file's last, and the dump's first) and HEARTBEAT. Bodies only; the header
//! is [`super::event::unsealed`]'s.

use super::codes::{
    event, gtid_flag, header_flag, BINLOG_VERSION, HEADER_LEN, POST_HEADER_LENGTHS,
};
use super::event::unsealed;

/// A GTID `domain-server_id-seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gtid {
    pub domain: u32,
    pub server_id: u32,
    pub seq: u64,
}

impl std::fmt::Display for Gtid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.domain, self.server_id, self.seq)
    }
}

impl Gtid {
    /// Parses `domain-server-seq`.
    pub fn parse(s: &str) -> Option<Gtid> {
        let mut it = s.trim().split('-');
        let g = Gtid {
            domain: it.next()?.trim().parse().ok()?,
            server_id: it.next()?.trim().parse().ok()?,
            seq: it.next()?.trim().parse().ok()?,
        };
        it.next().is_none().then_some(g)
    }

    /// A GTID position (`0-1-5,1-1-9`, or empty): one GTID per domain.
    pub fn parse_list(s: &str) -> Option<Vec<Gtid>> {
        s.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(Gtid::parse)
            .collect()
    }
}

/// The FORMAT_DESCRIPTION event opening a file (`checksum`: CRC32 follows every event).
pub fn format_description(
    server_id: u32,
    timestamp: u32,
    version: &str,
    checksum: bool,
) -> Vec<u8> {
    let mut b = Vec::with_capacity(2 + 50 + 4 + 1 + POST_HEADER_LENGTHS.len() + 1);
    b.extend_from_slice(&BINLOG_VERSION.to_le_bytes());
    let mut v = [0u8; 50];
    let n = version.len().min(49);
    v[..n].copy_from_slice(&version.as_bytes()[..n]);
    b.extend_from_slice(&v);
    // Create time 0: this file does not announce a server start (no temporary tables to drop).
    b.extend_from_slice(&0u32.to_le_bytes());
    b.push(HEADER_LEN as u8);
    b.extend_from_slice(&POST_HEADER_LENGTHS);
    b.push(if checksum {
        super::codes::CHECKSUM_CRC32
    } else {
        super::codes::CHECKSUM_OFF
    });
    unsealed(event::FORMAT_DESCRIPTION, server_id, timestamp, 0, &b)
}

/// GTID_LIST: the last GTID of each domain before this file.
pub fn gtid_list(server_id: u32, timestamp: u32, list: &[Gtid]) -> Vec<u8> {
    let mut b = Vec::with_capacity(4 + 16 * list.len());
    b.extend_from_slice(&(list.len() as u32).to_le_bytes());
    for g in list {
        b.extend_from_slice(&g.domain.to_le_bytes());
        b.extend_from_slice(&g.server_id.to_le_bytes());
        b.extend_from_slice(&g.seq.to_le_bytes());
    }
    unsealed(event::GTID_LIST, server_id, timestamp, 0, &b)
}

/// BINLOG_CHECKPOINT naming the oldest file a crash recovery would need (always the current
/// one here: Betula's recovery reads the binlog tree, not the files).
pub fn binlog_checkpoint(server_id: u32, timestamp: u32, file: &str) -> Vec<u8> {
    let mut b = Vec::with_capacity(4 + file.len());
    b.extend_from_slice(&(file.len() as u32).to_le_bytes());
    b.extend_from_slice(file.as_bytes());
    unsealed(event::BINLOG_CHECKPOINT, server_id, timestamp, 0, &b)
}

/// The GTID event opening a group: a transaction (ends with XID) or a standalone DDL
/// statement (`ddl`: one QUERY event, no BEGIN/COMMIT).
pub fn gtid(g: Gtid, timestamp: u32, ddl: bool) -> Vec<u8> {
    let flags = if ddl {
        gtid_flag::STANDALONE | gtid_flag::DDL | gtid_flag::ALLOW_PARALLEL
    } else {
        gtid_flag::TRANSACTIONAL | gtid_flag::ALLOW_PARALLEL
    };
    let mut b = Vec::with_capacity(19);
    b.extend_from_slice(&g.seq.to_le_bytes());
    b.extend_from_slice(&g.domain.to_le_bytes());
    b.push(flags);
    b.extend_from_slice(&[0u8; 6]);
    unsealed(
        event::GTID,
        g.server_id,
        timestamp,
        header_flag::SUPPRESS_USE,
        &b,
    )
}

/// The XID event committing a transaction.
pub fn xid(server_id: u32, timestamp: u32, xid: u64) -> Vec<u8> {
    unsealed(event::XID, server_id, timestamp, 0, &xid.to_le_bytes())
}

/// ROTATE: the next file and the position to read it from.
pub fn rotate(server_id: u32, timestamp: u32, next_file: &str, pos: u64, flags: u16) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + next_file.len());
    b.extend_from_slice(&pos.to_le_bytes());
    b.extend_from_slice(next_file.as_bytes());
    unsealed(event::ROTATE, server_id, timestamp, flags, &b)
}

/// HEARTBEAT: sent by a dump thread with nothing to send; names the file it reads.
pub fn heartbeat(server_id: u32, file: &str) -> Vec<u8> {
    unsealed(
        event::HEARTBEAT,
        server_id,
        0,
        header_flag::ARTIFICIAL,
        file.as_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binlog::event::seal;

    /// Bytes MariaDB 10.11.19 wrote (server_id 7): the same events must come out.
    #[test]
    fn events_match_mariadb_bytes() {
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        };
        let g = gtid(
            Gtid {
                domain: 0,
                server_id: 7,
                seq: 3,
            },
            0x6b0ad58c,
            false,
        );
        assert_eq!(&g[19..], &hex("0300000000000000000000000c000000000000")[..]);
        assert_eq!(u16::from_le_bytes([g[17], g[18]]), 8);
        let d = gtid(
            Gtid {
                domain: 0,
                server_id: 7,
                seq: 1,
            },
            0,
            true,
        );
        assert_eq!(&d[19..], &hex("01000000000000000000000029000000000000")[..]);
        let l = gtid_list(
            7,
            0,
            &[Gtid {
                domain: 0,
                server_id: 7,
                seq: 6,
            }],
        );
        assert_eq!(
            &l[19..],
            &hex("0100000000000000070000000600000000000000")[..]
        );
        let c = binlog_checkpoint(7, 0, "mb.000001");
        assert_eq!(&c[19..], &hex("090000006d622e303030303031")[..]);
        let r = rotate(7, 0, "mb.000002", 4, 0);
        assert_eq!(&r[19..], &hex("04000000000000006d622e303030303032")[..]);
        let f = format_description(7, 0, "10.11.19-MariaDB-0+deb12u1-log", true);
        let mut sealed = Vec::new();
        assert_eq!(
            seal(&f, 4, true, &mut sealed),
            256,
            "MariaDB's FDE ends at 256"
        );
        assert_eq!(sealed[19 + 2 + 50 + 4], 19);
        assert_eq!(sealed[sealed.len() - 5], 1, "CRC32 announced");
    }

    #[test]
    fn gtid_text() {
        let g = Gtid::parse("0-1-42").unwrap();
        assert_eq!(g.to_string(), "0-1-42");
        assert_eq!(Gtid::parse_list("").unwrap(), vec![]);
        assert_eq!(Gtid::parse_list("0-1-2, 3-4-5").unwrap().len(), 2);
        assert!(Gtid::parse_list("0-1").is_none());
        assert!(Gtid::parse("a-b-c").is_none());
    }
}
