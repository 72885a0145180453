//! Markdown report and per-second CSV of a `betula-bench sql` run: per workload a table of figures per
//! server and Betula ÷ peer ratios, the state of every cell, checks, and each server's configuration.

use super::{EngineResult, SqlParams, Workload, ALL};
use crate::peer::EngineKind;
use crate::report::{fmt_num, fmt_ratio, RunContext};
use crate::stats;
use std::fmt::Write as _;

/// The figure names of `w` in first-seen order across engines.
fn figure_names(w: Workload, runs: &[EngineResult]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    // The engine with the most figures first, so its order wins (engines may lack some figures).
    let mut by_count: Vec<&EngineResult> = runs.iter().collect();
    by_count.sort_by_key(|er| {
        std::cmp::Reverse(
            er.results
                .iter()
                .filter(|r| r.workload == w)
                .map(|r| r.figures.len())
                .sum::<usize>(),
        )
    });
    for er in by_count {
        for r in er.results.iter().filter(|r| r.workload == w) {
            for f in &r.figures {
                if !names.contains(&f.name) {
                    names.push(f.name.clone());
                }
            }
        }
    }
    names
}

fn value(er: &EngineResult, w: Workload, name: &str) -> Option<f64> {
    er.results
        .iter()
        .find(|r| r.workload == w)?
        .figures
        .iter()
        .find(|f| f.name == name)?
        .value
}

fn cell_status(er: &EngineResult, w: Workload) -> String {
    if let Some(e) = &er.start_error {
        return format!("server did not start: {}", e.lines().next().unwrap_or(""));
    }
    match er.results.iter().find(|r| r.workload == w) {
        Some(r) => r.status.label(),
        None => "not run".into(),
    }
}

/// The headline figures of each workload for the summary table (names as the workloads report them).
pub fn headline(w: Workload, p: &SqlParams) -> Vec<String> {
    let t = if p.sysbench_threads.contains(&8) {
        8
    } else {
        p.sysbench_threads.first().copied().unwrap_or(1)
    };
    match w {
        Workload::SensorLoad => vec!["rows/s".into(), "table bytes/row".into()],
        Workload::SensorStream => vec![
            "rows/s (average)".into(),
            "worst ÷ median".into(),
            "datadir growth, bytes/row".into(),
            "server bytes written/row".into(),
            "during the stream: last 60 s, one sensor: p99 ms".into(),
        ],
        Workload::HotReads => vec![
            "last 60 s, one sensor (SELECT *): p99 ms".into(),
            "last hour AVG+MAX, one sensor: p99 ms".into(),
        ],
        Workload::Sysbench => super::sysbench::TESTS
            .iter()
            .map(|x| format!("{x} {t} thr: TPS"))
            .collect(),
        Workload::UpsertRollup => vec![
            "rows/s (average)".into(),
            "events tx: transactions/s".into(),
        ],
        Workload::Iibench => vec!["rows/s (average)".into(), "rows/s, last 60 s".into()],
        Workload::Retention => vec![
            "DELETE: inserted rows/s (average)".into(),
            "DROP PARTITION: inserted rows/s (average)".into(),
            "DROP PARTITION: inserted rows/s in the second after a drop ÷ median (worst drop)"
                .into(),
        ],
        Workload::DropPartition => vec!["DROP PARTITION ms".into(), "load rows/s".into()],
        Workload::ClusteringRange => vec![
            "clustering key: rows/s".into(),
            "plain key: rows/s".into(),
            "clustering ÷ plain".into(),
        ],
        Workload::OnlineDdl => vec![
            "ADD COLUMN (middle) ms".into(),
            "during ÷ before, ADD COLUMN (middle)".into(),
            "DROP COLUMN ms".into(),
            "during ÷ before, DROP COLUMN".into(),
        ],
        Workload::Compression => vec![
            "zstd: table bytes/row".into(),
            "zlib: table bytes/row".into(),
            "none: table bytes/row".into(),
        ],
    }
}

