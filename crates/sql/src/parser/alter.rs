//! The grammar of ALTER TABLE's operations (after `ALTER [ONLINE] [IGNORE] TABLE t`, see
//! ddl.rs) into [`AlterOp`]s, executed by ddl/alter.rs; also the key-part list of CREATE INDEX
//! ([`index_columns`]).
//!
//! Invariants: operations are read in order and kept in order (they apply to the table one
//! after another); column definitions are kept as their text (the CREATE TABLE grammar reads
//! them when they are applied, against the table's default collation: ddl/table_draft.rs); an
//! operation Betula does not have is refused with 1235 naming it, text after the last
//! operation with 1064. Partition operations are read by partition.rs.

use crate::catalog::create_table;
use crate::catalog::partition::{PartDefClause, PartitionClause, Retention};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::tokens::{syntax, Cursor, Tok};

/// Where ALTER TABLE puts a column.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Last,
    First,
    After(String),
}

/// The key parts and options of an index as written in ALTER TABLE ADD INDEX / CREATE INDEX.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexSpec {
    pub columns: Vec<String>,
    /// Prefix lengths, parallel to `columns`.
    pub prefix: Vec<Option<u32>>,
    pub comment: Option<String>,
    pub using: Option<String>,
    /// A clustering index: `CLUSTERING` before KEY / INDEX, or the option `CLUSTERING=YES`.
    pub clustering: bool,
}

impl IndexSpec {
    /// Whole columns, no options.
    pub fn of(columns: Vec<String>) -> IndexSpec {
        let prefix = vec![None; columns.len()];
        IndexSpec {
            columns,
            prefix,
            ..IndexSpec::default()
        }
    }
}

/// One operation of an ALTER TABLE statement.
#[derive(Clone, Debug)]
pub enum AlterOp {
    AddColumn {
        def: String,
        place: Place,
        if_not_exists: bool,
    },
    /// CHANGE old def / MODIFY def (`old` = the name in `def`).
    Change {
        old: String,
        def: String,
        place: Place,
        if_exists: bool,
    },
    DropColumn {
        name: String,
        if_exists: bool,
    },
    /// ALTER COLUMN c SET DEFAULT expr (`Some(text)`) / DROP DEFAULT (`None`).
    Default {
        column: String,
        value: Option<String>,
    },
    RenameColumn {
        from: String,
        to: String,
    },
    AddIndex {
        name: Option<String>,
        spec: IndexSpec,
        unique: bool,
        if_not_exists: bool,
    },
    AddPrimary {
        name: Option<String>,
        spec: IndexSpec,
    },
    DropIndex {
        name: String,
        if_exists: bool,
    },
    RenameIndex {
        from: String,
        to: String,
    },
    Option(String, String),
    /// CONVERT TO CHARACTER SET cs [COLLATE coll]: the table's and every text column's collation.
    Convert(String, Option<String>),
    RenameTable(Vec<String>),
    OrderBy(Vec<(String, bool)>),
    Force,
    /// DISABLE / ENABLE KEYS.
    Keys,
    /// LOCK = DEFAULT | NONE | SHARED | EXCLUSIVE.
    Lock(AlterLock),
    /// ALGORITHM = DEFAULT | INSTANT | NOCOPY | INPLACE | COPY.
    Algorithm(AlterAlgorithm),
    /// ADD [CONSTRAINT [name]] CHECK (expr): the name and the expression's text.
    AddCheck {
        name: Option<String>,
        expr: String,
    },
    /// ADD [CONSTRAINT [name]] FOREIGN KEY [IF NOT EXISTS] ...: the constraint's text as a
    /// CREATE TABLE writes it (`[CONSTRAINT `name`] FOREIGN KEY [index] (cols) REFERENCES ...`).
    AddForeignKey {
        text: String,
        if_not_exists: bool,
    },
    /// DROP FOREIGN KEY [IF EXISTS] name.
    DropForeignKey {
        name: String,
        if_exists: bool,
    },
    /// DROP CONSTRAINT / CHECK name (a CHECK's or a foreign key's).
    DropConstraint {
        name: String,
        if_exists: bool,
    },
    /// ADD PARTITION (defs) / ADD PARTITION PARTITIONS n (partition.rs, as the rest below).
    AddPartitions {
        defs: Vec<PartDefClause>,
        count: Option<u64>,
    },
    DropPartitions(Vec<String>),
    /// TRUNCATE PARTITION names (`None`: ALL).
    TruncatePartitions(Option<Vec<String>>),
    /// REORGANIZE PARTITION from INTO (into); both empty: rebuild a HASH / KEY table's partitions.
    ReorganizePartitions {
        from: Vec<String>,
        into: Vec<PartDefClause>,
    },
    CoalescePartitions(u64),
    ExchangePartition {
        name: String,
        table: Vec<String>,
        /// WITH VALIDATION (the default): every row of the table is checked against the partition.
        validate: bool,
    },
    RemovePartitioning,
    PartitionBy(Box<PartitionClause>),
    /// RETENTION = n unit (`None`: RETENTION = NONE).
    Retention(Option<Retention>),
}

