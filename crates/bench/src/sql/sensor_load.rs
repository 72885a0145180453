//! sensor-load (peer W1): `LOAD DATA LOCAL INFILE` of the sensor CSV into `sensordata_w1` (PK (sensor_id,
//! ts)), the file streamed by this client through the protocol's local-infile exchange. The CSV is written
//! once per (sensors, seconds, seed) under the run directory: gen_csv.py's columns and arrival order (ts
//! ascending, then sensor_id), no header. Figures: load seconds, rows/s, server bytes written
//! (`peer::Server::write_bytes_settled`), server and client CPU, table size after each engine's flush step, datadir growth.
//! A server that rejects the statement gets "not supported yet" with its error.

use super::outcome::{classify, Status};
use super::sensor_data::{batch_ts, SensorStream};
use super::sensor_stream::per;
use super::table_size;
use super::{fig, Better, SqlParams, Workload, WorkloadResult};
use crate::cpu_time::{self, share_of_one_core};
use crate::peer::{EngineKind, Server};
use crate::stats;
use mysql::prelude::Queryable;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const TABLE: &str = "sensordata_w1";

pub const DESCRIPTION: &str = "W1: `LOAD DATA LOCAL INFILE` of the sensor CSV (gen_csv.py's model and arrival order, 1000 sensors, no header) into sensordata_w1 (PK (sensor_id, ts)), one statement, streamed by the client; MyRocks uses its bulk loader (`rocksdb_bulk_load_allow_unsorted=1`, `rocksdb_bulk_load=1`) as the peers' baseline did. Size = DATA_LENGTH + INDEX_LENGTH after each engine's flush step (MyRocks: memtable flush + manual compaction)";

/// The engine's table options, with `betula_extra` appended for Betula.
pub fn load_table_options(kind: EngineKind, betula_extra: &str) -> String {
    match kind {
        EngineKind::Betula if !betula_extra.trim().is_empty() => {
            format!("{} {}", kind.table_options(), betula_extra.trim())
        }
        _ => kind.table_options().to_string(),
    }
}

pub fn create_sql(table_options: &str) -> String {
    super::sensor_stream::create_sql(table_options).replacen(super::sensor_stream::TABLE, TABLE, 1)
}

/// The CSV of `rows` rows (rounded down to whole seconds of all sensors), created if missing.
pub fn csv_file(dir: &Path, sensors: usize, rows: u64, seed: u64) -> io::Result<(PathBuf, u64)> {
    let secs = (rows / sensors as u64).max(1);
    let path = dir.join(format!("sensors-{sensors}x{secs}-seed{seed}.csv"));
    if !path.exists() {
        let tmp = path.with_extension("csv.tmp");
        write_csv(
            &mut BufWriter::new(File::create(&tmp)?),
            sensors,
            secs,
            seed,
        )?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok((path, secs * sensors as u64))
}

/// gen_csv.py's format: `ts,sensor_id,data1,…,data6`, 2 decimals, one line per reading.
pub fn write_csv(out: &mut impl Write, sensors: usize, secs: u64, seed: u64) -> io::Result<()> {
    let mut data = SensorStream::new(sensors, seed);
    for b in 0..secs {
        let ts = batch_ts(b);
        for (i, r) in data.next_step().iter().enumerate() {
            writeln!(
                out,
                "{ts},{},{:.2},{:.2},{:.2},{:.2},{:.2},{:.2}",
                i + 1,
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5]
            )?;
        }
    }
    out.flush()
}

pub fn load_sql(table: &str) -> String {
    format!(
        "LOAD DATA LOCAL INFILE 'sensors.csv' INTO TABLE {table} FIELDS TERMINATED BY ',' \
         LINES TERMINATED BY '\\n' (ts, sensor_id, data1, data2, data3, data4, data5, data6)"
    )
}

/// Session statements around the load: MyRocks' bulk loader (the peers' W1 setting).
pub fn session_sql(kind: EngineKind) -> (Vec<&'static str>, Vec<&'static str>) {
    match kind {
        EngineKind::Rocksdb => (
            vec![
                "SET SESSION rocksdb_bulk_load_allow_unsorted = 1",
                "SET SESSION rocksdb_bulk_load = 1",
            ],
            vec!["SET SESSION rocksdb_bulk_load = 0"],
        ),
        _ => (vec![], vec![]),
    }
}

