//! FROM: binding table references to sources (tables, views (view.rs), information_schema views,
//! derived tables) laid side by side in one flat row ([`From::scope`]), and choosing each table's access
//! path from the conjuncts usable for it ([`plan_access`]). A prepared statement's later runs take a
//! base table's resolution from the statement's memo (context/plan_memo.rs, design.md PLC1-PLC6).
//!
//! Invariants: a source's columns are `scope.cols[offset .. offset + ncols]`; a table source's
//! `needed` marks the columns some expression of the statement reads (a covering index must give
//! them all back); conjuncts of a LEFT JOIN's ON clause narrow only its own table, WHERE
//! conjuncts narrow tables only while every table before them is inner-joined. `l RIGHT JOIN r`
//! is planned as `r LEFT JOIN l` (one source each); [`From::star`] keeps `*`'s order, with a
//! join by names (USING, NATURAL: join_using.rs) showing its joined columns once.

use std::sync::Arc;

use sqlparser::ast;

use super::access::{choose_access_among, conjuncts, Access};
use super::hints::IndexHints;
use super::join_using::{join_by_names, JoinNames};
use super::query::QueryPlan;
use crate::catalog::sequence_table::{self, SequenceTable};
use crate::catalog::TableDef;
use crate::context::plan_memo::{Stamp, TableMemo};
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::{object_name_parts, Expr, Scope, ScopeCol};
use crate::result::OutCol;
use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{IntWidth, SqlType};

/// Where a source's rows come from.
pub enum SrcKind {
    /// A table, read through the source's access path.
    Table(Arc<TableDef>),
    /// Rows computed while planning (an information_schema view).
    Rows(Vec<Vec<Value>>),
    /// A derived table (a subquery in FROM), run once when the plan runs.
    Derived(Box<QueryPlan>),
    /// A sequence table (`seq_1_to_10`), its values computed as they are read.
    Sequence(SequenceTable),
}

/// A derived table's (or CTE's) columns have distinct names (compared without case), else
/// 1060 for the first name given again.
pub fn check_unique_columns(cols: &[OutCol]) -> DbResult<()> {
    for (i, c) in cols.iter().enumerate() {
        if cols[..i]
            .iter()
            .any(|p| p.name.eq_ignore_ascii_case(&c.name))
        {
            return Err(DbError::dup_field(&c.name));
        }
    }
    Ok(())
}

pub struct Source {
    pub alias: String,
    pub kind: SrcKind,
    pub offset: usize,
    pub ncols: usize,
    pub left: bool,
    pub on: Option<ast::Expr>,
    pub on_c: Option<Expr>,
    pub access: Access,
    pub needed: Vec<bool>,
    /// Read the access path in descending key order (ORDER BY ... DESC served by the key).
    pub reverse: bool,
    /// USE / IGNORE / FORCE INDEX of the table reference.
    pub hints: IndexHints,
    /// The partitions a `PARTITION (...)` list after the table's name selects.
    pub selected: Option<Vec<usize>>,
}

impl Source {
    /// A source of rows already materialized (a derived table, VALUES, an information_schema table).
    fn rows(
        alias: String,
        rows: Vec<Vec<Value>>,
        offset: usize,
        ncols: usize,
        left: bool,
        on: Option<ast::Expr>,
    ) -> Source {
        Source {
            alias,
            kind: SrcKind::Rows(rows),
            offset,
            ncols,
            left,
            on,
            on_c: None,
            access: Access::full(),
            needed: vec![],
            reverse: false,
            hints: Default::default(),
            selected: None,
        }
    }
}

/// Result of planning FROM.
pub struct From {
    pub sources: Vec<Source>,
    pub scope: Scope,
    /// The scope positions `*` stands for, in order: each column once where a join by names
    /// shows it once, a RIGHT JOIN's left operand first (join_using.rs).
    pub star: Vec<usize>,
}

