//! The primitives of an upsert argument's bytes: LEB128 varints, length-prefixed UTF-8
//! strings, a bounds-checked reader ([`Rd`]) and the collation numbers.
//!
//! Invariant: reading never panics: every read past the end is `None`.

use crate::types::collation::Collation;

/// Collation numbers in an encoded upsert argument (sql-encoding.md): never reordered, new
/// collations appended.
pub(super) const COLLATIONS: [Collation; 17] = [
    Collation::Binary,
    Collation::Utf8mb4Bin,
    Collation::Utf8mb4GeneralCi,
    Collation::Utf8mb4_0900AiCi,
    Collation::Utf8mb4_0900Bin,
    Collation::Utf8mb4UnicodeCi,
    Collation::Utf8mb3GeneralCi,
    Collation::Utf8mb3Bin,
    Collation::Utf8mb3UnicodeCi,
    Collation::Latin1SwedishCi,
    Collation::Latin1GeneralCi,
    Collation::Latin1GeneralCs,
    Collation::Latin1Bin,
    Collation::AsciiGeneralCi,
    Collation::AsciiBin,
    Collation::Koi8rGeneralCi,
    Collation::Koi8rBin,
];

/// Appends `v` as an unsigned LEB128 varint.
pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Reads an argument's bytes from position `p` on.
pub(super) struct Rd<'a> {
    pub(super) b: &'a [u8],
    pub(super) p: usize,
}

impl Rd<'_> {
    /// The next byte.
    pub(super) fn u8(&mut self) -> Option<u8> {
        let v = *self.b.get(self.p)?;
        self.p += 1;
        Some(v)
    }
    /// The next `n` bytes.
    pub(super) fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.p.checked_add(n)?;
        let s = self.b.get(self.p..end)?;
        self.p = end;
        Some(s)
    }
    /// A varint written by [`put_varint`] (at most 10 bytes).
    pub(super) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    /// The next `N` bytes as an array.
    pub(super) fn arr<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
}

/// Appends `s` as a varint length and its UTF-8 bytes.
pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend(s.as_bytes());
}

/// Reads a string written by [`put_str`].
pub(super) fn read_str(r: &mut Rd<'_>) -> Option<String> {
    let n = r.varint()? as usize;
    String::from_utf8(r.take(n)?.to_vec()).ok()
}
