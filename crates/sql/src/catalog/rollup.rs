//! Roll-up definitions ([`RollupDef`]): a table the engine keeps equal to a GROUP BY of another
//! table (its *base*), and the text of that definition in the roll-up's catalog entry.
//!
//! A roll-up's columns are its group columns (its primary key, in order), then one column per
//! aggregate, in order; `aggs` always holds `COUNT(*)` and, for every nullable column that a SUM,
//! MIN or MAX reads, that column's `COUNT` (design.md RUP2). The entry's header pair
//! `rollup=<text>` ([`RollupDef::to_text`], file-format.md §9) names the base table, the group
//! items and the aggregates by base column name (each name hex-encoded UTF-8):
//! ```text
//! rollup=<base>;<group>,<group>...;<agg>,<agg>...
//! group = <column>            the column's value
//!       | <column>/<width>    TIME_BUCKET(width, column); width hex of its literal text:
//!                             'n unit' quoted, or a positive integer
//! agg   = count* | count:<column> | sum:<column> | min:<column> | max:<column>
//! ```
//! Invariants: a definition is resolved against its base table's columns ([`RollupDef::resolve`])
//! before it is used; [`RollupDef::group_values`] is deterministic, so a base row always names
//! the same group row.

use super::hex_text::{hex, unhex};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::functions::time_series::{bucket, parse_width, Width};
use crate::types::value::Value;

/// An aggregate a roll-up keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollupFunc {
    CountStar,
    Count,
    Sum,
    Min,
    Max,
}

impl RollupFunc {
    /// The name in SQL and in the catalog text.
    pub fn name(self) -> &'static str {
        match self {
            RollupFunc::CountStar | RollupFunc::Count => "count",
            RollupFunc::Sum => "sum",
            RollupFunc::Min => "min",
            RollupFunc::Max => "max",
        }
    }
}

/// The width of a TIME_BUCKET group item, as written and as parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum BucketWidth {
    /// `'n unit'` (the text without quotes) and its width.
    Text(String, Width),
    /// A positive integer (integer timestamps).
    Int(i64),
}

impl BucketWidth {
    /// The width of a literal: text `'n unit'` or a positive integer (1210 otherwise).
    pub fn parse(literal: &Value) -> DbResult<BucketWidth> {
        match literal {
            Value::Int(n) if *n > 0 => Ok(BucketWidth::Int(*n)),
            Value::UInt(n) if *n > 0 && *n <= i64::MAX as u64 => Ok(BucketWidth::Int(*n as i64)),
            Value::Text(s) => Ok(BucketWidth::Text(s.clone(), parse_width(s)?)),
            _ => Err(DbError::new(
                ErrorCode::WrongArguments,
                "Incorrect arguments to TIME_BUCKET",
            )),
        }
    }
    /// The literal as SQL text.
    pub fn sql(&self) -> String {
        match self {
            BucketWidth::Text(s, _) => format!("'{}'", s.replace('\'', "''")),
            BucketWidth::Int(n) => n.to_string(),
        }
    }
}

/// One GROUP BY item: a base column, or the TIME_BUCKET of one.
#[derive(Debug, Clone, PartialEq)]
pub struct RollupGroup {
    pub column: String,
    pub width: Option<BucketWidth>,
    /// The base column's position (set by [`RollupDef::resolve`]).
    pub col: usize,
}

/// One aggregate: its function and the base column it reads (`None` for COUNT(*)).
#[derive(Debug, Clone, PartialEq)]
pub struct RollupAgg {
    pub func: RollupFunc,
    pub column: Option<String>,
    /// The base column's position (set by [`RollupDef::resolve`]).
    pub col: Option<usize>,
}

/// A roll-up of table `base` (same database).
#[derive(Debug, Clone, PartialEq)]
pub struct RollupDef {
    pub base: String,
    pub groups: Vec<RollupGroup>,
    pub aggs: Vec<RollupAgg>,
}