impl AlterOp {
    /// RETENTION, LOCK= or ALGORITHM=: what a MariaDB replica need not be sent (design.md RET7).
    pub fn is_retention_or_lock(&self) -> bool {
        matches!(
            self,
            AlterOp::Retention(_) | AlterOp::Lock(_) | AlterOp::Algorithm(_)
        )
    }
}

/// ALTER TABLE's LOCK clause (ALTER ONLINE is LOCK=NONE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AlterLock {
    #[default]
    Default,
    None,
    Shared,
    Exclusive,
}

impl AlterLock {
    fn parse(v: &str) -> DbResult<AlterLock> {
        Ok(match v.to_ascii_uppercase().as_str() {
            "DEFAULT" => AlterLock::Default,
            "NONE" => AlterLock::None,
            "SHARED" => AlterLock::Shared,
            "EXCLUSIVE" => AlterLock::Exclusive,
            _ => {
                return Err(DbError::new(
                    ErrorCode::UnknownAlterLock,
                    format!("Unknown LOCK type '{v}'"),
                ))
            }
        })
    }
}

/// ALTER TABLE's ALGORITHM clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AlterAlgorithm {
    #[default]
    Default,
    Instant,
    Nocopy,
    Inplace,
    Copy,
}

impl AlterAlgorithm {
    fn parse(v: &str) -> DbResult<AlterAlgorithm> {
        Ok(match v.to_ascii_uppercase().as_str() {
            "DEFAULT" => AlterAlgorithm::Default,
            "INSTANT" => AlterAlgorithm::Instant,
            "NOCOPY" => AlterAlgorithm::Nocopy,
            "INPLACE" => AlterAlgorithm::Inplace,
            "COPY" => AlterAlgorithm::Copy,
            _ => {
                return Err(DbError::new(
                    ErrorCode::UnknownAlterAlgorithm,
                    format!("Unknown ALGORITHM '{v}'"),
                ))
            }
        })
    }
}

/// `USING BTREE|HASH` after the keyword USING (the type's upper-case name).
fn index_type(c: &mut Cursor<'_>) -> DbResult<String> {
    for t in ["BTREE", "HASH"] {
        if c.kw(t) {
            return Ok(t.to_string());
        }
    }
    Err(syntax(c))
}

/// `[USING type] (col [(len)] [ASC|DESC], ...) [index options]`: the key parts (columns and
/// prefix lengths), COMMENT, the index type and `CLUSTERING [=] YES|NO|...` (MariaDB's
/// engine-defined option, parser/clustering.rs); KEY_BLOCK_SIZE, VISIBLE and ASC/DESC are
/// accepted and ignored.
pub fn index_columns(c: &mut Cursor<'_>) -> DbResult<IndexSpec> {
    let mut spec = IndexSpec::default();
    if c.kw("USING") {
        spec.using = Some(index_type(c)?);
    }
    if !c.sym('(') {
        return Err(syntax(c));
    }
    loop {
        spec.columns.push(c.name().ok_or_else(|| syntax(c))?);
        let mut prefix = None;
        if c.sym('(') {
            let n = c.name().ok_or_else(|| syntax(c))?;
            prefix = Some(n.parse::<u32>().map_err(|_| syntax(c))?);
            if !c.sym(')') {
                return Err(syntax(c));
            }
        }
        spec.prefix.push(prefix);
        c.kw("ASC");
        c.kw("DESC");
        if !c.sym(',') {
            break;
        }
    }
    if !c.sym(')') {
        return Err(syntax(c));
    }
    loop {
        if c.kw("USING") {
            spec.using = Some(index_type(c)?);
        } else if c.kw("COMMENT") {
            spec.comment = Some(c.string().ok_or_else(|| syntax(c))?);
        } else if c.kw("KEY_BLOCK_SIZE") {
            c.sym('=');
            c.name().ok_or_else(|| syntax(c))?;
        } else if matches!(c.peek(), Some(Tok::Word { text, .. }) if text.eq_ignore_ascii_case("CLUSTERING"))
        {
            c.pos += 1;
            c.sym('=');
            let value = c.name().ok_or_else(|| syntax(c))?;
            spec.clustering = crate::parser::clustering::option_value(&value)?;
        } else if !(c.kw("VISIBLE") || c.kw("INVISIBLE")) {
            break;
        }
    }
    Ok(spec)
}

