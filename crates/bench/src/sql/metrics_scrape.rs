//! The cost of Betula's metrics endpoint (docs/monitoring.md) to a sensor-stream: after the stream,
//! with its data still in the cache, the endpoint is scraped [`SCRAPES`] times in a row and the
//! server's CPU seconds over them give the CPU of one scrape; one scrape a second against the
//! server CPU seconds per second the stream used is the endpoint's share of the stream's CPU.
//!
//! Measured only when the Betula server was started with `metrics_port = N` (`--betula-set
//! metrics_port=N`); other servers and runs without it get no figures. Invariant: a scrape counts
//! only when the answer is `200` with a body, so a misconfigured endpoint gives no figure rather
//! than the cost of an error page.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::{fig, Better, Figure};
use crate::peer::{EngineKind, Server};

/// Scrapes timed back to back.
pub const SCRAPES: usize = 200;

/// The metrics port of a Betula server's configuration text (`metrics_port = N`), if set.
pub fn metrics_port(config: &str) -> Option<u16> {
    config.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "metrics_port").then(|| v.trim().parse().ok())?
    })
}

/// One `GET /metrics`: the body's length when the answer is 200.
fn scrape(port: u16) -> Option<usize> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .ok()?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).ok()?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n")?;
    (head.starts_with("HTTP/1.") && head.split(' ').nth(1) == Some("200") && !body.is_empty())
        .then_some(body.len())
}

/// The figures, when `server` is a Betula server with an endpoint: bytes per scrape, server CPU
/// ms per scrape, and one scrape a second as a % of `stream_cpu_per_sec` (the stream's server CPU
/// seconds per second).
pub fn figures(server: &Server, stream_cpu_per_sec: Option<f64>) -> Vec<Figure> {
    if server.kind != EngineKind::Betula {
        return Vec::new();
    }
    let Some(port) = metrics_port(&server.config) else {
        return Vec::new();
    };
    let cpu0 = crate::cpu_time::pid_cpu_secs(server.pid());
    let mut bytes = 0;
    for _ in 0..SCRAPES {
        match scrape(port) {
            Some(n) => bytes = n,
            None => return Vec::new(),
        }
    }
    let cpu = cpu0
        .zip(crate::cpu_time::pid_cpu_secs(server.pid()))
        .map(|(a, b)| (b - a) / SCRAPES as f64);
    vec![
        fig(
            "metrics endpoint: bytes per scrape",
            Some(bytes as f64),
            Better::Neither,
        ),
        fig(
            "metrics endpoint: server CPU ms per scrape",
            cpu.map(|c| c * 1e3),
            Better::Lower,
        ),
        fig(
            "metrics endpoint: one scrape a second, % of the stream's server CPU",
            cpu.zip(stream_cpu_per_sec.filter(|c| *c > 0.0))
                .map(|(c, s)| 100.0 * c / s),
            Better::Lower,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_comes_from_the_config_text() {
        let cfg = "cache_size = 1024M\ndurability = sync\nmetrics_port = 9104\n";
        assert_eq!(metrics_port(cfg), Some(9104));
        assert_eq!(metrics_port("metrics_port=0"), Some(0));
        assert_eq!(metrics_port("metrics_address = 127.0.0.1\n"), None);
        assert_eq!(metrics_port("metrics_port = x"), None);
    }

    #[test]
    fn a_closed_port_is_no_scrape() {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = free.local_addr().unwrap().port();
        drop(free);
        assert_eq!(scrape(port), None);
    }
}
