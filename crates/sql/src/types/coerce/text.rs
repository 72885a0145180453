//! Coercion to strings: CHAR, VARCHAR and TEXT (character limits, UTF-8 validity, the
//! column's character set) and BINARY, VARBINARY and BLOB (byte limits); rules in mod.rs.

use super::Ctx;
use crate::error::sql_error::SqlError;
use crate::types::charset::Charset;
use crate::types::value::Value;

/// The length limit of a string column: characters (CHAR, VARCHAR) or bytes (TEXT).
pub(super) enum Limit {
    Chars(u64),
    Bytes(u64),
}

pub(super) fn to_text(cx: &mut Ctx<'_>, v: &Value, limit: Limit) -> Result<String, SqlError> {
    let s: String = match v {
        Value::Text(s) => s.clone(),
        // a binary string's bytes are latin1 or koi8r text as they are (every byte is a
        // character), as MariaDB copies them
        Value::Bytes(b)
            if matches!(cx.col.collation.charset(), Charset::Latin1 | Charset::Koi8r) =>
        {
            cx.col.collation.charset().decode(b).unwrap_or_default()
        }
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(e) => {
                let err = cx.incorrect("string", v);
                let valid = String::from_utf8_lossy(&b[..e.valid_up_to()]).into_owned();
                cx.fail_or(err, valid)?
            }
        },
        other => other
            .to_text(None)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
    };
    let s = in_repertoire(cx, s)?;
    // A TEXT type's byte limit counts bytes of the column's character set (latin1: characters).
    let limit = match limit {
        Limit::Bytes(n) if cx.col.collation.max_bytes_per_char() == 1 => Limit::Chars(n),
        l => l,
    };
    let cut = match limit {
        Limit::Chars(n) => s.char_indices().nth(n as usize).map(|(i, _)| i),
        Limit::Bytes(n) if s.len() as u64 > n => {
            let mut i = n as usize;
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            Some(i)
        }
        Limit::Bytes(_) => None,
    };
    match cut {
        None => Ok(s),
        Some(i) => {
            if s[i..].bytes().all(|b| b == b' ') {
                let note = cx.truncated();
                cx.note(note);
                return Ok(s[..i].to_string());
            }
            let err = SqlError::DataTooLong {
                column: cx.name(),
                row: cx.row,
            };
            let warn = cx.truncated();
            cx.fail_or_warn(err, warn, s[..i].to_string())
        }
    }
}

/// `s` if the column's character set holds every character of it; otherwise 1366 "Incorrect
/// string value" (strict) or, with that warning, `s` with those characters replaced by `?`.
fn in_repertoire(cx: &mut Ctx<'_>, s: String) -> Result<String, SqlError> {
    let cs = cx.col.collation.charset();
    let Err(pos) = cs.fits(&s) else {
        return Ok(s);
    };
    let err = SqlError::IncorrectValue {
        kind: "string",
        value: crate::types::charset::bad_bytes_text(&s, pos),
        column: cx.qualified_name(),
        row: cx.row,
    };
    let replaced = cs.replace_unrepresentable(&s);
    cx.fail_or(err, replaced)
}

pub(super) fn to_bytes(cx: &mut Ctx<'_>, v: &Value, max: u64) -> Result<Vec<u8>, SqlError> {
    let b = match v {
        Value::Text(s) => s.as_bytes().to_vec(),
        Value::Bytes(b) => b.clone(),
        other => other.to_text(None).unwrap_or_default(),
    };
    if b.len() as u64 > max {
        let err = SqlError::DataTooLong {
            column: cx.name(),
            row: cx.row,
        };
        let warn = cx.truncated();
        return cx.fail_or_warn(err, warn, b[..max as usize].to_vec());
    }
    Ok(b)
}
