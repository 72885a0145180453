//! The SQL layer's folders are layers: a module names (`crate::<layer>`) only layers below its
//! own, in the order `lib.rs` documents. Unit-test modules (after `#[cfg(test)]`) may reach any
//! layer. A new folder must be placed in the order here and in lib.rs's table.

use std::path::{Path, PathBuf};

/// Bottom to top, as in lib.rs's table.
const LAYERS: &[&str] = &[
    "error",
    "types",
    "codec",
    "expr",
    "result",
    "catalog",
    "parser",
    "store",
    "binlog",
    "context",
    "infoschema",
    "plan",
    "exec",
    "load",
    "ddl",
    "routine",
    "session",
];

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The layer a file belongs to: its top folder under src, or its file stem at the top.
fn layer_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a component");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The layers `text` names as `crate::<layer>`, with the line of each.
fn named_layers(text: &str) -> Vec<(String, usize)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((name, n + 1));
        }
    }
    out
}

#[test]
fn every_module_imports_only_layers_below_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    files.sort();
    let rank = |l: &str| LAYERS.iter().position(|x| *x == l);
    let mut wrong = Vec::new();
    for f in &files {
        let own = layer_of(&src, f);
        if own == "lib" {
            continue;
        }
        let Some(own_rank) = rank(&own) else {
            wrong.push(format!(
                "{}: layer `{own}` is not in the order",
                f.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(f).expect("read a source file");
        for (named, line) in named_layers(&text) {
            if let Some(r) = rank(&named) {
                if r > own_rank {
                    wrong.push(format!("{}:{line}: `{own}` names `{named}`", f.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up the layers:\n{}",
        wrong.join("\n")
    );
    assert!(files.len() > 100, "only {} source files found", files.len());
}

#[test]
fn lib_rs_lists_the_layers_in_this_order() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("read lib.rs");
    let listed: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//! | `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    assert_eq!(listed, LAYERS);
}