/// What a summary cell without a value says: the state when the workload did not succeed.
fn missing(er: &EngineResult, w: Workload) -> String {
    if er.start_error.is_some() {
        return "server did not start".into();
    }
    match er
        .results
        .iter()
        .find(|r| r.workload == w)
        .map(|r| &r.status)
    {
        Some(super::outcome::Status::NotSupported(_)) => "not supported yet".into(),
        Some(super::outcome::Status::Failed(_)) => "failed".into(),
        Some(super::outcome::Status::Ok) => "–".into(),
        None => "not run".into(),
    }
}

/// One table of every workload's headline figures, per engine, with Betula ÷ peer ratios ("–" where an
/// engine has no such figure: see the workload's state below).
pub fn summary(p: &SqlParams, runs: &[EngineResult]) -> String {
    let mut s = String::from("| workload | figure |");
    let mut rule = String::from("|---|---|");
    for er in runs {
        let _ = write!(s, " {} |", er.engine.name());
        rule.push_str("---|");
    }
    let betula = runs.iter().find(|r| r.engine == EngineKind::Betula);
    let peers: Vec<&EngineResult> = runs
        .iter()
        .filter(|r| r.engine != EngineKind::Betula)
        .collect();
    if betula.is_some() {
        for pe in &peers {
            let _ = write!(s, " betula ÷ {} |", pe.engine.name());
            rule.push_str("---|");
        }
    }
    let _ = writeln!(s, "\n{rule}");
    for &w in &p.workloads {
        for name in headline(w, p) {
            let _ = write!(s, "| {} | {name} |", w.name());
            for er in runs {
                let _ = write!(
                    s,
                    " {} |",
                    value(er, w, &name)
                        .map(fmt_num)
                        .unwrap_or_else(|| missing(er, w))
                );
            }
            if let Some(b) = betula {
                for pe in &peers {
                    let r = match (value(b, w, &name), value(pe, w, &name)) {
                        (Some(x), Some(y)) => stats::ratio(x, y),
                        _ => None,
                    };
                    let _ = write!(s, " {} |", fmt_ratio(r));
                }
            }
            s.push('\n');
        }
    }
    s
}

/// The Markdown report of a run: context, settings, summary, servers, one section per workload,
/// plots and the servers' configurations.
pub fn markdown(
    ctx: &RunContext,
    p: &SqlParams,
    runs: &[EngineResult],
    csv_name: &str,
    plots: &Result<Vec<super::plots::Plot>, String>,
) -> String {
    let mut s = String::new();
    header(&mut s, ctx);
    settings(&mut s, p);
    let _ = writeln!(
        s,
        "(↑) = higher is better, (↓) = lower is better; a ratio is Betula's figure ÷ the peer's.\n"
    );
    let _ = writeln!(s, "## Summary\n\nHeadline figures (every figure, state and check is in the workload's section below):\n");
    let _ = writeln!(s, "{}", summary(p, runs));
    servers(&mut s, runs);
    let betula = runs.iter().find(|r| r.engine == EngineKind::Betula);
    let peers: Vec<&EngineResult> = runs
        .iter()
        .filter(|r| r.engine != EngineKind::Betula)
        .collect();
    for &w in &p.workloads {
        workload_section(&mut s, w, runs, betula, &peers);
    }
    not_selected(&mut s, p);
    plots_section(&mut s, plots, csv_name);
    configurations(&mut s, runs);
    s
}

/// Title, command and the machine the run was on.
fn header(s: &mut String, ctx: &RunContext) {
    let _ = writeln!(
        s,
        "# SQL suite: seed workloads, Betula side by side with MariaDB InnoDB and MyRocks\n"
    );
    let _ = writeln!(s, "Command (from the repository root, after `cargo build --release -p betula-server -p betula-bench --features betula-bench/plots`):\n\n```\n{}\n```\n", ctx.command);
    let _ = writeln!(s, "- Date: {} {}", ctx.date, ctx.time);
    let _ = writeln!(s, "- Source revision: {}", ctx.revision);
    let _ = writeln!(s, "- CPU: {}", ctx.cpu);
    let _ = writeln!(s, "- Kernel: {}; data on {}", ctx.kernel, ctx.filesystem);
    let _ = writeln!(s, "- Load average before: `{}`; after: `{}` (the machine is shared: other engineers compile on the same cores)", ctx.load_before, ctx.load_after);
    for n in &ctx.notes {
        let _ = writeln!(s, "- Note: {n}");
    }
    let _ = writeln!(s, "\nMemory:\n\n```\n{}\n```\n", ctx.memory);
}

