//! Tables hand their trees column layouts (design.md COL5): a table's primary tree is written
//! columnar after CREATE, after a restart and after a rebuild, and every row reads back the same;
//! ALTER TABLE ... COMPRESSION / ROW_FORMAT rebuilds the table with the new codec and level.

mod sessions;

use betula_sql::Engine;
use betula_storage::Codec;
use sessions::{err_code, exec, open, rows};

const SENSORS: &str = "CREATE TABLE t (ts DATETIME NOT NULL, sensor_id INT NOT NULL, \
    d1 DOUBLE, d2 DOUBLE, d3 DOUBLE, d4 DOUBLE, d5 DOUBLE, d6 DOUBLE, \
    PRIMARY KEY (sensor_id, ts), KEY by_d1 (d1))";

fn insert(s: &mut betula_sql::Session, from: u32, n: u32) {
    let values: Vec<String> = (from..from + n)
        .map(|i| {
            let d = |c: u32| match (i + c) % 97 {
                0 => "NULL".to_string(),
                1 => "-0e0".to_string(),
                2 => "1e300".to_string(),
                3 => "0.1234567891234".to_string(),
                _ => format!("{}.{:02}", 20 + (i * 7 + c) % 30, (i * 13 + c) % 100),
            };
            let second = i / 10;
            format!(
                "('2024-01-01 {:02}:{:02}:{:02}', {}, {}, {}, {}, {}, {}, {})",
                second / 3600,
                second / 60 % 60,
                second % 60,
                i % 10,
                d(0),
                d(1),
                d(2),
                d(3),
                d(4),
                d(5)
            )
        })
        .collect();
    exec(s, &format!("INSERT INTO t VALUES {}", values.join(",")));
}

fn primary(e: &Engine) -> String {
    let mut names: Vec<String> = e
        .store
        .env()
        .tree_names()
        .into_iter()
        .filter(|n| n.starts_with("test/t/") && n.ends_with("/PRIMARY"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    names.pop().unwrap()
}

fn all(s: &mut betula_sql::Session) -> Vec<Vec<String>> {
    rows(s, "SELECT * FROM t ORDER BY sensor_id, ts")
}

#[test]
fn tables_are_written_columnar_and_read_back_through_restarts_and_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let want;
    {
        let (e, mut s) = open(dir.path(), &[SENSORS]);
        for b in 0..10 {
            insert(&mut s, b * 500, 500);
        }
        let tree = e.store.tree(&primary(&e)).unwrap();
        assert!(tree.column_layout().is_some());
        e.checkpoint().unwrap();
        let stats = e.store.env().stats();
        assert!(
            stats.columnar_frames_written > 0,
            "{} of {} frames columnar",
            stats.columnar_frames_written,
            stats.frames_written
        );
        want = all(&mut s);
        assert_eq!(want.len(), 5000);
        assert_eq!(
            rows(
                &mut s,
                "SELECT d1, d3 FROM t WHERE sensor_id = 0 ORDER BY ts LIMIT 1"
            ),
            vec![vec!["NULL", "1e300"]]
        );
    }
    let (e, mut s) = open(dir.path(), &[]);
    assert!(e
        .store
        .tree(&primary(&e))
        .unwrap()
        .column_layout()
        .is_some());
    assert_eq!(all(&mut s), want);
    // SHOW TABLE STATUS: the rows counted, the bytes per row of the primary tree, free bytes.
    exec(&mut s, "ANALYZE TABLE t");
    let status = rows(&mut s, "SHOW TABLE STATUS LIKE 't'");
    assert_eq!(status[0][4], "5000");
    let data: u64 = status[0][6].parse().unwrap();
    assert_eq!(status[0][5], (data / 5000).to_string());
    assert!(data / 5000 < 61, "{data} bytes for 5000 rows");
    let free: u64 = status[0][9].parse().unwrap();
    assert!(free < data, "{free} bytes free");

    // A new codec and level: the table is rebuilt into new trees that use them.
    exec(&mut s, "ALTER TABLE t COMPRESSION='zstd:9'");
    let tree = e.store.tree(&primary(&e)).unwrap();
    assert_eq!(primary(&e), "test/t/@1/PRIMARY");
    assert_eq!(
        (tree.options().codec, tree.options().level),
        (Codec::Zstd, 9)
    );
    assert!(tree.column_layout().is_some());
    assert_eq!(all(&mut s), want);
    exec(&mut s, "ALTER TABLE t ROW_FORMAT=TOKUDB_SMALL");
    // COMPRESSION still names zstd and overrides ROW_FORMAT's codec; the table is rewritten.
    assert_eq!(primary(&e), "test/t/@2/PRIMARY");
    assert_eq!(
        e.store.tree(&primary(&e)).unwrap().options().codec,
        Codec::Zstd
    );
    exec(&mut s, "ALTER TABLE t COMPRESSION='lzma'");
    assert_eq!(
        e.store.tree(&primary(&e)).unwrap().options().codec,
        Codec::Lzma
    );
    assert_eq!(all(&mut s), want);
    // The smallest setting: zstd at level 19 over 128 KiB basements.
    let default_basement = e
        .store
        .tree(&primary(&e))
        .unwrap()
        .options()
        .basement_size_bytes;
    assert_eq!(default_basement, 32 << 10);
    exec(&mut s, "ALTER TABLE t COMPRESSION='tokudb_small'");
    let small = e.store.tree(&primary(&e)).unwrap().options();
    assert_eq!(
        (small.codec, small.level, small.basement_size_bytes),
        (Codec::Zstd, 19, 128 << 10)
    );
    assert_eq!(all(&mut s), want);
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t COMPRESSION='zstd:99'"),
        1210
    );
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t COMPRESSION='rot13:3'"),
        1210
    );
    drop((tree, s, e));
    let (e, mut s) = open(dir.path(), &[]);
    let tree = e.store.tree(&primary(&e)).unwrap();
    assert_eq!(
        (tree.options().codec, tree.options().basement_size_bytes),
        (Codec::Zstd, 128 << 10)
    );
    assert_eq!(all(&mut s), want);
}
