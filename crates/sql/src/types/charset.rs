//! Character sets: the repertoire a text column may hold and the names MariaDB 10.11 gives them.
//!
//! Owns: [`Charset`] (utf8mb4, utf8mb3 — `utf8` is its alias, as in MariaDB 10.11 —, latin1,
//! koi8r, ascii and the `binary` pseudo charset), its default collation, maximum bytes per character
//! and [`Charset::fits`], which finds the first character a value cannot hold.
//!
//! Text is stored as UTF-8 whatever a column's character set (rows and keys: sql-encoding.md);
//! the character set only restricts which characters a value may contain and how long it is in
//! bytes (the TEXT types' limits and the lengths information_schema reports). What clients see
//! is the same as in MariaDB because the server converts every result to the connection's
//! `character_set_results` anyway (crates/server/src/backend/client_charset.rs).
//!
//! Repertoires: utf8mb4 every character; utf8mb3 the Basic Multilingual Plane (U+0000..U+FFFF);
//! latin1 the 256 characters of MariaDB's latin1, which is Windows-1252 with its five undefined
//! bytes mapped to the C1 controls U+0081, U+008D, U+008F, U+0090, U+009D; koi8r the 256
//! characters of KOI8-R (RFC 1489, MariaDB's table: koi8r.rs); ascii U+0000..U+007F.
//! A character outside the repertoire is MariaDB's error 1366 (warning and `?` in non-strict
//! mode: coerce.rs).

use crate::types::collation::Collation;
use crate::types::koi8r::{koi8r_byte, koi8r_char};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    Binary,
    Utf8mb4,
    Utf8mb3,
    Latin1,
    Ascii,
    Koi8r,
}

/// The characters Windows-1252 puts at 0x80..=0x9F (MariaDB's latin1), other than the C1
/// controls it keeps.
const CP1252_HIGH: [char; 27] = [
    '\u{20AC}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}', '\u{02C6}',
    '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{017D}', '\u{2018}', '\u{2019}', '\u{201C}',
    '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}', '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}',
    '\u{0153}', '\u{017E}', '\u{0178}',
];

