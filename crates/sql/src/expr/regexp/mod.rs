//! `x [NOT] REGEXP p` (`RLIKE`), REGEXP_INSTR, REGEXP_SUBSTR and REGEXP_REPLACE as MariaDB 10.11
//! evaluates them with PCRE2: a [`RegexpCall`] node (in a tree as `Expr::Regexp`).
//!
//! | file | owns |
//! | --- | --- |
//! | `pattern.rs` | MariaDB's pattern syntax → the `regex` crate's (groups, escapes, quantifiers) |
//! | `class.rs` | character classes of a pattern |
//!
//! Semantics (MariaDB's `Regexp_processor_pcre` and `Item_func_regexp_*`):
//! * The comparison collation of subject and pattern decides: case-insensitive matching under a
//!   `_ci` collation; a binary string on either side makes both bytes (no Unicode, case
//!   sensitive), and REGEXP_INSTR then counts bytes, otherwise characters.
//! * NULL in any argument gives NULL; REGEXP gives 1/0, REGEXP_INSTR the first match's position
//!   (0: none), REGEXP_SUBSTR the first match ('' when none).
//! * REGEXP_REPLACE replaces every match, left to right, and stops at the first empty match;
//!   in the replacement `\N` (a digit) is group N (nothing when the group does not exist or did
//!   not take part), `\c` is `c`, and a final `\` is dropped.
//!
//! Invariants:
//! * A pattern is compiled once per distinct text: a constant one when the expression is
//!   compiled (a bad one fails the statement before any row is read, as in MariaDB), another
//!   one when it is first seen, then kept while the next rows bring the same text. A row's
//!   pattern that PCRE2 refuses (a syntax error) gives NULL, as in MariaDB.
//! * A pattern the `regex` crate cannot express, or an invalid one, is error 1139
//!   (ER_REGEXP_ERROR), never a different match; so is a `$` against a subject with a newline
//!   inside and one at its end (PCRE2's `$` also matches before a final newline, which the
//!   `regex` crate can only say for a subject with no other newline).

mod class;
mod pattern;

use std::sync::{Arc, Mutex};

use regex::bytes::{Captures, Regex, RegexBuilder};

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, text_of, EvalCtx};
use crate::expr::Expr;
use crate::types::collation::Collation;
use crate::types::value::Value;

pub use pattern::{is_unsupported, translate, End};

/// Which of the family a node computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegexpFunc {
    /// `x REGEXP p` / `x RLIKE p`.
    Like,
    Instr,
    Substr,
    Replace,
}

impl RegexpFunc {
    /// The function of a name (upper case), with its argument count.
    pub fn of_name(name: &str) -> Option<(RegexpFunc, usize)> {
        match name {
            "REGEXP_INSTR" => Some((RegexpFunc::Instr, 2)),
            "REGEXP_SUBSTR" => Some((RegexpFunc::Substr, 2)),
            "REGEXP_REPLACE" => Some((RegexpFunc::Replace, 3)),
            _ => None,
        }
    }
}

/// 1139 with the regular expression library's message (MariaDB cuts it at 64 characters).
pub fn regexp_error(msg: &str) -> DbError {
    let msg: String = msg.chars().take(64).collect();
    DbError::new(ErrorCode::RegexpError, format!("Regex error '{msg}'"))
}

/// A pattern compiled for both meanings of `$` it may need.
#[derive(Debug)]
pub struct Compiled {
    /// `$` as the very end.
    plain: Regex,
    /// `$` also before a final newline; `None` when the pattern has no `$`.
    before_final_newline: Option<Regex>,
}

/// Why a pattern did not compile: 1139 either way; `invalid` when PCRE2 refuses it too (a
/// syntax error), not when only the `regex` crate cannot express it.
pub struct PatternError {
    pub error: DbError,
    pub invalid: bool,
}

fn build(pattern: &[u8], unicode: bool, ci: bool, end: End) -> Result<(Regex, bool), PatternError> {
    let t = translate(pattern, unicode, end).map_err(|m| PatternError {
        invalid: !is_unsupported(&m),
        error: regexp_error(&m),
    })?;
    let re = RegexBuilder::new(&t.regex)
        .unicode(unicode)
        .case_insensitive(ci)
        .build()
        .map_err(|e| PatternError {
            error: regexp_error(&library_message(&e)),
            invalid: false,
        })?;
    Ok((re, t.has_end))
}

/// The last line of the `regex` crate's message (`error: ...`), without its prefix.
fn library_message(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(_) => "regular expression is too large".into(),
        other => {
            let s = other.to_string();
            let last = s.lines().last().unwrap_or("invalid pattern").trim();
            last.strip_prefix("error: ").unwrap_or(last).to_string()
        }
    }
}

impl Compiled {
    /// `pattern` compiled for text (`binary` false) or bytes, folding case if `ci`.
    pub fn new(pattern: &[u8], ci: bool, binary: bool) -> Result<Compiled, PatternError> {
        let (plain, has_end) = build(pattern, !binary, ci, End::Absolute)?;
        let before_final_newline = match has_end {
            true => Some(build(pattern, !binary, ci, End::BeforeFinalNewline)?.0),
            false => None,
        };
        Ok(Compiled {
            plain,
            before_final_newline,
        })
    }

    /// The regex that gives PCRE2's answer on `subject`.
    pub fn for_subject(&self, subject: &[u8]) -> DbResult<&Regex> {
        let Some(nl) = &self.before_final_newline else {
            return Ok(&self.plain);
        };
        match subject.split_last() {
            Some((b'\n', inner)) if inner.contains(&b'\n') => Err(regexp_error(
                "$ against a subject with inner and final newlines is not supported",
            )),
            Some((b'\n', _)) => Ok(nl),
            _ => Ok(&self.plain),
        }
    }
}