impl RollupDef {
    /// The catalog text (module header).
    pub fn to_text(&self) -> String {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|g| match &g.width {
                None => hex(&g.column),
                Some(w) => format!("{}/{}", hex(&g.column), hex(&w.sql())),
            })
            .collect();
        let aggs: Vec<String> = self
            .aggs
            .iter()
            .map(|a| match (a.func, &a.column) {
                (RollupFunc::CountStar, _) | (_, None) => "count*".to_string(),
                (f, Some(c)) => format!("{}:{}", f.name(), hex(c)),
            })
            .collect();
        format!(
            "{};{};{}",
            hex(&self.base),
            groups.join(","),
            aggs.join(",")
        )
    }

    /// Reads [`RollupDef::to_text`]'s text (unresolved: column positions 0).
    pub fn from_text(text: &str) -> DbResult<RollupDef> {
        let bad = || DbError::internal(format!("bad roll-up definition in the catalog: {text}"));
        let mut parts = text.split(';');
        let (Some(base), Some(groups), Some(aggs), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let base = unhex(base).ok_or_else(bad)?;
        let mut def = RollupDef {
            base,
            groups: Vec::new(),
            aggs: Vec::new(),
        };
        for g in groups.split(',') {
            let (c, w) = match g.split_once('/') {
                Some((c, w)) => (c, Some(unhex(w).ok_or_else(bad)?)),
                None => (g, None),
            };
            let width = match w {
                None => None,
                Some(w) => Some(BucketWidth::parse(&width_literal(&w).ok_or_else(bad)?)?),
            };
            let column = unhex(c).ok_or_else(bad)?;
            def.groups.push(RollupGroup {
                column,
                width,
                col: 0,
            });
        }
        for a in aggs.split(',') {
            let (func, column) = match a.split_once(':') {
                None if a == "count*" => (RollupFunc::CountStar, None),
                Some((f, c)) => {
                    let f = match f {
                        "count" => RollupFunc::Count,
                        "sum" => RollupFunc::Sum,
                        "min" => RollupFunc::Min,
                        "max" => RollupFunc::Max,
                        _ => return Err(bad()),
                    };
                    (f, Some(unhex(c).ok_or_else(bad)?))
                }
                None => return Err(bad()),
            };
            def.aggs.push(RollupAgg {
                func,
                column,
                col: None,
            });
        }
        Ok(def)
    }

    /// Sets the base column positions from the base table's column names (1054 for a name the
    /// base table lacks).
    pub fn resolve(&mut self, base_col: impl Fn(&str) -> Option<usize>) -> DbResult<()> {
        let find = |n: &str| base_col(n).ok_or_else(|| DbError::bad_field(n, "SELECT"));
        for g in &mut self.groups {
            g.col = find(&g.column)?;
        }
        for a in &mut self.aggs {
            a.col = a.column.as_deref().map(find).transpose()?;
        }
        Ok(())
    }

    /// The position in `aggs` of COUNT(*).
    pub fn count_star(&self) -> usize {
        self.aggs
            .iter()
            .position(|a| a.func == RollupFunc::CountStar)
            .unwrap_or(0)
    }

    /// The position in `aggs` of COUNT(base column `col`), if kept.
    pub fn count_of(&self, col: usize) -> Option<usize> {
        self.aggs
            .iter()
            .position(|a| a.func == RollupFunc::Count && a.col == Some(col))
    }

    /// The group row's key values for a base row (its primary key columns, in order).
    pub fn group_values(&self, row: &[Value]) -> DbResult<Vec<Value>> {
        self.groups
            .iter()
            .map(|g| {
                let v = &row[g.col];
                match &g.width {
                    None => Ok(v.clone()),
                    Some(BucketWidth::Text(_, w)) => bucket(*w, v, None),
                    Some(BucketWidth::Int(w)) => Ok(int_bucket(*w, v)),
                }
            })
            .collect()
    }

    /// The GROUP BY items as SQL (`sensor, TIME_BUCKET('1 minute', ts)`).
    pub fn groups_sql(&self) -> String {
        let items: Vec<String> = self
            .groups
            .iter()
            .map(|g| match &g.width {
                None => g.column.clone(),
                Some(w) => format!("TIME_BUCKET({}, {})", w.sql(), g.column),
            })
            .collect();
        items.join(", ")
    }

    /// The aggregates kept, in column order, as SQL (`COUNT(*), SUM(v), COUNT(v)`).
    pub fn aggs_sql(&self) -> String {
        let items: Vec<String> = self
            .aggs
            .iter()
            .map(|a| {
                let arg = a.column.as_deref().unwrap_or("*");
                format!("{}({arg})", a.func.name().to_ascii_uppercase())
            })
            .collect();
        items.join(", ")
    }

    /// Whether a base column is read by the roll-up.
    pub fn reads(&self, col: usize) -> bool {
        self.groups.iter().any(|g| g.col == col) || self.aggs.iter().any(|a| a.col == Some(col))
    }
}

/// The literal of a stored width text: `'...'` (doubled quotes inside) or an integer.
fn width_literal(w: &str) -> Option<Value> {
    match w.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        Some(s) => Some(Value::Text(s.replace("''", "'"))),
        None => w.parse::<i64>().ok().map(Value::Int),
    }
}

/// TIME_BUCKET(w, v) for an integer `v` (origin 0); NULL for another value.
fn int_bucket(w: i64, v: &Value) -> Value {
    let x = match v {
        Value::Int(i) => i128::from(*i),
        Value::UInt(u) => i128::from(*u),
        _ => return Value::Null,
    };
    let w = i128::from(w);
    let start = x.div_euclid(w) * w;
    match i64::try_from(start) {
        Ok(i) => Value::Int(i),
        Err(_) => u64::try_from(start).map(Value::UInt).unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_round_trip_their_text() {
        let def = RollupDef {
            base: "sensor data".into(),
            groups: vec![
                RollupGroup {
                    column: "id".into(),
                    width: None,
                    col: 0,
                },
                RollupGroup {
                    column: "ts".into(),
                    width: Some(BucketWidth::parse(&Value::Text("1 minute".into())).unwrap()),
                    col: 0,
                },
                RollupGroup {
                    column: "n".into(),
                    width: Some(BucketWidth::Int(60)),
                    col: 0,
                },
            ],
            aggs: vec![
                RollupAgg {
                    func: RollupFunc::CountStar,
                    column: None,
                    col: None,
                },
                RollupAgg {
                    func: RollupFunc::Max,
                    column: Some("v;,".into()),
                    col: None,
                },
            ],
        };
        let text = def.to_text();
        assert!(!text.contains(' '));
        assert_eq!(RollupDef::from_text(&text).unwrap(), def);
        assert!(RollupDef::from_text("zz;;").is_err());
        assert!(RollupDef::from_text("61;62;avg:63").is_err());
    }

    #[test]
    fn integer_buckets_floor_toward_minus_infinity() {
        assert_eq!(int_bucket(60, &Value::Int(119)), Value::Int(60));
        assert_eq!(int_bucket(60, &Value::Int(-1)), Value::Int(-60));
        assert_eq!(int_bucket(60, &Value::Null), Value::Null);
    }
}
