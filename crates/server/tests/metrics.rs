//! The HTTP metrics endpoint, SHOW ENGINE BETULA STATUS and information_schema.BETULA_TREES against
//! the real server: the endpoint's output is read by a Prometheus text-format parser written here
//! (every sample belongs to a declared family, histograms are cumulative and end at `+Inf` = `_count`),
//! its counters move after a workload, and bad HTTP requests get 400 / 404 / 405 without harming it.

mod betula;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use betula::BetulaServer;
use mysql::prelude::*;

/// One sample: its name, labels and value.
#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: HashMap<String, String>,
    value: f64,
}

/// A parsed exposition: family types by name, and the samples in order.
#[derive(Debug, Default)]
struct Exposition {
    types: HashMap<String, String>,
    samples: Vec<Sample>,
}

/// The family a sample name belongs to, given the declared families (histogram samples carry a
/// suffix).
fn family_of<'a>(name: &'a str, types: &HashMap<String, String>) -> Option<&'a str> {
    if types.contains_key(name) {
        return Some(name);
    }
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if types.get(base).map(String::as_str) == Some("histogram") {
                return Some(base);
            }
        }
    }
    None
}

/// Reads `name{k="v",...} value` with the format's escapes in label values.
fn parse_sample(line: &str) -> Result<Sample, String> {
    let name_end = line.find(['{', ' ']).ok_or("no value")?;
    let name = &line[..name_end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        || name.starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(format!("bad metric name {name:?}"));
    }
    let mut labels = HashMap::new();
    let mut rest = &line[name_end..];
    if let Some(body) = rest.strip_prefix('{') {
        let mut chars = body.char_indices().peekable();
        loop {
            let (start, c) = chars.next().ok_or("unterminated labels")?;
            if c == '}' {
                rest = &body[start + 1..];
                break;
            }
            let eq = body[start..].find('=').ok_or("label without =")? + start;
            let key = body[start..eq].trim_start_matches(',').to_string();
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("bad label name {key:?}"));
            }
            while chars.peek().is_some_and(|&(i, _)| i <= eq) {
                chars.next();
            }
            if chars.next().map(|(_, c)| c) != Some('"') {
                return Err("label value not quoted".into());
            }
            let mut value = String::new();
            loop {
                match chars.next().ok_or("unterminated label value")?.1 {
                    '"' => break,
                    '\\' => match chars.next().ok_or("dangling escape")?.1 {
                        'n' => value.push('\n'),
                        '\\' => value.push('\\'),
                        '"' => value.push('"'),
                        other => return Err(format!("bad escape \\{other}")),
                    },
                    c => value.push(c),
                }
            }
            if labels.insert(key.clone(), value).is_some() {
                return Err(format!("label {key} twice"));
            }
            if chars.peek().map(|&(_, c)| c) == Some(',') {
                chars.next();
            }
        }
    }
    let mut fields = rest.split_whitespace();
    let value = match fields.next().ok_or("no value")? {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => v.parse().map_err(|_| format!("bad value {v:?}"))?,
    };
    if let Some(ts) = fields.next() {
        ts.parse::<i64>()
            .map_err(|_| format!("bad timestamp {ts:?}"))?;
    }
    if fields.next().is_some() {
        return Err("trailing fields".into());
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// Parses and checks a whole exposition.
fn parse(text: &str) -> Result<Exposition, String> {
    let mut x = Exposition::default();
    let mut current: Option<String> = None;
    let mut closed: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |e: String| format!("line {}: {e}: {line}", n + 1);
        if line.is_empty() {
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            let mut f = c.trim_start().splitn(3, ' ');
            match (f.next(), f.next(), f.next()) {
                (Some("TYPE"), Some(name), Some(kind)) => {
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(at(format!("unknown type {kind}")));
                    }
                    if x.types.insert(name.into(), kind.into()).is_some() {
                        return Err(at("family declared twice".into()));
                    }
                    if kind == "counter" && !name.ends_with("_total") {
                        return Err(at("counter not named _total".into()));
                    }
                    if let Some(prev) = current.replace(name.into()) {
                        closed.push(prev);
                    }
                }
                (Some("HELP"), Some(_), _) => {}
                _ => {}
            }
            continue;
        }
        let s = parse_sample(line).map_err(at)?;
        let fam = family_of(&s.name, &x.types)
            .ok_or_else(|| at("sample of an undeclared family".into()))?;
        if current.as_deref() != Some(fam) || closed.iter().any(|c| c == fam) {
            return Err(at("sample apart from its family".into()));
        }
        x.samples.push(s);
    }
    check_histograms(&x)?;
    Ok(x)
}

