//! Column types written as MySQL text (what sqlparser prints for a column's data type, and what
//! SHOW CREATE TABLE prints back) → [`SqlType`] and the column's display attributes.
//!
//! Owns: [`parse_type`] / [`parse_type_in`], [`lenient_type`] (non-strict VARCHAR → TEXT conversion, YEAR(2) note),
//! [`declared_width`] (display widths of integers and YEAR) and [`is_zerofill`].
//!
//! MariaDB 10.11's rules: FLOAT(p) is FLOAT for p <= 24, DOUBLE for p <= 53, error 1063 above;
//! FLOAT(M,D) / DOUBLE(M,D) / REAL(M,D) keep M and D (M <= 255, else 1439), except (0,0), which is
//! the plain type; DECIMAL without digits, DECIMAL(0) and DECIMAL(0,0) are DECIMAL(10,0); ZEROFILL
//! implies UNSIGNED (for every numeric type); YEAR(2) is YEAR shown with 2 digits (note 1287).

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::types::{IntWidth, LobSize, SqlType};

/// TEXT(n) / BLOB(n): the smallest size class holding n bytes (as MySQL picks it).
fn lob_for_length(n: Option<u32>) -> LobSize {
    match n {
        Some(n) if n < 256 && n > 0 => LobSize::Tiny,
        None | Some(0..=65_535) => LobSize::Regular,
        Some(65_536..=16_777_215) => LobSize::Medium,
        Some(_) => LobSize::Long,
    }
}

fn width_error(col: &str, max: u64) -> DbError {
    DbError::new(
        ErrorCode::TooBigDisplaywidth,
        format!("Display width out of range for '{col}' (max = {max})"),
    )
}

/// True if the type text carries ZEROFILL.
pub fn is_zerofill(text: &str) -> bool {
    text.to_ascii_uppercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "ZEROFILL")
}

/// FLOAT / DOUBLE with the written digits: `[]` plain, `[p]` FLOAT(p), `[m, d]` (M,D).
fn real_type(double: bool, args: &[u32], unsigned: bool, col: &str) -> DbResult<SqlType> {
    let plain = |double: bool| {
        let digits = None;
        if double {
            SqlType::Double { digits, unsigned }
        } else {
            SqlType::Float { digits, unsigned }
        }
    };
    match *args {
        [p] if !double => match p {
            0..=24 => Ok(plain(false)),
            25..=53 => Ok(plain(true)),
            _ => Err(DbError::new(
                ErrorCode::WrongFieldSpec,
                format!("Incorrect column specifier for column '{col}'"),
            )),
        },
        [0, 0] => Ok(plain(double)),
        [m, d] => {
            if m > 255 {
                return Err(width_error(col, 255));
            }
            let digits = Some((m as u8, d.min(255) as u8));
            Ok(if double {
                SqlType::Double { digits, unsigned }
            } else {
                SqlType::Float { digits, unsigned }
            })
        }
        _ => Ok(plain(double)),
    }
}

/// Parses a column type written as MySQL text (`INT(11) UNSIGNED`, `varchar(20)`, ...), a
/// TEXT(n) counting utf8mb4's 4 bytes per character.
pub fn parse_type(text: &str, col: &str) -> DbResult<SqlType> {
    parse_type_in(text, col, 4)
}

