//! A table of random text rows, loaded with one `LOAD DATA LOCAL INFILE` (the bulk path) before a
//! benchmark, so that the data directory is large in seconds rather than hours of its workload: the
//! rows are 1000 characters drawn from 64, which compress to about three quarters of their size.
//! The stream is generated as the server asks for it; nothing is written to a file.

use super::sensor_load::infile_conn_with;
use crate::peer::Server;
use mysql::prelude::Queryable;
use std::io::Write;
use std::time::Instant;

/// Characters of one row's text column.
const ROW_CHARS: usize = 1000;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Loads about `mb` MB of rows into the new table `table`; returns the rows and the load's seconds.
pub fn load(server: &Server, table: &str, mb: u64, seed: u64) -> Result<(u64, f64), String> {
    let rows = mb * 1_000_000 / (ROW_CHARS as u64 + 10);
    let handler = mysql::LocalInfileHandler::new(move |_name, out| {
        let mut x = seed | 1;
        let mut buf = Vec::with_capacity(1 << 20);
        for id in 0..rows {
            write!(buf, "{id},")?;
            for _ in 0..ROW_CHARS / 10 {
                // xorshift64: ten characters from each step.
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                buf.extend((0..10).map(|i| ALPHABET[((x >> (6 * i)) & 63) as usize]));
            }
            buf.push(b'\n');
            if buf.len() >= 1 << 20 {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        out.write_all(&buf)
    });
    let mut conn = infile_conn_with(server, handler).map_err(|e| format!("connect: {e}"))?;
    conn.query_drop(format!(
        "CREATE TABLE {table} (id BIGINT NOT NULL PRIMARY KEY, pad VARCHAR({ROW_CHARS}) NOT NULL)"
    ))
    .map_err(|e| format!("create {table}: {e}"))?;
    let t = Instant::now();
    conn.query_drop(format!(
        "LOAD DATA LOCAL INFILE 'ballast.csv' INTO TABLE {table} FIELDS TERMINATED BY ',' (id, pad)"
    ))
    .map_err(|e| format!("load {table}: {e}"))?;
    Ok((rows, t.elapsed().as_secs_f64()))
}
