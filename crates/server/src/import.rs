//! `betula import`: bulk-loads CSV/TSV files into a table of a data directory, through the same
//! path as LOAD DATA (`betula_sql::load`), with a progress bar (bytes, rows/s, ETA).
//!
//! It opens the data directory itself, so the server must not be running on it (the storage
//! engine's LOCK file refuses a second opener with a clear error); to load into a running
//! server use `LOAD DATA LOCAL INFILE` or `mysqlimport --local`. Each file is one load (one
//! transaction): a failing file leaves the table as the previous file left it, and the import
//! stops with the file, line and reason. The first file into an empty table takes the bottom-up
//! build; later files merge as sorted batches.
//!
//! Format: `--format csv` (`,` separated, `"` quoted) or `tsv` (MySQL's defaults: tab, no quotes,
//! backslash escapes); by default from the extension (`.csv` → csv, otherwise tsv). Individual
//! options override it.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use betula_sql::parser::load::{Format, LoadStmt, OnDuplicate, Target};
use betula_sql::{load, Engine, EngineConfig};
use indicatif::{ProgressBar, ProgressStyle};

/// What `betula import` was asked to do.
#[derive(Debug, Clone)]
pub struct ImportArgs {
    pub files: Vec<PathBuf>,
    /// `db.table`
    pub table: String,
    pub datadir: PathBuf,
    pub env: betula_storage::EnvOptions,
    pub format: Option<String>,
    pub fields_terminated_by: Option<String>,
    pub enclosed_by: Option<String>,
    pub escaped_by: Option<String>,
    pub lines_terminated_by: Option<String>,
    pub ignore_lines: u64,
    /// Comma-separated column list (`a,b,@skip`).
    pub columns: Option<String>,
    pub replace: bool,
    pub ignore: bool,
    pub progress: bool,
}

/// Counts bytes and lines as the loader reads, and drives the progress bar.
struct Progress<R> {
    inner: R,
    bar: ProgressBar,
    lines: u64,
    started: Instant,
    pending: u64,
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
        self.pending += n as u64;
        if self.pending >= 1 << 20 || n == 0 {
            self.bar.inc(self.pending);
            self.pending = 0;
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            self.bar.set_message(format!(
                "{} lines, {:.0} lines/s",
                self.lines,
                self.lines as f64 / secs
            ));
        }
        Ok(n)
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn one_byte(s: &str, what: &str) -> Result<Option<u8>, String> {
    match unescape(s).as_bytes() {
        [] => Ok(None),
        [b] => Ok(Some(*b)),
        _ => Err(format!("{what} takes one character, got '{s}'")),
    }
}

fn format_for(args: &ImportArgs, file: &std::path::Path) -> Result<Format, String> {
    let kind = match &args.format {
        Some(f) => f.to_ascii_lowercase(),
        None => match file.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("csv") => "csv".into(),
            _ => "tsv".into(),
        },
    };
    let mut f = Format::default();
    match kind.as_str() {
        "csv" => {
            f.field_term = b",".to_vec();
            f.enclosed = Some(b'"');
            f.optionally = true;
        }
        "tsv" => {}
        other => return Err(format!("unknown --format '{other}' (csv or tsv)")),
    }
    if let Some(t) = &args.fields_terminated_by {
        f.field_term = unescape(t).into_bytes();
    }
    if let Some(e) = &args.enclosed_by {
        f.enclosed = one_byte(e, "--enclosed-by")?;
    }
    if let Some(e) = &args.escaped_by {
        f.escape = one_byte(e, "--escaped-by")?;
    }
    if let Some(t) = &args.lines_terminated_by {
        f.line_term = unescape(t).into_bytes();
    }
    if f.line_term.is_empty() || (f.field_term.is_empty() && f.enclosed.is_none()) {
        return Err("empty line terminator, or empty field terminator without quotes".into());
    }
    Ok(f)
}

