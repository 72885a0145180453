//! Text between a client's character sets and the server's UTF-8, as MariaDB converts it: the
//! statement text and string parameters of prepared statements are read in
//! `character_set_client`; result rows' text and column names are sent in
//! `character_set_results`, each text column announced with that character set's default
//! collation and its length in that set's bytes (MariaDB's `length / mbmaxlen(column) *
//! mbmaxlen(results)`); with `character_set_results = NULL` a text column is sent in its own
//! character set. The settings themselves live in the SQL layer
//! (betula_sql::context::connection_charset).
//!
//! Invariants:
//! * a character the target set cannot hold is sent as `?` (MariaDB's conversion);
//! * binary columns (charsetnr 63) and values that are not text are never converted;
//! * a connection whose client and results sets are utf8mb4 takes the fast path: no
//!   conversion and no allocation ([`Plan::none`]); utf8mb3, binary and ascii statement text is
//!   read as UTF-8 as well (ascii via latin1's table: every byte is a character); latin1 and
//!   koi8r statement text is read through their tables of 256 characters.

use std::borrow::Cow;
use std::sync::LazyLock;

use betula_sql::context::connection_charset::ConnectionCharsets;
use betula_sql::types::charset::Charset;
use betula_sql::types::collation::Collation;

use crate::protocol::column::charset as ids;
use crate::protocol::query_text;
use crate::protocol::{ColumnDef, Value};

/// Latin1's (Windows-1252's, as MariaDB's) character of each byte.
static LATIN1: LazyLock<[char; 256]> = LazyLock::new(|| {
    let all: Vec<u8> = (0..=255u8).collect();
    let text = Charset::Latin1.decode(&all).unwrap_or_default();
    let mut table = ['?'; 256];
    for (slot, c) in table.iter_mut().zip(text.chars()) {
        *slot = c;
    }
    table
});

/// KOI8-R's character of each byte.
static KOI8R: LazyLock<[char; 256]> = LazyLock::new(|| {
    let mut table = ['?'; 256];
    for (b, slot) in (0..=255u8).zip(table.iter_mut()) {
        *slot = betula_sql::types::koi8r::koi8r_char(b);
    }
    table
});

/// The SQL text of a statement sent in `client`'s character set.
pub fn decode_statement(bytes: &[u8], client: Charset) -> Cow<'_, str> {
    match client {
        Charset::Latin1 | Charset::Ascii => query_text::decode_single_byte(bytes, &LATIN1),
        Charset::Koi8r => query_text::decode_single_byte(bytes, &KOI8R),
        Charset::Utf8mb4 | Charset::Utf8mb3 | Charset::Binary => query_text::decode(bytes),
    }
}

/// A string parameter of a prepared statement, sent in `client`'s character set: its text, or
/// None when the bytes are not text in it (they stay bytes).
pub fn decode_parameter(bytes: &[u8], client: Charset) -> Option<String> {
    match client {
        Charset::Latin1 | Charset::Ascii => {
            Some(bytes.iter().map(|&b| LATIN1[b as usize]).collect())
        }
        Charset::Koi8r => Some(bytes.iter().map(|&b| KOI8R[b as usize]).collect()),
        _ => std::str::from_utf8(bytes).ok().map(str::to_string),
    }
}

/// UTF-8 text in `to`, with `?` for each character `to` cannot hold; borrowed when unchanged.
pub fn encode_text(text: &str, to: Charset) -> Cow<'_, [u8]> {
    match to {
        Charset::Utf8mb4 | Charset::Binary => Cow::Borrowed(text.as_bytes()),
        _ if text.is_ascii() => Cow::Borrowed(text.as_bytes()),
        Charset::Latin1 | Charset::Ascii | Charset::Koi8r => {
            Cow::Owned(to.encode(&to.replace_unrepresentable(text)))
        }
        Charset::Utf8mb3 => match to.fits(text) {
            Ok(()) => Cow::Borrowed(text.as_bytes()),
            Err(_) => Cow::Owned(to.replace_unrepresentable(text).into_bytes()),
        },
    }
}

/// How one result set's text is sent: the target character set of each column (None: as is).
#[derive(Debug, Default)]
pub struct Plan {
    targets: Vec<Option<Charset>>,
}

impl Plan {
    /// No conversion (a utf8mb4 connection).
    pub fn none() -> Plan {
        Plan::default()
    }

    /// Rewrites `defs` for `cs`'s results and returns how their values convert. `own` is each
    /// column's own collation where the SQL layer knows it (for `character_set_results = NULL`).
    pub fn for_columns(
        defs: &mut [ColumnDef],
        own: &[Option<Collation>],
        cs: &ConnectionCharsets,
    ) -> Plan {
        if cs.results == Some(Charset::Utf8mb4) {
            return Plan::none();
        }
        let mut targets = Vec::with_capacity(defs.len());
        for (i, d) in defs.iter_mut().enumerate() {
            let target = match cs.results {
                Some(r) => r,
                None => own
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or(Charset::Utf8mb4, |c| c.charset()),
            };
            if let Some(r) = cs.results {
                if let Cow::Owned(b) = encode_text(&d.name, r) {
                    d.sent_name = Some(b);
                }
            }
            if d.charset == ids::BINARY {
                targets.push(None);
                continue;
            }
            let from_max = collation_of_id(d.charset).map_or(4, |c| c.max_bytes_per_char());
            d.charset = match (cs.results, own.get(i).copied().flatten()) {
                (Some(r), _) => r.default_collation().id(),
                (None, Some(c)) => c.id(),
                (None, None) => d.charset,
            };
            d.length = d.length / from_max * target.max_bytes();
            targets.push((target != Charset::Utf8mb4).then_some(target));
        }
        if targets.iter().all(Option::is_none) {
            return Plan::none();
        }
        Plan { targets }
    }

