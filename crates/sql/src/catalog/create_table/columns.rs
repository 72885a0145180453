//! Column definitions of a CREATE TABLE: name, type (ENUM/SET members, display width,
//! ZEROFILL), character set and collation, NULL / NOT NULL, DEFAULT, ON UPDATE, AUTO_INCREMENT,
//! COMMENT, and the inline PRIMARY KEY / UNIQUE (recorded in [`Keys`]).
//!
//! Invariants: a column's collation is resolved before its type (its character set bounds a
//! VARCHAR's length); a DEFAULT is a constant already coerced to the column type (strictly: a
//! default that does not fit is 1067); `DEFAULT CURRENT_TIMESTAMP` only on TIMESTAMP and
//! DATETIME.

use sqlparser::ast::{self as ast, ColumnDef, ColumnOption};

use super::keys::Keys;
use crate::catalog::charset_clause;
use crate::catalog::type_text::{declared_width, is_zerofill, lenient_type};
use crate::catalog::{GeneratedDef, IndexDef};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::{object_name_parts, Scope};
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{Column, SqlType};

/// One column as defined, with the per-column facts the table keeps beside `Column`.
pub(super) struct ColumnParts {
    pub col: Column,
    pub comment: Option<String>,
    /// `DEFAULT CURRENT_TIMESTAMP`.
    pub default_now: bool,
    /// `ON UPDATE CURRENT_TIMESTAMP`.
    pub on_update_now: bool,
    /// `GENERATED ALWAYS AS (e)` (generated_def.rs).
    pub generated: Option<GeneratedDef>,
}

/// What a column's options say beyond what they set on the `Column` itself.
#[derive(Default)]
struct Options {
    default_expr: Option<ast::Expr>,
    default_now: bool,
    on_update_now: bool,
    comment: Option<String>,
    explicit_null: bool,
}

/// Column `i` of the table, defined by `cd`; `earlier` are the columns before it. An inline
/// PRIMARY KEY or UNIQUE is added to `keys`.
pub(super) fn column_def(
    i: usize,
    cd: &ColumnDef,
    earlier: &[Column],
    table_collation: Collation,
    strict: bool,
    keys: &mut Keys,
    notes: &mut Vec<Warning>,
) -> DbResult<ColumnParts> {
    let cname = ident(&cd.name);
    if earlier.iter().any(|c| c.name.eq_ignore_ascii_case(&cname)) {
        return Err(DbError::dup_field(&cname));
    }
    let type_text = cd.data_type.to_string();
    // The column's collation first: its character set bounds a VARCHAR's length.
    let collation = column_collation(cd, table_collation)?;
    let mb = collation.max_bytes_per_char();
    let (ty, members) = match member_type(&cd.data_type, &cname, notes)? {
        Some(m) => m,
        None => (
            lenient_type(&type_text, &cname, strict, mb, notes)?,
            Vec::new(),
        ),
    };
    let mut col = Column::new(i as u32, cname.clone(), ty).with_members(members);
    col.display_width = declared_width(&type_text, &ty);
    col.zerofill = ty.is_numeric() && is_zerofill(&type_text);
    let opts = apply_options(i, cd, &cname, &mut col, keys)?;
    if has_binary_attribute(cd) && !col.sql_type.is_text() {
        // MariaDB's grammar has the attribute after character types only
        return Err(DbError::syntax("BINARY"));
    }
    if col.sql_type.is_text() {
        col = col.with_collation(collation);
    }
    if opts.explicit_null && !col.nullable && keys.pk.contains(&i) {
        return Err(DbError::new(
            ErrorCode::PrimaryCantHaveNull,
            "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead",
        ));
    }
    if let Some(e) = opts.default_expr {
        set_default(&mut col, &e, &cname, notes)?;
    }
    if opts.default_now && !matches!(ty, SqlType::Timestamp { .. } | SqlType::DateTime { .. }) {
        return Err(DbError::new(
            ErrorCode::InvalidDefault,
            format!("Invalid default value for '{cname}'"),
        ));
    }
    let generated = crate::catalog::generated_def::generated_option(cd)
        .map(|(e, stored)| GeneratedDef::new(e, stored));
    if generated.is_some() {
        crate::catalog::generated_def::refuse_options(cd)?;
    }
    Ok(ColumnParts {
        col,
        comment: opts.comment,
        default_now: opts.default_now,
        on_update_now: opts.on_update_now,
        generated,
    })
}

