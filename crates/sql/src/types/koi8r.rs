//! KOI8-R (MariaDB's `koi8r`, RFC 1489): the character of each byte and MariaDB's sort order for
//! `koi8r_general_ci`.
//!
//! Owns: [`KOI8R_HIGH`] (the characters of bytes 0x80..=0xFF; bytes below 0x80 are ASCII) and
//! [`KOI8R_GENERAL_CI_WEIGHTS`] (MariaDB's `sort_order_koi8r`, read from a MariaDB 10.11 server with
//! `WEIGHT_STRING(_koi8r X'..' COLLATE koi8r_general_ci)` for every byte).
//! Invariants: every byte maps to a distinct character (the table is a bijection between the 256
//! bytes and 256 characters); ASCII weights are the ASCII upper case, all other weights are
//! 0x80 or more (so an ASCII prefix compares as under the other case-insensitive collations).

/// The characters of KOI8-R bytes 0x80..=0xFF, in byte order.
pub const KOI8R_HIGH: [char; 128] = [
    '\u{2500}', '\u{2502}', '\u{250C}', '\u{2510}', '\u{2514}', '\u{2518}', '\u{251C}', '\u{2524}',
    '\u{252C}', '\u{2534}', '\u{253C}', '\u{2580}', '\u{2584}', '\u{2588}', '\u{258C}', '\u{2590}',
    '\u{2591}', '\u{2592}', '\u{2593}', '\u{2320}', '\u{25A0}', '\u{2219}', '\u{221A}', '\u{2248}',
    '\u{2264}', '\u{2265}', '\u{00A0}', '\u{2321}', '\u{00B0}', '\u{00B2}', '\u{00B7}', '\u{00F7}',
    '\u{2550}', '\u{2551}', '\u{2552}', '\u{0451}', '\u{2553}', '\u{2554}', '\u{2555}', '\u{2556}',
    '\u{2557}', '\u{2558}', '\u{2559}', '\u{255A}', '\u{255B}', '\u{255C}', '\u{255D}', '\u{255E}',
    '\u{255F}', '\u{2560}', '\u{2561}', '\u{0401}', '\u{2562}', '\u{2563}', '\u{2564}', '\u{2565}',
    '\u{2566}', '\u{2567}', '\u{2568}', '\u{2569}', '\u{256A}', '\u{256B}', '\u{256C}', '\u{00A9}',
    '\u{044E}', '\u{0430}', '\u{0431}', '\u{0446}', '\u{0434}', '\u{0435}', '\u{0444}', '\u{0433}',
    '\u{0445}', '\u{0438}', '\u{0439}', '\u{043A}', '\u{043B}', '\u{043C}', '\u{043D}', '\u{043E}',
    '\u{043F}', '\u{044F}', '\u{0440}', '\u{0441}', '\u{0442}', '\u{0443}', '\u{0436}', '\u{0432}',
    '\u{044C}', '\u{044B}', '\u{0437}', '\u{0448}', '\u{044D}', '\u{0449}', '\u{0447}', '\u{044A}',
    '\u{042E}', '\u{0410}', '\u{0411}', '\u{0426}', '\u{0414}', '\u{0415}', '\u{0424}', '\u{0413}',
    '\u{0425}', '\u{0418}', '\u{0419}', '\u{041A}', '\u{041B}', '\u{041C}', '\u{041D}', '\u{041E}',
    '\u{041F}', '\u{042F}', '\u{0420}', '\u{0421}', '\u{0422}', '\u{0423}', '\u{0416}', '\u{0412}',
    '\u{042C}', '\u{042B}', '\u{0417}', '\u{0428}', '\u{042D}', '\u{0429}', '\u{0427}', '\u{042A}',
];

/// MariaDB's `koi8r_general_ci` weight of each KOI8-R byte (equal weights compare equal).
pub const KOI8R_GENERAL_CI_WEIGHTS: [u8; 256] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
    0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F,
    0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F,
    0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F,
    0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x5B, 0x5C, 0x5D, 0x5E, 0x5F,
    0x60, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x4D, 0x4E, 0x4F,
    0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x7B, 0x7C, 0x7D, 0x7E, 0x7F,
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x8E, 0x8F,
    0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F,
    0xA0, 0xA1, 0xA2, 0xE5, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE,
    0xAF, 0xB0, 0xB1, 0xE5, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD,
    0xFE, 0xDF, 0xE0, 0xF6, 0xE3, 0xE4, 0xF4, 0xE2, 0xF5, 0xE8, 0xE9, 0xEA, 0xEB, 0xEC, 0xED, 0xEE,
    0xEF, 0xFF, 0xF0, 0xF1, 0xF2, 0xF3, 0xE6, 0xE1, 0xFC, 0xFB, 0xE7, 0xF8, 0xFD, 0xF9, 0xF7, 0xFA,
    0xFE, 0xDF, 0xE0, 0xF6, 0xE3, 0xE4, 0xF4, 0xE2, 0xF5, 0xE8, 0xE9, 0xEA, 0xEB, 0xEC, 0xED, 0xEE,
    0xEF, 0xFF, 0xF0, 0xF1, 0xF2, 0xF3, 0xE6, 0xE1, 0xFC, 0xFB, 0xE7, 0xF8, 0xFD, 0xF9, 0xF7, 0xFA,
];

/// The KOI8-R byte of `c`, if KOI8-R has it.
pub fn koi8r_byte(c: char) -> Option<u8> {
    if c.is_ascii() {
        return Some(c as u8);
    }
    KOI8R_HIGH
        .iter()
        .position(|&h| h == c)
        .map(|i| 0x80 + i as u8)
}

/// The character of KOI8-R byte `b`.
pub fn koi8r_char(b: u8) -> char {
    if b < 0x80 {
        b as char
    } else {
        KOI8R_HIGH[usize::from(b - 0x80)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(koi8r_byte(koi8r_char(b)), Some(b), "byte {b:#04X}");
        }
        assert_eq!(koi8r_char(0xFF), 'Ъ');
        assert_eq!(koi8r_char(0xF7), 'В');
        assert_eq!(koi8r_char(0xC1), 'а');
        assert_eq!(koi8r_char(0xA3), 'ё');
        assert_eq!(koi8r_byte('é'), None);
    }

    #[test]
    fn general_ci_weights_fold_case() {
        let w = |c: char| KOI8R_GENERAL_CI_WEIGHTS[usize::from(koi8r_byte(c).unwrap())];
        assert_eq!(w('a'), w('A'));
        assert_eq!(w('я'), w('Я'));
        assert_eq!(w('а'), w('А'));
        assert!(w('а') < w('б') && w('я') > w('ю'));
        assert_ne!(w('ё'), w('е'));
        for b in 0..0x80u8 {
            assert_eq!(
                KOI8R_GENERAL_CI_WEIGHTS[usize::from(b)],
                b.to_ascii_uppercase()
            );
        }
        assert!(KOI8R_GENERAL_CI_WEIGHTS[0x80..].iter().all(|&x| x >= 0x80));
    }
}
