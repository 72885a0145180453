//! Character sets and collations: how text values compare and what bytes they sort by in keys.
//!
//! Owns: [`Collation`] and [`Collation::sort_key`], the single definition of text order used both by
//! value comparison ([`crate::value::sql_cmp`]) and by the key codec, so the two cannot disagree.
//!
//! Supported collations (all on utf8mb4 except `binary`), and exactly how they differ from MySQL:
//! * `binary` (BINARY/VARBINARY/BLOB): bytewise, NO PAD. Same as MySQL.
//! * `utf8mb4_bin`: code-point order (= UTF-8 byte order), PAD SPACE: trailing U+0020 are ignored.
//!   Same as MySQL.
//! * `utf8mb4_0900_bin`: code-point order, NO PAD. Same as MySQL.
//! * `utf8mb4_general_ci` (the default of this crate): each character is replaced by its simple
//!   uppercase mapping when that mapping is a single character (Rust's `char::to_uppercase`), then
//!   compared by code point, PAD SPACE. Divergence from MySQL: MySQL's general_ci also folds the
//!   accented Latin-1 letters to their base letter (`'é' = 'E'`) and maps every supplementary-plane
//!   character to U+FFFD (all emoji compare equal); we do neither, so `'é' <> 'e'` and distinct emoji
//!   stay distinct. Characters whose uppercase is several characters (`ß` → `SS`) are kept as they are
//!   (MySQL general_ci: `ß = s`).
//! * `utf8mb4_0900_ai_ci`: implemented as the same case folding with NO PAD. Divergence from MySQL:
//!   no accent insensitivity and no UCA multi-level weights (MySQL orders by DUCET weights, e.g.
//!   punctuation before digits before letters; we order folded code points).
//!
//! PAD SPACE is implemented by dropping trailing U+0020 before comparing. Divergence from MySQL,
//! which pads the shorter string with spaces: a string that continues with a character below U+0020
//! (a control character) where the other one ends sorts after it here (`'a\t' > 'a'`), before it in
//! MySQL.
//!
//! Sort keys of the case-insensitive collations are not reversible (the key holds the folded text;
//! the row holds the original). PAD SPACE sort keys drop trailing spaces, so they are not reversible
//! either.

use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Collation {
    /// The `binary` character set: bytes, no padding.
    Binary,
    Utf8mb4Bin,
    #[default]
    Utf8mb4GeneralCi,
    Utf8mb4_0900AiCi,
    Utf8mb4_0900Bin,
}

impl Collation {
    /// MySQL collation id, as sent in result-set column definitions.
    pub fn id(self) -> u16 {
        match self {
            Collation::Binary => 63,
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Utf8mb4_0900AiCi => 255,
            Collation::Utf8mb4_0900Bin => 309,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Collation::Binary => "binary",
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Utf8mb4_0900AiCi => "utf8mb4_0900_ai_ci",
            Collation::Utf8mb4_0900Bin => "utf8mb4_0900_bin",
        }
    }
    pub fn from_name(name: &str) -> Option<Collation> {
        let n = name.to_ascii_lowercase();
        [
            Collation::Binary,
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4Bin,
            Collation::Utf8mb4_0900AiCi,
            Collation::Utf8mb4_0900Bin,
        ]
        .into_iter()
        .find(|c| c.name() == n)
    }
    /// Character set name (`binary` or `utf8mb4`).
    pub fn charset(self) -> &'static str {
        if self == Collation::Binary {
            "binary"
        } else {
            "utf8mb4"
        }
    }
    /// Maximum bytes per character (for display lengths).
    pub fn max_bytes_per_char(self) -> u32 {
        if self == Collation::Binary {
            1
        } else {
            4
        }
    }
    pub fn is_binary_charset(self) -> bool {
        self == Collation::Binary
    }
    pub fn pad_space(self) -> bool {
        matches!(self, Collation::Utf8mb4Bin | Collation::Utf8mb4GeneralCi)
    }
    pub fn case_insensitive(self) -> bool {
        matches!(
            self,
            Collation::Utf8mb4GeneralCi | Collation::Utf8mb4_0900AiCi
        )
    }
    /// True if a value can be rebuilt from its sort key (binary and NO PAD `_bin` collations).
    pub fn key_is_reversible(self) -> bool {
        matches!(self, Collation::Binary | Collation::Utf8mb4_0900Bin)
    }

    /// The bytes this collation orders `text` by: two texts compare as their sort keys compare
    /// bytewise. `text` is the UTF-8 (or, for `binary`, raw) bytes of the value; invalid UTF-8 under a
    /// text collation is compared bytewise (coercion rejects it before it is stored).
    pub fn sort_key<'a>(self, text: &'a [u8]) -> Cow<'a, [u8]> {
        let t = if self.pad_space() {
            trim_trailing_spaces(text)
        } else {
            text
        };
        if !self.case_insensitive() {
            return Cow::Borrowed(t);
        }
        let Ok(s) = std::str::from_utf8(t) else {
            return Cow::Borrowed(t);
        };
        if s.bytes().all(|b| !b.is_ascii_lowercase() && b < 0x80) {
            return Cow::Borrowed(t);
        }
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            out.push(fold_char(c));
        }
        Cow::Owned(out.into_bytes())
    }

    /// Compares two texts under this collation.
    pub fn compare(self, a: &[u8], b: &[u8]) -> std::cmp::Ordering {
        self.sort_key(a).cmp(&self.sort_key(b))
    }
}

fn trim_trailing_spaces(t: &[u8]) -> &[u8] {
    let mut n = t.len();
    while n > 0 && t[n - 1] == b' ' {
        n -= 1;
    }
    &t[..n]
}

/// Simple uppercase mapping when it is one character, else the character itself.
fn fold_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::*;

    #[test]
    fn general_ci_is_case_insensitive_and_pads() {
        let c = Collation::Utf8mb4GeneralCi;
        assert_eq!(c.compare(b"abc", b"ABC"), Equal);
        assert_eq!(c.compare(b"a", b"a  "), Equal);
        assert_eq!(c.compare(b"a", b"B"), Less);
        assert_eq!(
            c.compare("straße".as_bytes(), "STRASSE".as_bytes()),
            Greater
        );
        assert_eq!(c.compare("ÄRGER".as_bytes(), "ärger".as_bytes()), Equal);
        assert_eq!(c.compare("σ".as_bytes(), "ς".as_bytes()), Equal);
        assert_eq!(c.compare(b"a\t", b"a"), Greater); // documented divergence from MySQL
    }

    #[test]
    fn bin_and_no_pad() {
        assert_eq!(Collation::Utf8mb4Bin.compare(b"a", b"A"), Greater);
        assert_eq!(Collation::Utf8mb4Bin.compare(b"a ", b"a"), Equal);
        assert_eq!(Collation::Utf8mb4_0900Bin.compare(b"a ", b"a"), Greater);
        assert_eq!(Collation::Utf8mb4_0900AiCi.compare(b"a ", b"A"), Greater);
        assert_eq!(Collation::Binary.compare(b"a\0", b"a"), Greater);
        assert_eq!(
            Collation::from_name("UTF8MB4_BIN"),
            Some(Collation::Utf8mb4Bin)
        );
        assert_eq!(Collation::default().id(), 45);
    }
}