/// The collation of column `cd`: its CHARACTER SET / COLLATE (or BINARY attribute), else the
/// table's.
fn column_collation(cd: &ColumnDef, table_collation: Collation) -> DbResult<Collation> {
    let (mut col_charset, mut col_collate) = (None, None);
    for o in &cd.options {
        match &o.option {
            ColumnOption::CharacterSet(c) => col_charset = Some(object_name_parts(c).join(".")),
            ColumnOption::Collation(c) => col_collate = Some(object_name_parts(c).join(".")),
            _ => {}
        }
    }
    let (charset, collate) = (col_charset.as_deref(), col_collate.as_deref());
    if has_binary_attribute(cd) {
        charset_clause::resolve_binary(charset, collate, table_collation)
    } else {
        charset_clause::resolve(charset, collate, table_collation)
    }
}

/// Whether `cd` has MariaDB's `BINARY` attribute (`VARCHAR(10) BINARY`; expr/dialect.rs reads
/// it).
fn has_binary_attribute(cd: &ColumnDef) -> bool {
    cd.options.iter().any(|o| {
        matches!(&o.option, ColumnOption::DialectSpecific(toks)
            if toks.len() == 1 && toks[0].to_string().eq_ignore_ascii_case("BINARY"))
    })
}

/// Applies the options of column `i` (`cd`, named `cname`) to `col` and `keys`, in the order
/// written; returns the rest.
fn apply_options(
    i: usize,
    cd: &ColumnDef,
    cname: &str,
    col: &mut Column,
    keys: &mut Keys,
) -> DbResult<Options> {
    let mut o = Options::default();
    for opt in &cd.options {
        match &opt.option {
            ColumnOption::Null => o.explicit_null = true,
            ColumnOption::NotNull => col.nullable = false,
            ColumnOption::Default(e) => {
                if is_now(e) {
                    o.default_now = true
                } else {
                    o.default_expr = Some(e.clone())
                }
            }
            ColumnOption::OnUpdate(e) if is_now(e) => o.on_update_now = true,
            ColumnOption::PrimaryKey(_) => {
                if !keys.pk.is_empty() {
                    return Err(DbError::new(
                        ErrorCode::MultiplePriKey,
                        "Multiple primary key defined",
                    ));
                }
                keys.pk = vec![i];
                keys.pk_prefix = vec![None];
                col.nullable = false;
            }
            ColumnOption::Unique(_) => {
                keys.indexes
                    .push(IndexDef::new(cname.to_string(), vec![i], true))
            }
            ColumnOption::Comment(c) => o.comment = Some(c.clone()),
            ColumnOption::DialectSpecific(toks) => {
                let s: String = toks
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                if s.to_ascii_uppercase().contains("AUTO_INCREMENT") {
                    col.auto_increment = true;
                    // AUTO_INCREMENT implies NOT NULL (as in MySQL)
                    col.nullable = false;
                }
            }
            _ => {}
        }
    }
    Ok(o)
}

