//! compression matrix: the sensor rows loaded once per compression setting each engine offers, each into
//! its own table, then as many rows of a log line and a random double, and of four random doubles
//! (log_data.rs), into two more, by one client with 1000-row INSERTs in arrival order (autocommit) — the same write path
//! on every server, whether or not it has LOAD DATA yet. Per setting: load seconds, rows/s, server CPU
//! seconds, bytes written, and the table's size after the engine's flush step (MyRocks: memtable flush and
//! a manual compaction of the setting's column family). What a setting means per engine:
//! - Betula: the table option `COMPRESSION='none'|'snappy'|'lz4'|'zlib'|'zstd'|'lzma'` (node codec);
//! - InnoDB: `ROW_FORMAT=DYNAMIC` (none) and `ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8` (zlib, level
//!   innodb_compression_level = 6);
//! - MyRocks: the column families cf_none/cf_snappy/cf_lz4/cf_zlib/cf_zstd of the server config (one
//!   codec for every level), chosen by `PRIMARY KEY (...) COMMENT 'cf_x'`; codecs missing from
//!   `rocksdb_supported_compression_types` are reported as not supported by the build.

use super::driver::{self, BatchSql};
use super::log_data::SideTable;
use super::outcome::{classify, Status};
use super::sensor_data::{values_sql, SensorStream};
use super::sensor_stream::per;
use super::table_size;
use super::{fig, Better, SqlParams, Workload, WorkloadResult};
use crate::peer::{EngineKind, Server};
use crate::stats;
use mysql::prelude::Queryable;

pub const DESCRIPTION: &str = "compression matrix: the sensor rows (arrival order) loaded once per compression setting of each engine into a fresh table by one client with 1000-row INSERTs (autocommit); Betula `COMPRESSION='none'|'snappy'|'lz4'|'zlib'|'zstd'|'lzma'`, InnoDB `ROW_FORMAT=DYNAMIC` (none) / `ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8` (zlib), MyRocks column families with one codec on every level (`PRIMARY KEY … COMMENT 'cf_x'`); size = DATA_LENGTH + INDEX_LENGTH after the engine's flush step (MyRocks: flush + manual compaction of the family); then as many rows of (id BIGINT PK, a web server log line, a random double) the same way into a second table per setting, its size per row and ÷ the rows' content bytes (line bytes + 8 per double), and as many rows of (id BIGINT PK, four random doubles) into a third, its size per row and ÷ the doubles' 32 bytes per row (the id is not counted)";

/// One setting: the generic codec name (the figure prefix), the table options or PK comment, and the
/// MyRocks column family to compact.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub codec: &'static str,
    pub table_options: String,
    pub pk_comment: Option<String>,
    pub cf: Option<String>,
}

pub fn settings(kind: EngineKind) -> Vec<Setting> {
    match kind {
        EngineKind::Betula => ["none", "snappy", "lz4", "zlib", "zstd", "lzma"]
            .into_iter()
            .map(|c| Setting {
                codec: c,
                table_options: format!(" COMPRESSION='{c}'"),
                pk_comment: None,
                cf: None,
            })
            .collect(),
        EngineKind::Innodb => vec![
            Setting {
                codec: "none",
                table_options: " ENGINE=InnoDB ROW_FORMAT=DYNAMIC".into(),
                pk_comment: None,
                cf: None,
            },
            Setting {
                codec: "zlib",
                table_options: " ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8".into(),
                pk_comment: None,
                cf: None,
            },
        ],
        EngineKind::Rocksdb => ["none", "snappy", "lz4", "zlib", "zstd"]
            .into_iter()
            .map(|c| Setting {
                codec: c,
                table_options: " ENGINE=ROCKSDB".into(),
                pk_comment: Some(format!("cf_{c}")),
                cf: Some(format!("cf_{c}")),
            })
            .collect(),
    }
}

pub fn create_sql(table: &str, s: &Setting) -> String {
    let pk = match &s.pk_comment {
        Some(c) => format!("PRIMARY KEY (sensor_id, ts) COMMENT '{c}'"),
        None => "PRIMARY KEY (sensor_id, ts)".into(),
    };
    format!(
        "CREATE TABLE {table} (ts DATETIME NOT NULL, sensor_id INT NOT NULL, data1 DOUBLE, data2 DOUBLE, \
         data3 DOUBLE, data4 DOUBLE, data5 DOUBLE, data6 DOUBLE, {pk}){}",
        s.table_options
    )
}

