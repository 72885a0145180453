//! Checksums of a value's text: CRC32.
//!
//! Invariant: the checksum is zlib's (reflected IEEE polynomial) over the value as UTF-8 text; a
//! byte string goes through its text form (invalid UTF-8 becomes U+FFFD first).

use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::text_of;
use crate::types::value::Value;

pub(super) const NAMES: &[&str] = &["CRC32"];

pub(super) fn call(name: &str, a: &[Value]) -> DbResult<Value> {
    match name {
        "CRC32" => Ok(Value::UInt(
            crc32(a.first().and_then(text_of).unwrap_or_default().as_bytes()) as u64,
        )),
        other => Err(DbError::no_function(&other.to_ascii_lowercase())),
    }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib's `crc32`).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc: u32 = 0xFFFF_FFFF;
    for b in bytes {
        crc ^= *b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_matches_zlib() {
        assert_eq!(super::crc32(b"MySQL"), 3_259_397_556);
        assert_eq!(super::crc32(b""), 0);
    }
}
