//! The text form of a [`FaultPlan`]'s rules, for tools and servers that take faults from a file.
//!
//! One rule per line, `#` starts a comment, blank lines are ignored; a rule is `key=value` words:
//!
//! ```text
//! kind=read_error file=.tree after=100 count=1   # the 101st read of a tree file fails, once
//! kind=sync_error file=wal                       # every fsync of a log segment fails
//! ```
//!
//! `kind` is required (the names of [`FaultKind::name`]); `file` (text the path must contain), `after`
//! and `count` are optional, as in [`FaultRule`].

use super::fault::{FaultKind, FaultPlan, FaultRule};

/// A fault spec that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FaultSpecError {
    #[error("line {line}: unknown fault kind {kind:?}")]
    UnknownKind { line: usize, kind: String },
    #[error("line {line}: no kind=... given")]
    MissingKind { line: usize },
    #[error("line {line}: {word:?} is not key=value with a known key (kind, file, after, count)")]
    BadWord { line: usize, word: String },
    #[error("line {line}: {key} must be a number, not {value:?}")]
    BadNumber {
        line: usize,
        key: &'static str,
        value: String,
    },
}

/// Reads the rules of a fault spec.
pub fn parse_fault_spec(text: &str) -> Result<Vec<FaultRule>, FaultSpecError> {
    let mut rules = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let words = raw.split('#').next().unwrap_or("").split_whitespace();
        let mut kind = None;
        let mut rule = FaultRule::new(FaultKind::ReadError, "");
        let mut any = false;
        for word in words {
            any = true;
            let bad = || FaultSpecError::BadWord {
                line,
                word: word.to_string(),
            };
            let (key, value) = word.split_once('=').ok_or_else(bad)?;
            let number = |key: &'static str| {
                value.parse::<u64>().map_err(|_| FaultSpecError::BadNumber {
                    line,
                    key,
                    value: value.to_string(),
                })
            };
            match key {
                "kind" => {
                    kind = Some(FaultKind::from_name(value).ok_or_else(|| {
                        FaultSpecError::UnknownKind {
                            line,
                            kind: value.to_string(),
                        }
                    })?)
                }
                "file" => rule.file = value.to_string(),
                "after" => rule.after = number("after")?,
                "count" => rule.count = Some(number("count")?),
                _ => return Err(bad()),
            }
        }
        if !any {
            continue;
        }
        rule.kind = kind.ok_or(FaultSpecError::MissingKind { line })?;
        rules.push(rule);
    }
    Ok(rules)
}

/// Reads a spec and installs its rules in `plan` (nothing changes if the spec is bad).
pub fn apply_fault_spec(plan: &FaultPlan, text: &str) -> Result<usize, FaultSpecError> {
    let rules = parse_fault_spec(text)?;
    let n = rules.len();
    plan.set(rules);
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rules_and_refuses_bad_words() {
        let rules = parse_fault_spec(
            "# header\n\nkind=read_error file=.tree after=100 count=1\nkind=sync_error  # all\n",
        )
        .unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].kind, FaultKind::ReadError);
        assert_eq!(rules[0].file, ".tree");
        assert_eq!((rules[0].after, rules[0].count), (100, Some(1)));
        assert_eq!(rules[1], FaultRule::new(FaultKind::SyncError, ""));
        for kind in FaultKind::ALL {
            let r = parse_fault_spec(&format!("kind={}", kind.name())).unwrap();
            assert_eq!(r[0].kind, kind);
        }
        assert!(matches!(
            parse_fault_spec("kind=melt"),
            Err(FaultSpecError::UnknownKind { line: 1, .. })
        ));
        assert!(matches!(
            parse_fault_spec("\nfile=x"),
            Err(FaultSpecError::MissingKind { line: 2 })
        ));
        assert!(matches!(
            parse_fault_spec("kind=no_space after=lots"),
            Err(FaultSpecError::BadNumber { key: "after", .. })
        ));
        assert!(matches!(
            parse_fault_spec("kind=no_space soon"),
            Err(FaultSpecError::BadWord { .. })
        ));
        let plan = FaultPlan::new();
        assert_eq!(apply_fault_spec(&plan, "kind=no_space").unwrap(), 1);
    }
}
