//! Table definitions from CREATE TABLE, and back to text (`SHOW CREATE TABLE`).
//!
//! Owns: [`table_from_create`] (sqlparser's CreateTable → [`TableDef`]) and [`render_create`]
//! (column type text: `type_text.rs`). The catalog stores
//! `render_create`'s output and rebuilds the definition with `table_from_create`, so the two must
//! round-trip: every property of a `TableDef` appears in the text.
//! Character sets and collations of the table and its text columns are kept (charset_clause.rs);
//! ENGINE is kept when it names an engine of [`OTHER_ENGINES`] (shown again, stored as Betula).
//! Accepted and ignored: other ENGINE names, KEY_BLOCK_SIZE and other table options (an index's
//! KEY_BLOCK_SIZE too). Index prefix lengths and types (USING HASH) are kept (key_parts.rs; every
//! index is a B-tree whatever its declared type). Integer and YEAR display widths and ZEROFILL are
//! kept for display only (`Column::display_width`, `Column::zerofill`; SHOW CREATE TABLE prints
//! `int(11)` as MariaDB does). DESC in index columns is ignored.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use betula_storage::Codec;
use sqlparser::ast::{self as ast, ColumnOption, CreateTable, TableConstraint};

use crate::catalog::key_parts::{key_parts, render_parts};
use crate::catalog::type_text::{declared_width, is_zerofill, lenient_type};
use crate::catalog::{charset_clause, Counters, IndexDef, TableDef};
use crate::codec::row::RowLayout;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{object_name_parts, Compiler, Scope};
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{Column, SqlType};

/// ENUM(...) and SET(...): the type and its members, with trailing spaces removed as MySQL does;
/// a member equal to an earlier one (case-insensitively) gets note 1291. `None` for other types.
fn member_type(
    t: &ast::DataType,
    col: &str,
    notes: &mut Vec<crate::error::sql_error::Warning>,
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
            notes.push(crate::error::sql_error::Warning {
                level: crate::error::sql_error::WarningLevel::Note,
                code: 1291,
                message: format!("Column '{col}' has duplicated value '{p}' in {kind}"),
            });
        }
        if m.chars().count() > 255 {
            return Err(DbError::new(
                3504,
                "HY000",
                format!("Too long enumeration/set value for column {col}."),
            ));
        }
    }
    let ty = if kind == "ENUM" {
        if members.len() > 65_535 {
            return Err(DbError::new(
                1097,
                "HY000",
                format!("Too many strings for column {col} and ENUM"),
            ));
        }
        SqlType::Enum {
            count: members.len() as u16,
        }
    } else {
        if members.len() > 64 {
            return Err(DbError::new(
                1097,
                "HY000",
                format!("Too many strings for column {col} and SET"),
            ));
        }
        if let Some(m) = members.iter().find(|m| m.contains(',')) {
            return Err(DbError::new(
                1367,
                "HY000",
                format!("Illegal set '{m}' value found during parsing"),
            ));
        }
        SqlType::Set {
            count: members.len() as u8,
        }
    };
    Ok(Some((ty, members)))
}

fn index_comment(opts: &[ast::IndexOption]) -> Option<String> {
    opts.iter().find_map(|o| match o {
        ast::IndexOption::Comment(c) => Some(c.clone()),
        _ => None,
    })
}

/// The index type declared before the columns or as an option (`USING HASH` → `HASH`).
fn index_using(before: &Option<ast::IndexType>, opts: &[ast::IndexOption]) -> Option<String> {
    let opt = opts.iter().find_map(|o| match o {
        ast::IndexOption::Using(t) => Some(t),
        _ => None,
    });
    opt.or(before.as_ref())
        .map(|t| t.to_string().to_ascii_uppercase())
}

fn ident(i: &ast::Ident) -> String {
    i.value.clone()
}