/// A column definition up to a top-level `,` or the end, and FIRST / AFTER col after it.
fn column_clause(c: &mut Cursor<'_>) -> DbResult<(String, Place)> {
    let start = c.offset();
    let first = c.pos;
    let mut depth = 0i32;
    while let Some(t) = c.peek() {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            Tok::Sym(',') if depth <= 0 => break,
            _ if depth <= 0
                && c.pos > first + 1
                && matches!(c.peek_kw(), Some("FIRST" | "AFTER")) =>
            {
                break
            }
            _ => {}
        }
        c.pos += 1;
    }
    let def = c.src[start..c.offset()].trim().to_string();
    if def.is_empty() {
        return Err(syntax(c));
    }
    let place = if c.kw("FIRST") {
        Place::First
    } else if c.kw("AFTER") {
        Place::After(c.name().ok_or_else(|| syntax(c))?)
    } else {
        Place::Last
    };
    Ok((def, place))
}

fn if_not_exists(c: &mut Cursor<'_>) -> bool {
    c.kws(&["IF", "NOT", "EXISTS"])
}

fn if_exists(c: &mut Cursor<'_>) -> bool {
    c.kws(&["IF", "EXISTS"])
}

/// Consumes `CLUSTERING` when one of `next` follows it.
pub fn clustering_word(c: &mut Cursor<'_>, next: &[&str]) -> bool {
    let save = c.pos;
    if c.kw("CLUSTERING") && c.peek_kw().is_some_and(|k| next.contains(&k)) {
        return true;
    }
    c.pos = save;
    false
}

fn parse_add(c: &mut Cursor<'_>, ops: &mut Vec<AlterOp>) -> DbResult<()> {
    // CONSTRAINT [symbol]: the symbol names a CHECK, and is not kept for keys
    let mut symbol = None;
    if c.kw("CONSTRAINT")
        && !matches!(
            c.peek_kw(),
            Some("PRIMARY" | "UNIQUE" | "FOREIGN" | "CHECK")
        )
    {
        c.kws(&["IF", "NOT", "EXISTS"]);
        symbol = c.name();
    }
    if c.kw("PRIMARY") {
        if !c.kw("KEY") {
            return Err(syntax(c));
        }
        let name = if matches!(c.peek(), Some(Tok::Sym('('))) || c.peek_kw() == Some("USING") {
            None
        } else {
            c.name()
        };
        let spec = index_columns(c)?;
        ops.push(AlterOp::AddPrimary { name, spec });
        return Ok(());
    }
    // TokuDB's CLUSTERING before [UNIQUE] KEY / INDEX, or after UNIQUE (a column may be named
    // `clustering`: only these words after it make it a key).
    let mut clustering = clustering_word(c, &["KEY", "INDEX", "UNIQUE"]);
    let unique = c.kw("UNIQUE");
    clustering |= unique && clustering_word(c, &["KEY", "INDEX"]);
    if matches!(c.peek_kw(), Some("FULLTEXT" | "SPATIAL")) {
        return Err(DbError::unsupported(format!(
            "{} indexes",
            c.peek_kw().unwrap_or_default()
        )));
    }
    if c.kw("CHECK") {
        let expr = c.clause().trim().to_string();
        ops.push(AlterOp::AddCheck { name: symbol, expr });
        return Ok(());
    }
    if c.kw("FOREIGN") {
        if !c.kw("KEY") {
            return Err(syntax(c));
        }
        let ine = if_not_exists(c);
        let rest = c.clause().trim();
        let named = symbol
            .map(|s| format!("CONSTRAINT {} ", create_table::quote_ident(&s)))
            .unwrap_or_default();
        ops.push(AlterOp::AddForeignKey {
            text: format!("{named}FOREIGN KEY {rest}"),
            if_not_exists: ine,
        });
        return Ok(());
    }
    if unique || c.kw("INDEX") || c.kw("KEY") {
        if unique {
            let _ = c.kw("INDEX") || c.kw("KEY");
        }
        let ine = if_not_exists(c);
        let name = if matches!(c.peek(), Some(Tok::Sym('('))) || c.peek_kw() == Some("USING") {
            None
        } else {
            c.name()
        };
        let mut spec = index_columns(c)?;
        spec.clustering |= clustering;
        ops.push(AlterOp::AddIndex {
            name,
            spec,
            unique,
            if_not_exists: ine,
        });
        return Ok(());
    }
    if clustering {
        return Err(syntax(c));
    }
    c.kw("COLUMN");
    let ine = if_not_exists(c);
    if c.sym('(') {
        loop {
            let def = c.clause().trim().to_string();
            ops.push(AlterOp::AddColumn {
                def,
                place: Place::Last,
                if_not_exists: ine,
            });
            if !c.sym(',') {
                break;
            }
        }
        if !c.sym(')') {
            return Err(syntax(c));
        }
        return Ok(());
    }
    let (def, place) = column_clause(c)?;
    ops.push(AlterOp::AddColumn {
        def,
        place,
        if_not_exists: ine,
    });
    Ok(())
}

