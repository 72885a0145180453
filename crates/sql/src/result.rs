//! What a statement returns: [`Output`] (a result set, a count of changed rows, or a result set
//! already streamed to a [`RowSink`]) and [`OutCol`], a result column's metadata as the MySQL
//! protocol describes it.

use crate::error::db_error::DbResult;
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::SqlType;

/// One result column.
#[derive(Clone, Debug, Default)]
pub struct OutCol {
    pub name: String,
    pub table: String,
    pub org_table: String,
    pub db: String,
    pub ty: Option<SqlType>,
    pub flags: u16,
    pub collation: Collation,
    /// Display length when the type alone does not give it (ENUM, SET); 0 = the type's.
    pub length: u32,
    /// The members of an ENUM or SET column (empty otherwise): CREATE TABLE ... SELECT copies them.
    pub members: std::sync::Arc<[String]>,
    /// For a computed item: the decimals MariaDB prints its DOUBLE values with when it fixes them
    /// (`ROUND(x, 2)`, `PI()`: plan/item_decimals.rs); `None`: the shortest form.
    pub double_decimals: Option<u8>,
}

impl OutCol {
    pub fn named(name: &str, ty: Option<SqlType>) -> OutCol {
        OutCol {
            name: name.into(),
            ty,
            ..Default::default()
        }
    }
}

/// What a statement returns.
#[derive(Clone, Debug)]
pub enum Output {
    Rows {
        cols: Vec<OutCol>,
        rows: Vec<Vec<Value>>,
    },
    Done {
        affected: u64,
        last_insert_id: u64,
        info: String,
    },
    /// A result set already sent, row by row, to the statement's [`RowSink`]; the caller ends it.
    Sent { rows: u64 },
}

/// Where a query sends its result set as it reads it, instead of building it in memory
/// (`Context::execute_to`). Queries whose rows must all be seen first (sorting, grouping,
/// DISTINCT, columns whose type is known only from the values) still return [`Output::Rows`].
/// After `columns`, an error ends the statement with some rows already sent.
pub trait RowSink {
    fn columns(&mut self, cols: &[OutCol]) -> DbResult<()>;
    fn row(&mut self, row: &[Value]) -> DbResult<()>;
}

impl Output {
    pub fn done(affected: u64) -> Output {
        Output::Done {
            affected,
            last_insert_id: 0,
            info: String::new(),
        }
    }
    /// A result of text columns.
    pub fn text(names: &[&str], rows: Vec<Vec<Value>>) -> Output {
        Output::Rows {
            cols: names
                .iter()
                .map(|n| OutCol::named(n, Some(SqlType::VarChar { len: 256 })))
                .collect(),
            rows,
        }
    }
}

/// A scope over result columns by name (no table qualifier), for expressions that read a
/// result's rows: ORDER BY over a UNION, SHOW ... WHERE.
pub fn scope_of(cols: &[OutCol]) -> crate::expr::Scope {
    crate::expr::Scope {
        cols: cols
            .iter()
            .map(|c| crate::expr::ScopeCol {
                table: String::new(),
                db: String::new(),
                org_table: String::new(),
                name: c.name.clone(),
                ty: c.ty,
                collation: c.collation,
                flags: 0,
                length: c.length,
                members: c.members.clone(),
                stored_utc: false,
                json: false,
            })
            .collect(),
        one_row: false,
        qualified_only: Vec::new(),
    }
}