/// [`parse_type`] for a column of `max_bytes` bytes per character (its character set): TEXT(n)
/// is the smallest TEXT type that holds n characters of it (latin1's TEXT(65535) is TEXT,
/// utf8mb4's MEDIUMTEXT).
pub fn parse_type_in(text: &str, col: &str, max_bytes: u32) -> DbResult<SqlType> {
    let up = text.trim().to_ascii_uppercase();
    let unsigned = up.contains("UNSIGNED") || is_zerofill(&up);
    // `ZEROFILL_INT(5)`: how `tokens::with_numeric_modifiers_as_types` hands ZEROFILL to sqlparser
    let up = up.replace("ZEROFILL_", "");
    let (base, args) = match up.find('(') {
        Some(i) => {
            let close = up[i..].find(')').map(|j| i + j).unwrap_or(up.len());
            let wide: Vec<u64> = up[i + 1..close]
                .split(',')
                .filter_map(|a| a.trim().parse().ok())
                .collect();
            if wide.iter().any(|&a| a > u32::MAX as u64) {
                return Err(width_error(col, 4_294_967_295));
            }
            let args: Vec<u32> = wide.into_iter().map(|a| a as u32).collect();
            (up[..i].trim().to_string(), args)
        }
        None => (
            up.replace("UNSIGNED", "")
                .replace("SIGNED", "")
                .replace("ZEROFILL", "")
                .trim()
                .to_string(),
            vec![],
        ),
    };
    let base = base.replace("UNSIGNED", "").trim().to_string();
    let a0 = args.first().copied();
    let int = |width| SqlType::Int { width, unsigned };
    let t = match base.as_str() {
        "TINYINT" | "INT1" => int(IntWidth::Tiny),
        "BOOL" | "BOOLEAN" => SqlType::Int {
            width: IntWidth::Tiny,
            unsigned: false,
        },
        "SMALLINT" | "INT2" => int(IntWidth::Small),
        "MEDIUMINT" | "INT3" => int(IntWidth::Medium),
        "INT" | "INTEGER" | "INT4" => int(IntWidth::Int),
        "BIGINT" | "INT8" => int(IntWidth::Big),
        "SERIAL" => SqlType::Int {
            width: IntWidth::Big,
            unsigned: true,
        },
        "FLOAT" | "FLOAT4" => real_type(false, &args, unsigned, col)?,
        "DOUBLE" | "DOUBLE PRECISION" | "REAL" | "FLOAT8" => real_type(true, &args, unsigned, col)?,
        "DECIMAL" | "NUMERIC" | "DEC" | "FIXED" => {
            let (p, s) = match (a0.unwrap_or(10), args.get(1).copied().unwrap_or(0)) {
                (0, 0) => (10, 0),
                ps => ps,
            };
            SqlType::Decimal {
                precision: p.min(255) as u8,
                scale: s.min(255) as u8,
                unsigned,
            }
        }
        "CHAR" | "CHARACTER" | "NCHAR" => SqlType::Char {
            len: a0.unwrap_or(1),
        },
        "VARCHAR" | "CHARACTER VARYING" | "NVARCHAR" | "CHAR VARYING" => match a0 {
            Some(n) => SqlType::VarChar { len: n },
            None => return Err(DbError::syntax(text)),
        },
        "TINYTEXT" => SqlType::Text(LobSize::Tiny),
        // TEXT(n) counts characters of the column's character set
        "TEXT" => SqlType::Text(lob_for_length(
            a0.map(|n| n.saturating_mul(max_bytes.max(1))),
        )),
        "MEDIUMTEXT" => SqlType::Text(LobSize::Medium),
        "LONGTEXT" => SqlType::Text(LobSize::Long),
        "BINARY" => SqlType::Binary {
            len: a0.unwrap_or(1),
        },
        "VARBINARY" => match a0 {
            Some(n) => SqlType::VarBinary { len: n },
            None => return Err(DbError::syntax(text)),
        },
        "TINYBLOB" => SqlType::Blob(LobSize::Tiny),
        "BLOB" => SqlType::Blob(lob_for_length(a0)),
        "MEDIUMBLOB" => SqlType::Blob(LobSize::Medium),
        "LONGBLOB" => SqlType::Blob(LobSize::Long),
        "DATE" => SqlType::Date,
        "DATETIME" => SqlType::DateTime {
            fsp: a0.unwrap_or(0).min(255) as u8,
        },
        "TIMESTAMP" => SqlType::Timestamp {
            fsp: a0.unwrap_or(0).min(255) as u8,
        },
        "TIME" => SqlType::Time {
            fsp: a0.unwrap_or(0).min(255) as u8,
        },
        "YEAR" => SqlType::Year,
        "BIT" => match a0.unwrap_or(1) {
            0 => SqlType::Bit { len: 1 },
            n if n <= 64 => SqlType::Bit { len: n as u8 },
            _ => return Err(width_error(col, 64)),
        },
        other => {
            return Err(DbError::new(
                ErrorCode::ParseError,
                format!("Unsupported or unknown type '{other}' for column '{col}'"),
            ))
        }
    };
    if matches!(t, SqlType::Int { .. }) && a0.is_some_and(|w| w > 255) {
        return Err(width_error(col, 255));
    }
    t.validate(col)?;
    Ok(t)
}