impl From {
    /// Adds a source of rows computed while planning (a recursive CTE's), with columns `cols`.
    pub fn push_rows(
        &mut self,
        alias: String,
        cols: &[OutCol],
        rows: Vec<Vec<Value>>,
        left: bool,
        on: Option<ast::Expr>,
    ) {
        let offset = self.scope.cols.len();
        self.push_cols(&alias, cols);
        self.sources
            .push(Source::rows(alias, rows, offset, cols.len(), left, on));
    }

    /// Adds a derived table (a subquery in FROM, a CTE) whose columns are `cols`.
    pub fn push_derived(
        &mut self,
        alias: String,
        cols: &[OutCol],
        plan: QueryPlan,
        left: bool,
        on: Option<ast::Expr>,
    ) {
        let offset = self.scope.cols.len();
        self.push_cols(&alias, cols);
        let mut src = Source::rows(alias, Vec::new(), offset, cols.len(), left, on);
        src.kind = SrcKind::Derived(Box::new(plan));
        self.sources.push(src);
    }

    fn push_cols(&mut self, alias: &str, cols: &[OutCol]) {
        for c in cols {
            self.scope.cols.push(ScopeCol {
                table: alias.to_string(),
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
            });
        }
    }
}

/// A base table as a source: its index hints and PARTITION list read against its definition,
/// its access path chosen later (its columns are already in the scope, from `offset`).
fn push_table(
    from: &mut From,
    (t, index_hints, partitions): (Arc<TableDef>, &[ast::TableIndexHints], &[ast::Ident]),
    alias: String,
    offset: usize,
    (left, on): (bool, Option<ast::Expr>),
) -> DbResult<()> {
    let hints = IndexHints::from_ast(&t, index_hints)?;
    let names: Vec<String> = partitions.iter().map(|i| i.value.clone()).collect();
    let selected = super::pruning::selection(&t, &names)?;
    from.sources.push(Source {
        hints,
        selected,
        alias,
        ncols: t.columns.len(),
        needed: vec![false; t.columns.len()],
        reverse: false,
        kind: SrcKind::Table(t),
        offset,
        left,
        on,
        on_c: None,
        access: Access::full(),
    });
    Ok(())
}

/// The sequence table `db`.`name` stands for when no table or view of that name exists (MariaDB
/// reads one in any database, even one that does not exist).
fn sequence_source(cx: &Context, db: &str, name: &str) -> Option<DbResult<SequenceTable>> {
    let seq = sequence_table::parse(name)?;
    let shadowed = cx.find_table(db, name).is_some() || cx.engine.catalog.view(db, name).is_some();
    (!shadowed).then_some(seq)
}

/// Adds a sequence table as a source: its one column `seq BIGINT UNSIGNED NOT NULL`, the
/// primary key.
fn push_sequence(
    from: &mut From,
    seq: SequenceTable,
    alias: String,
    (left, on): (bool, Option<ast::Expr>),
) {
    use crate::types::column_flag::{NOT_NULL, NUM, PRI_KEY, UNSIGNED};
    let offset = from.scope.cols.len();
    from.scope.cols.push(ScopeCol {
        table: alias.clone(),
        db: String::new(),
        org_table: String::new(),
        name: sequence_table::COLUMN.to_string(),
        ty: Some(SqlType::Int {
            width: IntWidth::Big,
            unsigned: true,
        }),
        collation: Collation::default(),
        flags: NOT_NULL | PRI_KEY | UNSIGNED | NUM,
        length: 20,
        members: Default::default(),
        stored_utc: false,
        json: false,
    });
    let mut src = Source::rows(alias, Vec::new(), offset, 1, left, on);
    src.kind = SrcKind::Sequence(seq);
    from.sources.push(src);
}

/// Adds the sources of table reference `f`; the columns it shows (`SELECT *` order).
fn table_factor(
    cx: &mut Context,
    f: &ast::TableFactor,
    from: &mut From,
    left: bool,
    on: Option<ast::Expr>,
) -> DbResult<Vec<usize>> {
    let offset = from.scope.cols.len();
    if let ast::TableFactor::NestedJoin {
        table_with_joins, ..
    } = f
    {
        if on.is_none() && !left {
            return plan_twj(cx, table_with_joins, from);
        }
    }
    source_factor(cx, f, from, left, on)?;
    Ok((offset..from.scope.cols.len()).collect())
}

