//! Character sets and collations: how text values compare and what bytes they sort by in keys.
//!
//! Owns: [`Collation`] and [`Collation::sort_key`], the single definition of text order used both by
//! value comparison ([`crate::types::value::sql_cmp`]) and by the key codec, so the two cannot disagree.
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
//! * utf8mb3 collations (`utf8mb3_general_ci`, `utf8mb3_bin`, `utf8mb3_unicode_ci`; `utf8_*` are
//!   their aliases) sort exactly as their utf8mb4 namesakes (a utf8mb3 value holds only BMP
//!   characters, where the two agree); `utf8mb4_unicode_ci` and `utf8mb3_unicode_ci` fold case as
//!   general_ci does (divergence: no UCA weights).
//! * latin1 collations: `latin1_swedish_ci` (latin1's default) and `latin1_general_ci` fold case as
//!   general_ci; `latin1_general_cs` and `latin1_bin` compare by code point. All PAD SPACE.
//!   Divergences from MariaDB: order by Unicode code point, not by latin1 byte (they differ only for
//!   the Windows-1252 characters at 0x80..=0x9F, e.g. `€`, `Š`), no accent folding under
//!   swedish_ci, and `latin1_general_cs` does not interleave cases (MariaDB: `A < a < B`).
//! * ascii collations: `ascii_general_ci` (case folding) and `ascii_bin`, PAD SPACE.
//! * koi8r collations, exactly as MariaDB's: `koi8r_general_ci` (koi8r's default) orders by
//!   MariaDB's own weight table `sort_order_koi8r` (koi8r.rs: case-insensitive for Latin and
//!   Cyrillic letters, the Cyrillic alphabet in Russian order with `ё` a letter of its own
//!   between `е` and `ж`, box drawing characters by byte); `koi8r_bin` orders by KOI8-R byte
//!   (so Cyrillic letters in KOI8-R's order: `ю < а < б < ц`). Both PAD SPACE; their sort keys
//!   are one byte per character.
//!
//! Which characters a column may hold is its collation's [`Charset`]'s business (charset.rs).
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

use crate::types::charset::Charset;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Collation {
    /// The `binary` character set: bytes, no padding.
    Binary,
    Utf8mb4Bin,
    #[default]
    Utf8mb4GeneralCi,
    Utf8mb4_0900AiCi,
    Utf8mb4_0900Bin,
    Utf8mb4UnicodeCi,
    Utf8mb3GeneralCi,
    Utf8mb3Bin,
    Utf8mb3UnicodeCi,
    Latin1SwedishCi,
    Latin1GeneralCi,
    Latin1GeneralCs,
    Latin1Bin,
    AsciiGeneralCi,
    AsciiBin,
    Koi8rGeneralCi,
    Koi8rBin,
}

impl Collation {
    /// Every collation, in SHOW COLLATION's order (by character set, then name).
    pub const ALL: [Collation; 17] = [
        Collation::AsciiGeneralCi,
        Collation::AsciiBin,
        Collation::Binary,
        Collation::Koi8rGeneralCi,
        Collation::Koi8rBin,
        Collation::Latin1SwedishCi,
        Collation::Latin1GeneralCi,
        Collation::Latin1GeneralCs,
        Collation::Latin1Bin,
        Collation::Utf8mb3GeneralCi,
        Collation::Utf8mb3Bin,
        Collation::Utf8mb3UnicodeCi,
        Collation::Utf8mb4GeneralCi,
        Collation::Utf8mb4Bin,
        Collation::Utf8mb4UnicodeCi,
        Collation::Utf8mb4_0900AiCi,
        Collation::Utf8mb4_0900Bin,
    ];

