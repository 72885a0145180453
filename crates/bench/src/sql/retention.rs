//! retention (TokuMX's capped time-series collection): C clients insert sensor batches at full speed into a
//! table with PK (ts, sensor_id) while a maintenance connection keeps only the newest N rows, in two
//! variants run one after the other on separate tables:
//! - DELETE: every 100 ms `DELETE FROM t WHERE ts < cutoff`, cutoff = newest batch sent − N/sensors s;
//! - DROP PARTITION: `PARTITION BY RANGE COLUMNS(ts)` in partitions of N/4 rows' seconds; the maintenance
//!   connection adds partitions ahead of the writers and drops the ones wholly older than the cutoff.
//!
//! A server that rejects the partitioned table gets "not supported yet" for that variant (the DELETE
//! figures stay). The DROP PARTITION variant also reports the inserts in the first whole second after
//! each drop, against the median second (whether a drop stalls the writers). Afterwards one last maintenance step runs and the rows at or after the oldest kept second
//! are checked against the acknowledged batches from then (late rows of a lagging client that arrived
//! after their range was removed are counted apart).

use super::driver::{self, BatchRun, BatchSql};
use super::outcome::{classify, Status};
use super::sensor_data::{batch_ts, values_sql, SensorStream};
use super::sensor_stream::per;
use super::{fig, rate_figures, Better, Figure, SqlParams, Workload, WorkloadResult};
use crate::peer::Server;
use crate::stats;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const DESCRIPTION: &str = "retention (TokuMX capped collection): C clients insert 1000-row sensor batches at full speed into a table with PK (ts, sensor_id), autocommit, while one maintenance connection keeps the newest N rows: variant DELETE (`DELETE … WHERE ts < cutoff` every 100 ms) and variant DROP PARTITION (`PARTITION BY RANGE COLUMNS(ts)`, partitions of N/4 rows, added ahead of the writers and dropped once wholly older than the cutoff); each variant for a fixed time on its own table";

/// Partitions kept ready ahead of the writers (the maintenance step tops up below half of this).
const AHEAD: u64 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Delete,
    Partition,
}

impl Variant {
    pub fn label(self) -> &'static str {
        match self {
            Variant::Delete => "DELETE",
            Variant::Partition => "DROP PARTITION",
        }
    }
    fn table(self) -> &'static str {
        match self {
            Variant::Delete => "retention_delete",
            Variant::Partition => "retention_part",
        }
    }
}

/// Seconds of data kept (N rows / sensors) and seconds per partition.
pub fn geometry(keep_rows: u64, sensors: usize) -> (u64, u64) {
    let keep_secs = (keep_rows / sensors as u64).max(4);
    (keep_secs, (keep_secs / 4).max(1))
}

pub fn partition_def(k: u64, part_secs: u64) -> String {
    format!(
        "PARTITION p{k} VALUES LESS THAN ('{}')",
        batch_ts((k + 1) * part_secs)
    )
}

pub fn create_sql(v: Variant, table_options: &str, part_secs: u64) -> String {
    let mut s = format!(
        "CREATE TABLE {} (ts DATETIME NOT NULL, sensor_id INT NOT NULL, data1 DOUBLE, data2 DOUBLE, \
         data3 DOUBLE, data4 DOUBLE, data5 DOUBLE, data6 DOUBLE, PRIMARY KEY (ts, sensor_id)){table_options}",
        v.table()
    );
    if v == Variant::Partition {
        let parts: Vec<String> = (0..AHEAD).map(|k| partition_def(k, part_secs)).collect();
        s.push_str(&format!(
            " PARTITION BY RANGE COLUMNS(ts) ({})",
            parts.join(", ")
        ));
    }
    s
}

/// The maintenance connection's state.
struct Keeper {
    v: Variant,
    keep_secs: u64,
    part_secs: u64,
    /// DELETE: everything before this second is gone. PARTITION: partitions below this index are dropped.
    low: u64,
    /// PARTITION: partitions 0..high exist.
    high: u64,
    deleted: u64,
    statements: u64,
    nanos: Vec<u64>,
    /// When the run started, and when each DROP PARTITION returned since then.
    started: Instant,
    drops_at: Vec<Duration>,
}

