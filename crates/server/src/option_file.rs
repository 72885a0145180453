//! Option files as MariaDB reads them (`my.cnf`): the settings `betula serve --config FILE`
//! takes from the sections a MariaDB server reads, so an existing my.cnf works unchanged.
//!
//! Rules: lines before any `[section]` and in `[mysqld]`, `[server]`, `[mariadb]`, `[mariadbd]`,
//! `[betula]` (and their `-10.11` forms) are read; other sections (`[client]`, `[mysqldump]`,
//! ...) are skipped. `#` and `;` start comments; a value may be quoted. `key = value`, or a bare
//! `key` (ON) or `skip-key` (OFF). A `loose-` prefix is dropped and marks the option as one whose
//! absence is not an error. `!include FILE` reads another file, `!includedir DIR` every `*.cnf`
//! file of a directory in name order. Keys are lower case with `-` read as `_` (config.rs).
//!
//! Invariant: includes nest at most [`MAX_DEPTH`] files deep (a loop is an error, not a hang).

use std::path::{Path, PathBuf};

/// Most nested `!include`s.
pub const MAX_DEPTH: usize = 10;

/// One setting of an option file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionLine {
    pub key: String,
    pub value: String,
    /// Written with the `loose-` prefix.
    pub loose: bool,
    /// `file:line`, for messages.
    pub at: String,
}

/// True for a section a MariaDB server reads (and Betula's own).
fn server_section(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    let base = name.strip_suffix("-10.11").unwrap_or(&name);
    matches!(
        base,
        "mysqld" | "server" | "mariadb" | "mariadbd" | "betula"
    )
}

/// The settings of option file text `text` (named `name` in messages), following includes
/// relative to `dir`.
pub fn parse(text: &str, name: &str, dir: &Path) -> Result<Vec<OptionLine>, String> {
    let mut out = Vec::new();
    read_text(text, name, dir, 0, &mut out)?;
    Ok(out)
}

/// The settings of the option file at `path`.
pub fn read(path: &Path) -> Result<Vec<OptionLine>, String> {
    let mut out = Vec::new();
    read_path(path, 0, &mut out)?;
    Ok(out)
}

fn read_path(path: &Path, depth: usize, out: &mut Vec<OptionLine>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{}: includes nest more than {MAX_DEPTH} deep",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    read_text(&text, &path.display().to_string(), dir, depth, out)
}

fn read_text(
    text: &str,
    name: &str,
    dir: &Path,
    depth: usize,
    out: &mut Vec<OptionLine>,
) -> Result<(), String> {
    let mut reading = true;
    for (n, raw) in text.lines().enumerate() {
        let at = format!("{name}:{}", n + 1);
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix('!') {
            include(rest, dir, depth, out).map_err(|e| format!("{at}: {e}"))?;
            continue;
        }
        let line = strip_comment(line).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(section) = line.strip_prefix('[') {
            let section = section
                .strip_suffix(']')
                .ok_or_else(|| format!("{at}: section header without ']'"))?;
            reading = server_section(section);
            continue;
        }
        if reading {
            out.push(option_line(line, at));
        }
    }
    Ok(())
}

/// `!include FILE` / `!includedir DIR`.
fn include(rest: &str, dir: &Path, depth: usize, out: &mut Vec<OptionLine>) -> Result<(), String> {
    let (word, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let target = dir.join(arg.trim());
    match word {
        "include" => read_path(&target, depth + 1, out),
        "includedir" => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&target)
                .map_err(|e| format!("{}: {e}", target.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "cnf"))
                .collect();
            files.sort();
            files.iter().try_for_each(|f| read_path(f, depth + 1, out))
        }
        other => Err(format!("unknown directive '!{other}'")),
    }
}

/// The line up to a `#` or `;` outside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('#' | ';', None) => return &line[..i],
            _ => {}
        }
    }
    line
}

fn option_line(line: &str, at: String) -> OptionLine {
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(unquote(v.trim()))),
        None => (line, None),
    };
    let mut key = key.to_ascii_lowercase().replace('-', "_");
    let loose = key.starts_with("loose_");
    if loose {
        key = key["loose_".len()..].to_string();
    }
    let value = match value {
        Some(v) => v.to_string(),
        None => match key.strip_prefix("skip_") {
            Some(k) => {
                key = k.to_string();
                "OFF".into()
            }
            _ => "ON".into(),
        },
    };
    OptionLine {
        key,
        value,
        loose,
        at,
    }
}

fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, String, bool)> {
        parse(text, "my.cnf", Path::new("."))
            .unwrap()
            .into_iter()
            .map(|l| (l.key, l.value, l.loose))
            .collect()
    }

    #[test]
    fn server_sections_are_read_and_others_skipped() {
        let got = keys(
            "port = 3307\n[client]\nport = 1\n[mysqld]\ncharacter-set-server = latin1 # c\n\
             [mysqldump]\nquick\n[mariadb-10.11]\nloose-tokudb_cache_size = '1G'\nskip-log-bin\n\
             log_bin\n",
        );
        assert_eq!(
            got,
            vec![
                ("port".into(), "3307".into(), false),
                ("character_set_server".into(), "latin1".into(), false),
                ("tokudb_cache_size".into(), "1G".into(), true),
                ("log_bin".into(), "OFF".into(), false),
                ("log_bin".into(), "ON".into(), false),
            ]
        );
    }

    #[test]
    fn includes_are_followed_and_loops_refused() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("conf.d");
        std::fs::create_dir(&conf).unwrap();
        std::fs::write(conf.join("b.cnf"), "[mysqld]\nport = 2\n").unwrap();
        std::fs::write(conf.join("a.cnf"), "[mysqld]\nport = 1\n").unwrap();
        std::fs::write(conf.join("skip.txt"), "[mysqld]\nport = 9\n").unwrap();
        let main = dir.path().join("my.cnf");
        std::fs::write(&main, "[mysqld]\n!includedir conf.d\nbind = x\n").unwrap();
        let got: Vec<String> = read(&main).unwrap().into_iter().map(|l| l.value).collect();
        assert_eq!(got, ["1", "2", "x"]);
        let looped = dir.path().join("loop.cnf");
        std::fs::write(&looped, "!include loop.cnf\n").unwrap();
        assert!(read(&looped).unwrap_err().contains("nest"));
        assert!(parse("[mysqld\n", "m", dir.path()).is_err());
    }
}
