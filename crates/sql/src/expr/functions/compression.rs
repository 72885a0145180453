//! COMPRESS, UNCOMPRESS and UNCOMPRESSED_LENGTH, in MariaDB's format: an empty string stays
//! empty; anything else is the uncompressed length (4 bytes, little-endian, its top two bits
//! clear) followed by the zlib stream of the bytes, and a `.` when the result would end in a
//! space (so a CHAR column keeps it whole).
//!
//! Invariants: UNCOMPRESS of what COMPRESS gave is the original bytes; a value that is not in
//! the format (4 bytes or fewer, a bad stream, a length that does not match) is NULL with
//! MariaDB's warning 1259, and a length over `max_allowed_packet`'s default (16 MiB) is NULL
//! with 1256, never a partial value; UNCOMPRESSED_LENGTH of a value of 4 bytes or fewer is NULL
//! with 1259. The zlib stream is zlib-rs's at zlib's default level, as MariaDB calls zlib's
//! `compress`: the same bytes for short values, other (still valid) ones for some longer values
//! (zlib-rs finds matches as zlib-ng does).

use zlib_rs::{DeflateConfig, InflateConfig, ReturnCode};

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["COMPRESS", "UNCOMPRESS", "UNCOMPRESSED_LENGTH"];

/// The largest uncompressed length UNCOMPRESS gives (MariaDB's `max_allowed_packet` default).
const MAX_UNCOMPRESSED_BYTES: u32 = 16 << 20;

/// The length prefix keeps its top two bits clear (MariaDB masks them off when reading it).
const LENGTH_MASK: u32 = 0x3FFF_FFFF;

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    let [v] = a else {
        return Err(DbError::wrong_args(name));
    };
    let bytes = bytes_of(v);
    Ok(match name {
        "COMPRESS" => Value::Bytes(compress(&bytes)),
        "UNCOMPRESS" => uncompress(&bytes).map_or(Value::Null, Value::Bytes),
        "UNCOMPRESSED_LENGTH" => uncompressed_length(&bytes).map_or(Value::Null, Value::Int),
        other => return Err(DbError::no_function(&other.to_ascii_lowercase())),
    })
}

/// The bytes of an argument: a byte string's own, else its text's.
fn bytes_of(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b.clone(),
        v => crate::expr::eval::text_of(v)
            .unwrap_or_default()
            .into_bytes(),
    }
}

fn compress(bytes: &[u8]) -> Vec<u8> {
    if bytes.is_empty() {
        return Vec::new();
    }
    let len = bytes.len() as u32 & LENGTH_MASK;
    let mut stream = vec![0u8; zlib_rs::compress_bound(bytes.len())];
    let (written, rc) = zlib_rs::compress_slice(&mut stream, bytes, DeflateConfig::default());
    // the buffer holds the bound, so compressing cannot run out of room
    debug_assert_eq!(rc, ReturnCode::Ok);
    let mut out = len.to_le_bytes().to_vec();
    out.extend_from_slice(written);
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    out
}

fn warn(code: ErrorCode, message: String) {
    crate::error::pending::push(Warning {
        level: WarningLevel::Warning,
        code,
        message,
    });
}

/// 1259 and no value.
fn corrupted<T>() -> Option<T> {
    warn(
        ErrorCode::ZlibZDataError,
        "ZLIB: Input data corrupted".into(),
    );
    None
}

fn uncompress(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.is_empty() {
        return Some(Vec::new());
    }
    if bytes.len() <= 4 {
        return corrupted();
    }
    let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) & LENGTH_MASK;
    if len > MAX_UNCOMPRESSED_BYTES {
        warn(
            ErrorCode::TooBigForUncompress,
            format!(
                "Uncompressed data size too large; the maximum size is {MAX_UNCOMPRESSED_BYTES} \
                 (probably, length of uncompressed data was corrupted)"
            ),
        );
        return None;
    }
    let mut out = vec![0u8; len as usize];
    let (read, rc) = zlib_rs::decompress_slice(&mut out, &bytes[4..], InflateConfig::default());
    match rc {
        ReturnCode::Ok if read.len() == len as usize => Some(out),
        _ => corrupted(),
    }
}

fn uncompressed_length(bytes: &[u8]) -> Option<i64> {
    if bytes.is_empty() {
        return Some(0);
    }
    if bytes.len() <= 4 {
        return corrupted();
    }
    let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) & LENGTH_MASK;
    Some(i64::from(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|b| format!("{b:02X}")).collect()
    }

    #[test]
    fn compressed_values_round_trip_in_mariadbs_format() {
        // MariaDB 10.11's answers
        assert_eq!(hex(&compress(b"a")), "01000000789C4B040000620062");
        assert_eq!(
            hex(&compress("ab".repeat(100).as_bytes())),
            "C8000000789C4B4C4A1C161000E98F4C2D"
        );
        assert_eq!(hex(&compress(b"a ")), "02000000789C4B54000000E40082");
        assert!(compress(b"").is_empty());
        let text = "hello ".repeat(50);
        assert_eq!(
            uncompress(&compress(text.as_bytes())),
            Some(text.into_bytes())
        );
        assert_eq!(
            hex(&compress(b"5.140264e307")),
            "0C000000789C33D5333431303233493536300700102A0294"
        );
        assert_eq!(uncompressed_length(&compress(&[b'x'; 1000])), Some(1000));
        assert_eq!(uncompressed_length(b"ab"), None);
        assert_eq!(uncompress(b"abc"), None);
        assert_eq!(uncompress(b"\x05\x00\x00\x00garbage"), None);
    }
}
