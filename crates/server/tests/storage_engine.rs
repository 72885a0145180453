//! MariaDB's storage_engine suite against the real server, in both settings of the servers'
//! default character set: runs `tools/storage-engine-suite run` (every test that has a recorded
//! InnoDB reference in tests/storage_engine/reference/) and `tools/storage-engine-suite --charset
//! latin1 run` (the latin1 reference in tests/storage_engine/reference-latin1/) with the `betula`
//! binary built by cargo, and asserts that every test listed in tests/storage_engine/passing.txt,
//! and in passing-latin1.txt, still gives InnoDB's output (the recorded floors; add a test there
//! when it starts passing).
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

#[test]
fn storage_engine_suite_keeps_its_passing_tests_under_latin1() {
    suite_runner::keep_passing_with(
        &suite_runner::Suite {
            name: "storage_engine (latin1)",
            dir: "/usr/share/mysql/mysql-test/suite/storage_engine",
            packages: "mariadb-test mariadb-test-data",
            tool: "tools/storage-engine-suite",
            passing: "tests/storage_engine/passing-latin1.txt",
        },
        &["--charset", "latin1"],
    );
}