/// The parameters of the run.
/// The compression codecs chosen, if not all.
fn codecs_note(codecs: &[String]) -> String {
    if codecs.is_empty() {
        String::new()
    } else {
        format!(" (codecs {})", codecs.join(", "))
    }
}

fn settings(s: &mut String, p: &SqlParams) {
    let _ = writeln!(s, "## Settings\n");
    let _ = writeln!(
        s,
        "- Mode: {}",
        if p.quick {
            "quick (`--quick`)"
        } else {
            "full (data several times the cache)"
        }
    );
    let _ = writeln!(s, "- Clients (connections) for the ingest workloads: {}; sensors (rows per statement): {}; data seed {}", p.clients, p.sensors, p.seed);
    let load_opts = if p.betula_load_options.is_empty() {
        String::new()
    } else {
        format!(" (Betula's table: `{}`)", p.betula_load_options)
    };
    let _ = writeln!(s, "- sensor-load: {} rows{load_opts}; sensor-stream: {} s; hot-reads: {} warm-up + {} timed runs per query; upsert-rollup: {} s", p.load_rows, p.stream_secs, p.query_warmup, p.query_runs, p.upsert_secs);
    let _ = writeln!(s, "- sysbench: {} rows prepared, {} s per run, threads {:?}; iibench: until the datadir has grown by {}× the cache, at most {} s; retention: {} s per variant keeping {} rows; compression: {} rows per setting{}; drop-partition: {} rows; clustering-range: {} rows", p.sysbench_rows, p.sysbench_secs, p.sysbench_threads, p.iibench_cache_factor, p.iibench_secs, p.retention_secs, p.retention_keep, p.compression_rows, codecs_note(&p.compression_codecs), p.drop_rows, super::clustering_range::table_rows(p.clustering_rows));
    let _ = writeln!(s, "- Cache for every engine: {} MiB (Betula cache_size, innodb_buffer_pool_size, rocksdb_block_cache_size); the figure \"datadir after the workload ÷ cache\" of each workload says how far the data outgrew it", p.start.cache_bytes >> 20);
    let _ = writeln!(s, "- Durability: sync at every commit everywhere (Betula `durability = sync`, `innodb_flush_log_at_trx_commit=1`, `rocksdb_flush_log_at_trx_commit=1`); every statement autocommits");
    let _ = writeln!(s, "- Each server is started by the suite on 127.0.0.1 with a fresh datadir, runs the workloads in the order listed, and is stopped by its PID; the servers run one after the other, never at once");
    let _ = writeln!(s, "- Client: this process (Rust `mysql` crate 28, text protocol, literal values; sysbench 1.0 for the sysbench workload); its CPU share (sysbench's for W3) is in the tables. Server bytes written = {}; datadir size = allocated bytes of every file under the datadir (`du -B1`), measured right after the workload without a forced flush or compaction\n", written_by());
}

/// The servers, their versions and whether they started.
fn servers(s: &mut String, runs: &[EngineResult]) {
    let _ = writeln!(s, "## Servers\n");
    let _ = writeln!(s, "| engine | version | started |");
    let _ = writeln!(s, "|---|---|---|");
    for er in runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            er.engine.name(),
            er.version,
            er.start_error
                .as_deref()
                .map(|e| format!("no: {}", e.lines().next().unwrap_or("")))
                .unwrap_or_else(|| "yes".into())
        );
    }
}