/// Whether MyRocks' `rocksdb_supported_compression_types` (e.g. "Snappy,Zlib,LZ4,LZ4HC,ZSTD") lists `codec`.
pub fn rocks_supports(supported: &str, codec: &str) -> bool {
    codec == "none"
        || supported.split(',').any(|s| {
            s.trim().eq_ignore_ascii_case(codec)
                || (codec == "zstd" && s.trim().eq_ignore_ascii_case("ZSTDNotFinal"))
        })
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::Compression);
    let mut conn = match mysql::Conn::new(server.opts()) {
        Ok(c) => c,
        Err(e) => {
            r.status = Status::Failed(format!("connect: {e}"));
            return r;
        }
    };
    let supported = if server.kind == EngineKind::Rocksdb {
        let q = "SELECT @@rocksdb_supported_compression_types";
        let v = conn
            .query_first::<String, _>(q)
            .ok()
            .flatten()
            .unwrap_or_default();
        r.notes
            .push(format!("rocksdb_supported_compression_types = {v}"));
        v
    } else {
        String::new()
    };
    let batches = (p.compression_rows / p.sensors as u64).max(1);
    let rows = batches * p.sensors as u64;
    r.notes.push(format!(
        "{rows} rows per setting ({batches} batches of {})",
        p.sensors
    ));
    let chosen = |s: &Setting| {
        p.compression_codecs.is_empty()
            || p.compression_codecs
                .iter()
                .any(|c| c.eq_ignore_ascii_case(s.codec))
    };
    for s in settings(server.kind).into_iter().filter(chosen) {
        if server.kind == EngineKind::Rocksdb && !rocks_supports(&supported, s.codec) {
            r.notes
                .push(format!("{}: not supported by this MyRocks build", s.codec));
            continue;
        }
        let table = format!("sensor_c_{}", s.codec);
        let create = create_sql(&table, &s);
        if let Err(e) = conn.query_drop(&create) {
            let st = classify(&e, &create);
            r.notes.push(format!("{}: {}", s.codec, st.label()));
            if r.status == Status::Ok {
                r.status = st;
            }
            continue;
        }
        // One client sends batches 0..batches in order.
        let mut data = SensorStream::new(p.sensors, p.seed);
        let t2 = table.clone();
        let builder: BatchSql = Box::new(move |b| {
            data.skip_to(b);
            let readings = data.next_step();
            format!(
                "INSERT INTO {t2} (ts,sensor_id,data1,data2,data3,data4,data5,data6) VALUES {}",
                values_sql(b, readings)
            )
        });
        let wb0 = server.write_bytes_settled();
        let cpu0 = crate::cpu_time::pid_cpu_secs(server.pid());
        let run = driver::run_batches(server, builder, p.sensors as u64, batches);
        if let Some(st) = run.error {
            r.notes.push(format!("{}: {}", s.codec, st.label()));
            if r.status == Status::Ok {
                r.status = st;
            }
            continue;
        }
        let size = match table_size::measure(&mut conn, server.kind, &table, s.cf.as_deref()) {
            Ok(sz) => sz,
            Err(st) => {
                r.notes
                    .push(format!("{}: size not measured: {}", s.codec, st.label()));
                table_size::TableSize::default()
            }
        };
        // Betula compresses when it writes nodes (checkpoint, eviction), MyRocks when it flushes and
        // compacts: CPU and bytes written count the flush step too.
        let written = wb0
            .zip(server.write_bytes_settled())
            .map(|(a, b)| b.saturating_sub(a));
        let cpu = cpu0
            .zip(crate::cpu_time::pid_cpu_secs(server.pid()))
            .map(|(a, b)| b - a);
        let c = s.codec;
        r.figures.extend([
            fig(&format!("{c}: load seconds"), Some(run.secs), Better::Lower),
            fig(
                &format!("{c}: rows/s"),
                stats::ratio(run.rows as f64, run.secs),
                Better::Higher,
            ),
            fig(
                &format!("{c}: flush seconds"),
                Some(size.flush_secs),
                Better::Lower,
            ),
            fig(
                &format!("{c}: server CPU seconds, load + flush"),
                cpu,
                Better::Lower,
            ),
            fig(
                &format!("{c}: server bytes written/row, load + flush"),
                per(written, run.rows),
                Better::Lower,
            ),
            fig(
                &format!("{c}: table bytes/row"),
                per(size.bytes, run.rows),
                Better::Lower,
            ),
        ]);
        r.notes.push(format!(
            "{c}: `…{}{}`; size: {}",
            s.pk_comment
                .as_ref()
                .map(|c| format!(" PRIMARY KEY (sensor_id, ts) COMMENT '{c}')"))
                .unwrap_or_else(|| ")".into()),
            s.table_options,
            size.how
        ));
        let _ = conn.query_drop(format!("DROP TABLE {table}"));
        for t in SideTable::ALL {
            match load_side_table(&mut conn, server, p, &s, t, batches) {
                Ok(figures) => r.figures.extend(figures),
                Err(st) => r.notes.push(format!(
                    "{}: {} table: {}",
                    s.codec,
                    t.names().1,
                    st.label()
                )),
            }
        }
    }
    r
}