/// The longest VARCHAR, in characters, of a character set of `max_bytes` bytes per character:
/// MariaDB's 65532 bytes of a row divided by it (utf8mb4 16383, utf8mb3 21844, latin1 65532).
pub fn max_varchar(max_bytes: u32) -> u32 {
    65_532 / max_bytes.max(1)
}

/// A column type from its text. In non-strict mode (`strict` false) a VARCHAR / VARBINARY longer than
/// the row allows becomes the TEXT / BLOB type that holds it, with note 1246 in `notes` (as MySQL
/// does); strict mode refuses it with 1074. `max_bytes` is the column's bytes per character (its
/// character set): the VARCHAR limit is [`max_varchar`] of it, and TEXT(n) holds n characters of it. YEAR(2) adds the deprecation note 1287.
pub fn lenient_type(
    type_text: &str,
    col: &str,
    strict: bool,
    max_bytes: u32,
    notes: &mut Vec<Warning>,
) -> DbResult<SqlType> {
    match parse_type_in(type_text, col, max_bytes) {
        Err(e) if e.code == ErrorCode::TooBigFieldlength => {
            let up = type_text.trim().to_ascii_uppercase();
            let n: Option<u32> = up
                .split_once('(')
                .and_then(|(_, r)| r.split(')').next())
                .and_then(|n| n.trim().parse().ok());
            let varchar = up.starts_with("VARCHAR");
            let limit = max_varchar(max_bytes);
            if let (true, Some(n)) = (varchar, n) {
                if n <= limit {
                    return Ok(SqlType::VarChar { len: n });
                }
            }
            if strict {
                return Err(if varchar {
                    crate::error::sql_error::SqlError::TooBigLength {
                        column: col.into(),
                        max: limit as u64,
                    }
                    .into()
                } else {
                    e
                });
            }
            let (t, from, to) = if up.starts_with("VARBINARY") {
                (SqlType::Blob(lob_for_length(n)), "VARBINARY", "BLOB")
            } else if varchar {
                let bytes = n.map(|n| n.saturating_mul(max_bytes));
                (SqlType::Text(lob_for_length(bytes)), "VARCHAR", "TEXT")
            } else {
                return Err(e);
            };
            notes.push(Warning {
                level: WarningLevel::Note,
                code: ErrorCode::AutoConvert,
                message: format!("Converting column '{col}' from {from} to {to}"),
            });
            Ok(t)
        }
        Ok(t) => {
            if declared_width(type_text, &t) == Some(2) && t == SqlType::Year {
                notes.push(Warning {
                    level: WarningLevel::Note,
                    code: ErrorCode::WarnDeprecatedSyntax,
                    message: "'YEAR(2)' is deprecated and will be removed in a future release. \
                              Please use YEAR(4) instead"
                        .into(),
                });
            }
            Ok(t)
        }
        r => r,
    }
}

