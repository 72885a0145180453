//! Moving a table between two running servers (design.md EXP1-EXP5): FLUSH TABLES t FOR EXPORT on one
//! (t read-locked: other sessions read it, their writes wait), the export directory copied into the other
//! server's data directory, ALTER TABLE t DISCARD / IMPORT TABLESPACE there: the same rows, CHECKSUM
//! TABLE, indexes and AUTO_INCREMENT, after a restart too; writes to other tables go on on both servers
//! throughout. A missing export gives 1812; another definition or a damaged file 1808, and the table is
//! left as it was.

mod betula;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use betula::{code, BetulaServer};
use mysql::prelude::*;

const T: &str = "CREATE TABLE d.t (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, \
     email VARCHAR(60) NOT NULL, score DOUBLE, day DATE, note TEXT, \
     UNIQUE KEY email (email), KEY by_day (day, score))";

fn setup(s: &BetulaServer) {
    let mut c = s.conn(None);
    for sql in [
        "CREATE DATABASE d",
        T,
        "CREATE TABLE d.other (k INT PRIMARY KEY, v INT)",
    ] {
        c.query_drop(sql).unwrap();
    }
}

/// Inserts into d.other until stopped; returns how many rows it inserted.
fn busy(
    s: &BetulaServer,
    stop: Arc<AtomicBool>,
    done: Arc<AtomicU64>,
) -> std::thread::JoinHandle<()> {
    let mut c = s.conn(Some("d"));
    std::thread::spawn(move || {
        let mut k = 0u64;
        while !stop.load(Ordering::Relaxed) {
            c.query_drop(format!("INSERT INTO other VALUES ({k}, {k})"))
                .unwrap();
            k += 1;
            done.store(k, Ordering::SeqCst);
        }
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn one<T: FromRow>(c: &mut mysql::Conn, sql: &str) -> T {
    c.query_first(sql).unwrap().unwrap()
}

#[test]
fn a_table_moves_between_servers_while_other_tables_change() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (
        BetulaServer::start(da.path()),
        BetulaServer::start(db.path()),
    );
    setup(&a);
    setup(&b);
    let mut ca = a.conn(Some("d"));
    for chunk in 0..5 {
        let rows: Vec<String> = (0..1000)
            .map(|i| {
                let n = chunk * 1000 + i;
                format!(
                    "('u{n}@x.org', {n}.5, '2024-01-01' + INTERVAL {} DAY, REPEAT('n', {}))",
                    n % 300,
                    n % 40
                )
            })
            .collect();
        ca.query_drop(format!(
            "INSERT INTO t (email, score, day, note) VALUES {}",
            rows.join(",")
        ))
        .unwrap();
    }
    ca.query_drop("DELETE FROM t WHERE id % 10 = 0").unwrap();
    let want: (String, u64) = one(&mut ca, "CHECKSUM TABLE t");
    let stop = Arc::new(AtomicBool::new(false));
    let (na, nb) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let workers = [
        busy(&a, stop.clone(), na.clone()),
        busy(&b, stop.clone(), nb.clone()),
    ];

    // Export: t is read-locked; others read it, their writes wait.
    ca.query_drop("FLUSH TABLES t FOR EXPORT").unwrap();
    let mut other = a.conn(Some("d"));
    other
        .query_drop("SET SESSION lock_wait_timeout = 1")
        .unwrap();
    assert_eq!(one::<u64>(&mut other, "SELECT COUNT(*) FROM t"), 4500);
    assert_eq!(
        code(other.query_drop("INSERT INTO t (email) VALUES ('late@x.org')")),
        1205
    );
    let exported = da.path().join("#export/d/t");
    assert!(exported.join("table.cfg").exists());
    let imported = db.path().join("#export/d/t");
    copy_dir(&exported, &imported);
    ca.query_drop("UNLOCK TABLES").unwrap();
    assert!(!exported.exists(), "UNLOCK TABLES removes the export");
    other
        .query_drop("INSERT INTO t (email) VALUES ('late@x.org')")
        .unwrap();

    // Import on the other server.
    let mut cb = b.conn(Some("d"));
    cb.query_drop("INSERT INTO t (email) VALUES ('replaced@x.org')")
        .unwrap();
    cb.query_drop("ALTER TABLE t DISCARD TABLESPACE").unwrap();
    assert_eq!(one::<u64>(&mut cb, "SELECT COUNT(*) FROM t"), 0);
    cb.query_drop("ALTER TABLE t IMPORT TABLESPACE").unwrap();
    assert!(!imported.exists(), "the import removes what it attached");
    assert_eq!(one::<(String, u64)>(&mut cb, "CHECKSUM TABLE t").1, want.1);
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(
        one::<u64>(&mut cb, "SELECT COUNT(*) FROM other"),
        nb.load(Ordering::SeqCst)
    );
    assert!(na.load(Ordering::SeqCst) > 0 && nb.load(Ordering::SeqCst) > 0);
    // Indexes answer, the UNIQUE key holds, AUTO_INCREMENT goes on after the exported rows.
    assert_eq!(
        one::<u64>(&mut cb, "SELECT COUNT(*) FROM t FORCE INDEX (by_day) WHERE day = '2024-01-02'"),
        one::<u64>(&mut ca, "SELECT COUNT(*) FROM t FORCE INDEX (by_day) WHERE day = '2024-01-02' AND email <> 'late@x.org'")
    );
    assert_eq!(
        code(cb.query_drop("INSERT INTO t (email) VALUES ('u1@x.org')")),
        1062
    );
    cb.query_drop("INSERT INTO t (email) VALUES ('new@x.org')")
        .unwrap();
    // 5001 went to the refused duplicate, as InnoDB spends it.
    assert_eq!(one::<u64>(&mut cb, "SELECT LAST_INSERT_ID()"), 5002);
    let check: (String, String, String, String) = one(&mut cb, "CHECK TABLE t");
    assert_eq!(check.3, "OK");
    drop(cb);
    b.stop();
    let b = BetulaServer::start(db.path());
    let mut cb = b.conn(Some("d"));
    assert_eq!(one::<u64>(&mut cb, "SELECT COUNT(*) FROM t"), 4501);
    assert_eq!(
        one::<(String, String, String, String)>(&mut cb, "CHECK TABLE t").3,
        "OK"
    );
}

#[test]
fn an_import_is_refused_unless_the_export_fits() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (
        BetulaServer::start(da.path()),
        BetulaServer::start(db.path()),
    );
    setup(&a);
    let mut cb = b.conn(None);
    cb.query_drop("CREATE DATABASE d").unwrap();
    cb.query_drop(T.replace("note TEXT", "note TEXT, extra INT"))
        .unwrap();
    cb.query_drop("INSERT INTO d.t (email) VALUES ('kept@x.org')")
        .unwrap();
    assert_eq!(
        code(cb.query_drop("ALTER TABLE d.t IMPORT TABLESPACE")),
        1812
    );
    let mut ca = a.conn(Some("d"));
    ca.query_drop("INSERT INTO t (email) VALUES ('a@x.org'), ('b@x.org')")
        .unwrap();
    ca.query_drop("FLUSH TABLES t FOR EXPORT").unwrap();
    let imported = db.path().join("#export/d/t");
    copy_dir(&da.path().join("#export/d/t"), &imported);
    ca.query_drop("UNLOCK TABLES").unwrap();
    // Another definition.
    assert_eq!(
        code(cb.query_drop("ALTER TABLE d.t IMPORT TABLESPACE")),
        1808
    );
    // A rebuild: an instant DROP COLUMN would leave a row layout the export does not share (EXP4).
    cb.query_drop("ALTER TABLE d.t DROP COLUMN extra, ALGORITHM=COPY")
        .unwrap();
    // A damaged file.
    let file = imported.join("PRIMARY.bt");
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(
        code(cb.query_drop("ALTER TABLE d.t IMPORT TABLESPACE")),
        1808
    );
    let kept: Vec<String> = cb.query("SELECT email FROM d.t").unwrap();
    assert_eq!(kept, vec!["kept@x.org".to_string()]);
    bytes[at] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    cb.query_drop("ALTER TABLE d.t IMPORT TABLESPACE").unwrap();
    let got: Vec<String> = cb.query("SELECT email FROM d.t ORDER BY id").unwrap();
    assert_eq!(got, vec!["a@x.org".to_string(), "b@x.org".to_string()]);
    // Partitioned tables are refused rather than moved in part.
    ca.query_drop(
        "CREATE TABLE p (id INT PRIMARY KEY) PARTITION BY RANGE (id) \
         (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)",
    )
    .unwrap();
    assert_eq!(code(ca.query_drop("FLUSH TABLES p FOR EXPORT")), 1235);
    assert_eq!(code(ca.query_drop("ALTER TABLE p IMPORT TABLESPACE")), 1235);
    // FOR EXPORT is refused under LOCK TABLES.
    ca.query_drop("LOCK TABLES t READ").unwrap();
    assert_eq!(code(ca.query_drop("FLUSH TABLES t FOR EXPORT")), 1192);
}
