//! MariaDB's `main` suite, the tests picked for window functions and common table expressions
//! (tests/main_suite/picked.txt), against the real server: runs `tools/main-suite run` (every
//! picked test that has a recorded MariaDB InnoDB reference in tests/main_suite/reference/) with
//! the `betula` binary built by cargo, and asserts that every test listed in
//! tests/main_suite/passing.txt still gives MariaDB's output (add a test there when it starts
//! passing). See docs/main-suite.md.
//!
//! Needs the Debian package mariadb-test (the `mariadb-test` program and
//! /usr/share/mysql/mysql-test/main) and python3; a missing one FAILS the test with a message
//! naming the package.

use std::path::Path;
use std::process::Command;

#[test]
fn main_suite_picks_keep_their_passing_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let suite = Path::new("/usr/share/mysql/mysql-test/main");
    let have_mtr = Command::new("mariadb-test")
        .arg("--version")
        .output()
        .is_ok();
    assert!(
        have_mtr && suite.is_dir(),
        "the main suite needs `apt-get install mariadb-test` \
         (mariadb-test: {have_mtr}, {}: {})",
        suite.display(),
        suite.is_dir()
    );
    let floor: Vec<String> = std::fs::read_to_string(root.join("tests/main_suite/passing.txt"))
        .expect("tests/main_suite/passing.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert!(!floor.is_empty(), "passing.txt lists no test");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new("python3")
        .arg(root.join("tools/main-suite"))
        .arg("run")
        .arg("--betula")
        .arg(env!("CARGO_BIN_EXE_betula"))
        .arg("--out")
        .arg(out_dir.path())
        .output()
        .expect("run python3 tools/main-suite (python3 installed?)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "main-suite failed:\n{stdout}\n{stderr}"
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
        "main-suite tests that passed before now differ from MariaDB InnoDB: {lost:?}\n{stdout}"
    );
    let summary = stdout.lines().last().unwrap_or("");
    assert!(summary.contains(" passed"), "no summary line: {stdout}");
    eprintln!("{summary}");
}