    /// MariaDB's collation id (MySQL's for the 0900 collations).
    pub fn id(self) -> u16 {
        match self {
            Collation::Binary => 63,
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Utf8mb4_0900AiCi => 255,
            Collation::Utf8mb4_0900Bin => 309,
            Collation::Utf8mb4UnicodeCi => 224,
            Collation::Utf8mb3GeneralCi => 33,
            Collation::Utf8mb3Bin => 83,
            Collation::Utf8mb3UnicodeCi => 192,
            Collation::Latin1SwedishCi => 8,
            Collation::Latin1GeneralCi => 48,
            Collation::Latin1GeneralCs => 49,
            Collation::Latin1Bin => 47,
            Collation::AsciiGeneralCi => 11,
            Collation::AsciiBin => 65,
            Collation::Koi8rGeneralCi => 7,
            Collation::Koi8rBin => 74,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Collation::Binary => "binary",
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Utf8mb4_0900AiCi => "utf8mb4_0900_ai_ci",
            Collation::Utf8mb4_0900Bin => "utf8mb4_0900_bin",
            Collation::Utf8mb4UnicodeCi => "utf8mb4_unicode_ci",
            Collation::Utf8mb3GeneralCi => "utf8mb3_general_ci",
            Collation::Utf8mb3Bin => "utf8mb3_bin",
            Collation::Utf8mb3UnicodeCi => "utf8mb3_unicode_ci",
            Collation::Latin1SwedishCi => "latin1_swedish_ci",
            Collation::Latin1GeneralCi => "latin1_general_ci",
            Collation::Latin1GeneralCs => "latin1_general_cs",
            Collation::Latin1Bin => "latin1_bin",
            Collation::AsciiGeneralCi => "ascii_general_ci",
            Collation::AsciiBin => "ascii_bin",
            Collation::Koi8rGeneralCi => "koi8r_general_ci",
            Collation::Koi8rBin => "koi8r_bin",
        }
    }
    /// The collation a name denotes (case-insensitive; `utf8_x` is `utf8mb3_x`).
    pub fn from_name(name: &str) -> Option<Collation> {
        let mut n = name.to_ascii_lowercase();
        if let Some(rest) = n.strip_prefix("utf8_") {
            n = format!("utf8mb3_{rest}");
        }
        Collation::ALL.into_iter().find(|c| c.name() == n)
    }
    /// The character set this collation belongs to.
    pub fn charset(self) -> Charset {
        match self {
            Collation::Binary => Charset::Binary,
            Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb4Bin
            | Collation::Utf8mb4_0900AiCi
            | Collation::Utf8mb4_0900Bin
            | Collation::Utf8mb4UnicodeCi => Charset::Utf8mb4,
            Collation::Utf8mb3GeneralCi | Collation::Utf8mb3Bin | Collation::Utf8mb3UnicodeCi => {
                Charset::Utf8mb3
            }
            Collation::Latin1SwedishCi
            | Collation::Latin1GeneralCi
            | Collation::Latin1GeneralCs
            | Collation::Latin1Bin => Charset::Latin1,
            Collation::AsciiGeneralCi | Collation::AsciiBin => Charset::Ascii,
            Collation::Koi8rGeneralCi | Collation::Koi8rBin => Charset::Koi8r,
        }
    }
    /// Whether this is its character set's default collation (SHOW COLLATION's Default).
    pub fn is_default(self) -> bool {
        self.charset().default_collation() == self
    }
    /// The collation of a column's text as the SQL layer hands it to the server: UTF-8, so a
    /// latin1, utf8mb3 or ascii column is announced as utf8mb4 (`_bin` collations as
    /// utf8mb4_bin), with a length of 4 bytes per character; the server then converts both to
    /// the connection's `character_set_results` (crates/server/src/backend/client_charset.rs).
    pub fn as_sent(self) -> Collation {
        match self.charset() {
            Charset::Binary | Charset::Utf8mb4 => self,
            _ if self.case_insensitive() => Collation::Utf8mb4GeneralCi,
            _ => Collation::Utf8mb4Bin,
        }
    }
    /// Maximum bytes per character (for display lengths).
    pub fn max_bytes_per_char(self) -> u32 {
        self.charset().max_bytes()
    }
    pub fn is_binary_charset(self) -> bool {
        self == Collation::Binary
    }
    pub fn pad_space(self) -> bool {
        !matches!(
            self,
            Collation::Binary | Collation::Utf8mb4_0900AiCi | Collation::Utf8mb4_0900Bin
        )
    }
    pub fn case_insensitive(self) -> bool {
        matches!(
            self,
            Collation::Utf8mb4GeneralCi
                | Collation::Utf8mb4_0900AiCi
                | Collation::Utf8mb4UnicodeCi
                | Collation::Utf8mb3GeneralCi
                | Collation::Utf8mb3UnicodeCi
                | Collation::Latin1SwedishCi
                | Collation::Latin1GeneralCi
                | Collation::AsciiGeneralCi
                | Collation::Koi8rGeneralCi
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
        if self.charset() == Charset::Koi8r {
            return koi8r_sort_key(self, t);
        }
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
    /// Equal to comparing the two sort keys; texts that are ASCII up to their first difference are
    /// compared in place.
    pub fn compare(self, a: &[u8], b: &[u8]) -> std::cmp::Ordering {
        // koi8r_bin orders by KOI8-R byte, which UTF-8 order does not follow past ASCII.
        if (self.pad_space() || self.case_insensitive()) && self != Collation::Koi8rBin {
            if let Some(o) = self.compare_ascii(a, b) {
                return o;
            }
        }
        self.sort_key(a).cmp(&self.sort_key(b))
    }

    /// The comparison of two texts without building sort keys, when the bytes up to the first
    /// characters that fold differently are ASCII (None otherwise). Folding maps each character on its
    /// own, so the first differing folded character decides and the bytes after it are never read.
    fn compare_ascii(self, a: &[u8], b: &[u8]) -> Option<std::cmp::Ordering> {
        let (a, b) = if self.pad_space() {
            (trim_trailing_spaces(a), trim_trailing_spaces(b))
        } else {
            (a, b)
        };
        if !self.case_insensitive() {
            return Some(a.cmp(b));
        }
        // Equal bytes fold to equal characters: folding starts at the first differing byte.
        let n = common_prefix(a, b);
        // A non-ASCII prefix byte is part of a character equal in both texts; the prefix ends on a
        // character boundary once an ASCII byte (never a continuation byte) follows it.
        for (x, y) in a[n..].iter().zip(&b[n..]) {
            if !x.is_ascii() || !y.is_ascii() {
                return None;
            }
            let (x, y) = (x.to_ascii_uppercase(), y.to_ascii_uppercase());
            if x != y {
                return Some(x.cmp(&y));
            }
        }
        Some(a.len().cmp(&b.len()))
    }
}

/// The length of the longest common prefix of `a` and `b`, compared 16 bytes at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 16;
    let len = a.len().min(b.len());
    let mut n = 0;
    while n + CHUNK <= len && a[n..n + CHUNK] == b[n..n + CHUNK] {
        n += CHUNK;
    }
    while n < len && a[n] == b[n] {
        n += 1;
    }
    n
}

fn trim_trailing_spaces(t: &[u8]) -> &[u8] {
    let mut n = t.len();
    while n > 0 && t[n - 1] == b' ' {
        n -= 1;
    }
    &t[..n]
}

/// A koi8r collation's sort key of UTF-8 `t` (trailing spaces already dropped): each character's
/// KOI8-R byte (`?`'s for a character KOI8-R lacks, which coercion never lets into a koi8r
/// value), through MariaDB's weight table under `koi8r_general_ci`. Invalid UTF-8 is its bytes.
fn koi8r_sort_key(c: Collation, t: &[u8]) -> Cow<'_, [u8]> {
    use crate::types::koi8r::{koi8r_byte, KOI8R_GENERAL_CI_WEIGHTS};
    let Ok(s) = std::str::from_utf8(t) else {
        return Cow::Borrowed(t);
    };
    let ci = c.case_insensitive();
    let key = s.chars().map(|ch| {
        let b = koi8r_byte(ch).unwrap_or(b'?');
        if ci {
            KOI8R_GENERAL_CI_WEIGHTS[usize::from(b)]
        } else {
            b
        }
    });
    Cow::Owned(key.collect())
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