/// Side table `t` (log_data.rs) of setting `s`.
pub fn create_side_sql(table: &str, t: SideTable, s: &Setting) -> String {
    let pk = match &s.pk_comment {
        Some(c) => format!("PRIMARY KEY (id) COMMENT '{c}'"),
        None => "PRIMARY KEY (id)".into(),
    };
    format!(
        "CREATE TABLE {table} ({}, {pk}){}",
        t.columns_sql(),
        s.table_options
    )
}

/// Loads `batches` batches of side table `t` into a fresh table of setting `s` (one client,
/// INSERTs as the sensor rows) and measures it: table bytes per row, and ÷ the bytes of the rows'
/// content as `t` counts them.
fn load_side_table(
    conn: &mut mysql::Conn,
    server: &Server,
    p: &SqlParams,
    s: &Setting,
    t: SideTable,
    batches: u64,
) -> Result<Vec<super::Figure>, Status> {
    let (prefix, label) = t.names();
    let table = format!("{prefix}_{}", s.codec);
    let create = create_side_sql(&table, t, s);
    conn.query_drop(&create)
        .map_err(|e| classify(&e, &create))?;
    let raw: u64 = (0..batches)
        .map(|b| t.values_sql(p.seed, b, p.sensors).1)
        .sum();
    let (t2, seed, rows) = (table.clone(), p.seed, p.sensors);
    let builder: BatchSql = Box::new(move |b| {
        let (values, _) = t.values_sql(seed, b, rows);
        format!("INSERT INTO {t2} ({}) VALUES {values}", t.insert_columns())
    });
    let run = driver::run_batches(server, builder, p.sensors as u64, batches);
    if let Some(st) = run.error {
        return Err(st);
    }
    let size = table_size::measure(conn, server.kind, &table, s.cf.as_deref())?;
    let _ = conn.query_drop(format!("DROP TABLE {table}"));
    let c = s.codec;
    Ok(vec![
        fig(
            &format!("{c}: {label}: table bytes/row"),
            per(size.bytes, run.rows),
            Better::Lower,
        ),
        fig(
            &format!("{c}: {label}: table bytes ÷ content bytes"),
            size.bytes.map(|b| b as f64 / raw.max(1) as f64),
            Better::Lower,
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_per_engine() {
        assert_eq!(settings(EngineKind::Betula).len(), 6);
        let i = settings(EngineKind::Innodb);
        assert!(i[1].table_options.contains("ROW_FORMAT=COMPRESSED"));
        let r = settings(EngineKind::Rocksdb);
        let zstd = r.iter().find(|s| s.codec == "zstd").unwrap();
        let c = create_sql("t", zstd);
        assert!(c.contains("PRIMARY KEY (sensor_id, ts) COMMENT 'cf_zstd') ENGINE=ROCKSDB"));
        assert!(create_sql("t", &settings(EngineKind::Betula)[4]).ends_with(") COMPRESSION='zstd'"));
    }

    #[test]
    fn supported_codecs() {
        let s = "Snappy,Zlib,LZ4,LZ4HC,ZSTD";
        assert!(rocks_supports(s, "zstd"));
        assert!(rocks_supports(s, "lz4"));
        assert!(rocks_supports("", "none"));
        assert!(!rocks_supports("Snappy", "zstd"));
        assert!(rocks_supports("ZSTDNotFinal", "zstd"));
    }
}