impl Keeper {
    /// One maintenance step for the newest batch `newest` sent; returns the first error.
    fn step(&mut self, conn: &mut mysql::Conn, newest: u64) -> Result<(), Status> {
        let cutoff = (newest + 1).saturating_sub(self.keep_secs);
        let table = self.v.table();
        let mut exec = |sql: String, me: &mut Keeper| -> Result<(), Status> {
            let t = Instant::now();
            conn.query_drop(&sql).map_err(|e| classify(&e, &sql))?;
            me.nanos.push(t.elapsed().as_nanos() as u64);
            me.deleted += conn.affected_rows();
            me.statements += 1;
            Ok(())
        };
        match self.v {
            Variant::Delete => {
                if cutoff > self.low {
                    exec(
                        format!("DELETE FROM {table} WHERE ts < '{}'", batch_ts(cutoff)),
                        self,
                    )?;
                    self.low = cutoff;
                }
            }
            Variant::Partition => {
                while self.high < newest / self.part_secs + AHEAD / 2 {
                    exec(
                        format!(
                            "ALTER TABLE {table} ADD PARTITION ({})",
                            partition_def(self.high, self.part_secs)
                        ),
                        self,
                    )?;
                    self.high += 1;
                }
                // Partition k holds seconds [k·P, (k+1)·P): drop it once (k+1)·P <= cutoff.
                while (self.low + 1) * self.part_secs <= cutoff && self.low + 1 < self.high {
                    exec(
                        format!("ALTER TABLE {table} DROP PARTITION p{}", self.low),
                        self,
                    )?;
                    self.drops_at.push(self.started.elapsed());
                    self.low += 1;
                }
            }
        }
        Ok(())
    }

    /// The oldest second still kept.
    fn oldest_kept(&self) -> u64 {
        match self.v {
            Variant::Delete => self.low,
            Variant::Partition => self.low * self.part_secs,
        }
    }
}

/// Figures of one variant, and its per-second rows inserted.
type VariantOut = (Vec<Figure>, Vec<u64>);

/// Runs variant `v`: the writers and the maintenance connection for the configured time, then
/// one last maintenance step and the checks of what the table holds.
fn run_variant(
    server: &Server,
    p: &SqlParams,
    v: Variant,
) -> Result<VariantOut, (Status, VariantOut)> {
    let (keep_secs, part_secs) = geometry(p.retention_keep, p.sensors);
    let table = v.table();
    let mut conn = mysql::Conn::new(server.opts())
        .map_err(|e| (Status::Failed(format!("connect: {e}")), (vec![], vec![])))?;
    let create = create_sql(v, server.kind.table_options(), part_secs);
    conn.query_drop(&create)
        .map_err(|e| (classify(&e, &create), (vec![], vec![])))?;
    let newest = Arc::new(AtomicU64::new(0));
    let builders = insert_builders(table, p, &newest);
    let mut keeper = Keeper {
        v,
        keep_secs,
        part_secs,
        low: 0,
        high: if v == Variant::Partition { AHEAD } else { 0 },
        deleted: 0,
        statements: 0,
        nanos: Vec::new(),
        started: Instant::now(),
        drops_at: Vec::new(),
    };
    let (run, keep_err) = run_with_keeper(server, p, builders, &mut keeper, &mut conn, &newest);
    let per_sec = stats::per_second(&run.row_marks);
    let mut figs = run_figures(v, &run, &per_sec, &mut keeper);
    if let Some(e) = run.error.or(keep_err) {
        return Err((e, (figs, per_sec)));
    }
    if let Err(e) = check_end(&mut conn, &mut keeper, &run.batches, p, &mut figs) {
        return Err((e, (figs, per_sec)));
    }
    // The table's size with what retention left behind (deleted rows not yet purged or compacted away).
    let l = v.label();
    match super::table_size::measure(&mut conn, server.kind, table, None) {
        Ok(sz) => figs.push(fig(
            &format!("{l}: table bytes at the end (DATA_LENGTH+INDEX_LENGTH)"),
            sz.bytes.map(|v| v as f64),
            Better::Lower,
        )),
        Err(st) => figs.push(fig(
            &format!("{l}: table bytes at the end: {}", st.label()),
            None,
            Better::Lower,
        )),
    }
    let _ = conn.query_drop(format!("DROP TABLE {table}"));
    Ok((figs, per_sec))
}

/// One INSERT builder per client, each recording the newest batch sent in `newest`.
fn insert_builders(table: &'static str, p: &SqlParams, newest: &Arc<AtomicU64>) -> Vec<BatchSql> {
    (0..p.clients)
        .map(|_| {
            let mut data = SensorStream::new(p.sensors, p.seed);
            let newest = newest.clone();
            Box::new(move |b| {
                newest.fetch_max(b, Ordering::AcqRel);
                data.skip_to(b);
                let readings = data.next_step();
                format!(
                    "INSERT INTO {table} (ts,sensor_id,data1,data2,data3,data4,data5,data6) VALUES {}",
                    values_sql(b, readings)
                )
            }) as BatchSql
        })
        .collect()
}

