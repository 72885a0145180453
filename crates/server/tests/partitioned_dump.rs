//! A mariadb-dump of partitioned InnoDB tables made by a real MariaDB loads into Betula
//! unchanged (the dump's `PARTITION BY` clauses, as MariaDB 10.11 writes them), and the same
//! queries give the same answers on both: every row, rows by partition-column predicates, and
//! each partition's rows through `PARTITION (...)` (RANGE, LIST, HASH and integer KEY place rows
//! as MariaDB does).
//!
//! With `mariadbd` installed (Debian's mariadb-server) the dump and the answers come from a
//! private MariaDB started here; without it, from the files committed under tests/data/, which
//! were made the same way ([`write_fixture`] rewrites them: `BETULA_WRITE_DUMP_FIXTURE=1`;
//! `BETULA_DUMP_FROM_FIXTURE=1` uses them even with a MariaDB at hand).
//! Needs the mariadb client (mariadb-client).

mod betula;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use betula::BetulaServer;

const SETUP: &str = "
CREATE DATABASE pd;
USE pd;
CREATE TABLE ev (id INT NOT NULL, d DATE NOT NULL, v INT, note VARCHAR(20),
  PRIMARY KEY (id, d), KEY kv (v)) ENGINE=InnoDB
  PARTITION BY RANGE (TO_DAYS(d)) (PARTITION p2023 VALUES LESS THAN (TO_DAYS('2024-01-01')),
   PARTITION p202401 VALUES LESS THAN (TO_DAYS('2024-02-01')),
   PARTITION pmax VALUES LESS THAN MAXVALUE);
CREATE TABLE lst (id INT NOT NULL, region VARCHAR(8) NOT NULL, amount DECIMAL(10,2),
  PRIMARY KEY (id, region)) ENGINE=InnoDB
  PARTITION BY LIST COLUMNS (region) (PARTITION east VALUES IN ('ny', 'bos'),
   PARTITION west VALUES IN ('sf', 'la') COMMENT 'pacific', PARTITION other VALUES IN ('chi'));
