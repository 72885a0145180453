//! Error numbers and SQLSTATEs are written once, in `src/error/code.rs`: everywhere else in
//! `src` a condition is an `ErrorCode` by name. This test reads the sources (outside
//! `src/error/`) and fails on an integer literal that is one of `ErrorCode`'s numbers or a string
//! literal that is one of its SQLSTATEs. Comments may cite numbers ("warning 1265"); numbers
//! below 1000 (only `EE_FILENOTFOUND`, 29) are too common to police and are not checked.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use betula_sql::ErrorCode;

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

/// A literal in Rust source: an integer's digits or a string's contents, with its line.
#[derive(Debug, PartialEq)]
enum Literal {
    Int(String, usize),
    Str(String, usize),
}

/// The integer and string literals of `text`, outside comments. Floats, hex / octal / binary
/// numbers and character literals are skipped.
fn literals(text: &str) -> Vec<Literal> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += usize::from(b[i] == b'\n');
                        i += 1;
                    }
                }
            }
            b'r' | b'b'
                if !is_ident(b.get(i.wrapping_sub(1)).copied().unwrap_or(b' '))
                    && raw_string_start(&b[i..]).is_some() =>
            {
                let (hashes, open) = raw_string_start(&b[i..]).expect("checked");
                let start = i + open;
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let mut j = start;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                let s = String::from_utf8_lossy(&b[start..j]).into_owned();
                out.push(Literal::Str(s.clone(), line));
                line += s.matches('\n').count();
                i = j + close.len();
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let s = String::from_utf8_lossy(&b[start..j.min(b.len())]).into_owned();
                out.push(Literal::Str(s.clone(), line));
                line += s.matches('\n').count();
                i = j + 1;
            }
            b'\'' => {
                // a character literal ('x', '\n', '\'', '\u{..}') or a lifetime ('a)
                if b.get(i + 1) == Some(&b'\\') {
                    let mut j = i + 2;
                    while j < b.len() && !(b[j] == b'\'' && j > i + 2) {
                        j += 1;
                    }
                    i = j + 1;
                } else {
                    let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    if b.get(i + 1 + len) == Some(&b'\'') {
                        i += len + 2;
                    } else {
                        i += 1;
                    }
                }
            }
            b'0'..=b'9' => {
                let start = i;
                while i < b.len() && (is_ident(b[i]) || b[i] == b'.' && is_digit_at(b, i + 1)) {
                    i += 1;
                }
                let tok = &text[start..i];
                let digits: String = tok.chars().filter(|&c| c != '_').collect();
                let digits = [
                    "u8", "u16", "u32", "u64", "usize", "i16", "i32", "i64", "isize",
                ]
                .iter()
                .find_map(|s| digits.strip_suffix(s))
                .unwrap_or(&digits);
                if digits.bytes().all(|d| d.is_ascii_digit()) {
                    out.push(Literal::Int(digits.to_string(), line));
                }
            }
            c if is_ident(c) => {
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_digit_at(b: &[u8], i: usize) -> bool {
    b.get(i).is_some_and(u8::is_ascii_digit)
}

/// For `r"`, `r#"`, `br"`, `br#"`...: the number of `#`s and the offset of the contents.
fn raw_string_start(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = usize::from(b.first() == Some(&b'b'));
    if b.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes;
    (b.get(i) == Some(&b'"')).then_some((hashes, i + 1))
}

#[test]
fn the_lexer_sees_literals_not_comments() {
    let src = "// 1062\nlet a = 1062; /* \"42S02\" */ let s = \"HY000\"; let f = 1062.5;\n\
               let r = r#\"x \"1\" \"#; let c = '\"'; fn f<'a>() {} let x = 0x1062; let y = 1_062u16;";
    assert_eq!(
        literals(src),
        vec![
            Literal::Int("1062".into(), 2),
            Literal::Str("HY000".into(), 2),
            Literal::Str("x \"1\" ".into(), 3),
            Literal::Int("1062".into(), 3),
        ]
    );
}

#[test]
fn error_numbers_and_sqlstates_are_named_only_in_error_code_rs() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let numbers: HashSet<String> = ErrorCode::ALL
        .iter()
        .map(|c| c.number())
        .filter(|&n| n >= 1000)
        .map(|n| n.to_string())
        .collect();
    let states: HashSet<&str> = ErrorCode::ALL.iter().map(|c| c.sqlstate()).collect();
    let mut files = Vec::new();
    source_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for f in &files {
        if f.starts_with(src.join("error")) {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("read a source file");
        for lit in literals(&text) {
            match lit {
                Literal::Int(n, line) if numbers.contains(&n) => wrong.push(format!(
                    "{}:{line}: error number {n} (name it: ErrorCode::{:?})",
                    f.display(),
                    ErrorCode::from_number(n.parse().expect("digits")).expect("known")
                )),
                Literal::Str(s, line) if states.contains(s.as_str()) => {
                    wrong.push(format!("{}:{line}: SQLSTATE \"{s}\"", f.display()))
                }
                _ => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "error numbers or SQLSTATEs written outside src/error/code.rs:\n{}",
        wrong.join("\n")
    );
    assert!(files.len() > 100, "only {} source files found", files.len());
}
