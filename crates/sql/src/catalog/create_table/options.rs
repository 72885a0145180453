//! Table options of a CREATE TABLE: COMPRESSION / ROW_FORMAT (and the codec they select),
//! COMMENT, character set and collation, ENGINE, AUTO_INCREMENT, and the options only shown
//! again ([`SHOWN_OPTIONS`]).
//!
//! Invariants: an option set twice keeps its last value; [`TableOptions::shown`] is in
//! MariaDB's order and omits options set to their default; ENGINE is kept only when it names
//! one of [`OTHER_ENGINES`].

use betula_storage::Codec;
use sqlparser::ast::{self as ast, CreateTable};

use super::render::quote_str;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// The codec a COMPRESSION / ROW_FORMAT value selects (a codec name, with an optional `:level`,
/// see [`option_setting`]): `None` for InnoDB's row formats (the
/// default codec), 1478 for MyISAM/Aria's FIXED and PAGE (as InnoDB refuses them), 1210 for
/// anything else unknown.
pub fn option_codec(opt: &str) -> DbResult<Option<Codec>> {
    Ok(option_setting(opt)?.map(|s| s.codec))
}

/// Highest codec level a COMPRESSION value may ask for (`'zstd:22'`).
const MAX_LEVEL: i8 = 22;

/// What a COMPRESSION / ROW_FORMAT value asks of a table's trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub codec: Codec,
    /// 0 = the codec's default.
    pub level: i8,
    /// Basement size of the table's trees (`None`: the server's `read_block_size`).
    pub basement_bytes: Option<u32>,
}

/// The smallest setting (`'small'`, `'tokudb_small'`): zstd at level 19 over 128 KiB basements,
/// whose column streams carry a quarter of the per-frame overhead of the default 32 KiB ones
/// (cold point reads decompress a 64 KiB frame instead of a 16 KiB one).
pub const SMALLEST: Setting = Setting {
    codec: Codec::Zstd,
    level: 19,
    basement_bytes: Some(128 << 10),
};

/// The setting (level 0 = the codec's default) a COMPRESSION / ROW_FORMAT value selects: a
/// codec name, optionally followed by `:level` (`'zstd:9'`), or the smallest setting's names, as
/// [`option_codec`].
fn option_setting(opt: &str) -> DbResult<Option<Setting>> {
    let (name, level) = match opt.split_once(':') {
        Some((name, level)) => {
            let level = level
                .parse::<i8>()
                .ok()
                .filter(|l| (1..=MAX_LEVEL).contains(l));
            match (Codec::parse(name), level) {
                (Some(_), Some(level)) => (name, level),
                _ => return Err(bad_compression(opt)),
            }
        }
        None => (opt, 0),
    };
    if name.eq_ignore_ascii_case("small") || name.eq_ignore_ascii_case("tokudb_small") {
        // `'small:5'`: the smallest setting's basements at another zstd level.
        let level = if level == 0 { SMALLEST.level } else { level };
        return Ok(Some(Setting { level, ..SMALLEST }));
    }
    if let Some(codec) = Codec::parse(name) {
        return Ok(Some(Setting {
            codec,
            level,
            basement_bytes: None,
        }));
    }
    match opt.to_ascii_uppercase().as_str() {
        "DEFAULT" | "DYNAMIC" | "COMPACT" | "COMPRESSED" | "REDUNDANT" => Ok(None),
        "FIXED" | "PAGE" => Err(DbError::new(
            ErrorCode::IllegalHaCreateOption,
            "Table storage engine 'Betula' does not support the create option 'ROW_TYPE'",
        )),
        _ => Err(bad_compression(opt)),
    }
}

fn bad_compression(opt: &str) -> DbError {
    DbError::new(
        ErrorCode::WrongArguments,
        format!("Incorrect arguments to COMPRESSION/ROW_FORMAT: '{opt}'"),
    )
}

/// Table options that are accepted, have no effect on Betula's storage and are shown again by
/// SHOW CREATE TABLE, in the order MariaDB prints them.
pub const SHOWN_OPTIONS: &[&str] = &[
    "MIN_ROWS",
    "MAX_ROWS",
    "AVG_ROW_LENGTH",
    "PACK_KEYS",
    "CHECKSUM",
    "DELAY_KEY_WRITE",
    "KEY_BLOCK_SIZE",
    "CONNECTION",
];

/// Table options as written: COMPRESSION, ROW_FORMAT, COMMENT and the [`SHOWN_OPTIONS`].
#[derive(Default)]
pub struct TableOptions {
    pub compression: Option<String>,
    pub row_format: Option<String>,
    pub comment: Option<String>,
    pub shown: Vec<(String, String)>,
    /// `[DEFAULT] CHARACTER SET` / `CHARSET` and `[DEFAULT] COLLATE` as written.
    pub charset: Option<String>,
    pub collate: Option<String>,
    /// `ENGINE=` as written.
    pub engine: Option<String>,
}

