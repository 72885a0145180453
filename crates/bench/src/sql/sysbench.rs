//! sysbench (peer W3): `sysbench` 1.0 (Debian package) as a child process against the server: one
//! `oltp_insert prepare` of the table, then oltp_insert, oltp_point_select and oltp_read_write, each at
//! every thread count, on the same growing table. Prepared statements on (`--db-ps-mode=auto`, sysbench's
//! default: server-side prepared statements where the test uses them), fixed `--rand-seed`, `--histogram`
//! for p50/p99, `--report-interval=1` for the per-second series. sysbench's CPU (the client here) comes
//! from this process's waited-for-children CPU time.

use super::outcome::{is_unsupported_code, Status};
use super::{fig, Better, SqlParams, Workload, WorkloadResult};
use crate::cpu_time::{self, share_of_one_core};
use crate::peer::{EngineKind, Server};
use std::process::Command;
use std::time::Instant;

pub const DESCRIPTION: &str = "W3: sysbench 1.0 (the Debian package) driving the server: `oltp_insert prepare` of one table sbtest1 (`--table-size` rows, secondary index k), then oltp_insert, oltp_point_select, oltp_read_write for a fixed time each at every thread count (1, 8, 32), on the same table; `--db-ps-mode=auto` (server-side prepared statements on), `--rand-seed` fixed, TPS, p50/p99 from sysbench's latency histogram, ignored errors (deadlocks/lock waits sysbench retries), sysbench's own CPU";

pub const TESTS: [&str; 3] = ["oltp_insert", "oltp_point_select", "oltp_read_write"];

/// What one sysbench run printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub transactions: Option<u64>,
    pub tps: Option<f64>,
    pub qps: Option<f64>,
    pub ignored_errors: Option<u64>,
    pub avg_ms: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// tps of each `--report-interval` line.
    pub per_sec_tps: Vec<f64>,
}

fn number_after(line: &str, key: &str) -> Option<f64> {
    let rest = &line[line.find(key)? + key.len()..];
    rest.split_whitespace()
        .next()?
        .trim_matches(|c| c == '(' || c == ')')
        .parse()
        .ok()
}

/// The percentile `p` (0..100) of a latency histogram given as (value ms, count) lines.
pub fn histogram_percentile(hist: &[(f64, u64)], p: f64) -> Option<f64> {
    let total: u64 = hist.iter().map(|h| h.1).sum();
    if total == 0 {
        return None;
    }
    let rank = ((p / 100.0) * total as f64).ceil().max(1.0) as u64;
    let mut seen = 0;
    for &(v, n) in hist {
        seen += n;
        if seen >= rank {
            return Some(v);
        }
    }
    hist.last().map(|h| h.0)
}

pub fn parse_output(out: &str) -> Summary {
    let mut s = Summary::default();
    let mut hist = Vec::new();
    let mut in_hist = false;
    for line in out.lines() {
        let t = line.trim();
        if t.starts_with("Latency histogram") {
            in_hist = true;
            continue;
        }
        if in_hist {
            // "       0.105 |****                                     12"
            if let Some((v, rest)) = t.split_once('|') {
                let count = rest.split_whitespace().last().and_then(|c| c.parse().ok());
                if let (Ok(v), Some(c)) = (v.trim().parse::<f64>(), count) {
                    hist.push((v, c));
                }
                continue;
            }
            if t.is_empty() || t.starts_with("value") {
                continue;
            }
            in_hist = false;
        }
        if t.starts_with('[') && t.contains(" tps: ") {
            if let Some(v) = number_after(t, " tps: ") {
                s.per_sec_tps.push(v);
            }
        } else if t.starts_with("transactions:") {
            s.transactions = number_after(t, "transactions:").map(|v| v as u64);
            s.tps = number_after(t, "(");
        } else if t.starts_with("queries:") {
            s.qps = number_after(t, "(");
        } else if t.starts_with("ignored errors:") {
            s.ignored_errors = number_after(t, "ignored errors:").map(|v| v as u64);
        } else if t.starts_with("avg:") {
            s.avg_ms = number_after(t, "avg:");
        } else if t.starts_with("99th percentile:") {
            s.p99_ms = number_after(t, "99th percentile:");
        }
    }
    if let Some(p50) = histogram_percentile(&hist, 50.0) {
        s.p50_ms = Some(p50);
    }
    if s.p99_ms.is_none() {
        s.p99_ms = histogram_percentile(&hist, 99.0);
    }
    s
}