fn source_factor(
    cx: &mut Context,
    f: &ast::TableFactor,
    from: &mut From,
    left: bool,
    on: Option<ast::Expr>,
) -> DbResult<()> {
    let offset = from.scope.cols.len();
    match f {
        ast::TableFactor::Table {
            name,
            alias,
            index_hints,
            partitions,
            ..
        } => {
            let parts = object_name_parts(name);
            if parts.len() == 1 && parts[0].eq_ignore_ascii_case("dual") && alias.is_none() {
                return Ok(());
            }
            if let Some(i) = super::cte::lookup(cx, parts.last().map_or("", |p| p.as_str())) {
                if parts.len() == 1 {
                    let alias_s = alias.as_ref().map_or(&parts[0], |a| &a.name.value);
                    return super::cte::reference(cx, i, alias_s.clone(), from, left, on);
                }
            }
            let alias_name = alias.as_ref().map(|a| a.name.value.as_str());
            // A prepared statement's later run takes the table from its memo (PLC2); the table-lock
            // check is done on every run (PLC6).
            let memo = cx.plan_memo.is_some() && cx.view_chain.is_empty();
            if let Some(hit) = memo
                .then(|| cx.memo_table(&parts, alias_name, false))
                .flatten()
            {
                cx.check_table_lock(&hit.def, &hit.name)?;
                from.scope.cols.extend(hit.cols);
                let table = (hit.def, index_hints.as_slice(), partitions.as_slice());
                return push_table(from, table, hit.alias_or_name, offset, (left, on));
            }
            let stamp = memo.then(|| Stamp::of(cx));
            let (db, tname) = cx.resolve_table_name(&parts)?;
            let alias_s = alias
                .as_ref()
                .map(|a| a.name.value.clone())
                .unwrap_or_else(|| tname.clone());
            if db.eq_ignore_ascii_case("information_schema") {
                if !partitions.is_empty() {
                    return Err(DbError::new(
                        ErrorCode::PartitionClauseOnNonpartitioned,
                        "PARTITION () clause on non partitioned table",
                    ));
                }
                let (cols, mut rows) = crate::infoschema::view(cx, &tname)?;
                if tname.eq_ignore_ascii_case("COLUMNS") {
                    rows.extend(super::view::column_rows(cx)?);
                }
                for c in &cols {
                    from.scope.cols.push(ScopeCol {
                        table: alias_s.clone(),
                        db: "information_schema".into(),
                        org_table: tname.to_ascii_uppercase(),
                        name: c.name.clone(),
                        ty: c.ty,
                        collation: Collation::default(),
                        flags: 0,
                        length: 0,
                        members: Default::default(),
                        stored_utc: false,
                        json: false,
                    });
                }
                from.sources
                    .push(Source::rows(alias_s, rows, offset, cols.len(), left, on));
                return Ok(());
            }
            if let Some(seq) = sequence_source(cx, &db, &tname) {
                push_sequence(from, seq?, alias_s, (left, on));
                return Ok(());
            }
            cx.check_db_access(&db)?;
            if cx.temp.get(&db, &tname).is_none() {
                if let Some(v) = cx.engine.catalog.view(&db, &tname) {
                    if !partitions.is_empty() || !index_hints.is_empty() {
                        return Err(DbError::wrong_object(&db, &tname, "BASE TABLE"));
                    }
                    return super::view::reference(cx, &v, alias_s, from, left, on);
                }
            }
            let t = cx.get_table(&db, &tname)?;
            if t.temporary.is_some() && !cx.view_chain.is_empty() {
                return Err(DbError::new(
                    ErrorCode::ViewSelectTmptable,
                    format!("View's SELECT refers to a temporary table '{tname}'"),
                ));
            }
            for (i, c) in t.columns.iter().enumerate() {
                let mut flags = c.protocol_flags();
                if t.pk.contains(&i) {
                    flags |= crate::types::column_flag::PRI_KEY;
                }
                from.scope.cols.push(ScopeCol {
                    table: alias_s.clone(),
                    db: db.clone(),
                    org_table: t.name.clone(),
                    name: c.name.clone(),
                    ty: Some(c.sql_type),
                    collation: c.collation,
                    flags,
                    length: c.display_length(),
                    members: c.members.clone(),
                    stored_utc: c.sql_type.is_timestamp(),
                    json: t.is_json_column(&c.name),
                });
            }
            if let Some(stamp) = stamp {
                let entry = TableMemo {
                    parts: parts.clone(),
                    alias: alias_name.map(str::to_string),
                    target: false,
                    db,
                    name: tname,
                    alias_or_name: alias_s.clone(),
                    def: t.clone(),
                    cols: from.scope.cols[offset..].to_vec(),
                };
                cx.memo_remember(stamp, entry);
            }
            let table = (t, index_hints.as_slice(), partitions.as_slice());
            push_table(from, table, alias_s, offset, (left, on))?;
        }
        ast::TableFactor::Derived {
            subquery, alias, ..
        } => {
            let Some(alias) = alias else {
                return Err(DbError::new(
                    ErrorCode::DerivedMustHaveAlias,
                    "Every derived table must have its own alias",
                ));
            };
            let sub = super::query::plan_query(cx, subquery)?;
            let cols = sub.columns();
            check_unique_columns(&cols)?;
            from.push_derived(alias.name.value.clone(), &cols, sub, left, on);
        }
        other => return Err(DbError::unsupported(format!("table reference {other}"))),
    }
    Ok(())
}

