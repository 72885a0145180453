//! Markdown and CSV output of a storage run and of a commit-throughput run.

use crate::stats::{self, Steadiness};
use crate::workload::commit::CommitPoint;
use crate::workload::storage::{EngineRun, Phase, StorageParams};
use std::fmt::Write as _;

/// Everything about the run that is not a figure.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub command: String,
    pub date: String,
    pub time: String,
    pub revision: String,
    pub cpu: String,
    pub memory: String,
    pub kernel: String,
    pub filesystem: String,
    pub load_before: String,
    pub load_after: String,
    pub proc_io: bool,
    pub notes: Vec<String>,
}

const MIB: f64 = 1024.0 * 1024.0;

pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        "n/a".into()
    } else if v.abs() >= 1000.0 {
        // Thousands separators for readability.
        let s = format!("{:.0}", v.abs());
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if v < 0.0 {
            format!("-{out}")
        } else {
            out
        }
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub fn fmt_ratio(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.2}")).unwrap_or_else(|| "n/a".into())
}

fn fmt_steady(s: Option<Steadiness>) -> String {
    match s {
        Some(s) => format!(
            "{:.2} ({} / {})",
            s.ratio,
            fmt_num(s.worst),
            fmt_num(s.median)
        ),
        None => "n/a (under 1 s)".into(),
    }
}

/// One metric across the engines: the value per engine (as a number for the ratio) and how to show it.
struct Row {
    name: String,
    values: Vec<Option<f64>>,
    shown: Vec<String>,
}

fn row(name: &str, runs: &[EngineRun], f: impl Fn(&EngineRun) -> Option<f64>) -> Row {
    let values: Vec<Option<f64>> = runs.iter().map(&f).collect();
    let shown = values
        .iter()
        .map(|v| v.map(fmt_num).unwrap_or_else(|| "n/a".into()))
        .collect();
    Row {
        name: name.into(),
        values,
        shown,
    }
}

fn row_shown(
    name: &str,
    runs: &[EngineRun],
    f: impl Fn(&EngineRun) -> Option<f64>,
    show: impl Fn(&EngineRun) -> String,
) -> Row {
    Row {
        name: name.into(),
        values: runs.iter().map(f).collect(),
        shown: runs.iter().map(show).collect(),
    }
}

fn phase_steady(p: &Phase) -> Option<Steadiness> {
    stats::steadiness(&p.per_second())
}

fn results_table(out: &mut String, p: &StorageParams, runs: &[EngineRun]) {
    let raw_total = 2 * p.raw_bytes_per_phase();
    let mut rows = vec![
        row("random insert, rows/s ↑", runs, |r| {
            Some(r.random.rows_per_sec())
        }),
        row("sequential insert, rows/s ↑", runs, |r| {
            Some(r.sequential.rows_per_sec())
        }),
        row("all inserts, rows/s ↑", runs, |r| {
            Some((r.random.rows + r.sequential.rows) as f64 / (r.random.secs + r.sequential.secs))
        }),
        row_shown(
            "random insert: worst 1-s window ÷ median (worst / median rows/s) ↑",
            runs,
            |r| phase_steady(&r.random).map(|s| s.ratio),
            |r| fmt_steady(phase_steady(&r.random)),
        ),
        row_shown(
            "sequential insert: worst 1-s window ÷ median ↑",
            runs,
            |r| phase_steady(&r.sequential).map(|s| s.ratio),
            |r| fmt_steady(phase_steady(&r.sequential)),
        ),
        row_shown(
            "all inserts: worst 1-s window ÷ median ↑",
            runs,
            |r| stats::steadiness(&r.insert_series()).map(|s| s.ratio),
            |r| fmt_steady(stats::steadiness(&r.insert_series())),
        ),
        row(
            "bytes written per byte inserted, random phase ↓",
            runs,
            |r| Some(r.random.io.net_written() as f64 / p.raw_bytes_per_phase() as f64),
        ),
        row(
            "bytes written per byte inserted, sequential phase ↓",
            runs,
            |r| Some(r.sequential.io.net_written() as f64 / p.raw_bytes_per_phase() as f64),
        ),
        row(
            "bytes written per byte inserted, both phases ↓",
            runs,
            |r| Some(r.write_amp(raw_total, false)),
        ),
        row(
            "bytes written per byte inserted, incl. settle ↓",
            runs,
            |r| Some(r.write_amp(raw_total, true)),
        ),
        row(
            "settle (checkpoint / flush + compactions), s ↓",
            runs,
            |r| Some(r.settle.secs),
        ),
        row("bytes on disk after settle, MiB ↓", runs, |r| {
            Some(r.disk_len as f64 / MIB)
        }),
        row("of which write-ahead log files, MiB", runs, |r| {
            Some(r.log_len as f64 / MIB)
        }),
        row("disk space allocated after settle, MiB ↓", runs, |r| {
            Some(r.disk_alloc as f64 / MIB)
        }),
        row("bytes on disk ÷ bytes inserted ↓", runs, |r| {
            Some(r.disk_len as f64 / raw_total as f64)
        }),
        row("point reads/s ↑", runs, |r| {
            Some(r.reads.count as f64 / r.reads.secs)
        }),
        row("point read p50, µs ↓", runs, |r| {
            r.reads.latency.map(|l| l.p50_us)
        }),
        row("point read p99, µs ↓", runs, |r| {
            r.reads.latency.map(|l| l.p99_us)
        }),
        row("point read max, µs ↓", runs, |r| {
            r.reads.latency.map(|l| l.max_us)
        }),
        row(
            &format!("scan rows/s (scans of {} rows) ↑", p.scan_rows),
            runs,
            |r| Some(r.scans.rows as f64 / r.scans.secs),
        ),
        row("disk read during point reads + scans, MiB", runs, |r| {
            Some((r.reads.io.read_bytes + r.scans.io.read_bytes) as f64 / MIB)
        }),
        row("close (final checkpoint / WAL sync), s", runs, |r| {
            Some(r.close_secs)
        }),
    ];
    rows.push(row(
        "reads that missed or returned a wrong value",
        runs,
        |r| Some((r.reads.missing + r.reads.wrong) as f64),
    ));
    rows.push(row("scans shorter than asked", runs, |r| {
        Some(r.scans.short_scans as f64)
    }));

    let ratio_col = runs.len() == 2;
    let _ = write!(out, "| metric |");
    for r in runs {
        let _ = write!(out, " {} |", r.engine);
    }
    if ratio_col {
        let _ = write!(out, " {} / {} |", runs[0].engine, runs[1].engine);
    }
    out.push('\n');
    let _ = write!(out, "|---|");
    for _ in runs {
        out.push_str("---:|");
    }
    if ratio_col {
        out.push_str("---:|");
    }
    out.push('\n');
    for r in rows {
        let _ = write!(out, "| {} |", r.name);
        for s in &r.shown {
            let _ = write!(out, " {s} |");
        }
        if ratio_col {
            let q = match (r.values[0], r.values[1]) {
                (Some(a), Some(b)) => stats::ratio(a, b),
                _ => None,
            };
            let _ = write!(out, " {} |", fmt_ratio(q));
        }
        out.push('\n');
    }
}

