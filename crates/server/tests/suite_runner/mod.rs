//! One MariaDB test-suite check shared by storage_engine.rs and main_suite.rs: runs a suite runner
//! of tools/ (`<tool> [options] run --betula <binary> --out <dir>`) with the `betula` binary built by cargo and
//! asserts that every test listed in the suite's passing.txt (the recorded floor) still gives
//! MariaDB InnoDB's output, printing the diffs of the ones that stopped. A missing mariadb-test
//! program or suite directory FAILS with a message naming the packages.

use std::path::Path;
use std::process::Command;

/// What differs between the suites.
pub struct Suite<'a> {
    /// Name in messages.
    pub name: &'a str,
    /// The suite's tests in MariaDB's test tree.
    pub dir: &'a str,
    /// `apt-get install` arguments that bring the program and the suite.
    pub packages: &'a str,
    /// The runner, relative to the repository root.
    pub tool: &'a str,
    /// The floor, relative to the repository root.
    pub passing: &'a str,
}

/// Runs the suite and checks its floor.
pub fn keep_passing(s: &Suite<'_>) {
    keep_passing_with(s, &[]);
}

/// [`keep_passing`] with `options` given to the runner before `run` (`--charset latin1`).
pub fn keep_passing_with(s: &Suite<'_>, options: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let suite = Path::new(s.dir);
    let have_mtr = Command::new("mariadb-test")
        .arg("--version")
        .output()
        .is_ok();
    assert!(
        have_mtr && suite.is_dir(),
        "the {} suite needs `apt-get install {}` (mariadb-test: {have_mtr}, {}: {})",
        s.name,
        s.packages,
        suite.display(),
        suite.is_dir()
    );
    let floor: Vec<String> = std::fs::read_to_string(root.join(s.passing))
        .unwrap_or_else(|e| panic!("{}: {e}", s.passing))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert!(!floor.is_empty(), "{} lists no test", s.passing);
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new("python3")
        .arg(root.join(s.tool))
        .args(options)
        .arg("run")
        .arg("--betula")
        .arg(env!("CARGO_BIN_EXE_betula"))
        .arg("--out")
        .arg(out_dir.path())
        .output()
        .unwrap_or_else(|e| panic!("run python3 {} (python3 installed?): {e}", s.tool));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed:\n{stdout}\n{stderr}",
        s.tool
    );
    let passed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            match (w.next(), w.next()) {
                (Some(name), Some("pass")) => Some(name),
                _ => None,
            }
        })
        .collect();
    let lost: Vec<&String> = floor
        .iter()
        .filter(|t| !passed.contains(&t.as_str()))
        .collect();
    for t in &lost {
        if let Ok(d) = std::fs::read_to_string(out_dir.path().join(format!("{t}.diff"))) {
            eprintln!("{}", d.lines().take(40).collect::<Vec<_>>().join("\n"));
        }
    }
    assert!(
        lost.is_empty(),
        "{} tests that passed before now differ from MariaDB InnoDB: {lost:?}\n{stdout}",
        s.name
    );
    let summary = stdout.lines().last().unwrap_or("");
    assert!(summary.contains(" passed"), "no summary line: {stdout}");
    eprintln!("{summary}");
}
