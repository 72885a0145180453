//! ENUM member numbers and SET bitmasks: the numbers MariaDB stores and sorts ENUM and SET values
//! by.
//!
//! Owns: [`member_code`] (value text → number) and [`member_text`] (number → value text), used
//! by the row codec, by keys of key format 2 (key_codec.rs) and by ORDER BY (MariaDB sorts an
//! ENUM by member number and a SET by bitmask, not by their text; comparisons with strings still
//! compare text).
//!
//! * ENUM: member i (1-based) is number i; the error value `''` is 0.
//! * SET: bit i-1 stands for member i; the value lists its members joined by `,` in declaration
//!   order (coerce_members.rs guarantees it), `''` is 0.
//!
//! Invariant: for a value already coerced to the column, `member_text(member_code(v)) == v`.

use crate::types::{Column, SqlType};

/// The number of ENUM/SET value `s` of a column of type `ty` with `members`: `None` when `s` is
/// not a value of the column (or the type has no members).
pub fn member_code(ty: SqlType, members: &[String], s: &str) -> Option<u64> {
    let index = |part: &str| members.iter().position(|m| m == part);
    match ty {
        SqlType::Enum { .. } => {
            if let Some(i) = index(s) {
                return Some(i as u64 + 1);
            }
            s.is_empty().then_some(0)
        }
        SqlType::Set { .. } => {
            if s.is_empty() {
                return Some(0);
            }
            let mut bits = 0u64;
            for part in s.split(',') {
                let i = index(part)?;
                if i >= 64 {
                    return None;
                }
                bits |= 1 << i;
            }
            Some(bits)
        }
        _ => None,
    }
}

/// The value text of number `code` (see [`member_code`]); `None` if the column has no such
/// member (an ENUM number past the last member, SET bits past the last member).
pub fn member_text(ty: SqlType, members: &[String], code: u64) -> Option<String> {
    match ty {
        SqlType::Enum { .. } => match code {
            0 => Some(String::new()),
            n => members.get(usize::try_from(n - 1).ok()?).cloned(),
        },
        SqlType::Set { .. } => {
            let n = members.len().min(64);
            if n < 64 && code >> n != 0 {
                return None;
            }
            let mut out = String::new();
            for (i, m) in members.iter().enumerate().take(64) {
                if code >> i & 1 == 1 {
                    if !out.is_empty() {
                        out.push(',');
                    }
                    out.push_str(m);
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// The SET value of bitmask `bits`: the members whose bit is set, joined by `,`.
pub fn set_text(col: &Column, bits: u64) -> String {
    let mut out = String::new();
    for (i, m) in col.members.iter().enumerate().take(64) {
        if bits >> i & 1 == 1 {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(m);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn enum_numbers_and_set_bitmasks_round_trip() {
        let e = SqlType::Enum { count: 3 };
        let members = m(&["b", "a", "c"]);
        assert_eq!(member_code(e, &members, "a"), Some(2));
        assert_eq!(member_code(e, &members, ""), Some(0));
        assert_eq!(member_code(e, &members, "A"), None);
        assert_eq!(member_text(e, &members, 3).as_deref(), Some("c"));
        assert_eq!(member_text(e, &members, 4), None);
        let s = SqlType::Set { count: 3 };
        assert_eq!(member_code(s, &members, "b,c"), Some(5));
        assert_eq!(member_code(s, &members, "b,x"), None);
        assert_eq!(member_text(s, &members, 5).as_deref(), Some("b,c"));
        assert_eq!(member_text(s, &members, 8), None);
        assert_eq!(member_text(s, &members, 0).as_deref(), Some(""));
    }
}