/// The section of workload `w`: its description, a table of figures per server (and Betula ÷
/// peer ratios when Betula ran), the state of each cell, and each server's notes.
fn workload_section(
    s: &mut String,
    w: Workload,
    runs: &[EngineResult],
    betula: Option<&EngineResult>,
    peers: &[&EngineResult],
) {
    let _ = writeln!(s, "\n## {}\n\n{}\n", w.name(), w.describe());
    let mut head = String::from("| figure |");
    let mut rule = String::from("|---|");
    for er in runs {
        let _ = write!(head, " {} |", er.engine.name());
        rule.push_str("---|");
    }
    if betula.is_some() {
        for pe in peers {
            let _ = write!(head, " betula ÷ {} |", pe.engine.name());
            rule.push_str("---|");
        }
    }
    let _ = writeln!(s, "{head}\n{rule}");
    let mut status_row = String::from("| state |");
    for er in runs {
        let _ = write!(status_row, " {} |", cell_status(er, w).replace('|', "\\|"));
    }
    if betula.is_some() {
        for _ in peers {
            status_row.push_str(" |");
        }
    }
    let _ = writeln!(s, "{status_row}");
    for name in figure_names(w, runs) {
        let better = runs
            .iter()
            .flat_map(|er| er.results.iter())
            .filter(|r| r.workload == w)
            .flat_map(|r| r.figures.iter())
            .find(|f| f.name == name)
            .map(|f| f.better);
        let arrow = match better {
            Some(super::Better::Higher) => " (↑)",
            Some(super::Better::Lower) => " (↓)",
            _ => "",
        };
        let mut line = format!("| {name}{arrow} |");
        for er in runs {
            let _ = write!(
                line,
                " {} |",
                value(er, w, &name)
                    .map(fmt_num)
                    .unwrap_or_else(|| "–".into())
            );
        }
        if let Some(b) = betula {
            for pe in peers {
                let r = match (value(b, w, &name), value(pe, w, &name)) {
                    (Some(x), Some(y)) => stats::ratio(x, y),
                    _ => None,
                };
                let _ = write!(line, " {} |", fmt_ratio(r));
            }
        }
        let _ = writeln!(s, "{line}");
    }
    for er in runs {
        for r in er.results.iter().filter(|r| r.workload == w) {
            for n in &r.notes {
                let _ = writeln!(s, "\n- {}: {n}", er.engine.name());
            }
        }
    }
}

/// The workloads of the suite this run did not select.
fn not_selected(s: &mut String, p: &SqlParams) {
    let not_listed: Vec<&str> = ALL
        .iter()
        .filter(|w| !p.workloads.contains(w))
        .map(|w| w.name())
        .collect();
    let _ = writeln!(s, "\n## Not in this run\n");
    let _ = writeln!(
        s,
        "- Workloads not selected: {}",
        if not_listed.is_empty() {
            "none".into()
        } else {
            not_listed.join(", ")
        }
    );
}

/// The plots (or why there are none) and the CSV's name.
fn plots_section(s: &mut String, plots: &Result<Vec<super::plots::Plot>, String>, csv_name: &str) {
    let _ = writeln!(s, "\n## Plots\n");
    match plots {
        Ok(v) if v.is_empty() => {
            let _ = writeln!(
                s,
                "No plot: no workload produced a series, latency or size."
            );
        }
        Ok(v) => {
            for (file, caption) in v {
                let _ = writeln!(s, "{caption}:\n\n![{caption}]({file})\n");
            }
        }
        Err(why) => {
            let _ = writeln!(s, "No plots drawn: {why}.");
        }
    }
    let _ = writeln!(
        s,
        "\nPer-second rows and server bytes written: `{csv_name}`.\n"
    );
}

/// Each server's configuration file, verbatim.
fn configurations(s: &mut String, runs: &[EngineResult]) {
    let _ = writeln!(s, "## Server configurations (verbatim)\n");
    for er in runs {
        let _ = writeln!(
            s,
            "### {}\n\n```\n{}\n```\n",
            er.engine.name(),
            er.config.trim_end()
        );
    }
}