CREATE TABLE hsh (id BIGINT NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB
  PARTITION BY HASH (id) PARTITIONS 4;
CREATE TABLE ky (id INT NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB
  PARTITION BY KEY (id) PARTITIONS 3;
CREATE TABLE rc (a INT NOT NULL, b CHAR(3) NOT NULL, PRIMARY KEY (a, b)) ENGINE=InnoDB
  PARTITION BY RANGE COLUMNS (a, b) (PARTITION r0 VALUES LESS THAN (10, 'm'),
   PARTITION r1 VALUES LESS THAN (20, 'a'), PARTITION r2 VALUES LESS THAN (MAXVALUE, MAXVALUE));
CREATE TABLE lin (id INT NOT NULL, d DATE NOT NULL, PRIMARY KEY (id, d)) ENGINE=InnoDB
  PARTITION BY LINEAR HASH (YEAR(d)) PARTITIONS 5;
CREATE TABLE li (id INT NOT NULL PRIMARY KEY, c INT) ENGINE=InnoDB
  PARTITION BY LIST (id MOD 3) (PARTITION m0 VALUES IN (0), PARTITION m1 VALUES IN (1, 2));
";

/// Rows for the tables, the same on every run.
fn data() -> String {
    let mut s = String::from("USE pd;\n");
    let regions = ["ny", "bos", "sf", "la", "chi"];
    for i in 0..120 {
        let day = format!("2023-12-{:02}", 1 + i % 31);
        let d2 = if i % 3 == 0 {
            format!("2024-01-{:02}", 1 + i % 28)
        } else if i % 3 == 1 {
            format!("2024-03-{:02}", 1 + i % 28)
        } else {
            day
        };
        s.push_str(&format!(
            "INSERT INTO ev VALUES ({i}, '{d2}', {}, {});\n",
            i * 7 % 50,
            if i % 5 == 0 {
                "NULL".to_string()
            } else {
                format!("'n{i}'")
            }
        ));
        s.push_str(&format!(
            "INSERT INTO lst VALUES ({i}, '{}', {}.{:02});\n",
            regions[i % 5],
            i * 3,
            i % 100
        ));
        s.push_str(&format!(
            "INSERT INTO hsh VALUES ({}, {i});\n",
            i as i64 * 7919 - 300_000
        ));
        s.push_str(&format!(
            "INSERT INTO ky VALUES ({}, {i});\n",
            i as i64 * 13 - 500
        ));
        s.push_str(&format!(
            "INSERT INTO rc VALUES ({}, '{}');\n",
            i % 40,
            ["a", "m", "z"][i / 40]
        ));
        s.push_str(&format!(
            "INSERT INTO lin VALUES ({i}, '{}-06-01');\n",
            2000 + i % 17
        ));
        s.push_str(&format!("INSERT INTO li VALUES ({i}, {});\n", i * 2));
    }
    s
}

/// The queries whose answers must agree, with each partition read alone.
fn queries() -> Vec<String> {
    let mut q = vec![
        "SELECT * FROM pd.ev ORDER BY id, d".to_string(),
        "SELECT id, v FROM pd.ev WHERE d BETWEEN '2024-01-05' AND '2024-02-10' ORDER BY id".into(),
        "SELECT COUNT(*), SUM(v) FROM pd.ev WHERE d < '2024-01-01' AND v > 10".into(),
        "SELECT * FROM pd.lst WHERE region IN ('sf', 'chi') ORDER BY id".into(),
        "SELECT region, COUNT(*), SUM(amount) FROM pd.lst GROUP BY region ORDER BY region".into(),
        "SELECT * FROM pd.hsh WHERE id BETWEEN -100000 AND 100000 ORDER BY id".into(),
        "SELECT * FROM pd.ky ORDER BY id".into(),
        "SELECT * FROM pd.rc WHERE a >= 10 AND a < 21 ORDER BY a, b".into(),
        "SELECT COUNT(*) FROM pd.lin WHERE d = '2005-06-01'".into(),
        "SELECT * FROM pd.li WHERE id < 20 ORDER BY id".into(),
    ];
    let parts: [(&str, &[&str]); 7] = [
        ("ev", &["p2023", "p202401", "pmax"]),
        ("lst", &["east", "west", "other"]),
        ("hsh", &["p0", "p1", "p2", "p3"]),
        ("ky", &["p0", "p1", "p2"]),
        ("rc", &["r0", "r1", "r2"]),
        ("lin", &["p0", "p1", "p2", "p3", "p4"]),
        ("li", &["m0", "m1"]),
    ];
    for (t, ps) in parts {
        for p in ps {
            let key = if t == "rc" { "a" } else { "id" };
            q.push(format!(
                "SELECT COUNT(*), COALESCE(SUM({key}), 0) FROM pd.{t} PARTITION ({p})"
            ));
        }
    }
    q
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the mariadb client with `args`, feeding it `input`; its output.
fn client(args: &[String], input: &str) -> String {
    assert!(
        have("mariadb"),
        "the mariadb client is needed: apt-get install -y mariadb-client"
    );
    let mut child = Command::new("mariadb")
        .arg("--no-defaults")
        .args(args)
        .args(["-uroot", "--batch", "--skip-column-names"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mariadb");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "mariadb: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Each query and its answer, in order.
fn answers(args: &[String]) -> String {
    queries()
        .iter()
        .map(|q| format!("-- {q}\n{}", client(args, &format!("{q};\n"))))
        .collect()
}

/// A private MariaDB on a socket in `root`, killed on drop.
struct MariaDb {
    child: Child,
    socket: PathBuf,
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_mariadb(root: &Path) -> MariaDb {
    let data = root.join("data");
    let socket = root.join("m.sock");
    let cnf = root.join("my.cnf");
    std::fs::write(
        &cnf,
        format!(
            "[mariadbd]\nuser=root\ndatadir={}\nsocket={}\npid-file={}/m.pid\nskip-networking\n\
             skip-log-bin\nperformance_schema=OFF\ninnodb_buffer_pool_size=32M\nlog-error={}/m.err\n",
            data.display(),
            socket.display(),
            root.display(),
            root.display()
        ),
    )
    .unwrap();
    let defaults = format!("--defaults-file={}", cnf.display());
    let ok = Command::new("mariadb-install-db")
        .args([
            defaults.as_str(),
            "--user=root",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mariadb-install-db failed");
    let child = Command::new("mariadbd")
        .arg(&defaults)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mariadbd");
    let started = Instant::now();
    while !socket.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "mariadbd did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    MariaDb { child, socket }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The dump and the answers, from a live MariaDB or the committed files.
fn dump_and_answers() -> (String, String) {
    let forced = std::env::var("BETULA_DUMP_FROM_FIXTURE").is_ok_and(|v| v == "1");
    if forced || !have("mariadbd") {
        let read = |n| std::fs::read_to_string(fixture(n)).expect("committed fixture");
        return (
            read("partitioned_innodb.sql"),
            read("partitioned_innodb.answers"),
        );
    }
    let root = tempfile::tempdir().unwrap();
    let m = start_mariadb(root.path());
    let sock = vec![format!("--socket={}", m.socket.display())];
    client(&sock, &format!("{SETUP}\n{}", data()));
    let out = Command::new("mariadb-dump")
        .arg("--no-defaults")
        .arg(format!("--socket={}", m.socket.display()))
        .args(["-uroot", "--databases", "pd"])
        .output()
        .expect("run mariadb-dump");
    assert!(
        out.status.success(),
        "mariadb-dump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = String::from_utf8(out.stdout).unwrap();
    let answers = answers(&sock);
    write_fixture(&dump, &answers);
    (dump, answers)
}

/// Rewrites the committed fixtures when asked (`BETULA_WRITE_DUMP_FIXTURE=1`).
fn write_fixture(dump: &str, answers: &str) {
    if std::env::var("BETULA_WRITE_DUMP_FIXTURE").is_ok_and(|v| v == "1") {
        std::fs::write(fixture("partitioned_innodb.sql"), dump).unwrap();
        std::fs::write(fixture("partitioned_innodb.answers"), answers).unwrap();
    }
}

#[test]
fn a_mariadb_dump_of_partitioned_innodb_tables_loads_and_answers_alike() {
    let (dump, expected) = dump_and_answers();
    assert!(
        dump.contains("PARTITION BY RANGE"),
        "not a dump of the partitioned tables"
    );
    let dir = tempfile::tempdir().unwrap();
    let server = BetulaServer::start(dir.path());
    let tcp = vec!["-h127.0.0.1".to_string(), format!("-P{}", server.port)];
    client(&tcp, &dump);
    let got = answers(&tcp);
    for (g, e) in got.split("-- ").zip(expected.split("-- ")) {
        assert_eq!(g, e, "the answers differ");
    }
    assert_eq!(got, expected);
    // The definitions came through: every table is partitioned as in MariaDB.
    let parts = client(
        &tcp,
        "SELECT table_name, COUNT(*) FROM information_schema.partitions WHERE table_schema = 'pd' \
         GROUP BY table_name ORDER BY table_name;",
    );
    assert_eq!(
        parts,
        "ev\t3\nhsh\t4\nky\t3\nli\t2\nlin\t5\nlst\t3\nrc\t3\n"
    );
}