/// Every histogram series: buckets cumulative in `le` order, `+Inf` equal to `_count`.
fn check_histograms(x: &Exposition) -> Result<(), String> {
    for (fam, kind) in &x.types {
        if kind != "histogram" {
            continue;
        }
        let mut series: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
        let mut counts: HashMap<String, f64> = HashMap::new();
        for s in &x.samples {
            let mut rest: Vec<(&String, &String)> =
                s.labels.iter().filter(|(k, _)| *k != "le").collect();
            rest.sort();
            let key = format!("{rest:?}");
            if s.name == format!("{fam}_bucket") {
                let le = s.labels.get("le").ok_or("bucket without le")?;
                let le: f64 = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().map_err(|_| format!("bad le {le}"))?
                };
                series.entry(key).or_default().push((le, s.value));
            } else if s.name == format!("{fam}_count") {
                counts.insert(key, s.value);
            }
        }
        for (key, buckets) in series {
            let ordered = buckets
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1);
            let last = buckets.last().expect("one bucket at least");
            if !ordered || last.0 != f64::INFINITY || Some(&last.1) != counts.get(&key) {
                return Err(format!("histogram {fam} {key}: {buckets:?}"));
            }
        }
    }
    Ok(())
}

impl Exposition {
    /// The value of the sample named `name` whose labels include `with`.
    fn value(&self, name: &str, with: &[(&str, &str)]) -> f64 {
        self.samples
            .iter()
            .find(|s| {
                s.name == name
                    && with
                        .iter()
                        .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
            })
            .unwrap_or_else(|| panic!("no sample {name} {with:?}"))
            .value
    }
}

/// Sends `request` to the endpoint; the status code, the head and the body.
fn http(addr: &str, request: &[u8]) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect to the metrics endpoint");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the answer");
    let text = String::from_utf8(raw).expect("utf-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status code");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|n| n.parse().ok())
        .expect("Content-Length");
    if !request.starts_with(b"HEAD") {
        assert_eq!(length, body.len(), "Content-Length of {head}");
    }
    (status, head.to_string(), body.to_string())
}

fn scrape(addr: &str) -> Exposition {
    let (status, head, body) = http(addr, b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("Content-Type: text/plain; version=0.0.4"),
        "{head}"
    );
    parse(&body).unwrap_or_else(|e| panic!("{e}\n{body}"))
}

/// The endpoint's address from the server's banner.
fn metrics_addr(server: &BetulaServer) -> String {
    let url = server
        .banner
        .split("metrics on http://")
        .nth(1)
        .unwrap_or_else(|| panic!("no metrics address in {:?}", server.banner));
    url.split('/').next().unwrap().to_string()
}

fn workload(server: &BetulaServer) {
    let mut c = server.conn(None);
    c.query_drop("CREATE DATABASE m").unwrap();
    c.query_drop("USE m").unwrap();
    c.query_drop("CREATE TABLE readings (id INT PRIMARY KEY, v DOUBLE, KEY v (v))")
        .unwrap();
    c.query_drop("CREATE TABLE rollup (k INT PRIMARY KEY, n INT)")
        .unwrap();
    let values: Vec<String> = (0..200).map(|i| format!("({i}, {i}.5)")).collect();
    c.query_drop(format!("INSERT INTO readings VALUES {}", values.join(",")))
        .unwrap();
    c.query_drop("UPDATE readings SET v = v + 1 WHERE id < 10")
        .unwrap();
    c.query_drop("DELETE FROM readings WHERE id >= 190")
        .unwrap();
    for _ in 0..3 {
        c.query_drop("INSERT INTO rollup VALUES (1, 1) ON DUPLICATE KEY UPDATE n = n + 1")
            .unwrap();
    }
    let n: Option<u64> = c.query_first("SELECT COUNT(*) FROM readings").unwrap();
    assert_eq!(n, Some(190));
    c.query_drop("BEGIN").unwrap();
    c.query_drop("INSERT INTO readings VALUES (1000, 1)")
        .unwrap();
    c.query_drop("ROLLBACK").unwrap();
    assert!(c.query_drop("SELECT * FROM nope").is_err());
    c.query_drop("CHECKPOINT").unwrap();
}