fn parse_drop(c: &mut Cursor<'_>, ops: &mut Vec<AlterOp>) -> DbResult<()> {
    if c.kws(&["PRIMARY", "KEY"]) {
        ops.push(AlterOp::DropIndex {
            name: "PRIMARY".into(),
            if_exists: false,
        });
    } else if c.kw("INDEX") || c.kw("KEY") {
        let ie = if_exists(c);
        let name = c.name().ok_or_else(|| syntax(c))?;
        ops.push(AlterOp::DropIndex {
            name,
            if_exists: ie,
        });
    } else if c.kws(&["FOREIGN", "KEY"]) {
        let ie = if_exists(c);
        let name = c.name().ok_or_else(|| syntax(c))?;
        ops.push(AlterOp::DropForeignKey {
            name,
            if_exists: ie,
        });
    } else if c.kw("CONSTRAINT") || c.kw("CHECK") {
        let ie = if_exists(c);
        let name = c.name().ok_or_else(|| syntax(c))?;
        ops.push(AlterOp::DropConstraint {
            name,
            if_exists: ie,
        });
    } else {
        c.kw("COLUMN");
        let ie = if_exists(c);
        let name = c.name().ok_or_else(|| syntax(c))?;
        ops.push(AlterOp::DropColumn {
            name,
            if_exists: ie,
        });
    }
    Ok(())
}