/// The display width written in an integer type (`INT(5)` → 5; BOOL/BOOLEAN → 1) or YEAR(2), when
/// it differs from the type's default.
pub fn declared_width(text: &str, ty: &SqlType) -> Option<u32> {
    let up = text.trim().to_ascii_uppercase();
    let paren = || {
        let open = up.find('(')?;
        let close = up[open..].find(')')? + open;
        up[open + 1..close].trim().parse::<u32>().ok()
    };
    match ty {
        SqlType::Year => paren().filter(|&w| w == 2),
        SqlType::Int { .. } => {
            let w = if up.starts_with("BOOL") {
                Some(1)
            } else {
                paren()
            };
            w.filter(|&w| (1..=255).contains(&w) && Some(w) != ty.default_display_width())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> SqlType {
        parse_type(s, "c").unwrap()
    }
    fn code(s: &str) -> ErrorCode {
        parse_type(s, "c").unwrap_err().code
    }

    #[test]
    fn real_types_like_mariadb() {
        assert_eq!(t("FLOAT(0)"), SqlType::FLOAT);
        assert_eq!(t("FLOAT(24)"), SqlType::FLOAT);
        assert_eq!(t("FLOAT(25)"), SqlType::DOUBLE);
        assert_eq!(code("FLOAT(54)"), ErrorCode::WrongFieldSpec);
        assert_eq!(t("DOUBLE(0,0)"), SqlType::DOUBLE);
        assert_eq!(t("FLOAT(20,3)").sql_name(), "float(20,3)");
        assert_eq!(
            t("DOUBLE(53,10) UNSIGNED").sql_name(),
            "double(53,10) unsigned"
        );
        assert_eq!(code("DOUBLE(256,1)"), ErrorCode::TooBigDisplaywidth);
        assert_eq!(code("DOUBLE(5,6)"), ErrorCode::MBiggerThanD);
        assert_eq!(code("FLOAT(40,31)"), ErrorCode::TooBigScale);
    }

    #[test]
    fn decimals_zerofill_and_year() {
        assert_eq!(t("DECIMAL(0)"), SqlType::decimal(10, 0));
        assert_eq!(t("NUMERIC(0,0)"), SqlType::decimal(10, 0));
        assert_eq!(t("DECIMAL"), SqlType::decimal(10, 0));
        assert_eq!(
            t("DECIMAL(10,2) ZEROFILL").sql_name(),
            "decimal(10,2) unsigned"
        );
        assert!(is_zerofill("int(10) unsigned zerofill"));
        assert!(!is_zerofill("int(10) unsigned"));
        assert_eq!(t("INT ZEROFILL"), t("INT UNSIGNED"));
        assert_eq!(
            t("ZEROFILL_DECIMAL(10,2)").sql_name(),
            "decimal(10,2) unsigned"
        );
        assert!(is_zerofill("ZEROFILL_INT(5)"));
        assert_eq!(code("DECIMAL(66,66)"), ErrorCode::TooBigScale);
        assert_eq!(code("DECIMAL(66,6)"), ErrorCode::TooBigPrecision);
        // MariaDB 10.11's texts and order: the scale first, then the precision, then M >= D.
        let msg = |s: &str| parse_type(s, "a").unwrap_err().message;
        assert_eq!(
            msg("DECIMAL(5,6)"),
            "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column 'a')"
        );
        assert_eq!(
            msg("DECIMAL(0,2)"),
            "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column 'a')"
        );
        assert_eq!(
            msg("DECIMAL(66,2)"),
            "Too big precision specified for 'a'. Maximum is 65"
        );
        assert_eq!(
            msg("DECIMAL(66,67)"),
            "Too big scale specified for 'a'. Maximum is 38"
        );
        assert_eq!(
            msg("DECIMAL(5,256)"),
            "Too big scale specified for 'a'. Maximum is 38"
        );
        assert_eq!(code("FIXED(5,6)"), ErrorCode::MBiggerThanD);
        assert_eq!(declared_width("YEAR(2)", &SqlType::Year), Some(2));
        assert_eq!(declared_width("YEAR(4)", &SqlType::Year), None);
        let mut notes = Vec::new();
        lenient_type("YEAR(2)", "y", true, 4, &mut notes).unwrap();
        assert_eq!(notes[0].code, ErrorCode::WarnDeprecatedSyntax);
    }

    #[test]
    fn text_length_counts_characters_of_the_columns_charset() {
        let text = |s: &str, mb| lenient_type(s, "c", true, mb, &mut Vec::new()).unwrap();
        assert_eq!(text("TEXT(65535)", 4), SqlType::Text(LobSize::Medium));
        assert_eq!(text("TEXT(65535)", 1), SqlType::Text(LobSize::Regular));
        assert_eq!(text("TEXT(65536)", 1), SqlType::Text(LobSize::Medium));
        assert_eq!(text("TEXT(255)", 1), SqlType::Text(LobSize::Tiny));
        assert_eq!(text("TEXT(64)", 4), SqlType::Text(LobSize::Regular));
        assert_eq!(text("TEXT(85)", 3), SqlType::Text(LobSize::Tiny));
    }
}
