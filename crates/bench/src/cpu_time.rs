//! CPU time this process has used (user + system), from `/proc/self/stat`, so a report can say how much of
//! the machine the benchmark client itself took.

/// Clock ticks per second of `/proc/*/stat` times. Linux reports them in USER_HZ, which is 100 on every
/// architecture Linux supports today.
pub const TICKS_PER_SEC: f64 = 100.0;

/// utime + stime in ticks from the text of a `/proc/<pid>/stat` file. The command name (field 2) is in
/// parentheses and may itself contain spaces or parentheses, so fields are counted after the last ')'.
pub fn parse_stat_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: state(3) ppid(4) ... utime(14) stime(15); index 0 here is field 3.
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// cutime + cstime in ticks (CPU of waited-for children, e.g. sysbench) from a `/proc/<pid>/stat` text.
pub fn parse_stat_child_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let cutime: u64 = f.get(13)?.parse().ok()?;
    let cstime: u64 = f.get(14)?.parse().ok()?;
    Some(cutime + cstime)
}

/// CPU seconds of this process's children that have been waited for.
pub fn children_cpu_secs() -> Option<f64> {
    let t = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat_child_ticks(&t).map(|ticks| ticks as f64 / TICKS_PER_SEC)
}

/// CPU seconds used by this process so far (`None` without /proc).
pub fn self_cpu_secs() -> Option<f64> {
    let t = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat_ticks(&t).map(|ticks| ticks as f64 / TICKS_PER_SEC)
}

/// CPU seconds used by the calling thread so far.
pub fn this_thread_cpu_secs() -> Option<f64> {
    let t = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    parse_stat_ticks(&t).map(|ticks| ticks as f64 / TICKS_PER_SEC)
}

/// CPU seconds used by process `pid` so far.
pub fn pid_cpu_secs(pid: u32) -> Option<f64> {
    let t = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat_ticks(&t).map(|ticks| ticks as f64 / TICKS_PER_SEC)
}

/// CPU seconds used so far by each thread of this process, summed by thread name (`comm`), so a phase
/// can say which thread (writer, flusher, log syncer, compaction) took the machine. Empty without /proc.
pub fn threads_cpu_secs() -> Vec<(String, f64)> {
    let mut by_name: Vec<(String, f64)> = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return by_name;
    };
    for task in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue; // the thread ended meanwhile
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let Some(ticks) = parse_stat_ticks(&stat) else {
            continue;
        };
        let secs = ticks as f64 / TICKS_PER_SEC;
        match by_name.iter_mut().find(|(n, _)| *n == name) {
            Some((_, s)) => *s += secs,
            None => by_name.push((name, secs)),
        }
    }
    by_name
}

/// `after − before` per thread name, largest first; threads that ended between the two readings are lost,
/// threads that started count from zero.
pub fn threads_cpu_since(before: &[(String, f64)], after: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut d: Vec<(String, f64)> = after
        .iter()
        .map(|(n, a)| {
            let b = before.iter().find(|(m, _)| m == n).map_or(0.0, |(_, b)| *b);
            (n.clone(), (a - b).max(0.0))
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    d.sort_by(|a, b| b.1.total_cmp(&a.1));
    d
}

/// CPU used over a wall-clock interval as a share of one core, in percent (200 = two cores busy).
pub fn share_of_one_core(cpu_secs: f64, wall_secs: f64) -> Option<f64> {
    (wall_secs > 0.0 && cpu_secs >= 0.0).then(|| 100.0 * cpu_secs / wall_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_utime_plus_stime() {
        let s =
            "1234 (betula-bench) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 37 0 0 20 0 5 0 100 0 0";
        assert_eq!(parse_stat_ticks(s), Some(287));
        assert_eq!(parse_stat_child_ticks(s), Some(0));
        let kids = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 250 37 40 2 20 0 5 0 100 0 0";
        assert_eq!(parse_stat_child_ticks(kids), Some(42));
        // A name with spaces and a ')' inside does not shift the fields.
        let odd = "99 (a) b (c)) R 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 1 0 0";
        assert_eq!(parse_stat_ticks(odd), Some(10));
        assert_eq!(parse_stat_ticks("garbage"), None);
        assert_eq!(parse_stat_ticks("1 (x) S 1 2"), None);
    }

    #[test]
    fn thread_cpu_differences_by_name() {
        let before = vec![("a".to_string(), 1.0), ("b".to_string(), 2.0)];
        let after = vec![
            ("a".to_string(), 1.5),
            ("b".to_string(), 4.0),
            ("c".to_string(), 0.25),
        ];
        let d = threads_cpu_since(&before, &after);
        assert_eq!(
            d,
            vec![
                ("b".to_string(), 2.0),
                ("a".to_string(), 0.5),
                ("c".to_string(), 0.25)
            ]
        );
        if std::path::Path::new("/proc/self/task").exists() {
            assert!(!threads_cpu_secs().is_empty());
        }
    }

    #[test]
    fn own_cpu_is_readable_on_linux() {
        if std::path::Path::new("/proc/self/stat").exists() {
            assert!(self_cpu_secs().unwrap() >= 0.0);
        }
    }

    #[test]
    fn share_in_percent_of_one_core() {
        assert_eq!(share_of_one_core(1.5, 3.0), Some(50.0));
        assert_eq!(share_of_one_core(4.0, 2.0), Some(200.0));
        assert_eq!(share_of_one_core(1.0, 0.0), None);
    }
}