/// The operations of `ALTER TABLE t <ops>` (the cursor is after the table name).
pub fn parse_ops(c: &mut Cursor<'_>) -> DbResult<Vec<AlterOp>> {
    let mut ops = Vec::new();
    loop {
        if c.at_end() {
            break;
        }
        if let Some(op) = crate::parser::partition::alter_op(c)? {
            ops.push(op);
        } else if c.kw("ADD") {
            parse_add(c, &mut ops)?;
        } else if c.kw("DROP") {
            parse_drop(c, &mut ops)?;
        } else if c.kw("MODIFY") {
            c.kw("COLUMN");
            let ie = if_exists(c);
            let save = c.pos;
            let old = c.name().ok_or_else(|| syntax(c))?;
            c.pos = save;
            let (def, place) = column_clause(c)?;
            ops.push(AlterOp::Change {
                old,
                def,
                place,
                if_exists: ie,
            });
        } else if c.kw("CHANGE") {
            c.kw("COLUMN");
            let ie = if_exists(c);
            let old = c.name().ok_or_else(|| syntax(c))?;
            let (def, place) = column_clause(c)?;
            ops.push(AlterOp::Change {
                old,
                def,
                place,
                if_exists: ie,
            });
        } else if c.kw("ALTER") {
            c.kw("COLUMN");
            let column = c.name().ok_or_else(|| syntax(c))?;
            let value = if c.kws(&["SET", "DEFAULT"]) {
                Some(c.clause().trim().to_string())
            } else if c.kws(&["DROP", "DEFAULT"]) {
                None
            } else {
                return Err(syntax(c));
            };
            ops.push(AlterOp::Default { column, value });
        } else if c.kw("RENAME") {
            if c.kw("COLUMN") || c.kw("INDEX") || c.kw("KEY") {
                let column = matches!(c.toks_back(1), Some("COLUMN"));
                let from = c.name().ok_or_else(|| syntax(c))?;
                if !c.kw("TO") {
                    return Err(syntax(c));
                }
                let to = c.name().ok_or_else(|| syntax(c))?;
                ops.push(if column {
                    AlterOp::RenameColumn { from, to }
                } else {
                    AlterOp::RenameIndex { from, to }
                });
            } else {
                let _ = c.kw("TO") || c.kw("AS");
                ops.push(AlterOp::RenameTable(
                    c.qualified().ok_or_else(|| syntax(c))?,
                ));
            }
        } else if c.kws(&["ORDER", "BY"]) {
            let mut cols = Vec::new();
            loop {
                let n = c.name().ok_or_else(|| syntax(c))?;
                let desc = c.kw("DESC");
                c.kw("ASC");
                cols.push((n, desc));
                if !c.sym(',') {
                    break;
                }
            }
            ops.push(AlterOp::OrderBy(cols));
            continue;
        } else if c.kw("FORCE") {
            ops.push(AlterOp::Force);
        } else if c.kw("DISABLE") || c.kw("ENABLE") {
            if !c.kw("KEYS") {
                return Err(syntax(c));
            }
            ops.push(AlterOp::Keys);
        } else if c.kws(&["CONVERT", "TO"]) {
            if !(c.kws(&["CHARACTER", "SET"]) || c.kw("CHARSET")) {
                return Err(syntax(c));
            }
            let cs = c.name().ok_or_else(|| syntax(c))?;
            let coll = if c.kw("COLLATE") {
                Some(c.name().ok_or_else(|| syntax(c))?)
            } else {
                None
            };
            ops.push(AlterOp::Convert(cs, coll));
        } else if c.kw("LOCK") || c.kw("ALGORITHM") {
            let lock = matches!(c.toks_back(1), Some("LOCK"));
            c.sym('=');
            let v = c.name().ok_or_else(|| syntax(c))?;
            ops.push(if lock {
                AlterOp::Lock(AlterLock::parse(&v)?)
            } else {
                AlterOp::Algorithm(AlterAlgorithm::parse(&v)?)
            });
        } else if let Some(opt) = table_option(c) {
            c.sym('=');
            let value = if c.sym('(') {
                // UNION = (t1, t2): MERGE tables only, accepted and ignored
                while !c.at_end() && !c.sym(')') {
                    c.pos += 1;
                }
                String::new()
            } else {
                c.name().ok_or_else(|| syntax(c))?
            };
            ops.push(AlterOp::Option(opt, value));
            if table_option_next(c) {
                continue;
            }
        } else {
            return Err(DbError::unsupported(format!(
                "ALTER TABLE {}",
                c.rest().chars().take(40).collect::<String>()
            )));
        }
        if !c.sym(',') {
            break;
        }
    }
    // PARTITION BY / REMOVE PARTITIONING may follow the other operations without a comma.
    if let Some(op) = crate::parser::partition::alter_op(c)? {
        ops.push(op);
    }
    if c.at_end() {
        Ok(ops)
    } else {
        Err(syntax(c))
    }
}

/// The table option keyword at the cursor (consumed), as its canonical upper-case name.
fn table_option(c: &mut Cursor<'_>) -> Option<String> {
    const NAMES: &[&str] = &[
        "ENGINE",
        "COMMENT",
        "ROW_FORMAT",
        "COMPRESSION",
        "AUTO_INCREMENT",
        "PASSWORD",
        "INSERT_METHOD",
        "UNION",
        "STATS_PERSISTENT",
        "STATS_AUTO_RECALC",
        "STATS_SAMPLE_PAGES",
        "CHARSET",
        "COLLATE",
    ];
    let save = c.pos;
    c.kw("DEFAULT");
    if c.kws(&["CHARACTER", "SET"]) {
        return Some("CHARSET".into());
    }
    let k = c.peek_kw().map(str::to_string);
    match k {
        Some(k)
            if NAMES.contains(&k.as_str()) || create_table::SHOWN_OPTIONS.contains(&k.as_str()) =>
        {
            c.pos += 1;
            Some(k)
        }
        _ => {
            c.pos = save;
            None
        }
    }
}

/// True if another table option follows without a comma (`ENGINE=x COMMENT='y'`).
fn table_option_next(c: &mut Cursor<'_>) -> bool {
    let save = c.pos;
    let more = table_option(c).is_some();
    c.pos = save;
    more
}
