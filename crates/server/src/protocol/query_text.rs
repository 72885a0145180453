//! Decodes the bytes of a COM_QUERY / COM_STMT_PREPARE into SQL text.
//!
//! The SQL layer takes `&str`, and valid UTF-8 (the session character set) passes through
//! unchanged. Clients that send binary values inline write them as string literals with raw
//! bytes, escaping only quotes, backslashes and NUL (`mariadb-dump` without --hex-blob writes
//! `'\0\xff...'` for a BLOB; JDBC drivers with client-side prepared statements and MySQL's
//! mysqldump write `_binary '...'`): such a query is not UTF-8. Invariant: every string literal
//! of a non-UTF-8 query that is introduced by `_binary` or whose bytes are not UTF-8 is
//! rewritten to a hex literal (`X'00FF'`) holding exactly the bytes the quoted text denotes
//! (MySQL's backslash escapes and doubled quotes undone), so binary data arrives intact (a text
//! column then refuses bytes that are not UTF-8, as MariaDB does); any other invalid byte
//! (in an identifier or a comment) becomes U+FFFD.
//!
//! A client whose character set is a single-byte one (latin1, ascii) gets [`decode_single_byte`]:
//! every byte is a character of its table, except the quoted part of `_binary '...'`, which
//! becomes a hex literal of exactly its bytes as above (the backend picks the decoding:
//! backend/client_charset.rs).

use std::borrow::Cow;

/// The SQL text of a query packet body (see the module header).
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            Cow::Owned(String::from_utf8_lossy(&hex_binary_literals(bytes, true)).into_owned())
        }
    }
}

/// The SQL text of a query in a single-byte character set whose byte `b` is `table[b]`.
pub fn decode_single_byte<'a>(bytes: &'a [u8], table: &[char; 256]) -> Cow<'a, str> {
    if bytes.is_ascii() {
        // ASCII is the same in every supported character set (and then valid UTF-8).
        return Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default());
    }
    let has_binary = bytes.windows(7).any(|w| w.eq_ignore_ascii_case(b"_binary"));
    let hexed;
    let text = if has_binary {
        hexed = hex_binary_literals(bytes, false);
        &hexed[..]
    } else {
        bytes
    };
    Cow::Owned(text.iter().map(|&b| table[b as usize]).collect())
}

