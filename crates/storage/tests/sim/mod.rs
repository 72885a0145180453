//! Deterministic simulation of the storage engine (TigerBeetle's VOPR, FoundationDB's simulator, on a
//! small scale): many clients' transactions, writes outside transactions, checkpoints, the flusher's work,
//! the periodic log sync, power losses, crashes at a chosen sync, and injected I/O faults, all driven by
//! one seed in one thread, on the simulated disk (`SimVfs`, wrapped in a `FaultVfs`), checked at every read
//! and after every recovery against a model (model.rs).
//!
//! What is deterministic: the engine runs without background threads (`EnvOptions::background` off); the
//! flusher's work (`TreeHandle::flush_now`), checkpoints and the periodic log sync run when the simulation
//! says, on a simulated clock (one step is one millisecond); clients interleave at operation boundaries
//! chosen by the seed; lock waits never block (timeout zero: a conflict fails at once, as a timeout would);
//! the disk, its crash images and its faults derive from the seed. So a seed replays exactly: the test
//! `the_same_seed_replays_the_same_run` checks that two runs of a seed give the same trace (every result
//! and every disk operation count hashed). Not simulated: concurrency inside one operation (threads racing
//! on a tree's lock), which the concurrency tests cover with real threads.

pub mod checks;
pub mod clients;
pub mod model;

use crate::common::{registry, Rng};
use betula_storage::vfs::{FaultKind, FaultPlan, FaultRule, FaultVfs, SimCrashPlan, SimVfs};
use betula_storage::{Codec, Durability, Env, EnvOptions, Error, TreeHandle, TreeOptions};
use model::{State, PLAIN_TREE, TXN_TREES};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

pub const DIR: &str = "/db";

/// A failed run: the seed and step, and what went wrong.
#[derive(Debug)]
pub struct SimFailure {
    pub seed: u64,
    pub step: u64,
    pub what: String,
}

impl fmt::Display for SimFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seed {} step {}: {} (replay: BETULA_SIM_SEED={} cargo test -p betula-storage --test simulation \
             -- --nocapture replay_one_seed)",
            self.seed, self.step, self.what, self.seed
        )
    }
}

/// What a run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SimReport {
    /// Hash of every result and disk counter: equal for two runs of one seed.
    pub trace: u64,
    pub steps: u64,
    pub commits: u64,
    pub rollbacks: u64,
    pub lock_conflicts: u64,
    pub power_losses: u64,
    pub planned_crashes: u64,
    pub restarts: u64,
    pub faults: u64,
    pub checkpoints: u64,
    pub corruption_detected: bool,
}

/// FNV-1a over the run's events.
#[derive(Default)]
pub struct Trace(u64);