#[test]
fn the_endpoint_serves_parsable_metrics_that_move_with_a_workload() {
    let dir = tempfile::tempdir().unwrap();
    let server =
        BetulaServer::start_with(&dir.path().join("data"), &["--metrics-port", "0"]).unwrap();
    let addr = metrics_addr(&server);
    assert!(
        addr.starts_with("127.0.0.1:"),
        "loopback by default: {addr}"
    );
    let before = scrape(&addr);
    assert_eq!(
        before.value("betula_rows_total", &[("op", "inserted")]),
        0.0
    );
    workload(&server);
    let _open = server.conn(None);
    let after = scrape(&addr);
    let rows = |op| after.value("betula_rows_total", &[("op", op)]);
    assert_eq!(rows("inserted"), 201.0, "the rolled-back row counts too");
    assert_eq!(rows("updated"), 10.0);
    assert_eq!(rows("deleted"), 10.0);
    assert_eq!(rows("upserted"), 3.0);
    assert!(
        rows("read") >= 190.0 + 10.0 + 10.0,
        "scans of COUNT, UPDATE, DELETE"
    );
    let statements =
        |kind| after.value("betula_statement_duration_seconds_count", &[("kind", kind)]);
    assert_eq!(statements("insert"), 5.0);
    assert_eq!(statements("update"), 1.0);
    assert_eq!(statements("delete"), 1.0);
    assert!(statements("select") >= 2.0);
    assert!(statements("ddl") >= 3.0);
    assert_eq!(statements("transaction"), 2.0);
    assert!(after.value("betula_statement_errors_total", &[("kind", "select")]) >= 1.0);
    assert!(after.value("betula_commits_total", &[]) >= 6.0);
    assert_eq!(after.value("betula_rollbacks_total", &[]), 1.0);
    assert!(after.value("betula_log_fsync_duration_seconds_count", &[]) > 0.0);
    assert!(after.value("betula_checkpoint_duration_seconds_count", &[]) >= 1.0);
    assert!(after.value("betula_cache_lookups_total", &[]) > 0.0);
    assert!(after.value("betula_bytes_written_total", &[("file", "log")]) > 0.0);
    assert!(after.value("betula_bytes_written_total", &[("file", "tree")]) > 0.0);
    assert!(after.value("betula_connections_total", &[]) >= 1.0);
    assert!(after.value("betula_connections", &[]) >= 1.0);
    let table = [("schema", "m"), ("table", "readings")];
    assert!(after.value("betula_table_file_bytes", &table) > 0.0);
    assert!(after.value("betula_table_cached_bytes", &table) > 0.0);
    assert!(
        after.value("betula_uptime_seconds", &[]) >= before.value("betula_uptime_seconds", &[])
    );
    dashboard_names_exist(&after);
    server.stop();
}

/// Every metric the Grafana dashboard in docs/ queries is one the endpoint serves.
fn dashboard_names_exist(x: &Exposition) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/grafana/betula.json"
    );
    let json = std::fs::read_to_string(path).expect("the dashboard");
    let mut named = 0;
    for (i, _) in json.match_indices("betula_") {
        let name: String = json[i..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !json[..i].ends_with(['(', ' ', '"']) {
            continue;
        }
        named += 1;
        assert!(
            family_of(&name, &x.types).is_some(),
            "the dashboard queries {name}, which the endpoint does not serve"
        );
    }
    assert!(named > 10, "the dashboard names its metrics: {named}");
}

