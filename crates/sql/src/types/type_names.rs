//! The SQL spelling of types: [`SqlType::sql_name`] (`decimal(10,2)`), the column type as
//! SHOW CREATE TABLE and SHOW COLUMNS print it ([`SqlType::column_type`], with MariaDB's
//! default display widths), and ENUM/SET member lists ([`quote_members`]).
//!
//! Invariant: the text parses back to the same type (the catalog stores it: catalog/create_table).

use crate::types::{IntWidth, LobSize, SqlType};

impl SqlType {
    /// Default display width of an integer type as MariaDB (and MySQL 5.7) show it: `int(11)`,
    /// `int(10) unsigned`, `bigint(20)`, ...; YEAR is `year(4)`.
    pub fn default_display_width(&self) -> Option<u32> {
        match *self {
            SqlType::Int { width, unsigned } => Some(match (width, unsigned) {
                (IntWidth::Tiny, false) => 4,
                (IntWidth::Tiny, true) => 3,
                (IntWidth::Small, false) => 6,
                (IntWidth::Small, true) => 5,
                (IntWidth::Medium, false) => 9,
                (IntWidth::Medium, true) => 8,
                (IntWidth::Int, false) => 11,
                (IntWidth::Int, true) => 10,
                (IntWidth::Big, _) => 20,
            }),
            SqlType::Year => Some(4),
            _ => None,
        }
    }

    /// The column type as SHOW CREATE TABLE / SHOW COLUMNS print it (MariaDB's form): integers
    /// with their display width, `declared` or the default (`int(11)`, `tinyint(1)` for BOOL).
    pub fn column_type(&self, declared: Option<u32>) -> String {
        let Some(w) = declared.or(self.default_display_width()) else {
            return self.sql_name();
        };
        match self.sql_name().split_once(' ') {
            Some((base, rest)) => format!("{base}({w}) {rest}"),
            None => format!("{}({w})", self.sql_name()),
        }
    }

    /// SQL spelling, e.g. `int unsigned`, `decimal(10,2)`, `varchar(20)`, `datetime(3)`.
    pub fn sql_name(&self) -> String {
        let lob = |s: LobSize, base: &str| match s {
            LobSize::Tiny => format!("tiny{base}"),
            LobSize::Regular => base.to_string(),
            LobSize::Medium => format!("medium{base}"),
            LobSize::Long => format!("long{base}"),
        };
        let fsp = |name: &str, f: u8| {
            if f > 0 {
                format!("{name}({f})")
            } else {
                name.to_string()
            }
        };
        match *self {
            SqlType::Int { width, unsigned } => {
                let n = match width {
                    IntWidth::Tiny => "tinyint",
                    IntWidth::Small => "smallint",
                    IntWidth::Medium => "mediumint",
                    IntWidth::Int => "int",
                    IntWidth::Big => "bigint",
                };
                if unsigned {
                    format!("{n} unsigned")
                } else {
                    n.to_string()
                }
            }
            SqlType::Float { digits, unsigned } | SqlType::Double { digits, unsigned } => {
                let base = if matches!(self, SqlType::Float { .. }) {
                    "float"
                } else {
                    "double"
                };
                let md = digits.map_or(String::new(), |(m, d)| format!("({m},{d})"));
                let u = if unsigned { " unsigned" } else { "" };
                format!("{base}{md}{u}")
            }
            SqlType::Decimal {
                precision,
                scale,
                unsigned,
            } => {
                let u = if unsigned { " unsigned" } else { "" };
                format!("decimal({precision},{scale}){u}")
            }
            SqlType::Char { len } => format!("char({len})"),
            SqlType::VarChar { len } => format!("varchar({len})"),
            SqlType::Text(s) => lob(s, "text"),
            SqlType::Binary { len } => format!("binary({len})"),
            SqlType::VarBinary { len } => format!("varbinary({len})"),
            SqlType::Blob(s) => lob(s, "blob"),
            SqlType::Date => "date".into(),
            SqlType::DateTime { fsp: f } => fsp("datetime", f),
            SqlType::Timestamp { fsp: f } => fsp("timestamp", f),
            SqlType::Time { fsp: f } => fsp("time", f),
            SqlType::Year => "year".into(),
            SqlType::Enum { .. } => "enum".into(),
            SqlType::Set { .. } => "set".into(),
            SqlType::Bit { len } => format!("bit({len})"),
        }
    }
}

/// `'a','b'` of an ENUM or SET definition: each member as [`quote_literal`] writes it.
pub fn quote_members(members: &[String]) -> String {
    members
        .iter()
        .map(|m| quote_literal(m))
        .collect::<Vec<_>>()
        .join(",")
}

/// `s` as a single-quoted literal the way SHOW CREATE TABLE writes strings (MariaDB's
/// `append_unescaped`): `'` doubled, backslash, NUL, line feed and carriage return as `\\`,
/// `\0`, `\n`, `\r`; every other character as itself. The parser reads it back as `s`.
pub fn quote_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}