/// A connection whose local-infile requests are answered with the bytes of `csv` (whatever name the
/// server asks for).
pub fn infile_conn(server: &Server, csv: &Path) -> Result<mysql::Conn, mysql::Error> {
    let path = csv.to_path_buf();
    let handler = mysql::LocalInfileHandler::new(move |_name, writer| {
        let mut f = File::open(&path)?;
        io::copy(&mut f, writer)?;
        Ok(())
    });
    infile_conn_with(server, handler)
}

/// A connection whose local-infile requests `handler` answers.
pub fn infile_conn_with(
    server: &Server,
    handler: mysql::LocalInfileHandler,
) -> Result<mysql::Conn, mysql::Error> {
    let opts = mysql::OptsBuilder::from_opts(server.opts()).local_infile_handler(Some(handler));
    mysql::Conn::new(opts)
}

/// Loads `csv` into `table` (created with `create`) and measures.
pub struct Load {
    pub secs: f64,
    /// The server's bytes-written count right before the load (`Server::write_bytes_settled`).
    pub write_bytes_before: Option<u64>,
    pub server_write_bytes: Option<u64>,
    pub server_cpu_secs: Option<f64>,
    pub client_cpu_secs: Option<f64>,
}

pub fn load(
    server: &Server,
    csv: &Path,
    table: &str,
    create: &str,
) -> Result<(mysql::Conn, Load), Status> {
    let mut conn = infile_conn(server, csv).map_err(|e| Status::Failed(format!("connect: {e}")))?;
    conn.query_drop(create).map_err(|e| classify(&e, create))?;
    let (pre, post) = session_sql(server.kind);
    for s in &pre {
        conn.query_drop(s).map_err(|e| classify(&e, s))?;
    }
    let wb0 = server.write_bytes_settled();
    let scpu0 = cpu_time::pid_cpu_secs(server.pid());
    let ccpu0 = cpu_time::self_cpu_secs();
    let t = Instant::now();
    let sql = load_sql(table);
    conn.query_drop(&sql).map_err(|e| classify(&e, &sql))?;
    for s in &post {
        conn.query_drop(s).map_err(|e| classify(&e, s))?;
    }
    let secs = t.elapsed().as_secs_f64();
    let diff = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| b - a);
    let l = Load {
        secs,
        write_bytes_before: wb0,
        server_write_bytes: wb0
            .zip(server.write_bytes_settled())
            .map(|(a, b)| b.saturating_sub(a)),
        server_cpu_secs: diff(scpu0, cpu_time::pid_cpu_secs(server.pid())),
        client_cpu_secs: diff(ccpu0, cpu_time::self_cpu_secs()),
    };
    Ok((conn, l))
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::SensorLoad);
    let (csv, rows) = match csv_file(&p.dir, p.sensors, p.load_rows, p.seed) {
        Ok(x) => x,
        Err(e) => {
            r.status = Status::Failed(format!("writing the CSV under {}: {e}", p.dir.display()));
            return r;
        }
    };
    let csv_bytes = std::fs::metadata(&csv).map(|m| m.len()).unwrap_or(0);
    r.notes.push(format!(
        "CSV: {} ({} rows, {} bytes, {:.1} B/row)",
        csv.display(),
        rows,
        csv_bytes,
        csv_bytes as f64 / rows.max(1) as f64
    ));
    let du0 = server.datadir_bytes();
    let create = create_sql(&load_table_options(server.kind, &p.betula_load_options));
    let (mut conn, l) = match load(server, &csv, TABLE, &create) {
        Ok(x) => x,
        Err(st) => {
            r.status = st;
            return r;
        }
    };
    let size = match table_size::measure(&mut conn, server.kind, TABLE, Some("default")) {
        Ok(s) => s,
        Err(st) => {
            r.notes
                .push(format!("table size not measured: {}", st.label()));
            table_size::TableSize::default()
        }
    };
    let du1 = server.datadir_bytes();
    let written_with_flush = l
        .write_bytes_before
        .zip(server.write_bytes_settled())
        .map(|(a, b)| b.saturating_sub(a));
    r.figures = vec![
        fig("rows", Some(rows as f64), Better::Neither),
        fig("load seconds", Some(l.secs), Better::Lower),
        fig("rows/s", stats::ratio(rows as f64, l.secs), Better::Higher),
        fig(
            "server bytes written during the load",
            l.server_write_bytes.map(|v| v as f64),
            Better::Lower,
        ),
        fig(
            "server bytes written/row",
            per(l.server_write_bytes, rows),
            Better::Lower,
        ),
        fig(
            "server bytes written/row, load + flush",
            per(written_with_flush, rows),
            Better::Lower,
        ),
        fig(
            "flush/compaction seconds after the load",
            Some(size.flush_secs),
            Better::Lower,
        ),
        fig(
            "table bytes (DATA_LENGTH+INDEX_LENGTH)",
            size.bytes.map(|v| v as f64),
            Better::Lower,
        ),
        fig("table bytes/row", per(size.bytes, rows), Better::Lower),
        fig(
            "datadir growth, bytes/row",
            du0.zip(du1)
                .and_then(|(a, b)| per(Some(b.saturating_sub(a)), rows)),
            Better::Lower,
        ),
        fig("server CPU seconds", l.server_cpu_secs, Better::Lower),
        fig(
            "client CPU, % of one core",
            l.client_cpu_secs.and_then(|c| share_of_one_core(c, l.secs)),
            Better::Neither,
        ),
    ];
    if !size.how.is_empty() {
        r.notes.push(format!("size: {}", size.how));
    }
    let count_sql = format!("SELECT COUNT(*) FROM {TABLE}");
    match conn.query_first::<u64, _>(&count_sql) {
        Ok(Some(n)) if n == rows => r
            .notes
            .push(format!("check: COUNT(*) = {n} = rows in the CSV")),
        Ok(n) => r.notes.push(format!(
            "CHECK FAILED: COUNT(*) = {n:?}, rows in the CSV = {rows}"
        )),
        Err(e) => r.notes.push(format!(
            "check COUNT(*) not possible: {}",
            classify(&e, &count_sql).label()
        )),
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_lines_in_arrival_order() {
        let mut out = Vec::new();
        write_csv(&mut out, 2, 2, 42).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("2024-01-01 00:00:00,1,"));
        assert!(lines[1].starts_with("2024-01-01 00:00:00,2,"));
        assert!(lines[3].starts_with("2024-01-01 00:00:01,2,"));
        assert_eq!(lines[0].split(',').count(), 8);
    }

    #[test]
    fn csv_file_is_reused_and_whole_seconds() {
        let dir = tempfile::tempdir().unwrap();
        let (p, rows) = csv_file(dir.path(), 3, 10, 42).unwrap();
        assert_eq!(rows, 9);
        let first = std::fs::read(&p).unwrap();
        assert_eq!(first.iter().filter(|&&c| c == b'\n').count(), 9);
        let (p2, _) = csv_file(dir.path(), 3, 10, 42).unwrap();
        assert_eq!(p, p2);
        assert_eq!(std::fs::read(&p2).unwrap(), first);
    }

    #[test]
    fn statements() {
        assert!(create_sql("").starts_with("CREATE TABLE sensordata_w1 ("));
        let small = load_table_options(EngineKind::Betula, " ROW_FORMAT=TOKUDB_SMALL");
        assert!(create_sql(&small).ends_with("(sensor_id, ts)) ROW_FORMAT=TOKUDB_SMALL"));
        assert_eq!(
            load_table_options(EngineKind::Innodb, "ROW_FORMAT=TOKUDB_SMALL"),
            " ENGINE=InnoDB"
        );
        let l = load_sql("t");
        assert!(l.starts_with("LOAD DATA LOCAL INFILE"));
        assert!(l.contains("INTO TABLE t"));
        assert_eq!(session_sql(EngineKind::Rocksdb).0.len(), 2);
        assert!(session_sql(EngineKind::Betula).0.is_empty());
    }
}