impl Trace {
    pub fn add(&mut self, bytes: &[u8]) {
        if self.0 == 0 {
            self.0 = 0xcbf2_9ce4_8422_2325;
        }
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub fn num(&mut self, n: u64) {
        self.add(&n.to_le_bytes());
    }
}

/// The simulated machine, the engine on it, the clients and the model.
pub struct World {
    pub seed: u64,
    pub rng: Rng,
    pub step: u64,
    pub disk: Arc<SimVfs>,
    pub plan: Arc<FaultPlan>,
    pub env: Option<Env>,
    /// Trees a, b, plain.
    pub trees: Vec<TreeHandle>,
    pub clients: Vec<clients::Client>,
    /// The committed state.
    pub state: State,
    /// States a power loss may come back to (durability without sync at commit): the state at the last
    /// sync and every one since.
    pub since_sync: Vec<State>,
    pub sync_at_commit: bool,
    /// Faults injected when the engine was last opened (a later one explains an error).
    pub faults_at_open: u64,
    pub trace: Trace,
    pub report: SimReport,
}

/// Engine options of a seed: small nodes, cache and log segments, so that splits, flushes, eviction,
/// segment rolls and reuse all happen within a few hundred operations.
pub fn options(rng: &mut Rng, sync_at_commit: bool) -> EnvOptions {
    let codecs = [Codec::None, Codec::Lz4, Codec::Zstd];
    EnvOptions {
        cache_bytes: [24 << 10, 64 << 10, 1 << 20][rng.below(3) as usize],
        durability: if sync_at_commit {
            Durability::Sync
        } else {
            Durability::NoSync
        },
        background: false,
        wal_segment_bytes: 16 << 10,
        wal_recycle_segments: rng.below(3) as usize,
        wal_codec: codecs[rng.below(3) as usize],
        default_tree: TreeOptions {
            node_size_bytes: 2048,
            basement_size_bytes: 512,
            fanout: 4,
            codec: codecs[rng.below(3) as usize],
            level: 0,
        },
        ..EnvOptions::default()
    }
}

impl World {
    /// A new machine with an empty engine and its three trees.
    pub fn new(seed: u64) -> Result<World, SimFailure> {
        let mut rng = Rng::new(seed);
        let sync_at_commit = rng.below(10) < 7;
        let n_clients = 2 + rng.below(7) as usize;
        let mut w = World {
            seed,
            rng,
            step: 0,
            disk: Arc::new(SimVfs::new()),
            plan: FaultPlan::new(),
            env: None,
            trees: Vec::new(),
            clients: (0..n_clients).map(|_| clients::Client::default()).collect(),
            state: State::default(),
            since_sync: vec![State::default()],
            sync_at_commit,
            faults_at_open: 0,
            trace: Trace::default(),
            report: SimReport::default(),
        };
        let env = w.open()?;
        for name in TXN_TREES.iter().chain([&PLAIN_TREE]) {
            let t = env
                .create_tree(name, None)
                .map_err(|e| w.fail(format!("create tree {name}: {e}")))?;
            w.trees.push(t);
        }
        // Without sync at commit a tree's creation is durable only once synced.
        env.sync().map_err(|e| w.fail(format!("sync: {e}")))?;
        w.env = Some(env);
        Ok(w)
    }

    /// Prints a line of the run when `BETULA_SIM_TRACE` is set (replaying a failing seed).
    pub fn log(&self, what: impl FnOnce() -> String) {
        if std::env::var_os("BETULA_SIM_TRACE").is_some() {
            println!("[{:5}] {}", self.step, what());
        }
    }

    /// A failure at the current step.
    pub fn fail(&self, what: impl Into<String>) -> SimFailure {
        SimFailure {
            seed: self.seed,
            step: self.step,
            what: what.into(),
        }
    }

    /// Opens the engine on the current disk (recovering), through the fault layer.
    pub fn open(&mut self) -> Result<Env, SimFailure> {
        let mut opt_rng = Rng::new(self.seed ^ 0x5EED);
        let opts = options(&mut opt_rng, self.sync_at_commit);
        self.plan.clear();
        self.faults_at_open = self.plan.injected();
        let vfs = Arc::new(FaultVfs::new(self.disk.clone(), self.plan.clone()));
        Env::open_with_vfs(vfs, Path::new(DIR), opts, registry())
            .map_err(|e| self.fail(format!("recovery failed: {e}")))
    }

    /// Records a change that took effect (the state a power loss may come back to, without sync at commit).
    pub fn committed(&mut self, new: State) {
        self.state = new;
        if !self.sync_at_commit {
            self.since_sync.push(self.state.clone());
        }
    }

    /// Everything so far is durable.
    pub fn synced(&mut self) {
        self.since_sync = vec![self.state.clone()];
    }

    /// Whether an error is explained by the simulation's own doing (the machine died, a fault fired).
    pub fn explained(&self) -> bool {
        self.disk.is_dead() || self.plan.injected() > self.faults_at_open
    }

