//! What CREATE TABLE and ALTER TABLE say about partitioning, as the parser reads it
//! (parser/partition.rs) and before it is checked against the table (define.rs): plain data,
//! expressions still sqlparser's.
//!
//! Invariant: nothing here has been validated; a clause becomes a [`super::Partitioning`] only
//! through `define`, which gives every error MariaDB gives for it.

use sqlparser::ast;

/// How rows are assigned to partitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Range,
    List,
    Hash,
    Key,
}

impl Method {
    /// The method's keyword as MariaDB prints it.
    pub fn keyword(self) -> &'static str {
        match self {
            Method::Range => "RANGE",
            Method::List => "LIST",
            Method::Hash => "HASH",
            Method::Key => "KEY",
        }
    }
}

/// `PARTITION BY ...` as written.
#[derive(Clone, Debug)]
pub struct PartitionClause {
    pub method: Method,
    /// LINEAR HASH / LINEAR KEY.
    pub linear: bool,
    /// RANGE COLUMNS / LIST COLUMNS.
    pub columns_form: bool,
    /// The expression of RANGE, LIST and HASH.
    pub expr: Option<ast::Expr>,
    /// The columns of RANGE COLUMNS, LIST COLUMNS and KEY (KEY's may be empty: the primary key).
    pub columns: Vec<String>,
    /// `PARTITIONS n`.
    pub count: Option<u64>,
    /// The partition definitions in parentheses (may be empty for HASH and KEY).
    pub defs: Vec<PartDefClause>,
}

/// One `PARTITION name [VALUES ...] [options]`.
#[derive(Clone, Debug, Default)]
pub struct PartDefClause {
    pub name: String,
    pub values: Option<ValuesClause>,
    pub comment: Option<String>,
    /// MAX_ROWS, MIN_ROWS, DATA DIRECTORY, INDEX DIRECTORY as MariaDB prints them (name, value
    /// text): kept only to be shown again.
    pub options: Vec<(String, String)>,
}

/// The VALUES part of a partition definition.
#[derive(Clone, Debug)]
pub enum ValuesClause {
    /// `VALUES LESS THAN (v, ...)` or `VALUES LESS THAN MAXVALUE`; `None` is MAXVALUE.
    LessThan(Vec<Option<ast::Expr>>),
    /// `VALUES IN (...)`: each item with whether it was a parenthesized row.
    In(Vec<(bool, Vec<ast::Expr>)>),
}

/// `RETENTION = n unit`, Betula's table option (design.md "Retention").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub amount: u32,
    pub unit: RetentionUnit,
}

/// The unit of a retention, which is also the width of the partitions the server adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RetentionUnit {
    Hour,
    Day,
    Week,
    Month,
}

impl RetentionUnit {
    pub fn parse(word: &str) -> Option<RetentionUnit> {
        Some(match word.to_ascii_uppercase().as_str() {
            "HOUR" | "HOURS" => RetentionUnit::Hour,
            "DAY" | "DAYS" => RetentionUnit::Day,
            "WEEK" | "WEEKS" => RetentionUnit::Week,
            "MONTH" | "MONTHS" => RetentionUnit::Month,
            _ => return None,
        })
    }
    pub fn keyword(self) -> &'static str {
        match self {
            RetentionUnit::Hour => "HOUR",
            RetentionUnit::Day => "DAY",
            RetentionUnit::Week => "WEEK",
            RetentionUnit::Month => "MONTH",
        }
    }
}

impl std::fmt::Display for Retention {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.amount, self.unit.keyword())
    }
}

/// What a CREATE TABLE text holds besides what sqlparser reads.
#[derive(Clone, Debug, Default)]
pub struct TableExtras {
    pub partitioning: Option<PartitionClause>,
    pub retention: Option<Retention>,
}

impl TableExtras {
    pub fn is_empty(&self) -> bool {
        self.partitioning.is_none() && self.retention.is_none()
    }
}