/// Runs the import; returns the summary line.
pub fn run(args: ImportArgs) -> Result<String, String> {
    let (db, table) = args
        .table
        .split_once('.')
        .ok_or_else(|| format!("--table must be db.table, got '{}'", args.table))?;
    if args.replace && args.ignore {
        return Err("--replace and --ignore exclude each other".into());
    }
    let mut total_bytes = 0u64;
    for f in &args.files {
        total_bytes += std::fs::metadata(f)
            .map_err(|e| format!("{}: {e}", f.display()))?
            .len();
    }
    let engine: Arc<Engine> = Engine::open(EngineConfig {
        datadir: args.datadir.clone(),
        env: args.env.clone(),
        port: 0,
    })
    .map_err(|e| format!("cannot open {}: {e}", args.datadir.display()))?;
    let t = engine
        .catalog
        .get_table(db, table)
        .map_err(|e| e.to_string())?;
    let mut sess = engine.session(0, "root", "localhost");
    sess.use_db(db).map_err(|e| e.to_string())?;
    let bar = if args.progress {
        ProgressBar::new(total_bytes)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta} {msg}",
        )
        .map_err(|e| e.to_string())?,
    );
    let started = Instant::now();
    let mut records = 0u64;
    let mut warnings = 0usize;
    for file in &args.files {
        let stmt = LoadStmt {
            local: false,
            file: file.display().to_string(),
            on_duplicate: if args.replace {
                OnDuplicate::Replace
            } else if args.ignore {
                OnDuplicate::Ignore
            } else {
                OnDuplicate::Error
            },
            table: vec![db.to_string(), table.to_string()],
            charset: None,
            format: format_for(&args, file)?,
            ignore_lines: args.ignore_lines,
            targets: match &args.columns {
                None => Vec::new(),
                Some(c) => c
                    .split(',')
                    .map(|n| match n.trim().strip_prefix('@') {
                        Some(v) => Target::Var(v.to_ascii_lowercase()),
                        None => Target::Column(n.trim().to_string()),
                    })
                    .collect(),
            },
            set: Vec::new(),
        };
        let f = File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut input = Progress {
            inner: std::io::BufReader::with_capacity(1 << 20, f),
            bar: bar.clone(),
            lines: 0,
            started: Instant::now(),
            pending: 0,
        };
        match load::execute(&mut sess, &stmt, t.clone(), &mut input) {
            Ok(out) => {
                sess.commit().map_err(|e| e.to_string())?;
                if let betula_sql::Output::Done { info, .. } = &out {
                    bar.println(format!("{}: {info}", file.display()));
                    if let Some(n) = info
                        .strip_prefix("Records: ")
                        .and_then(|r| r.split_whitespace().next())
                    {
                        records += n.parse::<u64>().unwrap_or(0);
                    }
                }
                warnings += sess.warnings.len();
                for w in sess.warnings.drain(..).take(10) {
                    bar.println(format!("  warning {}: {}", w.code.number(), w.message));
                }
            }
            Err(e) => {
                sess.rollback();
                bar.abandon();
                return Err(format!(
                    "ERROR {} ({}): {}; the table is unchanged by this file",
                    e.code.number(),
                    e.code.sqlstate(),
                    e.message
                ));
            }
        }
    }
    bar.finish_and_clear();
    engine.checkpoint().map_err(|e| e.to_string())?;
    let secs = started.elapsed().as_secs_f64().max(1e-6);
    let on_disk = engine.store.tree_bytes(&t.all_trees());
    Ok(format!(
        "loaded {records} rows from {} file(s), {total_bytes} bytes, in {secs:.2} s: {:.0} rows/s, {:.1} MiB/s; \
         {warnings} warning(s); table on disk {on_disk} bytes ({:.2} bytes/row)",
        args.files.len(),
        records as f64 / secs,
        total_bytes as f64 / secs / 1048576.0,
        on_disk as f64 / (records.max(1)) as f64,
    ))
}