/// Copies `sql`, replacing the quoted part of each `_binary '...'` literal, and (with
/// `non_utf8`) each literal that is not UTF-8, by `X'..'`.
/// Other string literals, quoted identifiers and comments are copied verbatim (a `_binary`
/// inside them is not a literal).
fn hex_binary_literals(sql: &[u8], non_utf8: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        let c = sql[i];
        match c {
            b'\'' | b'"' => {
                let (end, value) = string_literal(sql, i);
                let not_utf8 = non_utf8 && std::str::from_utf8(&sql[i..end]).is_err();
                if not_utf8 || follows_binary_introducer(&out) {
                    if !out.last().is_some_and(u8::is_ascii_whitespace) {
                        out.push(b' ');
                    }
                    out.extend_from_slice(b"X'");
                    for b in value {
                        out.extend_from_slice(format!("{b:02X}").as_bytes());
                    }
                    out.push(b'\'');
                } else {
                    out.extend_from_slice(&sql[i..end]);
                }
                i = end;
            }
            b'`' => {
                let end = sql[i + 1..]
                    .iter()
                    .position(|&b| b == b'`')
                    .map_or(sql.len(), |p| i + 2 + p);
                out.extend_from_slice(&sql[i..end]);
                i = end;
            }
            b'#' => i = copy_to_line_end(sql, i, &mut out),
            b'-' if sql.get(i + 1) == Some(&b'-')
                && sql.get(i + 2).is_none_or(|b| b.is_ascii_whitespace()) =>
            {
                i = copy_to_line_end(sql, i, &mut out)
            }
            // Executable comments (`/*! ... */`) hold SQL: only their delimiters are skipped.
            b'/' if sql.get(i + 1) == Some(&b'*') && sql.get(i + 2) != Some(&b'!') => {
                let end = sql[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(sql.len(), |p| i + 4 + p);
                out.extend_from_slice(&sql[i..end]);
                i = end;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn copy_to_line_end(sql: &[u8], start: usize, out: &mut Vec<u8>) -> usize {
    let end = sql[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(sql.len(), |p| start + p);
    out.extend_from_slice(&sql[start..end]);
    end
}

/// The literal starting at the quote `sql[start]`: the index after its closing quote and the
/// bytes it denotes. An unterminated literal runs to the end (the parser then reports it).
fn string_literal(sql: &[u8], start: usize) -> (usize, Vec<u8>) {
    let quote = sql[start];
    let mut value = Vec::new();
    let mut i = start + 1;
    while i < sql.len() {
        let c = sql[i];
        if c == b'\\' && i + 1 < sql.len() {
            let e = sql[i + 1];
            match e {
                b'0' => value.push(0),
                b'b' => value.push(8),
                b'n' => value.push(b'\n'),
                b'r' => value.push(b'\r'),
                b't' => value.push(b'\t'),
                b'Z' => value.push(26),
                // LIKE wildcards keep their backslash, as in MySQL.
                b'%' | b'_' => value.extend_from_slice(&[b'\\', e]),
                other => value.push(other),
            }
            i += 2;
        } else if c == quote {
            if sql.get(i + 1) == Some(&quote) {
                value.push(quote);
                i += 2;
            } else {
                return (i + 1, value);
            }
        } else {
            value.push(c);
            i += 1;
        }
    }
    (sql.len(), value)
}

/// Whether `out` ends with the word `_binary` (any case), optionally followed by whitespace.
fn follows_binary_introducer(out: &[u8]) -> bool {
    let trimmed = out.trim_ascii_end();
    let Some(at) = trimmed.len().checked_sub(7) else {
        return false;
    };
    trimmed[at..].eq_ignore_ascii_case(b"_binary") && (at == 0 || !is_word_byte(trimmed[at - 1]))
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_passes_through() {
        assert!(matches!(
            decode(b"SELECT 'h\xc3\xa9'"),
            Cow::Borrowed("SELECT 'hé'")
        ));
    }

    #[test]
    fn binary_literals_become_hex() {
        let q = b"INSERT INTO t VALUES (_binary '\\0\x01\xff\\'\\\\''x', 'a\\'b', _BINARY\"\xfe\")";
        assert_eq!(
            decode(q),
            "INSERT INTO t VALUES (_binary X'0001FF275C2778', 'a\\'b', _BINARY X'FE')"
        );
    }

    #[test]
    fn literals_that_are_not_utf8_become_hex() {
        // mariadb-dump's form of a BLOB: raw bytes, NUL and quotes escaped.
        assert_eq!(
            decode(b"INSERT INTO t VALUES (1,'\\0\xff\x10','ok')"),
            "INSERT INTO t VALUES (1, X'00FF10','ok')"
        );
        assert_eq!(decode(b"SELECT 'a\xff'"), "SELECT X'61FF'");
    }

    #[test]
    fn invalid_bytes_outside_literals_are_replaced() {
        // A `_binary` inside another literal, identifier or comment is not an introducer.
        assert_eq!(
            decode(b"SELECT '_binary', `_binary\xff` /* _binary '\xff' */"),
            "SELECT '_binary', `_binary\u{fffd}` /* _binary '\u{fffd}' */"
        );
    }

    #[test]
    fn single_byte_text_keeps_binary_literals() {
        let mut table = ['\0'; 256];
        for (b, c) in table.iter_mut().enumerate() {
            *c = char::from(b as u8);
        }
        assert_eq!(
            decode_single_byte(b"SELECT 'h\xe9', _binary '\xe9'", &table),
            "SELECT 'h\u{e9}', _binary X'E9'"
        );
        assert!(matches!(
            decode_single_byte(b"SELECT 1", &table),
            Cow::Borrowed("SELECT 1")
        ));
    }

    #[test]
    fn unterminated_literal_does_not_panic() {
        assert_eq!(decode(b"SELECT _binary '\xff\\"), "SELECT _binary X'FF5C'");
    }
}
