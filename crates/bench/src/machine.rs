//! What the benchmark ran on: CPU, memory, kernel, file system, load, date, source revision.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn run(cmd: &str, args: &[&str]) -> Option<String> {
    let o = Command::new(cmd).args(args).output().ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim_end().to_string())
}

/// "model name × count" from /proc/cpuinfo, plus MHz and cache size of the first processor.
pub fn cpu() -> String {
    let info = read("/proc/cpuinfo");
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "?".into())
    };
    let count = info.lines().filter(|l| l.starts_with("processor")).count();
    format!(
        "{} × {count} logical CPUs ({} MHz, cache {})",
        field("model name"),
        field("cpu MHz"),
        field("cache size")
    )
}

pub fn memory() -> String {
    run("free", &["-m"]).unwrap_or_else(|| {
        read("/proc/meminfo")
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    })
}

pub fn kernel() -> String {
    read("/proc/sys/kernel/osrelease").trim().to_string()
}

pub fn loadavg() -> String {
    read("/proc/loadavg").trim().to_string()
}

/// The mount (device, type) holding `path`: the longest mount point that prefixes it.
pub fn filesystem(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut best: Option<(usize, String)> = None;
    for line in read("/proc/mounts").lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 || !path.starts_with(f[1]) {
            continue;
        }
        if best.as_ref().is_none_or(|(l, _)| f[1].len() >= *l) {
            best = Some((f[1].len(), format!("{} on {} ({})", f[0], f[1], f[2])));
        }
    }
    best.map(|b| b.1).unwrap_or_else(|| "?".into())
}

pub fn git_revision() -> String {
    let rev = run("git", &["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "?".into());
    let dirty = run("git", &["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(false);
    if dirty {
        format!("{rev} (with uncommitted changes)")
    } else {
        rev
    }
}

/// Civil date (UTC) of a day count since 1970-01-01 (Howard Hinnant's days-to-civil algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Today's date (UTC) as YYYY-MM-DD, and the time as HH:MM:SS UTC.
pub fn now_utc() -> (String, String) {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(31), (1970, 2, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
