//! MariaDB's `main` suite, the tests picked for window functions, common table expressions,
//! subqueries, views, regular expressions, JSON and time zones (tests/main_suite/picked.txt),
//! against the real server: runs `tools/main-suite run` (every picked test that has a recorded
//! MariaDB InnoDB reference in tests/main_suite/reference/) with the `betula` binary built by
//! cargo, and asserts that every test listed in tests/main_suite/passing.txt still gives
//! MariaDB's output (add a test there when it starts passing). See docs/main-suite.md.
//!
//! Needs the Debian package mariadb-test (the `mariadb-test` program and
//! /usr/share/mysql/mysql-test/main) and python3; a missing one FAILS the test with a message
//! naming the package.

mod suite_runner;

#[test]
fn main_suite_picks_keep_their_passing_tests() {
    suite_runner::keep_passing(&suite_runner::Suite {
        name: "main",
        dir: "/usr/share/mysql/mysql-test/main",
        packages: "mariadb-test",
        tool: "tools/main-suite",
        passing: "tests/main_suite/passing.txt",
    });
}
