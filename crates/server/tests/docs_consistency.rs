//! The documentation agrees with itself and with the code (no server is started).
//!
//! * Invariant ids: docs/design.md defines each protocol invariant once, as a list item that starts with
//!   the id in bold and a period (`- **CKP3.** ...`, outside code blocks). No id may be defined twice
//!   anywhere under docs/, and every id with a known prefix that a `.rs` file under crates/ cites (or that
//!   README.md, docs/ or bench/results/ cite) must be defined exactly once. A known prefix is one that some
//!   definition uses. A comment line that names design.md may cite no id of another form (the single
//!   letters of an older numbering, `C7`, `L1`, ...).
//! * Result files: every `bench/results/...` file that README.md or docs/ mention or link exists, and
//!   every relative link in README.md, docs/ and bench/results/ points at an existing file.
//! * The documents speak of the product as it is: no `session N` and no `issue N` / `issue #N` in
//!   README.md, docs/ or bench/results/.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Files under `dir` (recursively) whose name ends with `ext`, sorted; `target` directories are skipped.
fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name.ends_with(ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// README.md, every markdown file under docs/, and the markdown files of bench/results/ when `results`.
fn markdown_files(results: bool) -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    files.extend(files_with_ext(&root.join("docs"), ".md"));
    if results {
        files.extend(files_with_ext(&root.join("bench/results"), ".md"));
    }
    files
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// `path` relative to the repository root, for messages.
fn shown(path: &Path) -> String {
    let root = repo_root().canonicalize().unwrap();
    let full = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    full.strip_prefix(&root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Splits `id` into its capital-letter prefix and its number, if it has that form (2-4 capitals, digits).
fn split_id(id: &str) -> Option<(&str, &str)> {
    let cut = id.find(|c: char| !c.is_ascii_uppercase())?;
    let (prefix, number) = id.split_at(cut);
    let ok = (2..=4).contains(&prefix.len())
        && !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit());
    ok.then_some((prefix, number))
}

/// The id a definition line defines: `- **ID.** ...` (leading spaces allowed).
fn defined_id(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("- **")?;
    let end = rest.find(".**")?;
    let id = &rest[..end];
    split_id(id).map(|_| id)
}

/// Every definition under docs/: id -> places ("file:line").
fn definitions() -> BTreeMap<String, Vec<String>> {
    let mut defs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files_with_ext(&repo_root().join("docs"), ".md") {
        let mut in_code = false;
        for (n, line) in read(&file).lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            if in_code {
                continue;
            }
            if let Some(id) = defined_id(line) {
                let place = format!("{}:{}", shown(&file), n + 1);
                defs.entry(id.to_string()).or_default().push(place);
            }
        }
    }
    defs
}

fn known_prefixes(defs: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    defs.keys()
        .filter_map(|id| split_id(id).map(|(p, _)| p.to_string()))
        .collect()
}

/// The words of `line`: maximal runs of ASCII letters, digits and underscores.
fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The ids with a known prefix that `line` cites.
fn cited_ids<'a>(line: &'a str, prefixes: &'a BTreeSet<String>) -> impl Iterator<Item = &'a str> {
    words(line).filter(|w| split_id(w).is_some_and(|(p, _)| prefixes.contains(p)))
}

fn fail_with(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{what} ({}):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn every_invariant_id_is_defined_once() {
    let defs = definitions();
    assert!(
        !defs.is_empty(),
        "no invariant id definitions (`- **ID.** ...`) found under docs/"
    );
    let problems: Vec<String> = defs
        .iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(id, places)| {
            format!(
                "{id} is defined {} times: {}",
                places.len(),
                places.join(", ")
            )
        })
        .collect();
    fail_with("invariant ids defined more than once", &problems);
}

#[test]
fn code_cites_only_defined_ids() {
    let defs = definitions();
    let prefixes = known_prefixes(&defs);
    let mut problems = Vec::new();
    for file in files_with_ext(&repo_root().join("crates"), ".rs") {
        // This file spells ids of every form in its own examples.
        if file.file_name().is_some_and(|n| n == "docs_consistency.rs") {
            continue;
        }
        for (n, line) in read(&file).lines().enumerate() {
            for id in cited_ids(line, &prefixes) {
                let count = defs.get(id).map_or(0, Vec::len);
                if count != 1 {
                    problems.push(format!(
                        "{}:{}: cites {id}, defined {count} times in docs/",
                        shown(&file),
                        n + 1
                    ));
                }
            }
            // A comment that points at design.md cites its ids, not the single-letter ones of an older
            // numbering (`design.md C7`).
            let comment = line.trim_start().starts_with("//");
            if comment && line.contains("design.md") {
                for w in words(line) {
                    let old_form = w.len() >= 2
                        && w.len() <= 4
                        && w.starts_with(|c: char| c.is_ascii_uppercase())
                        && w[1..].chars().all(|c| c.is_ascii_digit());
                    if old_form {
                        problems.push(format!(
                            "{}:{}: cites {w}, which is not a design.md id",
                            shown(&file),
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    fail_with("code citing undefined invariant ids", &problems);
}

#[test]
fn documents_cite_only_defined_ids() {
    let defs = definitions();
    let prefixes = known_prefixes(&defs);
    let mut problems = Vec::new();
    for file in markdown_files(true) {
        for (n, line) in read(&file).lines().enumerate() {
            for id in cited_ids(line, &prefixes) {
                if defs.get(id).map_or(0, Vec::len) != 1 {
                    problems.push(format!(
                        "{}:{}: cites {id}, not defined once",
                        shown(&file),
                        n + 1
                    ));
                }
            }
        }
    }
    fail_with("documents citing undefined invariant ids", &problems);
}

/// The `bench/results/...` paths `line` mentions (text or link), up to the first character that cannot
/// be part of a file name, without a trailing period or comma.
fn result_mentions(line: &str) -> Vec<String> {
    const MARK: &str = "bench/results/";
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || "._-/".contains(c)))
            .unwrap_or(after.len());
        let name = after[..len].trim_end_matches(['.', ',']);
        if !name.is_empty() {
            out.push(format!("{MARK}{name}"));
        }
        rest = &after[len..];
    }
    out
}

/// The targets of the relative markdown links `[text](target)` in `line`, without an `#anchor`.
fn relative_links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split('#').next().unwrap_or("");
        let external = target.contains("://") || target.starts_with("mailto:");
        if !target.is_empty() && !external && !target.contains(' ') {
            out.push(target.to_string());
        }
        rest = &after[end..];
    }
    out
}

#[test]
fn mentioned_result_files_and_links_exist() {
    let root = repo_root();
    let mut problems = Vec::new();
    for file in markdown_files(false) {
        for (n, line) in read(&file).lines().enumerate() {
            for mention in result_mentions(line) {
                if !root.join(&mention).exists() {
                    problems.push(format!(
                        "{}:{}: {mention} does not exist",
                        shown(&file),
                        n + 1
                    ));
                }
            }
        }
    }
    for file in markdown_files(true) {
        let dir = file.parent().unwrap();
        let mut in_code = false;
        for (n, line) in read(&file).lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            if in_code {
                continue;
            }
            for target in relative_links(line) {
                if !dir.join(&target).exists() {
                    problems.push(format!(
                        "{}:{}: link to {target}, which does not exist",
                        shown(&file),
                        n + 1
                    ));
                }
            }
        }
    }
    fail_with("missing files", &problems);
}

/// `word N` or `word #N` (N a number) in `line`, with `word` compared case-insensitively at a word start.
fn numbered(line: &str, word: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(word) {
        let start = from + at;
        let before_ok = !lower[..start].ends_with(|c: char| c.is_ascii_alphanumeric());
        let after = lower[start + word.len()..].strip_prefix(' ');
        if let (true, Some(after)) = (before_ok, after) {
            let after = after.strip_prefix('#').unwrap_or(after);
            if after.starts_with(|c: char| c.is_ascii_digit()) {
                return true;
            }
        }
        from = start + word.len();
    }
    false
}

#[test]
fn documents_name_no_work_sessions_or_issues() {
    let mut problems = Vec::new();
    for file in markdown_files(true) {
        for (n, line) in read(&file).lines().enumerate() {
            for word in ["session", "issue"] {
                if numbered(line, word) {
                    problems.push(format!(
                        "{}:{}: \"{word} N\": {}",
                        shown(&file),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    fail_with("history in the documents", &problems);
}

#[test]
fn the_checks_recognize_what_they_look_for() {
    assert_eq!(defined_id("- **CKP3.** A rule."), Some("CKP3"));
    assert_eq!(defined_id("  - **TREE12.** A rule."), Some("TREE12"));
    assert_eq!(defined_id("- **In place** when"), None);
    assert_eq!(defined_id("- **C1.** one letter"), None);
    assert_eq!(split_id("LOG10"), Some(("LOG", "10")));
    assert_eq!(split_id("W1"), None);
    assert!(numbered("Session 16 stopped", "session"));
    assert!(numbered("see issue #12", "issue"));
    assert!(!numbered("sessions 4 clients", "session"));
    assert!(!numbered("per session only", "session"));
    assert_eq!(
        result_mentions("(bench/results/a-b.md, bench/results/c.csv). bench/results/<date>.md"),
        vec!["bench/results/a-b.md", "bench/results/c.csv"]
    );
    assert_eq!(
        relative_links("[x](a/b.md#c) [y](https://e.org)"),
        vec!["a/b.md"]
    );
}