/// Sets `col`'s DEFAULT from constant expression `e`: NULL only for a nullable column, else the
/// value coerced to the column's type (its notes, such as 1265 for DECIMAL DEFAULT 1.1, go to
/// `notes`).
fn set_default(
    col: &mut Column,
    e: &ast::Expr,
    cname: &str,
    notes: &mut Vec<Warning>,
) -> DbResult<()> {
    let invalid = || {
        DbError::new(
            ErrorCode::InvalidDefault,
            format!("Invalid default value for '{cname}'"),
        )
    };
    let v = const_value(e)?.unwrap_or(Value::Null);
    if v.is_null() {
        if !col.nullable {
            return Err(invalid());
        }
        return Ok(());
    }
    // MariaDB reports a default's conversion notes (e.g. 1265 for DECIMAL DEFAULT 1.1)
    // "at row 0"
    let mut w = Vec::new();
    let cv = coerce_to_column(&v, col, 0, SqlMode::utc(true), &mut w).map_err(|_| invalid())?;
    col.default = Some(cv);
    notes.extend(w.into_iter().filter(|w| w.level == WarningLevel::Note));
    Ok(())
}

/// ENUM(...) and SET(...): the type and its members, with trailing spaces removed as MySQL does;
/// a member equal to an earlier one (case-insensitively) gets note 1291. `None` for other types.
fn member_type(
    t: &ast::DataType,
    col: &str,
    notes: &mut Vec<Warning>,
) -> DbResult<Option<(SqlType, Vec<String>)>> {
    let (kind, raw): (&str, Vec<String>) = match t {
        ast::DataType::Enum(m, None) => (
            "ENUM",
            m.iter()
                .map(|m| match m {
                    ast::EnumMember::Name(s) | ast::EnumMember::NamedValue(s, _) => s.clone(),
                })
                .collect(),
        ),
        ast::DataType::Set(m) => ("SET", m.clone()),
        _ => return Ok(None),
    };
    let members: Vec<String> = raw
        .iter()
        .map(|m| m.trim_end_matches(' ').to_string())
        .collect();
    for (i, m) in members.iter().enumerate() {
        if let Some(p) = members[..i].iter().find(|p| {
            Collation::default()
                .compare(p.as_bytes(), m.as_bytes())
                .is_eq()
        }) {
            notes.push(Warning {
                level: WarningLevel::Note,
                code: ErrorCode::DuplicatedValueInType,
                message: format!("Column '{col}' has duplicated value '{p}' in {kind}"),
            });
        }
        if m.chars().count() > 255 {
            return Err(DbError::new(
                ErrorCode::TooLongSetEnumValue,
                format!("Too long enumeration/set value for column {col}."),
            ));
        }
    }
    let ty = if kind == "ENUM" {
        if members.len() > 65_535 {
            return Err(DbError::new(
                ErrorCode::TooBigSet,
                format!("Too many strings for column {col} and ENUM"),
            ));
        }
        SqlType::Enum {
            count: members.len() as u16,
        }
    } else {
        if members.len() > 64 {
            return Err(DbError::new(
                ErrorCode::TooBigSet,
                format!("Too many strings for column {col} and SET"),
            ));
        }
        if let Some(m) = members.iter().find(|m| m.contains(',')) {
            return Err(DbError::new(
                ErrorCode::IllegalValueForType,
                format!("Illegal set '{m}' value found during parsing"),
            ));
        }
        SqlType::Set {
            count: members.len() as u8,
        }
    };
    Ok(Some((ty, members)))
}

/// An identifier's name (unquoted).
pub(super) fn ident(i: &ast::Ident) -> String {
    i.value.clone()
}

/// Evaluates a constant expression (a DEFAULT, a partition bound): no columns, no session.
pub(crate) fn const_value(e: &ast::Expr) -> DbResult<Option<Value>> {
    let ex = crate::expr::compile_standalone(&Scope::default(), e, "field list")?;
    Ok(Some(crate::expr::eval::eval(
        &ex,
        &crate::expr::eval::EvalCtx::default(),
    )?))
}

fn is_now(e: &ast::Expr) -> bool {
    let s = e.to_string().to_ascii_uppercase();
    let s = s.split('(').next().unwrap_or("").trim().to_string();
    matches!(
        s.as_str(),
        "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIMESTAMP" | "LOCALTIME"
    )
}