/// The state of a failed run: "not supported yet" when sysbench reports a server error that means so.
pub fn failure(what: &str, out: &str) -> Status {
    let tail: Vec<&str> = out.lines().rev().take(6).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join(" / ");
    for line in out.lines() {
        if let Some(i) = line.find("returned error ") {
            let code: String = line[i + 15..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if code.parse().is_ok_and(is_unsupported_code) {
                return Status::NotSupported(format!("{what}: {}", line.trim()));
            }
        }
    }
    Status::Failed(format!("{what}: {tail}"))
}

pub fn storage_engine(kind: EngineKind) -> &'static str {
    match kind {
        EngineKind::Betula => "betula",
        EngineKind::Innodb => "InnoDB",
        EngineKind::Rocksdb => "ROCKSDB",
    }
}

pub fn args(server: &Server, p: &SqlParams, test: &str, threads: usize, cmd: &str) -> Vec<String> {
    let table = Table {
        rows: p.sysbench_rows,
        secs: p.sysbench_secs,
        seed: p.seed,
    };
    args_for(server, &table, test, threads, cmd)
}

/// What a sysbench command line needs besides the server, the test and the threads.
pub struct Table {
    /// `--table-size`.
    pub rows: u64,
    /// `--time`.
    pub secs: u64,
    /// `--rand-seed`.
    pub seed: u64,
}

/// sysbench's arguments for `test` with `threads` against `server` (`cmd`: prepare or run).
pub fn args_for(server: &Server, t: &Table, test: &str, threads: usize, cmd: &str) -> Vec<String> {
    vec![
        test.to_string(),
        "--db-driver=mysql".into(),
        "--mysql-host=127.0.0.1".into(),
        format!("--mysql-port={}", server.port),
        "--mysql-user=root".into(),
        "--mysql-db=bench".into(),
        format!("--mysql-storage-engine={}", storage_engine(server.kind)),
        "--tables=1".into(),
        format!("--table-size={}", t.rows),
        format!("--threads={threads}"),
        format!("--time={}", t.secs),
        "--db-ps-mode=auto".into(),
        format!("--rand-seed={}", t.seed),
        "--histogram=on".into(),
        "--percentile=99".into(),
        "--report-interval=1".into(),
        cmd.to_string(),
    ]
}

