//! MariaDB's storage_engine suite against the real server: runs `tools/storage-engine-suite run`
//! (every test that has a recorded InnoDB reference in tests/storage_engine/reference/) with the
//! `betula` binary built by cargo, and asserts that every test listed in
//! tests/storage_engine/passing.txt still gives InnoDB's output (the recorded floor; add a test
//! there when it starts passing).
//!
//! Needs the Debian packages mariadb-test and mariadb-test-data (the `mariadb-test` program and
//! /usr/share/mysql/mysql-test/suite/storage_engine) and python3; a missing one FAILS the test
//! with a message naming the package.

mod suite_runner;

#[test]
fn storage_engine_suite_keeps_its_passing_tests() {
    suite_runner::keep_passing(&suite_runner::Suite {
        name: "storage_engine",
        dir: "/usr/share/mysql/mysql-test/suite/storage_engine",
        packages: "mariadb-test mariadb-test-data",
        tool: "tools/storage-engine-suite",
        passing: "tests/storage_engine/passing.txt",
    });
}
