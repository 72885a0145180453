//! Host patterns of accounts: whether one matches a client address (design.md ACC2) and the
//! order in which a connection's candidate accounts are tried (ACC3, MariaDB's `get_sort` and
//! `acl_user_compare`).
//!
//! Invariants: names are never resolved (a pattern is matched against the address text);
//! `localhost` matches only the loopback addresses; the empty host matches every address; ordering is total (ties by host text).

use std::cmp::Ordering;
use std::net::{IpAddr, Ipv4Addr};

/// The client address as matching reads it: an IPv4-mapped IPv6 address is its IPv4 address.
fn client_ip(client: &str) -> Option<IpAddr> {
    match client.parse::<IpAddr>().ok()? {
        IpAddr::V6(v6) => Some(v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)),
        v4 => Some(v4),
    }
}

/// `address/netmask` (both IPv4), as MariaDB reads such a host.
fn netmask(pattern: &str) -> Option<(Ipv4Addr, Ipv4Addr)> {
    let (ip, mask) = pattern.split_once('/')?;
    Some((ip.parse().ok()?, mask.parse().ok()?))
}

/// Whether account host `pattern` matches the client address `client` (IP text).
pub fn host_matches(pattern: &str, client: &str) -> bool {
    let ip = client_ip(client);
    if pattern.is_empty() {
        return true; // MariaDB reads an empty host as no host: any client, tried last
    }
    if pattern.eq_ignore_ascii_case("localhost") {
        return ip.is_some_and(|i| i.is_loopback());
    }
    if let Some((net, mask)) = netmask(pattern) {
        return match ip {
            Some(IpAddr::V4(c)) => u32::from(c) & u32::from(mask) == u32::from(net),
            _ => false,
        };
    }
    let text = ip.map_or_else(|| client.to_string(), |i| i.to_string());
    wild_match(pattern.as_bytes(), text.as_bytes())
}

/// SQL-LIKE matching with `%`, `_` and `\` escapes, ASCII case-insensitive, in time
/// proportional to the product of the lengths (a pattern of many `%` cannot slow a login down).
fn wild_match(p: &[u8], s: &[u8]) -> bool {
    let mut toks = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        toks.push(match p[i] {
            b'\\' if i + 1 < p.len() => {
                i += 1;
                Wild::Byte(p[i])
            }
            b'%' => Wild::Any,
            b'_' => Wild::One,
            c => Wild::Byte(c),
        });
        i += 1;
    }
    // reach[j]: the first j bytes of `s` are matched by the tokens read so far.
    let mut reach = vec![false; s.len() + 1];
    reach[0] = true;
    for tok in toks {
        let mut next = vec![false; s.len() + 1];
        for j in 0..=s.len() {
            next[j] = match tok {
                Wild::Any => reach[j] || (j > 0 && next[j - 1]),
                Wild::One => j > 0 && reach[j - 1],
                Wild::Byte(c) => j > 0 && reach[j - 1] && s[j - 1].eq_ignore_ascii_case(&c),
            };
        }
        reach = next;
    }
    reach[s.len()]
}

/// One token of a host pattern.
#[derive(Clone, Copy)]
enum Wild {
    /// A byte to match (escaped with `\` or plain).
    Byte(u8),
    /// `%`: any run of bytes.
    Any,
    /// `_`: one byte.
    One,
}

/// MariaDB's `get_sort` of one host: 128 for text without wildcards, else the position of the
/// first wildcard (+1 unless the host is `%` alone), at most 127; 0 for the empty host.
pub fn host_sort(host: &str) -> u32 {
    let b = host.as_bytes();
    let mut chars = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
        } else if b[i] == b'%' || b[i] == b'_' {
            let mut pos = i as u32 + 1;
            if !(pos == 1 && b[i] == b'%' && b.len() == 1) {
                pos += 1;
            }
            return pos.min(127);
        }
        chars = 128;
        i += 1;
    }
    chars
}

/// The order in which accounts of one user name are tried: more specific hosts first, ties by
/// host text descending (as `acl_user_compare`).
pub fn compare_hosts(a: &str, b: &str) -> Ordering {
    host_sort(b)
        .cmp(&host_sort(a))
        .then_with(|| b.as_bytes().cmp(a.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_addresses() {
        assert!(host_matches("%", "10.1.2.3"));
        assert!(host_matches("10.%", "10.1.2.3"));
        assert!(!host_matches("10.%", "110.1.2.3"));
        assert!(host_matches("10.1.2._", "10.1.2.3"));
        assert!(!host_matches("10.1.2._", "10.1.2.33"));
        assert!(host_matches("127.0.0.1", "127.0.0.1"));
        assert!(host_matches("localhost", "127.0.0.1"));
        assert!(host_matches("LOCALHOST", "::1"));
        assert!(!host_matches("localhost", "10.0.0.1"));
        assert!(host_matches("10.0.0.0/255.0.0.0", "10.200.3.4"));
        assert!(!host_matches("10.0.0.0/255.0.0.0", "11.0.0.1"));
        assert!(host_matches("127.0.0.1", "::ffff:127.0.0.1"));
        assert!(host_matches("a\\%b", "a%b"));
        assert!(!host_matches("a\\%b", "axb"));
        assert!(host_matches("", "127.0.0.1"));
    }

    #[test]
    fn wildcards_escapes_and_long_patterns() {
        assert!(wild_match(b"10.0.0._", b"10.0.0.7"));
        assert!(!wild_match(b"10.0.0._", b"10.0.0.17"));
        assert!(wild_match(br"10\_0.%", b"10_0.1"));
        assert!(!wild_match(br"10\_0.%", b"1000.1"));
        assert!(wild_match(b"A%", b"a.example"));
        // Many `%` before a byte the address lacks: answered at once, not by backtracking.
        let p = format!("{}x", "%a".repeat(100));
        assert!(!wild_match(p.as_bytes(), "a".repeat(39).as_bytes()));
    }

    #[test]
    fn ordering_is_mariadbs() {
        assert_eq!(host_sort("%"), 1);
        assert_eq!(host_sort(""), 0);
        assert_eq!(host_sort("10.%"), 5);
        assert_eq!(host_sort("127.0.0.1"), 128);
        assert_eq!(host_sort("10.0.0.0/255.0.0.0"), 128);
        let mut hosts = vec!["%", "10.%", "127.0.0.1", "", "127.0.%", "localhost", "1%"];
        hosts.sort_by(|a, b| compare_hosts(a, b));
        assert_eq!(
            hosts,
            vec!["localhost", "127.0.0.1", "127.0.%", "10.%", "1%", "%", ""]
        );
    }
}