    #[test]
    fn koi8r_orders_as_mariadb() {
        let (ci, bin) = (Collation::Koi8rGeneralCi, Collation::Koi8rBin);
        let s = |x: &str| x.as_bytes().to_vec();
        assert_eq!(ci.compare(&s("Жук"), &s("жУК  ")), Equal);
        assert_eq!(ci.compare(&s("ю"), &s("а")), Greater);
        assert_eq!(ci.compare(&s("ё"), &s("е")), Greater);
        assert_eq!(ci.compare(&s("ё"), &s("ж")), Less);
        assert_eq!(ci.compare(&s("z"), &s("а")), Less);
        assert_eq!(bin.compare(&s("ю"), &s("а")), Less);
        assert_eq!(bin.compare(&s("Ж"), &s("ж")), Greater);
        assert_eq!(bin.compare(&s("a "), &s("a")), Equal);
        assert_eq!(Collation::from_name("KOI8R_BIN"), Some(bin));
        assert_eq!((ci.id(), bin.id()), (7, 74));
        assert!(ci.is_default() && !bin.is_default());
    }

    #[test]
    fn in_place_comparison_equals_sort_keys() {
        use rand::{Rng, SeedableRng};
        let mut r = rand::rngs::SmallRng::seed_from_u64(7);
        let alphabet = [
            "a", "A", "b", "Z", " ", "\t", "0", "é", "É", "ß", "-", "ж", "Ж", "ю", "ё", "е",
        ];
        let text = |r: &mut rand::rngs::SmallRng| -> String {
            let n = r.gen_range(0..6);
            (0..n)
                .map(|_| alphabet[r.gen_range(0..alphabet.len())])
                .collect()
        };
        let all = [
            Collation::Binary,
            Collation::Utf8mb4Bin,
            Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb4_0900AiCi,
            Collation::Utf8mb4_0900Bin,
            Collation::Latin1SwedishCi,
            Collation::AsciiGeneralCi,
            Collation::Koi8rGeneralCi,
            Collation::Koi8rBin,
        ];
        for i in 0..20_000 {
            // Half the pairs share a long prefix (up to 40 characters, in one case or the other, some
            // of them not ASCII), which the in-place comparison steps over 16 bytes at a time.
            let shared: String = (0..if i % 2 == 0 { r.gen_range(0..40) } else { 0 })
                .map(|_| ["x", "Y", "-", "7", "é", "Ä", "я"][r.gen_range(0..7)])
                .collect();
            let other = if r.gen_bool(0.5) {
                shared.to_ascii_lowercase()
            } else {
                shared.clone()
            };
            let (a, b) = (shared + &text(&mut r), other + &text(&mut r));
            for c in all {
                let want = c.sort_key(a.as_bytes()).cmp(&c.sort_key(b.as_bytes()));
                assert_eq!(
                    c.compare(a.as_bytes(), b.as_bytes()),
                    want,
                    "{c:?} {a:?} {b:?}"
                );
            }
        }
    }
}