/// The kind of one join of a FROM item.
#[derive(Clone, Copy, PartialEq)]
enum JoinKind {
    Inner,
    Left,
    Right,
}

/// One FROM item (a table and the tables joined to it); the columns it shows.
fn plan_twj(cx: &mut Context, twj: &ast::TableWithJoins, from: &mut From) -> DbResult<Vec<usize>> {
    let first_source = from.sources.len();
    let mut shown = table_factor(cx, &twj.relation, from, false, None)?;
    for j in &twj.joins {
        use ast::JoinOperator as J;
        let (kind, constraint) = match &j.join_operator {
            J::Join(c) | J::Inner(c) => (JoinKind::Inner, Some(c)),
            J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, Some(c)),
            J::Right(c) | J::RightOuter(c) => (JoinKind::Right, Some(c)),
            J::CrossJoin(_) => (JoinKind::Inner, None),
            other => return Err(DbError::unsupported(format!("join {other:?}"))),
        };
        let sources_before = from.sources.len();
        let mut right = table_factor(cx, &j.relation, from, kind == JoinKind::Left, None)?;
        if kind == JoinKind::Right {
            (shown, right) = swap_operands(from, first_source, sources_before)?;
        }
        let names = match constraint {
            Some(ast::JoinConstraint::Using(cols)) => Some(JoinNames::Using(cols)),
            Some(ast::JoinConstraint::Natural) => Some(JoinNames::Natural),
            _ => None,
        };
        let on = match names {
            Some(names) => {
                let operands = match kind {
                    JoinKind::Right => (right.as_slice(), shown.as_slice()),
                    _ => (shown.as_slice(), right.as_slice()),
                };
                let joined = join_by_names(&from.scope, operands, names, kind != JoinKind::Right)?;
                from.scope.qualified_only.extend(joined.copies);
                shown = joined.shown;
                joined.on
            }
            None => {
                shown.extend(right);
                match constraint {
                    Some(ast::JoinConstraint::On(e)) => Some(e.clone()),
                    _ => None,
                }
            }
        };
        if let Some(s) = from.sources.last_mut() {
            s.on = on;
        }
    }
    Ok(shown)
}