fn kv_table(out: &mut String, title: &str, kv: &[(String, String)]) {
    let _ = writeln!(out, "\n{title}\n\n| | |\n|---|---|");
    for (k, v) in kv {
        let _ = writeln!(out, "| {k} | {v} |");
    }
}

pub fn context(out: &mut String, c: &RunContext) {
    let _ = writeln!(
        out,
        "Command (from the repository root):\n\n```\n{}\n```\n",
        c.command
    );
    let _ = writeln!(out, "- Date: {} {}", c.date, c.time);
    let _ = writeln!(out, "- Source revision: {}", c.revision);
    let _ = writeln!(out, "- CPU: {}", c.cpu);
    let _ = writeln!(out, "- Kernel: {}", c.kernel);
    let _ = writeln!(out, "- Data directory on: {}", c.filesystem);
    let _ = writeln!(
        out,
        "- Load average (1/5/15 min, runnable/total, last pid) before: `{}`; after: `{}`",
        c.load_before, c.load_after
    );
    let _ = writeln!(
        out,
        "- Memory (`free -m` at start):\n\n```\n{}\n```",
        c.memory
    );
    if !c.proc_io {
        let _ = writeln!(
            out,
            "\n**/proc/self/io was unreadable: every disk-write figure is 0.**"
        );
    }
    if !c.notes.is_empty() {
        let _ = writeln!(out, "\nNotes:\n");
        for n in &c.notes {
            let _ = writeln!(out, "- {n}");
        }
    }
}