impl TableOptions {
    /// Records one `name = value` (value unquoted); other names are ignored.
    pub fn set(&mut self, name: &str, value: String) {
        let up = name.to_ascii_uppercase();
        match up.as_str() {
            "COMPRESSION" => self.compression = Some(value),
            "ROW_FORMAT" => self.row_format = Some(value),
            "COMMENT" => self.comment = Some(value),
            "CHARSET" | "CHARACTER SET" | "DEFAULT CHARSET" | "DEFAULT CHARACTER SET" => {
                self.charset = Some(value)
            }
            "COLLATE" | "DEFAULT COLLATE" => self.collate = Some(value),
            "ENGINE" => self.engine = Some(value),
            n if SHOWN_OPTIONS.contains(&n) => {
                self.shown.retain(|(k, _)| *k != up);
                // MariaDB omits an option set to its default (0 / DEFAULT; PACK_KEYS=0 is shown).
                if (value == "0" && up != "PACK_KEYS") || value.eq_ignore_ascii_case("DEFAULT") {
                    return;
                }
                let v = if up == "CONNECTION" {
                    quote_str(&value)
                } else {
                    value.to_ascii_uppercase()
                };
                self.shown.push((up, v));
                let order = |k: &str| SHOWN_OPTIONS.iter().position(|o| *o == k);
                self.shown.sort_by_key(|(k, _)| order(k));
            }
            _ => {}
        }
    }
}

/// The `AUTO_INCREMENT = n` table option of a CREATE TABLE, if any.
pub fn create_auto_increment(ct: &CreateTable) -> Option<u64> {
    let list: &[ast::SqlOption] = match &ct.table_options {
        ast::CreateTableOptions::With(v)
        | ast::CreateTableOptions::Options(v)
        | ast::CreateTableOptions::Plain(v)
        | ast::CreateTableOptions::TableProperties(v) => v,
        ast::CreateTableOptions::None => &[],
    };
    list.iter().find_map(|o| match o {
        ast::SqlOption::KeyValue { key, value }
            if key.value.eq_ignore_ascii_case("AUTO_INCREMENT") =>
        {
            value.to_string().trim_matches('\'').parse().ok()
        }
        _ => None,
    })
}

/// The table options of a CREATE TABLE, as written.
pub(super) fn table_options(opts: &ast::CreateTableOptions) -> TableOptions {
    let list: &[ast::SqlOption] = match opts {
        ast::CreateTableOptions::None => &[],
        ast::CreateTableOptions::With(v)
        | ast::CreateTableOptions::Options(v)
        | ast::CreateTableOptions::Plain(v)
        | ast::CreateTableOptions::TableProperties(v) => v,
    };
    let mut out = TableOptions::default();
    for o in list {
        match o {
            ast::SqlOption::KeyValue { key, value } => {
                let v = match value {
                    ast::Expr::Value(v) => match &v.value {
                        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                            s.clone()
                        }
                        other => other.to_string(),
                    },
                    other => other.to_string(),
                };
                out.set(&key.value, v);
            }
            ast::SqlOption::NamedParenthesizedList(l) if l.key.value == "ENGINE" => {
                if let Some(n) = &l.name {
                    out.set("ENGINE", n.value.clone());
                }
            }
            ast::SqlOption::Comment(c) => {
                out.comment = Some(match c {
                    ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
                })
            }
            _ => {}
        }
    }
    out
}

/// The codec of a table's ROW_FORMAT and COMPRESSION (a codec COMPRESSION selects overrides
/// ROW_FORMAT's), `None` for the default.
pub fn table_codec(
    row_format: &Option<String>,
    compression: &Option<String>,
) -> DbResult<Option<Codec>> {
    Ok(table_setting(row_format, compression)?.map(|s| s.codec))
}

/// The setting of a table's ROW_FORMAT and COMPRESSION (as [`table_codec`]), `None` for the
/// default codec.
pub fn table_setting(
    row_format: &Option<String>,
    compression: &Option<String>,
) -> DbResult<Option<Setting>> {
    let mut setting = None;
    for opt in [row_format, compression].into_iter().flatten() {
        if let Some(s) = option_setting(opt)? {
            setting = Some(s);
        }
    }
    Ok(setting)
}

/// Engines Betula stands in for whose name SHOW CREATE TABLE keeps (canonical spelling), as
/// listed in information_schema.ENGINES. Betula and InnoDB (and unknown names) are Betula.
pub const OTHER_ENGINES: &[&str] = &["Aria", "MEMORY", "MyISAM"];

/// The engine name kept for `ENGINE=name` (`None` = Betula).
pub fn shown_engine(name: &str) -> Option<String> {
    let name = name.trim_matches(|c| c == '\'' || c == '`' || c == '"');
    let name = if name.eq_ignore_ascii_case("HEAP") {
        "MEMORY"
    } else {
        name
    };
    OTHER_ENGINES
        .iter()
        .find(|e| e.eq_ignore_ascii_case(name))
        .map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_names_select_the_smallest_setting_at_any_level() {
        assert_eq!(option_setting("TOKUDB_SMALL").unwrap(), Some(SMALLEST));
        let s = option_setting("small:5").unwrap().unwrap();
        assert_eq!(
            (s.codec, s.level, s.basement_bytes),
            (Codec::Zstd, 5, Some(128 << 10))
        );
        let l = option_setting("lzma").unwrap().unwrap();
        assert_eq!((l.codec, l.basement_bytes), (Codec::Lzma, None));
        assert_eq!(option_setting("zstd:9").unwrap().unwrap().level, 9);
        assert!(option_setting("small:99").is_err());
        assert_eq!(option_setting("DYNAMIC").unwrap(), None);
    }
}