#[test]
fn bad_http_requests_are_refused_and_the_endpoint_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("betula.cnf");
    std::fs::write(&cfg, "[betula]\nmetrics_port = 0\n").unwrap();
    let server = BetulaServer::start_with(
        &dir.path().join("data"),
        &["--config", cfg.to_str().unwrap()],
    )
    .unwrap();
    let addr = metrics_addr(&server);
    let huge = format!("GET /{} HTTP/1.1\r\n", "a".repeat(20_000));
    let cases: [(&[u8], u16); 6] = [
        (b"GET /nope HTTP/1.1\r\n\r\n", 404),
        (
            b"POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
            405,
        ),
        (b"\x00\x01\x02 garbage\r\n\r\n", 400),
        (b"GET metrics\r\n\r\n", 400),
        (huge.as_bytes(), 400),
        (b"HEAD /metrics HTTP/1.1\r\n\r\n", 200),
    ];
    for (request, want) in cases {
        let (status, head, body) = http(&addr, request);
        assert_eq!(status, want, "{head}");
        if request.starts_with(b"HEAD") {
            assert!(body.is_empty(), "HEAD has no body");
        }
    }
    // A client that connects and goes away without a word.
    drop(TcpStream::connect(&addr).unwrap());
    let x = scrape(&addr);
    assert!(x.value("betula_cache_limit_bytes", &[]) > 0.0);
    server.stop();
}

#[test]
fn the_endpoint_is_off_unless_configured() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(&dir.path().join("data"));
    assert!(!server.banner.contains("metrics"), "{}", server.banner);
    let e = BetulaServer::start_with(
        &dir.path().join("d2"),
        &["--metrics-port", "0", "--metrics-address", "192.0.2.1"],
    )
    .err()
    .expect("an address that cannot be bound stops the start");
    assert!(e.contains("cannot serve metrics"), "{e}");
    server.stop();
}

#[test]
fn show_engine_status_has_its_sections_and_betula_trees_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(&dir.path().join("data"));
    workload(&server);
    let mut c = server.conn(Some("m"));
    let row: (String, String, String) =
        c.query_first("SHOW ENGINE BETULA STATUS").unwrap().unwrap();
    assert_eq!(row.0, "BETULA");
    let text = row.2;
    let mut at = 0;
    for section in [
        "CACHE",
        "LOG",
        "CHECKPOINTS",
        "FLUSHER",
        "TRANSACTIONS",
        "ROW OPERATIONS",
        "STATEMENTS",
        "CONNECTIONS",
        "TREES",
    ] {
        let rule = "-".repeat(section.len());
        let heading = format!("{rule}\n{section}\n{rule}\n");
        let found = text[at..]
            .find(&heading)
            .unwrap_or_else(|| panic!("no section {section} after byte {at}:\n{text}"));
        at += found + heading.len();
    }
    assert!(
        text.contains("Rows inserted 201, updated 10, deleted 10, upserted 3"),
        "{text}"
    );
    assert!(text.contains("m.readings PRIMARY: "), "{text}");
    assert!(text.contains("m.readings v: "), "{text}");
    assert!(!text.contains("EnvStats"), "no debug dump: {text}");
    let rows: Vec<(String, String, String, u64, u64)> = c
        .query(
            "SELECT TABLE_NAME, INDEX_NAME, TREE_NAME, FILE_BYTES, BUFFERED_BYTES \
             FROM information_schema.BETULA_TREES WHERE TABLE_SCHEMA = 'm' ORDER BY TABLE_NAME, INDEX_NAME",
        )
        .unwrap();
    let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.1.as_str())).collect();
    assert_eq!(
        names,
        [
            ("readings", "PRIMARY"),
            ("readings", "v"),
            ("rollup", "PRIMARY")
        ]
    );
    assert!(
        rows.iter().all(|r| r.3 > 0),
        "every tree has a file: {rows:?}"
    );
    server.stop();
}