impl Charset {
    /// Every character set, in SHOW CHARACTER SET's (alphabetical) order.
    pub const ALL: [Charset; 6] = [
        Charset::Ascii,
        Charset::Binary,
        Charset::Koi8r,
        Charset::Latin1,
        Charset::Utf8mb3,
        Charset::Utf8mb4,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Charset::Binary => "binary",
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Latin1 => "latin1",
            Charset::Ascii => "ascii",
            Charset::Koi8r => "koi8r",
        }
    }

    /// The character set a name denotes (case-insensitive; `utf8` is utf8mb3, as MariaDB 10.11
    /// reads it by default).
    pub fn from_name(name: &str) -> Option<Charset> {
        let n = name.to_ascii_lowercase();
        if n == "utf8" {
            return Some(Charset::Utf8mb3);
        }
        Charset::ALL.into_iter().find(|c| c.name() == n)
    }

    /// SHOW CHARACTER SET's Description.
    pub fn description(self) -> &'static str {
        match self {
            Charset::Binary => "Binary pseudo charset",
            Charset::Utf8mb4 => "UTF-8 Unicode",
            Charset::Utf8mb3 => "UTF-8 Unicode",
            Charset::Latin1 => "cp1252 West European",
            Charset::Ascii => "US ASCII",
            Charset::Koi8r => "KOI8-R Relcom Russian",
        }
    }

    pub fn default_collation(self) -> Collation {
        match self {
            Charset::Binary => Collation::Binary,
            Charset::Utf8mb4 => Collation::Utf8mb4GeneralCi,
            Charset::Utf8mb3 => Collation::Utf8mb3GeneralCi,
            Charset::Latin1 => Collation::Latin1SwedishCi,
            Charset::Ascii => Collation::AsciiGeneralCi,
            Charset::Koi8r => Collation::Koi8rGeneralCi,
        }
    }

    /// The binary collation of this character set (`<charset>_bin`; `binary` for binary), which
    /// a column's `BINARY` attribute chooses.
    pub fn bin_collation(self) -> Collation {
        match self {
            Charset::Binary => Collation::Binary,
            Charset::Utf8mb4 => Collation::Utf8mb4Bin,
            Charset::Utf8mb3 => Collation::Utf8mb3Bin,
            Charset::Latin1 => Collation::Latin1Bin,
            Charset::Ascii => Collation::AsciiBin,
            Charset::Koi8r => Collation::Koi8rBin,
        }
    }

    /// Maximum bytes per character (MariaDB's `mbmaxlen`).
    pub fn max_bytes(self) -> u32 {
        match self {
            Charset::Binary | Charset::Latin1 | Charset::Ascii | Charset::Koi8r => 1,
            Charset::Utf8mb3 => 3,
            Charset::Utf8mb4 => 4,
        }
    }

    /// Whether `c` is in this character set's repertoire.
    pub fn contains(self, c: char) -> bool {
        let u = c as u32;
        match self {
            Charset::Binary | Charset::Utf8mb4 => true,
            Charset::Utf8mb3 => u <= 0xFFFF,
            Charset::Ascii => u <= 0x7F,
            Charset::Latin1 => {
                u <= 0x7F
                    || (0xA0..=0xFF).contains(&u)
                    || matches!(u, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D)
                    || CP1252_HIGH.contains(&c)
            }
            Charset::Koi8r => koi8r_byte(c).is_some(),
        }
    }

    /// Byte offset of the first character of `s` outside the repertoire, if any.
    pub fn fits(self, s: &str) -> Result<(), usize> {
        if matches!(self, Charset::Binary | Charset::Utf8mb4) || s.is_ascii() {
            return Ok(());
        }
        match s.char_indices().find(|(_, c)| !self.contains(*c)) {
            Some((i, _)) => Err(i),
            None => Ok(()),
        }
    }

    /// `s` encoded in this character set (characters outside it as `?`, which coercion never
    /// lets into a column).
    pub fn encode(self, s: &str) -> Vec<u8> {
        match self {
            Charset::Latin1 | Charset::Ascii => s.chars().map(latin1_byte).collect(),
            Charset::Koi8r => s.chars().map(|c| koi8r_byte(c).unwrap_or(b'?')).collect(),
            _ => s.as_bytes().to_vec(),
        }
    }

    /// Text from bytes in this character set (what another server sends, a replicated row image);
    /// `None` when they are not valid in it.
    pub fn decode(self, bytes: &[u8]) -> Option<String> {
        match self {
            Charset::Latin1 => Some(bytes.iter().map(|&b| latin1_char(b)).collect()),
            Charset::Koi8r => Some(bytes.iter().map(|&b| koi8r_char(b)).collect()),
            Charset::Ascii => bytes
                .is_ascii()
                .then(|| String::from_utf8_lossy(bytes).into_owned()),
            _ => String::from_utf8(bytes.to_vec()).ok(),
        }
    }

    /// Length of `s` in bytes once encoded in this character set (all characters in the
    /// repertoire).
    pub fn encoded_len(self, s: &str) -> usize {
        match self {
            Charset::Latin1 | Charset::Ascii | Charset::Koi8r => s.chars().count(),
            _ => s.len(),
        }
    }
}

/// The bytes Windows-1252 gives the characters of [`CP1252_HIGH`], in its order.
const CP1252_HIGH_BYTES: [u8; 27] = [
    0x80, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8B, 0x8C, 0x8E, 0x91, 0x92, 0x93,
    0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9E, 0x9F,
];

/// The character of a latin1 (Windows-1252) byte.
fn latin1_char(b: u8) -> char {
    match CP1252_HIGH_BYTES.iter().position(|&h| h == b) {
        Some(i) => CP1252_HIGH[i],
        None => b as char,
    }
}

/// The latin1 (Windows-1252) byte of `c`; `?` outside latin1.
fn latin1_byte(c: char) -> u8 {
    const HIGH: [u8; 27] = CP1252_HIGH_BYTES;
    let u = c as u32;
    if u <= 0x7F || (0xA0..=0xFF).contains(&u) || matches!(u, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D) {
        return u as u8;
    }
    CP1252_HIGH
        .iter()
        .position(|&h| h == c)
        .map_or(b'?', |i| HIGH[i])
}

