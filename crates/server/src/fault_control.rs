//! Disk-fault injection for tests of the whole server (docs/testing.md, "Disk faults").
//!
//! When the environment variable [`CONTROL_ENV`] names a file, `betula serve` opens its data directory
//! through a [`FaultVfs`] over the real file system, and a thread reads the file whenever its text changes
//! and installs its rules (`betula_storage::vfs::parse_fault_spec`: `kind=read_error file=.tree count=1`
//! lines; an empty file injects nothing). After each change the thread writes the status file
//! (`<control>.status`): `applied` and the rules' text, or `error` and why the text was refused, then the
//! number of faults injected so far and the last one. A test writes the control file, waits until the
//! status echoes its text, and then knows the faults are armed.
//!
//! Without the variable nothing of this runs and the data directory is opened on the real file system
//! directly. It is a test seam: a server started with it says so on stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use betula_storage::vfs::{apply_fault_spec, FaultPlan, FaultVfs, RealVfs, Vfs};

/// The environment variable naming the control file.
pub const CONTROL_ENV: &str = "BETULA_FAULT_CONTROL";

/// How often the control file is read.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// The status file of a control file.
pub fn status_path(control: &Path) -> PathBuf {
    let mut name = control.as_os_str().to_owned();
    name.push(".status");
    PathBuf::from(name)
}

/// The file system the server opens its data directory through: a [`FaultVfs`] watched from the control
/// file when [`CONTROL_ENV`] is set, else the real one.
pub fn vfs_from_env() -> Arc<dyn Vfs> {
    match std::env::var_os(CONTROL_ENV) {
        Some(path) if !path.is_empty() => {
            let control = PathBuf::from(path);
            eprintln!(
                "betula: disk-fault injection enabled from {} (a test seam, not for production)",
                control.display()
            );
            let plan = FaultPlan::new();
            watch(control, plan.clone());
            Arc::new(FaultVfs::new(Arc::new(RealVfs), plan))
        }
        _ => Arc::new(RealVfs),
    }
}

/// Starts the thread that keeps `plan` equal to the control file's rules.
fn watch(control: PathBuf, plan: Arc<FaultPlan>) {
    let status = status_path(&control);
    // The first reading happens before the engine opens, so faults of a spec written before the start
    // apply to recovery too.
    let mut last_text = None;
    let mut last_status = String::new();
    poll(&control, &status, &plan, &mut last_text, &mut last_status);
    let spawned = std::thread::Builder::new()
        .name("betula-fault-control".into())
        .spawn(move || loop {
            std::thread::sleep(POLL_INTERVAL);
            poll(&control, &status, &plan, &mut last_text, &mut last_status);
        });
    if let Err(e) = spawned {
        eprintln!("betula: fault control thread: {e}");
    }
}

/// One reading of the control file: applies a changed text, then rewrites the status if it changed.
fn poll(
    control: &Path,
    status: &Path,
    plan: &FaultPlan,
    last_text: &mut Option<(String, String)>,
    last_status: &mut String,
) {
    let text = std::fs::read_to_string(control).unwrap_or_default();
    if last_text.as_ref().map(|(t, _)| t) != Some(&text) {
        let verdict = match apply_fault_spec(plan, &text) {
            Ok(_) => format!("applied\n{text}"),
            Err(e) => {
                eprintln!("betula: fault control {}: {e}", control.display());
                format!("error {e}\n{text}")
            }
        };
        *last_text = Some((text, verdict));
    }
    let Some((_, verdict)) = last_text.as_ref() else {
        return;
    };
    let now = format!(
        "{verdict}\n--\ninjected {}\nlast {}\n",
        plan.injected(),
        plan.last_fault().unwrap_or_default()
    );
    if now != *last_status {
        let tmp = status.with_extension("status.tmp");
        if std::fs::write(&tmp, &now).is_ok() && std::fs::rename(&tmp, status).is_ok() {
            *last_status = now;
        }
    }
}