    /// Handles a failed operation: a lock conflict is an answer; an error the simulation caused means
    /// the engine must be restarted (power loss or process restart) and checked, with `pending` the state
    /// had the operation taken effect; any other error is a failure.
    pub fn failed(&mut self, e: Error, pending: Option<State>) -> Result<(), SimFailure> {
        self.trace.add(
            format!("{e:?}")
                .split(['(', ' ', '{'])
                .next()
                .unwrap_or("")
                .as_bytes(),
        );
        if matches!(e, Error::LockTimeout | Error::Deadlock) {
            self.report.lock_conflicts += 1;
            return Ok(());
        }
        if !self.explained() {
            return Err(self.fail(format!("unexpected error: {e}")));
        }
        let power_loss = self.disk.is_dead() || self.rng.chance(50);
        self.log(|| format!("failed: {e}"));
        checks::restart(self, power_loss, pending)
    }

    /// Arms a crash at one of the next syncs, or a single I/O fault.
    pub fn arm_trouble(&mut self) {
        let roll = self.rng.below(100);
        if roll < 40 {
            let at = self.disk.sync_count() + 1 + self.rng.below(12);
            self.disk.set_plan(SimCrashPlan {
                crash_at_sync: Some(at),
                fail_write: None,
            });
            self.report.planned_crashes += 1;
            self.log(|| format!("crash armed at sync {at}"));
            return;
        }
        let (kind, file) = match roll {
            40..=64 => (FaultKind::ReadError, ".bt"),
            65..=84 => (FaultKind::WriteError, ""),
            _ => (FaultKind::SyncError, ""),
        };
        let mut rule = FaultRule::new(kind, file);
        rule.after = self.rng.below(20);
        rule.count = Some(1);
        self.log(|| format!("fault armed: {rule:?}"));
        self.plan.set(vec![rule]);
    }

    /// One step: maintenance, trouble, or a client's operation.
    pub fn tick(&mut self) -> Result<(), SimFailure> {
        self.step += 1;
        self.trace.num(self.step);
        let roll = self.rng.below(1000);
        match roll {
            0..=29 => {
                self.log(|| "checkpoint".into());
                let r = self.env.as_ref().expect("open").checkpoint();
                self.report.checkpoints += 1;
                match r {
                    Ok(()) => self.synced(),
                    Err(e) => self.failed(e, None)?,
                }
            }
            30..=69 => {
                let t = self.trees[self.rng.below(3) as usize].clone();
                self.log(|| format!("flush {}", t.name()));
                if let Err(e) = t.flush_now() {
                    self.failed(e, None)?;
                }
            }
            70..=79 => checks::restart(self, true, None)?,
            80..=84 => checks::restart(self, false, None)?,
            85..=99 => self.arm_trouble(),
            100..=129 if !self.sync_at_commit => {
                self.log(|| "periodic sync".into());
                // The periodic log sync, on the simulated clock.
                match self.env.as_ref().expect("open").sync() {
                    Ok(()) => self.synced(),
                    Err(e) => self.failed(e, None)?,
                }
            }
            130..=134 => {
                let t = self.trees[self.rng.below(3) as usize].clone();
                if let Err(e) = t.check_invariants() {
                    if !self.explained() {
                        return Err(self.fail(format!("tree invariants: {e}")));
                    }
                }
            }
            _ => {
                let c = self.rng.below(self.clients.len() as u64) as usize;
                self.client_step(c)?;
            }
        }
        Ok(())
    }
}

/// The text of a caught panic.
fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs one seed for `steps` steps, then the corruption check; the report, or the first failure (a
/// panic of the engine is one, at the step it happened).
pub fn run_seed(seed: u64, steps: u64) -> Result<SimReport, SimFailure> {
    let caught = |step: u64, panic| SimFailure {
        seed,
        step,
        what: format!("panic: {}", panic_text(panic)),
    };
    let mut w = std::panic::catch_unwind(|| World::new(seed)).map_err(|p| caught(0, p))??;
    while w.step < steps {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.tick()))
            .map_err(|p| caught(w.step, p))??;
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        checks::flip_a_bit_and_read(&mut w)
    }))
    .map_err(|p| caught(w.step, p))??;
    w.trace.num(w.disk.sync_count());
    w.trace.num(w.disk.write_count());
    w.report.steps = w.step;
    w.report.faults = w.plan.injected();
    w.report.trace = w.trace.0;
    Ok(w.report.clone())
}