/// MariaDB's rendering of an unconvertible string in error 1366: the bytes from `pos` on, at
/// most 6, printable ASCII as is and others as `\xHH`, then `...` if more bytes follow.
pub fn bad_bytes_text(s: &str, pos: usize) -> String {
    let b = &s.as_bytes()[pos..];
    let mut out = String::new();
    for &x in b.iter().take(6) {
        if (0x20..0x7F).contains(&x) {
            out.push(x as char);
        } else {
            out.push_str(&format!("\\x{x:02X}"));
        }
    }
    if b.len() > 6 {
        out.push_str("...");
    }
    out
}

impl Charset {
    /// `s` with every character outside the repertoire replaced by `?` (MariaDB's conversion).
    pub fn replace_unrepresentable(self, s: &str) -> String {
        s.chars()
            .map(|c| if self.contains(c) { c } else { '?' })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        assert_eq!(Charset::from_name("UTF8"), Some(Charset::Utf8mb3));
        assert_eq!(Charset::from_name("utf8mb3"), Some(Charset::Utf8mb3));
        assert_eq!(Charset::from_name("Latin1"), Some(Charset::Latin1));
        assert_eq!(Charset::from_name("KOI8R"), Some(Charset::Koi8r));
        assert_eq!(Charset::from_name("cp1251"), None);
        for c in Charset::ALL {
            assert_eq!(c.default_collation().charset(), c);
            assert_eq!(Charset::from_name(c.name()), Some(c));
        }
    }

    #[test]
    fn latin1_bytes_decode_to_the_characters_they_encode() {
        let all: Vec<u8> = (0..=255u8).collect();
        let text = Charset::Latin1.decode(&all).unwrap();
        assert_eq!(Charset::Latin1.encode(&text), all);
        assert_eq!(Charset::Latin1.decode(&[0x80, 0xE9]).unwrap(), "€é");
        assert_eq!(Charset::Utf8mb4.decode(&[0xFF]), None);
        assert_eq!(Charset::Ascii.decode(b"ab\x80"), None);
        let koi = Charset::Koi8r.decode(&all).unwrap();
        assert_eq!(koi.chars().count(), 256);
        assert_eq!(Charset::Koi8r.encode(&koi), all);
        assert_eq!(Charset::Koi8r.decode(b"\xF7\xFF").unwrap(), "ВЪ");
    }

    #[test]
    fn repertoires() {
        assert!(Charset::Latin1.contains('é') && Charset::Latin1.contains('€'));
        assert!(Charset::Latin1.contains('\u{81}') && !Charset::Latin1.contains('\u{80}'));
        assert!(!Charset::Latin1.contains('Ā') && !Charset::Latin1.contains('😀'));
        assert!(Charset::Utf8mb3.contains('Ā') && !Charset::Utf8mb3.contains('😀'));
        assert!(!Charset::Ascii.contains('é'));
        assert!(Charset::Koi8r.contains('Ж') && Charset::Koi8r.contains('ё'));
        assert!(!Charset::Koi8r.contains('é') && !Charset::Koi8r.contains('Ѣ'));
        assert_eq!(Charset::Koi8r.fits("абвé"), Err(6));
        assert_eq!(Charset::Koi8r.encoded_len("Жж"), 2);
        assert_eq!(Charset::Koi8r.replace_unrepresentable("Жé"), "Ж?");
        assert_eq!(Charset::Latin1.fits("abé€"), Ok(()));
        assert_eq!(Charset::Latin1.fits("ab😀c"), Err(2));
        assert_eq!(Charset::Utf8mb3.fits("ĀĀ😀"), Err(4));
        assert_eq!(Charset::Latin1.encoded_len("é€"), 2);
        assert_eq!(Charset::Latin1.replace_unrepresentable("a😀Āé"), "a??é");
        assert_eq!(bad_bytes_text("a😀", 1), "\\xF0\\x9F\\x98\\x80");
        assert_eq!(bad_bytes_text("😀abcd", 0), "\\xF0\\x9F\\x98\\x80ab...");
        assert_eq!(Charset::Utf8mb3.encoded_len("é€"), 5);
    }
}