pub fn storage_markdown(
    c: &RunContext,
    p: &StorageParams,
    runs: &[EngineRun],
    csv_name: &str,
) -> String {
    let mut out = String::new();
    let names: Vec<&str> = runs.iter().map(|r| r.engine.as_str()).collect();
    let _ = writeln!(
        out,
        "# Storage benchmark: {} — {}\n",
        names.join(" vs "),
        c.date
    );
    context(&mut out, c);
    let raw = p.raw_bytes_per_phase();
    let _ = writeln!(out, "\n## Workload\n");
    let _ = writeln!(
        out,
        "- {} random-key rows, then {} sequential-key rows (16-byte keys, 100-byte values half of which repeat the other half), seed {}",
        p.rows, p.rows, p.seed
    );
    let _ = writeln!(
        out,
        "- Raw key+value bytes inserted: {:.1} MiB ({:.1}× the {:.0} MiB cache)",
        2.0 * raw as f64 / MIB,
        2.0 * raw as f64 / p.engine.cache_bytes as f64,
        p.engine.cache_bytes as f64 / MIB
    );
    let _ = writeln!(
        out,
        "- Writer threads: {}; rows per write batch (one commit): {}; durability: {}",
        p.threads, p.batch, p.engine.durability
    );
    let _ = writeln!(
        out,
        "- Then {} point reads of existing keys (half random-phase, half sequential-phase keys; {} reader threads), then {} range scans of {} rows from random existing keys (1 thread)",
        p.reads, p.threads, p.scans, p.scan_rows
    );
    let _ = writeln!(
        out,
        "- Disk writes: {} over each phase (both engines run in this one process, one after the other). \"Settle\" = Betula `checkpoint()`, RocksDB `flush()` and wait until no flush/compaction is pending or running.",
        match crate::io_stats::watched_device() {
            Some(p) => format!("sectors written × 512 of the data directory's block device (`{}`; other processes' writes to it count too)", p.display()),
            None => "`write_bytes − cancelled_write_bytes` of /proc/self/io".to_string(),
        }
    );
    let _ = writeln!(out, "- Per-second series: [{csv_name}]({csv_name})");
    let _ = writeln!(out, "\n## Results\n");
    results_table(&mut out, p, runs);
    let _ = writeln!(out, "\n↑ higher is better, ↓ lower is better. The steadiness cells read `worst÷median (worst rows/s / median rows/s)` over the full seconds of the phase.");
    for r in runs {
        let _ = writeln!(out, "\n## {}\n\nVersion: {}", r.engine, r.version);
        let _ = writeln!(
            out,
            "\nPhase times: open {:.2} s, random {:.1} s, sequential {:.1} s, settle {:.1} s, {} reads {:.1} s, {} scans {:.1} s, close {:.1} s",
            r.open_secs, r.random.secs, r.sequential.secs, r.settle.secs, r.reads.count, r.reads.secs, r.scans.scans, r.scans.secs, r.close_secs
        );
        for ph in [&r.random, &r.sequential] {
            let _ = writeln!(out, "\n{}", thread_cpu_line(ph));
        }
        kv_table(&mut out, "Settings:", &r.settings);
        kv_table(&mut out, "Engine figures at the end:", &r.extra);
    }
    out
}

/// "CPU during <phase>: 1.23 cores, 6.5 µs per row (writers 9.1 s, betula-flusher 8.0 s, ...)".
pub fn thread_cpu_line(ph: &Phase) -> String {
    let total: f64 = ph.thread_cpu.iter().map(|(_, s)| s).sum();
    let parts: Vec<String> = ph
        .thread_cpu
        .iter()
        .filter(|(_, s)| *s >= 0.05)
        .map(|(n, s)| format!("{n} {s:.1} s"))
        .collect();
    format!(
        "CPU during {}: {:.2} cores, {:.1} µs per row ({})",
        ph.name,
        if ph.secs > 0.0 { total / ph.secs } else { 0.0 },
        total * 1e6 / ph.rows.max(1) as f64,
        parts.join(", ")
    )
}

/// `engine,phase,second,rows,write_bytes,background` — one line per full second of each insert phase.
pub fn storage_csv(runs: &[EngineRun]) -> String {
    let mut out = String::from("engine,phase,second,rows,write_bytes,background\n");
    for r in runs {
        for ph in [&r.random, &r.sequential] {
            let rows = ph.per_second();
            let io = ph.io_per_second();
            for (i, n) in rows.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{}",
                    r.engine,
                    ph.name.replace(' ', "_"),
                    i + 1,
                    n,
                    io.get(i).copied().unwrap_or(0),
                    ph.marks.background.get(i).copied().unwrap_or(0)
                );
            }
        }
    }
    out
}

pub fn commit_markdown(c: &RunContext, secs: f64, points: &[CommitPoint]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Commit throughput (single-row writes, synchronous durability) — {}\n",
        c.date
    );
    context(&mut out, c);
    let _ = writeln!(
        out,
        "\nEach point: a fresh directory, T threads each committing one 16+100-byte row at a time for {secs} s with fsync-on-commit (Betula `Durability::Sync`, RocksDB `WriteOptions.sync = true`).\n"
    );
    let _ = writeln!(
        out,
        "| engine | threads | commits | commits/s | p50 µs | p99 µs | ÷ 1-thread commits/s |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for pt in points {
        let base = points
            .iter()
            .find(|q| q.engine == pt.engine && q.threads == 1)
            .map(|q| q.commits_per_sec());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            pt.engine,
            pt.threads,
            pt.commits,
            fmt_num(pt.commits_per_sec()),
            pt.latency.map(|l| fmt_num(l.p50_us)).unwrap_or_default(),
            pt.latency.map(|l| fmt_num(l.p99_us)).unwrap_or_default(),
            fmt_ratio(base.and_then(|b| stats::ratio(pt.commits_per_sec(), b)))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format() {
        assert_eq!(fmt_num(1234567.4), "1,234,567");
        assert_eq!(fmt_num(999.0), "999.0");
        assert_eq!(fmt_num(12.345), "12.3");
        assert_eq!(fmt_num(1.234), "1.23");
        assert_eq!(fmt_num(-4321.0), "-4,321");
        assert_eq!(fmt_num(f64::NAN), "n/a");
        assert_eq!(fmt_ratio(None), "n/a");
        assert_eq!(fmt_ratio(Some(0.5)), "0.50");
    }
}