/// Runs sysbench, killed after `limit_secs` (coreutils `timeout`) so a stalled server cannot hold the
/// whole suite: the cell then fails with "timed out".
fn sysbench(args: &[String], limit_secs: u64) -> Result<(bool, String), Status> {
    let out = Command::new("timeout")
        .arg("--signal=KILL")
        .arg(format!("{limit_secs}s"))
        .arg("sysbench")
        .args(args)
        .output()
        .map_err(|e| {
            Status::Failed(format!(
                "sysbench not runnable ({e}): apt-get install -y sysbench"
            ))
        })?;
    if matches!(out.status.code(), Some(124) | Some(137) | None) {
        return Err(Status::Failed(format!(
            "timed out: sysbench {} was stopped after {limit_secs} s",
            args.last().map_or("", |s| s.as_str())
        )));
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok((out.status.success(), text))
}

/// Time limit of `sysbench prepare`: far above what any engine needs (MariaDB prepares 2M rows in about a
/// minute here), so only a stall reaches it.
const PREPARE_LIMIT_SECS: u64 = 1800;
/// Time beyond `--time` a run may take before it is stopped.
const RUN_GRACE_SECS: u64 = 300;

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::Sysbench);
    let version = sysbench(&["--version".to_string()], 60)
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let prepare = args(server, p, "oltp_insert", 1, "prepare");
    r.notes.push(format!(
        "{version}; prepare: `sysbench {}`",
        prepare.join(" ")
    ));
    let t = Instant::now();
    match sysbench(&prepare, PREPARE_LIMIT_SECS) {
        Ok((true, _)) => {}
        Ok((false, out)) => {
            r.status = failure("prepare", &out);
            return r;
        }
        Err(st) => {
            r.status = st;
            return r;
        }
    }
    r.figures.push(fig(
        &format!("prepare {} rows: seconds", p.sysbench_rows),
        Some(t.elapsed().as_secs_f64()),
        Better::Lower,
    ));
    let mut second = 0u64;
    for test in TESTS {
        for &threads in &p.sysbench_threads {
            let a = args(server, p, test, threads, "run");
            let cpu0 = cpu_time::children_cpu_secs();
            let t = Instant::now();
            let res = sysbench(&a, p.sysbench_secs + RUN_GRACE_SECS);
            let wall = t.elapsed().as_secs_f64();
            let cpu = cpu0.zip(cpu_time::children_cpu_secs()).map(|(a, b)| b - a);
            let label = format!("{test} {threads} thr");
            let out = match res {
                Ok((true, out)) => out,
                Ok((false, out)) => {
                    let st = failure(&label, &out);
                    r.notes.push(st.label());
                    if r.status == Status::Ok {
                        r.status = st;
                    }
                    continue;
                }
                Err(st) => {
                    r.status = st;
                    return r;
                }
            };
            let s = parse_output(&out);
            r.figures
                .push(fig(&format!("{label}: TPS"), s.tps, Better::Higher));
            r.figures
                .push(fig(&format!("{label}: p50 ms"), s.p50_ms, Better::Lower));
            r.figures
                .push(fig(&format!("{label}: p99 ms"), s.p99_ms, Better::Lower));
            if s.ignored_errors.is_some_and(|e| e > 0) {
                r.notes.push(format!(
                    "{label}: {} ignored errors (sysbench retried them)",
                    s.ignored_errors.unwrap_or(0)
                ));
            }
            r.figures.push(fig(
                &format!("{label}: sysbench CPU, % of one core"),
                cpu.and_then(|c| share_of_one_core(c, wall)),
                Better::Neither,
            ));
            if let (Some(a), Some(b)) = (s.p50_ms, s.p99_ms) {
                r.latencies.push((label.clone(), a, b));
            }
            for tps in &s.per_sec_tps {
                second += 1;
                r.series.push((second, tps.round() as u64, None));
            }
        }
    }
    r.notes.push(
        "per-second series (CSV, plot): sysbench's TPS of every run one after the other, in the order of the table"
            .into(),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

[ 1s ] thds: 8 tps: 1500.50 qps: 1500.50 (r/w/o: 0.00/1500.50/0.00) lat (ms,99%): 9.73 err/s: 0.00 reconn/s: 0.00
[ 2s ] thds: 8 tps: 1700.00 qps: 1700.00 (r/w/o: 0.00/1700.00/0.00) lat (ms,99%): 8.00 err/s: 0.00 reconn/s: 0.00
Latency histogram (values are in milliseconds)
       value  ------------- distribution ------------- count
       1.000 |****************************************  60
       2.000 |*********                                 30
       9.000 |**                                        10

SQL statistics:
    queries performed:
        read:                            0
        write:                           3200
        other:                           0
        total:                           3200
    transactions:                        3200   (1599.51 per sec.)
    queries:                             3200   (1599.51 per sec.)
    ignored errors:                      2      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

Latency (ms):
         min:                                    0.42
         avg:                                    4.99
         max:                                   51.12
         99th percentile:                        9.22
         sum:                                15960.13
";

    #[test]
    fn parses_summary_histogram_and_intervals() {
        let s = parse_output(OUT);
        assert_eq!(s.transactions, Some(3200));
        assert_eq!(s.tps, Some(1599.51));
        assert_eq!(s.qps, Some(1599.51));
        assert_eq!(s.ignored_errors, Some(2));
        assert_eq!(s.avg_ms, Some(4.99));
        assert_eq!(s.p99_ms, Some(9.22));
        assert_eq!(s.p50_ms, Some(1.0));
        assert_eq!(s.per_sec_tps, vec![1500.5, 1700.0]);
    }

    #[test]
    fn histogram_percentiles() {
        let h = [(1.0, 60), (2.0, 30), (9.0, 10)];
        assert_eq!(histogram_percentile(&h, 50.0), Some(1.0));
        assert_eq!(histogram_percentile(&h, 61.0), Some(2.0));
        assert_eq!(histogram_percentile(&h, 99.0), Some(9.0));
        assert_eq!(histogram_percentile(&[], 50.0), None);
    }

    #[test]
    fn failures_classified() {
        let out = "FATAL: mysql_drv_query() returned error 1064 (You have an error) for query 'X'\nFATAL: failed";
        assert!(matches!(failure("prepare", out), Status::NotSupported(m) if m.contains("1064")));
        let out = "FATAL: mysql_drv_query() returned error 1213 (Deadlock)";
        assert!(matches!(failure("run", out), Status::Failed(m) if m.contains("1213")));
    }
}