/// The writers for `p.retention_secs` while `keeper` runs a maintenance step every 100 ms on
/// `conn`; returns the run and the maintenance error, if any.
fn run_with_keeper(
    server: &Server,
    p: &SqlParams,
    builders: Vec<BatchSql>,
    keeper: &mut Keeper,
    conn: &mut mysql::Conn,
    newest: &AtomicU64,
) -> (BatchRun, Option<Status>) {
    let stop = AtomicBool::new(false);
    let mut keep_err: Option<Status> = None;
    keeper.started = Instant::now();
    let run = std::thread::scope(|s| {
        let h = s.spawn(|| {
            while !stop.load(Ordering::Acquire) {
                if let Err(e) = keeper.step(conn, newest.load(Ordering::Acquire)) {
                    return Some(e);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            None
        });
        let run = driver::run(
            server,
            builders,
            p.sensors as u64,
            Duration::from_secs(p.retention_secs),
        );
        stop.store(true, Ordering::Release);
        keep_err = h
            .join()
            .unwrap_or(Some(Status::Failed("maintenance thread panicked".into())));
        run
    });
    (run, keep_err)
}

/// The figures of variant `v`'s run: insert rates, maintenance statements and their latency,
/// server bytes and CPU per row, retries, rows deleted.
fn run_figures(v: Variant, run: &BatchRun, per_sec: &[u64], keeper: &mut Keeper) -> Vec<Figure> {
    let rows = run.rows;
    let l = v.label();
    let mut figs: Vec<Figure> = rate_figures(rows, run.secs, per_sec)
        .into_iter()
        .map(|mut f| {
            f.name = format!("{l}: inserted {}", f.name);
            f
        })
        .collect();
    let lat = stats::latency(&mut keeper.nanos);
    figs.extend([
        fig(
            &format!("{l}: maintenance statements"),
            Some(keeper.statements as f64),
            Better::Neither,
        ),
        fig(
            &format!("{l}: maintenance statement p50 ms"),
            lat.map(|l| l.p50_us / 1000.0),
            Better::Lower,
        ),
        fig(
            &format!("{l}: maintenance statement p99 ms"),
            lat.map(|l| l.p99_us / 1000.0),
            Better::Lower,
        ),
        fig(
            &format!("{l}: server bytes written/row inserted"),
            per(run.server_write_bytes, rows),
            Better::Lower,
        ),
        fig(
            &format!("{l}: server CPU µs/row inserted"),
            run.server_cpu_secs
                .and_then(|c| stats::ratio(c * 1e6, rows as f64)),
            Better::Lower,
        ),
    ]);
    figs.push(fig(
        &format!("{l}: insert statements retried (deadlock, lock wait)"),
        Some(run.retries as f64),
        Better::Lower,
    ));
    if v == Variant::Delete {
        figs.push(fig(
            &format!("{l}: rows deleted"),
            Some(keeper.deleted as f64),
            Better::Neither,
        ));
    } else {
        figs.push(fig(
            &format!("{l}: inserted rows/s in the second after a drop ÷ median (worst drop)"),
            after_drops(per_sec, &keeper.drops_at),
            Better::Higher,
        ));
    }
    figs
}

/// The worst, over the drops, of the rows inserted in the first whole second after a drop
/// returned, divided by the run's median second (None without a drop followed by a whole second).
pub fn after_drops(per_sec: &[u64], drops_at: &[Duration]) -> Option<f64> {
    let steady: Vec<f64> = per_sec.iter().map(|&n| n as f64).collect();
    let median = stats::median(&steady)?;
    drops_at
        .iter()
        .filter_map(|t| per_sec.get(t.as_secs() as usize + 1))
        .filter_map(|&n| stats::ratio(n as f64, median))
        .min_by(|a, b| a.total_cmp(b))
}

/// One last maintenance step for the newest batch acknowledged, then the check that the table
/// holds exactly the acknowledged batches at or after the oldest kept second; adds the figures
/// of the table's final contents to `figs`.
fn check_end(
    conn: &mut mysql::Conn,
    keeper: &mut Keeper,
    batches: &[u64],
    p: &SqlParams,
    figs: &mut Vec<Figure>,
) -> Result<(), Status> {
    let l = keeper.v.label();
    let table = keeper.v.table();
    let newest_acked = batches.last().copied().unwrap_or(0);
    keeper.step(conn, newest_acked)?;
    let oldest = keeper.oldest_kept();
    let expect = batches.iter().filter(|&&b| b >= oldest).count() as u64 * p.sensors as u64;
    // Rows at or after the oldest kept second must be exactly the acknowledged ones. Older rows can remain:
    // a client that fell behind may insert a batch older than the cutoff after the last DELETE or DROP
    // (RANGE partitions only have upper bounds, so the oldest partition accepts it); they are counted apart.
    let count_sql = format!(
        "SELECT COUNT(*), CAST(SUM(CASE WHEN ts < '{}' THEN 1 ELSE 0 END) AS SIGNED) FROM {table}",
        batch_ts(oldest)
    );
    let (total, late) = conn
        .query_first::<(u64, Option<i64>), _>(&count_sql)
        .map_err(|e| classify(&e, &count_sql))?
        .unwrap_or((0, None));
    let late = late.unwrap_or(0).max(0) as u64;
    figs.push(fig(
        &format!("{l}: rows in the table at the end"),
        Some(total as f64),
        Better::Neither,
    ));
    figs.push(fig(
        &format!("{l}: rows kept (N)"),
        Some(p.retention_keep as f64),
        Better::Neither,
    ));
    figs.push(fig(
        &format!("{l}: late rows older than the cutoff left"),
        Some(late as f64),
        Better::Neither,
    ));
    if total - late != expect {
        return Err(Status::Failed(format!(
            "CHECK FAILED: {l}: {} rows from {}, expected {expect} (acknowledged batches from then)",
            total - late,
            batch_ts(oldest)
        )));
    }
    Ok(())
}

pub fn run(server: &Server, p: &SqlParams) -> WorkloadResult {
    let mut r = WorkloadResult::new(Workload::Retention);
    let (keep_secs, part_secs) = geometry(p.retention_keep, p.sensors);
    r.notes.push(format!(
        "N = {} rows = {keep_secs} s of {} sensors; partitions of {part_secs} s; {} s per variant",
        p.retention_keep, p.sensors, p.retention_secs
    ));
    r.notes.push(
        "per-second series (CSV, plot): rows inserted under the DELETE variant, then under the DROP PARTITION variant"
            .into(),
    );
    for v in [Variant::Delete, Variant::Partition] {
        eprintln!("[{}] retention: {}", server.kind.name(), v.label());
        let res = run_variant(server, p, v);
        let per_sec = match &res {
            Ok((_, s)) | Err((_, (_, s))) => s.clone(),
        };
        let t0 = r.series.len() as u64;
        r.series.extend(
            per_sec
                .iter()
                .enumerate()
                .map(|(i, &n)| (t0 + i as u64 + 1, n, None)),
        );
        match res {
            Ok((f, _)) => {
                r.figures.extend(f);
                r.notes.push(format!(
                    "{}: check: rows at or after the oldest kept second = acknowledged rows from then",
                    v.label()
                ));
            }
            Err((st, (f, _))) => {
                r.figures.extend(f);
                r.notes.push(format!("{}: {}", v.label(), st.label()));
                if r.status == Status::Ok {
                    r.status = match st {
                        Status::NotSupported(m) => {
                            Status::NotSupported(format!("{} variant: {m}", v.label()))
                        }
                        Status::Failed(m) => Status::Failed(format!("{} variant: {m}", v.label())),
                        other => other,
                    };
                }
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_cover_the_kept_seconds() {
        assert_eq!(geometry(200_000, 1000), (200, 50));
        assert_eq!(geometry(10, 1000), (4, 1));
        assert_eq!(
            partition_def(2, 50),
            "PARTITION p2 VALUES LESS THAN ('2024-01-01 00:02:30')"
        );
        let c = create_sql(Variant::Partition, " ENGINE=InnoDB", 50);
        assert!(c.contains("PRIMARY KEY (ts, sensor_id)) ENGINE=InnoDB PARTITION BY RANGE COLUMNS(ts) (PARTITION p0 VALUES LESS THAN ('2024-01-01 00:00:50'), "));
        assert_eq!(c.matches("PARTITION p").count(), AHEAD as usize);
        assert!(!create_sql(Variant::Delete, "", 50).contains("PARTITION"));
    }

    #[test]
    fn the_second_after_each_drop_against_the_median() {
        let per_sec = [100, 100, 40, 100, 90, 100];
        let at = |ms| Duration::from_millis(ms);
        // Drops in seconds 1 and 3: the seconds after them are 2 (40) and 4 (90).
        assert_eq!(after_drops(&per_sec, &[at(1500), at(3200)]), Some(0.4));
        assert_eq!(after_drops(&per_sec, &[at(5100)]), None);
        assert_eq!(after_drops(&[], &[at(100)]), None);
    }

    #[test]
    fn oldest_kept_second() {
        let mut k = Keeper {
            v: Variant::Partition,
            keep_secs: 200,
            part_secs: 50,
            low: 3,
            high: 40,
            deleted: 0,
            statements: 0,
            nanos: vec![],
            started: Instant::now(),
            drops_at: vec![],
        };
        assert_eq!(k.oldest_kept(), 150);
        k.v = Variant::Delete;
        assert_eq!(k.oldest_kept(), 3);
    }
}