/// `l RIGHT JOIN r` read as `r LEFT JOIN l`: the two sources (from `left_source`, the right
/// one from `right_source`) and their scope columns swap places, the left one becomes the
/// null-extended one. A left operand of several sources (`a JOIN b RIGHT JOIN c`) or a right
/// one that is a join is not supported (1235). Returns the operands' shown columns, left then
/// right, at their new positions.
fn swap_operands(
    from: &mut From,
    left_source: usize,
    right_source: usize,
) -> DbResult<(Vec<usize>, Vec<usize>)> {
    if right_source != left_source + 1 || from.sources.len() != right_source + 1 {
        return Err(DbError::unsupported(
            "RIGHT JOIN of a join (rewrite it as LEFT JOIN)",
        ));
    }
    let (l_offset, l_ncols) = (
        from.sources[left_source].offset,
        from.sources[left_source].ncols,
    );
    let r_ncols = from.sources[right_source].ncols;
    from.scope.cols[l_offset..].rotate_right(r_ncols);
    from.sources.swap(left_source, right_source);
    let (r, l) = from.sources.split_at_mut(right_source);
    let (r, l) = (&mut r[left_source], &mut l[0]);
    r.offset = l_offset;
    l.offset = l_offset + r_ncols;
    r.left = std::mem::replace(&mut l.left, true);
    r.on = l.on.take();
    let left_cols = (l_offset + r_ncols..l_offset + r_ncols + l_ncols).collect();
    Ok((left_cols, (l_offset..l_offset + r_ncols).collect()))
}

pub fn plan_from(cx: &mut Context, list: &[ast::TableWithJoins]) -> DbResult<From> {
    let mut from = From {
        sources: vec![],
        scope: Scope::default(),
        star: vec![],
    };
    for twj in list {
        let shown = plan_twj(cx, twj, &mut from)?;
        from.star.extend(shown);
    }
    check_unique_names(&from)?;
    Ok(from)
}

/// Two sources of one FROM under the same name (alias, or table name in the same database) are
/// 1066, as MariaDB's `Not unique table/alias`.
fn check_unique_names(from: &From) -> DbResult<()> {
    let db = |s: &Source| match &s.kind {
        SrcKind::Table(t) => t.db.clone(),
        _ => String::new(),
    };
    for (i, s) in from.sources.iter().enumerate() {
        let same = |p: &Source| p.alias == s.alias && db(p) == db(s);
        if from.sources[..i].iter().any(same) {
            return Err(DbError::new(
                ErrorCode::NonuniqTable,
                format!("Not unique table/alias: '{}'", s.alias),
            ));
        }
    }
    Ok(())
}

/// Marks the columns `e` reads in their sources' `needed` lists.
pub fn mark_needed(from: &mut From, e: &Expr) {
    let sources = &mut from.sources;
    e.visit_cols(&mut |c| {
        for s in sources.iter_mut() {
            if c >= s.offset && c < s.offset + s.ncols && !s.needed.is_empty() {
                s.needed[c - s.offset] = true;
            }
        }
    });
}

/// Chooses each table's access path from the conjuncts usable for it.
pub fn plan_access(from: &mut From, where_conj: &[Expr]) {
    let mut all_inner = true;
    for i in 0..from.sources.len() {
        let s = &from.sources[i];
        let offset = s.offset;
        all_inner &= !s.left;
        let mut conj = Vec::new();
        if let Some(on) = &s.on_c {
            conjuncts(on, &mut conj);
        }
        if all_inner {
            conj.extend(where_conj.iter().cloned());
        }
        let usable = |e: &Expr| {
            let mut ok = !e.has_agg();
            e.visit_cols(&mut |c| ok &= c < offset);
            ok
        };
        if let SrcKind::Table(t) = &s.kind {
            let mut a = choose_access_among(t, offset, &conj, &usable, &|k| s.hints.allows(k));
            if a.is_full_scan() {
                if let Some(Some(ix)) = s.hints.forced_scan() {
                    a.index = Some(ix);
                }
            }
            a.select_parts(s.selected.as_deref());
            from.sources[i].access = a;
        }
    }
}