/// The last pattern text a call compiled, and what it compiled to.
type PatternCache = Option<(Vec<u8>, Arc<Compiled>)>;

/// A call of the family in a compiled expression.
pub struct RegexpCall {
    pub func: RegexpFunc,
    /// Subject, pattern and (REGEXP_REPLACE) replacement.
    pub args: Vec<Expr>,
    pub case_insensitive: bool,
    pub binary: bool,
    cache: Arc<Mutex<PatternCache>>,
}

impl RegexpCall {
    /// A call of `func` on `args` compared under `coll`; a literal pattern is compiled now.
    pub fn new(func: RegexpFunc, args: Vec<Expr>, coll: Collation) -> DbResult<RegexpCall> {
        let call = RegexpCall {
            func,
            args,
            case_insensitive: coll.case_insensitive(),
            binary: coll.is_binary_charset(),
            cache: Arc::new(Mutex::new(None)),
        };
        if let Some(Expr::Lit(p)) = call.args.get(1) {
            if let Some(p) = bytes_of(p) {
                call.compiled(&p).map_err(|e| e.error)?;
            }
        }
        Ok(call)
    }

    fn compiled(&self, pattern: &[u8]) -> Result<Arc<Compiled>, PatternError> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((text, c)) = cache.as_ref() {
            if text == pattern {
                return Ok(c.clone());
            }
        }
        let c = Arc::new(Compiled::new(pattern, self.case_insensitive, self.binary)?);
        *cache = Some((pattern.to_vec(), c.clone()));
        Ok(c)
    }

    /// The call's value on the row of `cx`.
    pub fn eval(&self, cx: &EvalCtx<'_>) -> DbResult<Value> {
        let mut vals = Vec::with_capacity(self.args.len());
        for a in &self.args {
            match bytes_of(&eval(a, cx)?) {
                Some(b) => vals.push(b),
                None => return Ok(Value::Null),
            }
        }
        let (subject, pattern) = (&vals[0], &vals[1]);
        let compiled = match self.compiled(pattern) {
            Ok(c) => c,
            // a row's pattern PCRE2 refuses: NULL, as MariaDB gives (only a constant one fails
            // the statement); one Betula cannot express stays 1139
            Err(e) if e.invalid => return Ok(Value::Null),
            Err(e) => return Err(e.error),
        };
        let re = compiled.for_subject(subject)?;
        Ok(match self.func {
            RegexpFunc::Like => Value::Int(re.is_match(subject) as i64),
            RegexpFunc::Instr => Value::Int(match re.find(subject) {
                Some(m) => self.position(&subject[..m.start()]) + 1,
                None => 0,
            }),
            RegexpFunc::Substr => {
                let m = re.find(subject).map(|m| m.as_bytes()).unwrap_or_default();
                self.string(m.to_vec())
            }
            RegexpFunc::Replace => self.string(replace(re, subject, &vals[2])),
        })
    }

    /// The length of `prefix` in characters (bytes for a binary string).
    fn position(&self, prefix: &[u8]) -> i64 {
        if self.binary {
            return prefix.len() as i64;
        }
        prefix.iter().filter(|b| (**b & 0xC0) != 0x80).count() as i64
    }

    fn string(&self, b: Vec<u8>) -> Value {
        match self.binary {
            true => Value::Bytes(b),
            false => Value::Text(
                String::from_utf8(b)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
        }
    }
}

/// A value as the bytes a pattern reads (numbers and dates as their text); `None` for NULL.
fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s.as_bytes().to_vec()),
        Value::Bytes(b) => Some(b.clone()),
        other => text_of(other).map(String::into_bytes),
    }
}

/// REGEXP_REPLACE: every match from the left replaced, up to the first empty match.
fn replace(re: &Regex, subject: &[u8], replacement: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(subject.len());
    let mut start = 0;
    while let Some(caps) = re.captures_at(subject, start) {
        let Some(m) = caps.get(0).filter(|m| !m.is_empty()) else {
            break;
        };
        out.extend_from_slice(&subject[start..m.start()]);
        append_replacement(&mut out, &caps, replacement);
        start = m.end();
    }
    out.extend_from_slice(&subject[start..]);
    out
}

/// `replacement` with `\N` read as group N and `\c` as `c` (a final `\` is dropped).
fn append_replacement(out: &mut Vec<u8>, caps: &Captures<'_>, replacement: &[u8]) {
    let mut it = replacement.iter();
    while let Some(b) = it.next() {
        if *b != b'\\' {
            out.push(*b);
            continue;
        }
        match it.next() {
            Some(d) if d.is_ascii_digit() => {
                if let Some(g) = caps.get(usize::from(d - b'0')) {
                    out.extend_from_slice(g.as_bytes());
                }
            }
            Some(c) => out.push(*c),
            None => break,
        }
    }
}

impl std::fmt::Debug for RegexpCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Regexp({:?}, {:?})", self.func, self.args)
    }
}

impl Clone for RegexpCall {
    fn clone(&self) -> RegexpCall {
        RegexpCall {
            func: self.func,
            args: self.args.clone(),
            case_insensitive: self.case_insensitive,
            binary: self.binary,
            cache: self.cache.clone(),
        }
    }
}

impl PartialEq for RegexpCall {
    fn eq(&self, o: &RegexpCall) -> bool {
        (self.func, self.case_insensitive, self.binary) == (o.func, o.case_insensitive, o.binary)
            && self.args == o.args
    }
}

#[cfg(test)]
mod tests;