/// Evaluates a constant DEFAULT expression.
fn const_value(e: &ast::Expr) -> DbResult<Option<Value>> {
    struct NoEnv;
    impl crate::expr::CompileEnv for NoEnv {
        fn system_var(&mut self, n: &str, _: bool) -> DbResult<Value> {
            Err(DbError::unknown_var(n))
        }
        fn user_var(&mut self, _: &str) -> Value {
            Value::Null
        }
        fn param(&mut self, _: usize) -> DbResult<Value> {
            Err(DbError::syntax("?"))
        }
        fn subquery(&mut self, _: &ast::Query) -> DbResult<Vec<Vec<Value>>> {
            Err(DbError::unsupported("subquery in DEFAULT"))
        }
        fn session_fn(&mut self, _: &str, _: &[Value]) -> Option<DbResult<Value>> {
            None
        }
    }
    let scope = Scope::default();
    let mut env = NoEnv;
    let mut c = Compiler {
        scope: &scope,
        env: &mut env,
        aggs: None,
        insert_scope: None,
        aliases: &[],
        place: "field list",
    };
    let ex = c.compile(e)?;
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

/// The codec a COMPRESSION / ROW_FORMAT value selects: `None` for InnoDB's row formats (the
/// default codec), 1478 for MyISAM/Aria's FIXED and PAGE (as InnoDB refuses them), 1210 for
/// anything else unknown.
pub fn option_codec(opt: &str) -> DbResult<Option<Codec>> {
    if let Some(c) = Codec::parse(opt) {
        return Ok(Some(c));
    }
    match opt.to_ascii_uppercase().as_str() {
        "DEFAULT" | "DYNAMIC" | "COMPACT" | "COMPRESSED" | "REDUNDANT" => Ok(None),
        "FIXED" | "PAGE" => Err(DbError::new(
            1478,
            "HY000",
            "Table storage engine 'Betula' does not support the create option 'ROW_TYPE'",
        )),
        _ => Err(DbError::new(
            1210,
            "HY000",
            format!("Incorrect arguments to COMPRESSION/ROW_FORMAT: '{opt}'"),
        )),
    }
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

fn table_options(opts: &ast::CreateTableOptions) -> TableOptions {
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

/// Builds a table definition from a parsed CREATE TABLE (database already resolved).
pub fn table_from_create(db: &str, ct: &CreateTable) -> DbResult<TableDef> {
    table_from_create_mode(db, ct, true, &mut Vec::new())
}

/// [`table_from_create`] with the session's strictness; non-strict conversions add notes.
pub fn table_from_create_mode(
    db: &str,
    ct: &CreateTable,
    strict: bool,
    notes: &mut Vec<crate::error::sql_error::Warning>,
) -> DbResult<TableDef> {
    let parts = object_name_parts(&ct.name);
    let name = parts.last().cloned().unwrap_or_default();
    check_name(&name)?;
    if ct.columns.is_empty() {
        return Err(DbError::new(
            1113,
            "42000",
            "A table must have at least 1 column",
        ));
    }
    let TableOptions {
        compression,
        row_format,
        comment,
        shown: options,
        charset,
        collate,
        engine,
    } = table_options(&ct.table_options);
    let table_collation =
        charset_clause::resolve(charset.as_deref(), collate.as_deref(), Collation::default())?;
    let mut columns: Vec<Column> = Vec::new();
    let mut comments = Vec::new();
    let mut default_now = Vec::new();
    let mut on_update_now = Vec::new();
    let mut pk: Vec<usize> = Vec::new();
    let mut pk_prefix: Vec<Option<u32>> = Vec::new();
    let mut indexes: Vec<IndexDef> = Vec::new();
    for (i, cd) in ct.columns.iter().enumerate() {
        let cname = ident(&cd.name);
        if columns.iter().any(|c| c.name.eq_ignore_ascii_case(&cname)) {
            return Err(DbError::dup_field(&cname));
        }
        let type_text = cd.data_type.to_string();
        // The column's collation first: its character set bounds a VARCHAR's length.
        let (mut col_charset, mut col_collate) = (None, None);
        for o in &cd.options {
            match &o.option {
                ColumnOption::CharacterSet(c) => col_charset = Some(object_name_parts(c).join(".")),
                ColumnOption::Collation(c) => col_collate = Some(object_name_parts(c).join(".")),
                _ => {}
            }
        }
        let collation = charset_clause::resolve(
            col_charset.as_deref(),
            col_collate.as_deref(),
            table_collation,
        )?;
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
        let mut default_expr = None;
        let (mut dnow, mut unow, mut comment) = (false, false, None);
        let mut explicit_null = false;
        for o in &cd.options {
            match &o.option {
                ColumnOption::Null => explicit_null = true,
                ColumnOption::NotNull => col.nullable = false,
                ColumnOption::Default(e) => {
                    if is_now(e) {
                        dnow = true
                    } else {
                        default_expr = Some(e.clone())
                    }
                }
                ColumnOption::OnUpdate(e) if is_now(e) => unow = true,
                ColumnOption::PrimaryKey(_) => {
                    if !pk.is_empty() {
                        return Err(DbError::new(1068, "42000", "Multiple primary key defined"));
                    }
                    pk = vec![i];
                    pk_prefix = vec![None];
                    col.nullable = false;
                }
                ColumnOption::Unique(_) => {
                    indexes.push(IndexDef::new(cname.clone(), vec![i], true))
                }
                ColumnOption::Comment(c) => comment = Some(c.clone()),
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
        if col.sql_type.is_text() {
            col = col.with_collation(collation);
        }
        if explicit_null && !col.nullable && pk.contains(&i) {
            return Err(DbError::new(
                1171,
                "42000",
                "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead",
            ));
        }
        if let Some(e) = default_expr {
            let v = const_value(&e)?.unwrap_or(Value::Null);
            if v.is_null() {
                if !col.nullable {
                    return Err(DbError::new(
                        1067,
                        "42000",
                        format!("Invalid default value for '{cname}'"),
                    ));
                }
            } else {
                // MariaDB reports a default's conversion notes (e.g. 1265 for DECIMAL DEFAULT 1.1)
                // "at row 0"
                let mut w = Vec::new();
                let cv = coerce_to_column(&v, &col, 0, SqlMode { strict: true }, &mut w).map_err(
                    |_| {
                        DbError::new(
                            1067,
                            "42000",
                            format!("Invalid default value for '{cname}'"),
                        )
                    },
                )?;
                col.default = Some(cv);
                notes.extend(
                    w.into_iter()
                        .filter(|w| w.level == crate::error::sql_error::WarningLevel::Note),
                );
            }
        }
        if dnow && !matches!(ty, SqlType::Timestamp { .. } | SqlType::DateTime { .. }) {
            return Err(DbError::new(
                1067,
                "42000",
                format!("Invalid default value for '{cname}'"),
            ));
        }
        columns.push(col);
        comments.push(comment);
        default_now.push(dnow);
        on_update_now.push(unow);
    }
    for c in &ct.constraints {
        match c {
            TableConstraint::PrimaryKey(p) => {
                if !pk.is_empty() {
                    return Err(DbError::new(1068, "42000", "Multiple primary key defined"));
                }
                (pk, pk_prefix) = key_parts(&p.columns, &columns)?;
                for &i in &pk {
                    columns[i].nullable = false;
                }
                if let Some(n) = p.index_name.as_ref().or(p.name.as_ref()) {
                    if !n.value.eq_ignore_ascii_case("PRIMARY") {
                        notes.push(crate::error::sql_error::Warning {
                            level: crate::error::sql_error::WarningLevel::Warning,
                            code: 1280,
                            message: format!("Name '{}' ignored for PRIMARY key.", n.value),
                        });
                    }
                }
            }
            TableConstraint::Unique(u) => {
                let (cols, prefix) = key_parts(&u.columns, &columns)?;
                let name = u
                    .index_name
                    .as_ref()
                    .or(u.name.as_ref())
                    .map(ident)
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                indexes.push(IndexDef {
                    name,
                    columns: cols,
                    prefix,
                    unique: true,
                    comment: index_comment(&u.index_options),
                    using: index_using(&u.index_type, &u.index_options),
                });
            }
            TableConstraint::Index(ix) => {
                let (cols, prefix) = key_parts(&ix.columns, &columns)?;
                let name = ix
                    .name
                    .as_ref()
                    .map(ident)
                    .unwrap_or_else(|| columns[cols[0]].name.clone());
                indexes.push(IndexDef {
                    name,
                    columns: cols,
                    prefix,
                    unique: false,
                    comment: index_comment(&ix.index_options),
                    using: index_using(&ix.index_type, &ix.index_options),
                });
            }
            TableConstraint::ForeignKey(_) | TableConstraint::Check(_) => {}
            other => return Err(DbError::unsupported(format!("constraint {other}"))),
        }
    }
    // Unnamed indexes get MySQL's names: the first column, then _2, _3 ... on clashes.
    let mut seen: Vec<String> = Vec::new();
    for ix in indexes.iter_mut() {
        let base = ix.name.clone();
        let mut n = 2;
        while seen.iter().any(|s| s.eq_ignore_ascii_case(&ix.name)) {
            ix.name = format!("{base}_{n}");
            n += 1;
        }
        if ix.name.eq_ignore_ascii_case("PRIMARY") {
            return Err(DbError::new(
                1280,
                "42000",
                "Incorrect index name 'PRIMARY'",
            ));
        }
        seen.push(ix.name.clone());
    }
    for &p in &pk {
        columns[p].nullable = false;
    }
    let autos: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].auto_increment)
        .collect();
    if autos.len() > 1
        || autos.iter().any(|&a| {
            !columns[a].sql_type.is_integer()
                && !matches!(
                    columns[a].sql_type,
                    SqlType::Float { .. } | SqlType::Double { .. }
                )
                || !(pk.first() == Some(&a)
                    || indexes.iter().any(|ix| ix.columns.first() == Some(&a)))
        })
    {
        return Err(DbError::new(
            1075,
            "42000",
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ));
    }
    let mut codec = None;
    for opt in [&row_format, &compression].into_iter().flatten() {
        if let Some(c) = option_codec(opt)? {
            codec = Some(c);
        }
    }
    let layout = RowLayout::new(1, columns.clone());
    let full_columns = columns.len();
    Ok(TableDef {
        db: db.to_string(),
        name,
        columns,
        comments,
        default_now,
        on_update_now,
        pk,
        pk_prefix,
        indexes,
        compression,
        row_format,
        codec,
        comment,
        options,
        layout,
        counters: Arc::new(Counters::default()),
        generation: 0,
        full_columns,
        collation: table_collation,
        engine: engine.as_deref().and_then(shown_engine),
        temporary: None,
        key_format: crate::catalog::KEY_FORMAT,
    })
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

pub fn check_name(name: &str) -> DbResult<()> {
    if name.is_empty()
        || name.len() > 64
        || name.contains('/')
        || name.contains('\0')
        || name.ends_with(' ')
    {
        return Err(DbError::new(
            1103,
            "42000",
            format!("Incorrect table name '{name}'"),
        ));
    }
    Ok(())
}

pub fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

pub fn quote_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

fn default_text(col: &Column) -> Option<String> {
    match &col.default {
        Some(Value::UInt(b)) if matches!(col.sql_type, SqlType::Bit { .. }) => {
            Some(crate::types::text_format::bit_literal(*b))
        }
        Some(Value::UInt(y)) if col.sql_type == SqlType::Year && col.display_width == Some(2) => {
            Some(quote_str(&format!("{:02}", y % 100)))
        }
        Some(v) => {
            let t = v
                .to_text(Some(&col.sql_type))
                .map(|b| String::from_utf8_lossy(&b).into_owned())?;
            // MariaDB shows a number's default as a number literal.
            let numeric = matches!(
                col.sql_type,
                SqlType::Int { .. }
                    | SqlType::Decimal { .. }
                    | SqlType::Float { .. }
                    | SqlType::Double { .. }
            );
            Some(if numeric { t } else { quote_str(&t) })
        }
        None if col.nullable && !matches!(col.sql_type, SqlType::Text(_) | SqlType::Blob(_)) => {
            Some("NULL".into())
        }
        None => None,
    }
}

/// MySQL-style `SHOW CREATE TABLE` text.
pub fn render_create(t: &TableDef) -> String {
    let mut lines = Vec::new();
    for (i, c) in t.columns.iter().enumerate() {
        let mut s = format!("  {} {}", quote_ident(&c.name), c.column_type());
        if c.sql_type.is_text() {
            s.push_str(&charset_clause::column_clause(c.collation, t.collation));
        }
        if !c.nullable {
            s.push_str(" NOT NULL");
        }
        if c.auto_increment {
            s.push_str(" AUTO_INCREMENT");
        } else if t.default_now[i] {
            s.push_str(" DEFAULT CURRENT_TIMESTAMP");
        } else if let Some(d) = default_text(c) {
            s.push_str(&format!(" DEFAULT {d}"));
        }
        if t.on_update_now[i] {
            s.push_str(" ON UPDATE CURRENT_TIMESTAMP");
        }
        if let Some(cm) = &t.comments[i] {
            s.push_str(&format!(" COMMENT {}", quote_str(cm)));
        }
        lines.push(s);
    }
    if !t.pk.is_empty() {
        lines.push(format!(
            "  PRIMARY KEY ({})",
            render_parts(t, &t.pk, &t.pk_prefix)
        ));
    }
    for ix in &t.indexes {
        lines.push(format!(
            "  {}KEY {} ({}){}{}",
            if ix.unique { "UNIQUE " } else { "" },
            quote_ident(&ix.name),
            render_parts(t, &ix.columns, &ix.prefix),
            ix.using
                .as_ref()
                .map(|u| format!(" USING {u}"))
                .unwrap_or_default(),
            ix.comment
                .as_ref()
                .map(|c| format!(" COMMENT {}", quote_str(c)))
                .unwrap_or_default()
        ));
    }
    let mut s = format!(
        "CREATE {}TABLE {} (\n{}\n) ENGINE={}",
        if t.temporary.is_some() {
            "TEMPORARY "
        } else {
            ""
        },
        quote_ident(&t.name),
        lines.join(",\n"),
        t.engine.as_deref().unwrap_or("Betula")
    );
    let next = t.counters.auto_inc.load(Ordering::SeqCst);
    if t.auto_inc_col().is_some() && next > 1 {
        s.push_str(&format!(" AUTO_INCREMENT={next}"));
    }
    s.push(' ');
    s.push_str(&charset_clause::table_clause(t.collation));
    let shown = |s: &mut String, names: &[&str]| {
        for (k, v) in t
            .options
            .iter()
            .filter(|(k, _)| names.contains(&k.as_str()))
        {
            s.push_str(&format!(" {k}={v}"));
        }
    };
    shown(&mut s, &SHOWN_OPTIONS[..6]);
    if let Some(c) = &t.compression {
        s.push_str(&format!(" COMPRESSION={}", quote_str(c)));
    }
    if let Some(r) = &t.row_format {
        s.push_str(&format!(" ROW_FORMAT={r}"));
    }
    shown(&mut s, &["KEY_BLOCK_SIZE"]);
    if let Some(c) = &t.comment {
        s.push_str(&format!(" COMMENT={}", quote_str(c)));
    }
    shown(&mut s, &["CONNECTION"]);
    s
}

/// The stored form (no AUTO_INCREMENT counter: it is recomputed from the data at start-up).
pub fn render_stored(t: &TableDef) -> String {
    let saved = t.counters.auto_inc.load(Ordering::SeqCst);
    let tmp = TableDef {
        counters: Arc::new(Counters::default()),
        ..t.clone()
    };
    let _ = saved;
    render_create(&tmp)
}