    /// Converts the text values of a row (no-op for [`Plan::none`]).
    pub fn convert_row(&self, row: &mut [Value]) {
        if self.targets.is_empty() {
            return;
        }
        for (v, t) in row.iter_mut().zip(&self.targets) {
            let (Some(to), Value::Bytes(b)) = (t, &mut *v) else {
                continue;
            };
            if b.is_ascii() {
                continue;
            }
            if let Ok(s) = std::str::from_utf8(b) {
                if let Cow::Owned(out) = encode_text(s, *to) {
                    *b = out;
                }
            }
        }
    }
}

fn collation_of_id(id: u16) -> Option<Collation> {
    Collation::ALL.into_iter().find(|c| c.id() == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ColumnType;

    fn latin1() -> ConnectionCharsets {
        ConnectionCharsets::of(Collation::Latin1SwedishCi)
    }

    #[test]
    fn statements_decode_from_latin1() {
        assert_eq!(
            decode_statement(b"SELECT 'h\xe9\x80'", Charset::Latin1),
            "SELECT 'hé€'"
        );
        assert_eq!(
            decode_statement(b"SELECT _binary'\xe9'", Charset::Latin1),
            "SELECT _binary X'E9'"
        );
        assert!(matches!(
            decode_statement(b"SELECT 1", Charset::Latin1),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            decode_statement("SELECT 'é'".as_bytes(), Charset::Utf8mb4),
            "SELECT 'é'"
        );
        assert_eq!(
            decode_parameter(b"\xe9", Charset::Latin1).as_deref(),
            Some("é")
        );
        assert_eq!(decode_parameter(b"\xe9", Charset::Utf8mb4), None);
    }

    #[test]
    fn text_encodes_with_question_marks() {
        assert_eq!(&*encode_text("hé€→", Charset::Latin1), b"h\xe9\x80?");
        assert_eq!(&*encode_text("hЖé", Charset::Koi8r), b"h\xf6?");
        assert_eq!(
            decode_statement(b"SELECT '\xf6'", Charset::Koi8r),
            "SELECT 'Ж'"
        );
        assert_eq!(
            decode_parameter(b"\xff", Charset::Koi8r).as_deref(),
            Some("Ъ")
        );
        assert_eq!(&*encode_text("a😀", Charset::Utf8mb3), b"a?");
        assert_eq!(&*encode_text("é", Charset::Ascii), b"?");
        assert!(matches!(
            encode_text("hé", Charset::Utf8mb4),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            encode_text("hé", Charset::Utf8mb3),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn columns_and_rows_convert_to_latin1() {
        let mut defs = vec![
            ColumnDef::new("né", ColumnType::VAR_STRING),
            ColumnDef::new("n", ColumnType::LONGLONG),
        ];
        defs[0].length = 40;
        let plan = Plan::for_columns(&mut defs, &[], &latin1());
        assert_eq!(defs[0].charset, 8);
        assert_eq!(defs[0].length, 10);
        assert_eq!(defs[0].sent_name.as_deref(), Some(&b"n\xe9"[..]));
        assert_eq!(defs[1].charset, 63);
        let mut row = vec![Value::Bytes("hé→".as_bytes().to_vec()), Value::Int(1)];
        plan.convert_row(&mut row);
        assert_eq!(row[0], Value::Bytes(b"h\xe9?".to_vec()));
        assert_eq!(row[1], Value::Int(1));
    }

    #[test]
    fn utf8mb4_results_are_left_alone() {
        let mut defs = vec![ColumnDef::new("né", ColumnType::VAR_STRING)];
        let before = defs.clone();
        let plan = Plan::for_columns(&mut defs, &[], &ConnectionCharsets::default());
        assert_eq!(defs, before);
        assert!(plan.targets.is_empty());
    }

    #[test]
    fn null_results_send_each_column_in_its_own_set() {
        let mut cs = latin1();
        cs.results = None;
        let mut defs = vec![
            ColumnDef::new("a", ColumnType::VAR_STRING),
            ColumnDef::new("b", ColumnType::VAR_STRING),
        ];
        defs[0].length = 40;
        let own = [Some(Collation::Latin1Bin), None];
        let plan = Plan::for_columns(&mut defs, &own, &cs);
        assert_eq!((defs[0].charset, defs[0].length), (47, 10));
        assert_eq!(defs[1].charset, 45);
        let mut row = vec![Value::Bytes("é".into()), Value::Bytes("é".into())];
        plan.convert_row(&mut row);
        assert_eq!(row[0], Value::Bytes(b"\xe9".to_vec()));
        assert_eq!(row[1], Value::Bytes("é".into()));
    }
}