pub fn csv(runs: &[EngineResult]) -> String {
    let mut s = String::from("engine,workload,second,rows,server_write_bytes\n");
    for er in runs {
        for r in &er.results {
            for &(sec, rows, wb) in &r.series {
                let _ = writeln!(
                    s,
                    "{},{},{sec},{rows},{}",
                    er.engine.name(),
                    r.workload.name(),
                    wb.map(|v| v.to_string()).unwrap_or_default()
                );
            }
        }
    }
    s
}

/// How the report's server bytes written were counted.
fn written_by() -> String {
    match crate::io_stats::watched_device() {
        Some(dev) => format!(
            "sectors written by the data directories' disk (`{}`), between two `sync`s at the start and the end of each measured step, so a step counts the pages it dirtied and no earlier step's (other processes' writes to that disk count too); the per-second marks are the same counter without `sync`",
            dev.display()
        ),
        None => "`write_bytes` delta of `/proc/<server pid>/io` (the disk had no counter)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::outcome::Status;
    use crate::sql::{fig, Better, WorkloadResult};

    fn engine(kind: EngineKind, rows_per_s: Option<f64>, status: Status) -> EngineResult {
        let mut r = WorkloadResult::new(Workload::SensorStream);
        r.status = status;
        if let Some(v) = rows_per_s {
            r.figures
                .push(fig("rows/s (average)", Some(v), Better::Higher));
            r.series = vec![(1, v as u64, Some(10))];
        }
        EngineResult {
            engine: kind,
            version: "v".into(),
            config: "cfg".into(),
            start_error: None,
            results: vec![r],
        }
    }

    #[test]
    fn ratios_and_states_in_the_table() {
        let runs = vec![
            engine(EngineKind::Betula, Some(50_000.0), Status::Ok),
            engine(EngineKind::Innodb, Some(100_000.0), Status::Ok),
            engine(EngineKind::Rocksdb, None, Status::NotSupported("x".into())),
        ];
        let ctx = RunContext {
            command: "betula-bench sql --quick".into(),
            date: "2026-01-01".into(),
            time: "t".into(),
            revision: "r".into(),
            cpu: "c".into(),
            memory: "m".into(),
            kernel: "k".into(),
            filesystem: "f".into(),
            load_before: "1".into(),
            load_after: "2".into(),
            proc_io: true,
            notes: vec![],
        };
        let p = SqlParams {
            engines: vec![],
            workloads: vec![Workload::SensorStream, Workload::SensorLoad],
            quick: true,
            clients: 4,
            sensors: 1000,
            stream_secs: 1,
            upsert_secs: 1,
            query_runs: 1,
            query_warmup: 0,
            load_rows: 1,
            sysbench_rows: 1,
            sysbench_secs: 1,
            sysbench_threads: vec![1],
            iibench_secs: 1,
            iibench_cache_factor: 10,
            retention_secs: 1,
            retention_keep: 1,
            compression_rows: 1,
            compression_codecs: Vec::new(),
            betula_load_options: String::new(),
            drop_rows: 1,
            clustering_rows: 1,
            seed: 42,
            dir: "/tmp".into(),
            keep: false,
            start: crate::peer::StartOptions {
                betula_bin: "/b".into(),
                cache_bytes: 1 << 30,
                betula_settings: Vec::new(),
                mariadb_settings: Vec::new(),
            },
        };
        let md = markdown(&ctx, &p, &runs, "x.csv", &Err("test".into()));
        assert!(
            md.contains("| rows/s (average) (↑) | 50,000 | 100,000 | – | 0.50 | n/a |"),
            "{md}"
        );
        assert!(md.contains("| state | ok | ok | not supported yet: x |"));
        assert!(md.contains("## sensor-load"));
        assert!(
            md.contains("| state | not run | not run | not run |"),
            "{md}"
        );
        assert!(md.contains("No plots drawn: test."));
        assert!(
            md.contains("| sensor-stream | rows/s (average) | 50,000 | 100,000 | not supported yet | 0.50 | n/a |"),
            "{md}"
        );
        let c = csv(&runs);
        assert_eq!(c, "engine,workload,second,rows,server_write_bytes\nbetula,sensor-stream,1,50000,10\ninnodb,sensor-stream,1,100000,10\n");
    }
}
