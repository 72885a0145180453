//! The fuzz loop: every corpus input as it is, then mutated ones up to the number of executions asked
//! for. A panic or a wrong answer is a failure: its input is written under `regressions/<target>/` (with
//! `save`), which every later run replays first. A watchdog ends the process when one input runs longer
//! than [`HANG_LIMIT`], after writing it there too: a hang is a failure like a crash.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::mutator::Mutator;
use crate::seeds::seeds;
use crate::targets::Target;

/// Longest one input may run.
pub const HANG_LIMIT: Duration = Duration::from_secs(20);

/// Most failures reported per run (the first are the interesting ones).
const MAX_FAILURES: usize = 10;

/// How a run goes.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub execs: u64,
    pub seed: u64,
    /// `corpus/<target>/` and `regressions/<target>/` live here.
    pub root: PathBuf,
    /// Write failing inputs under `regressions/<target>/`.
    pub save: bool,
}

/// One failure: the input's file (when saved) and what went wrong.
#[derive(Debug)]
pub struct Failure {
    pub input: Vec<u8>,
    pub saved: Option<PathBuf>,
    pub what: String,
}

/// What a run did.
#[derive(Debug)]
pub struct RunReport {
    pub target: &'static str,
    pub corpus: usize,
    pub execs: u64,
    pub elapsed: Duration,
    pub failures: Vec<Failure>,
}

/// The files of a directory, in name order (none if it is missing).
pub fn read_dir_files(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// The regression inputs, then the corpus (the encoders' seeds if none is committed).
fn load_inputs(target: &Target, root: &Path) -> Vec<Vec<u8>> {
    let mut inputs = read_dir_files(&root.join("regressions").join(target.name));
    let corpus = read_dir_files(&root.join("corpus").join(target.name));
    if corpus.is_empty() {
        inputs.extend(seeds(target.name));
    } else {
        inputs.extend(corpus);
    }
    inputs
}

/// A stable name for an input (FNV-1a of its bytes).
pub fn input_name(prefix: &str, input: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in input {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{prefix}-{h:016x}.bin")
}

fn save(root: &Path, target: &str, prefix: &str, input: &[u8]) -> Option<PathBuf> {
    let dir = root.join("regressions").join(target);
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(input_name(prefix, input));
    std::fs::write(&path, input).ok()?;
    Some(path)
}

/// The message of the last panic on this process (the hook keeps it instead of printing it).
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = format!("panic{at}: {msg}");
    }));
}

/// The input being run and how many have finished, for the watchdog.
struct Progress {
    current: Mutex<Vec<u8>>,
    done: AtomicU64,
    finished: AtomicBool,
}

fn watchdog(progress: Arc<Progress>, root: PathBuf, target: &'static str) {
    std::thread::spawn(move || {
        let mut last = (u64::MAX, Instant::now());
        while !progress.finished.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let done = progress.done.load(Ordering::Relaxed);
            if done != last.0 {
                last = (done, Instant::now());
            } else if last.1.elapsed() > HANG_LIMIT {
                let input = progress
                    .current
                    .lock()
                    .map(|g| g.clone())
                    .unwrap_or_default();
                let path = save(&root, target, "hang", &input);
                eprintln!("betula-fuzz {target}: an input ran over {HANG_LIMIT:?}: {path:?}");
                std::process::exit(2);
            }
        }
    });
}

/// Runs one input; a panic or an `Err` is a failure.
fn run_one(target: &Target, input: &[u8]) -> Result<(), String> {
    match std::panic::catch_unwind(|| (target.run)(input)) {
        Ok(r) => r,
        Err(_) => Err(LAST_PANIC
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|_| "panic".into())),
    }
}

/// Runs a target as `cfg` says.
pub fn run(target: &'static Target, cfg: &RunConfig) -> RunReport {
    quiet_panics();
    let inputs = load_inputs(target, &cfg.root);
    let progress = Arc::new(Progress {
        current: Mutex::new(Vec::new()),
        done: AtomicU64::new(0),
        finished: AtomicBool::new(false),
    });
    if cfg.save {
        watchdog(progress.clone(), cfg.root.clone(), target.name);
    }
    let mut mutator = Mutator::new(cfg.seed);
    let mut failures = Vec::new();
    let start = Instant::now();
    let mut execs = 0u64;
    while execs < cfg.execs.max(inputs.len() as u64) && failures.len() < MAX_FAILURES {
        let input = match inputs.get(execs as usize) {
            Some(i) => i.clone(),
            None if inputs.is_empty() => Vec::new(),
            None => {
                let base = &inputs[mutator.below(inputs.len())];
                let other = &inputs[mutator.below(inputs.len())];
                mutator.mutate(base, other)
            }
        };
        if cfg.save {
            if let Ok(mut g) = progress.current.lock() {
                g.clone_from(&input);
            }
        }
        if let Err(what) = run_one(target, &input) {
            let saved = if cfg.save {
                save(&cfg.root, target.name, "crash", &input)
            } else {
                None
            };
            failures.push(Failure { input, saved, what });
        }
        execs += 1;
        progress.done.store(execs, Ordering::Relaxed);
    }
    progress.finished.store(true, Ordering::Relaxed);
    let _ = std::panic::take_hook();
    RunReport {
        target: target.name,
        corpus: inputs.len(),
        execs,
        elapsed: start.elapsed(),
        failures,
    }
}
