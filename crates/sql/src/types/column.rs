//! [`Column`]: one column of a table as the catalog stores it (name, type, nullability,
//! default, AUTO_INCREMENT, collation, display width, ENUM/SET members, ZEROFILL), and the
//! implicit default of a NOT NULL column ([`implicit_default`]).
//!
//! Invariant: a text type's `collation` is never `Collation::Binary`; a binary type's is always
//! `Binary` ([`Column::new`] sets it, [`Column::with_collation`] keeps it).

use crate::types::collation::Collation;
use crate::types::value::Value;
use crate::types::{quote_members, SqlType};

/// One column of a table as the catalog stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Stable id, never reused within a table; the row codec's slot map refers to it.
    pub id: u32,
    pub name: String,
    pub sql_type: SqlType,
    pub nullable: bool,
    /// Explicit DEFAULT, already coerced to `sql_type`; `None` means no DEFAULT clause.
    pub default: Option<Value>,
    pub auto_increment: bool,
    pub collation: Collation,
    /// Declared display width of an integer type (`INT(5)`, BOOL = 1); `None` = the type's
    /// default width. Shown by SHOW CREATE TABLE / SHOW COLUMNS, no effect on values.
    pub display_width: Option<u32>,
    /// The members of an ENUM or SET in declaration order (empty for other types).
    pub members: std::sync::Arc<[String]>,
    /// ZEROFILL (numeric types, which are then UNSIGNED): values are shown left-padded with `0`
    /// to the display length.
    pub zerofill: bool,
}

impl Column {
    /// A nullable column without default; collation `binary` for binary types, the default
    /// (`utf8mb4_general_ci`) otherwise.
    pub fn new(id: u32, name: impl Into<String>, sql_type: SqlType) -> Column {
        let collation = if sql_type.is_binary() {
            Collation::Binary
        } else {
            Collation::default()
        };
        Column {
            id,
            name: name.into(),
            sql_type,
            nullable: true,
            default: None,
            auto_increment: false,
            collation,
            display_width: None,
            members: std::sync::Arc::from(Vec::new()),
            zerofill: false,
        }
    }
    /// An ENUM or SET column of `members` (count checked by the caller).
    pub fn with_members(mut self, members: Vec<String>) -> Column {
        self.members = members.into();
        self
    }
    /// The type as SHOW CREATE TABLE / SHOW COLUMNS print it, e.g. `int(11)`, `enum('a','b')`,
    /// `int(10) unsigned zerofill`, `year(2)`.
    pub fn column_type(&self) -> String {
        if self.sql_type.has_members() {
            return format!(
                "{}({})",
                self.sql_type.sql_name(),
                quote_members(&self.members)
            );
        }
        let t = self.sql_type.column_type(self.display_width);
        if self.zerofill {
            format!("{t} zerofill")
        } else {
            t
        }
    }
    /// Index (1-based) of the member whose text is exactly `s`, or 0.
    pub fn member_index(&self, s: &str) -> usize {
        self.members
            .iter()
            .position(|m| m == s)
            .map_or(0, |i| i + 1)
    }
    pub fn not_null(mut self) -> Column {
        self.nullable = false;
        self
    }
    pub fn with_default(mut self, v: Value) -> Column {
        self.default = Some(v);
        self
    }
    pub fn with_collation(mut self, c: Collation) -> Column {
        if !self.sql_type.is_binary() && c != Collation::Binary {
            self.collation = c;
        }
        self
    }
    pub fn auto_increment(mut self) -> Column {
        self.auto_increment = true;
        self
    }

    /// The value a row gets when the column is omitted (and what rows written before an instant
    /// ADD COLUMN read as): the DEFAULT, else NULL if nullable, else MySQL's implicit default
    /// (0, '', the zero date, 00:00:00).
    pub fn default_value(&self) -> Value {
        match &self.default {
            Some(v) => v.clone(),
            None if self.nullable => Value::Null,
            None => self.implicit_value(),
        }
    }

    /// MySQL's implicit default of the column when NOT NULL: [`implicit_default`] of its type,
    /// except that an ENUM's is its first member.
    pub fn implicit_value(&self) -> Value {
        match self.sql_type {
            SqlType::Enum { .. } => Value::Text(self.members.first().cloned().unwrap_or_default()),
            t => implicit_default(&t),
        }
    }
}

/// MySQL's implicit default of a NOT NULL column without DEFAULT.
pub fn implicit_default(t: &SqlType) -> Value {
    use crate::types::temporal::Date;
    use crate::types::temporal::DateTime;
    use crate::types::temporal::Time;
    match *t {
        SqlType::Int {
            unsigned: false, ..
        } => Value::Int(0),
        SqlType::Int { unsigned: true, .. } | SqlType::Year => Value::UInt(0),
        SqlType::Float { .. } => Value::Float(0.0),
        SqlType::Double { .. } => Value::Double(0.0),
        SqlType::Decimal { scale, .. } => Value::Decimal(
            crate::types::decimal::Decimal::new(0, scale)
                .unwrap_or(crate::types::decimal::Decimal::ZERO),
        ),
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text(_) => {
            Value::Text(String::new())
        }
        SqlType::Binary { len } => Value::Bytes(vec![0; len as usize]),
        SqlType::VarBinary { .. } | SqlType::Blob(_) => Value::Bytes(Vec::new()),
        SqlType::Date => Value::Date(Date::ZERO),
        SqlType::DateTime { .. } | SqlType::Timestamp { .. } => Value::DateTime(DateTime::ZERO),
        SqlType::Time { .. } => Value::Time(Time { micros: 0 }),
        // An ENUM's is its first member: `Column::default_value` handles it.
        SqlType::Enum { .. } | SqlType::Set { .. } => Value::Text(String::new()),
        SqlType::Bit { .. } => Value::UInt(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;
    use crate::types::{column_flag, IntWidth};

    const fn int(width: IntWidth, unsigned: bool) -> SqlType {
        SqlType::Int { width, unsigned }
    }

    #[test]
    fn validation_and_columns() {
        assert_eq!(
            SqlType::decimal(66, 0).validate("d").unwrap_err().code(),
            ErrorCode::TooBigPrecision
        );
        assert!(SqlType::decimal(65, 38).validate("d").is_ok());
        assert_eq!(
            SqlType::decimal(66, 39).validate("d").unwrap_err().code(),
            ErrorCode::TooBigScale
        );
        assert_eq!(
            SqlType::Double {
                digits: Some((5, 6)),
                unsigned: false
            }
            .validate("d")
            .unwrap_err()
            .code(),
            ErrorCode::MBiggerThanD
        );
        let z = Column {
            zerofill: true,
            display_width: Some(5),
            ..Column::new(
                9,
                "z",
                SqlType::Int {
                    width: IntWidth::Int,
                    unsigned: true,
                },
            )
        };
        assert_eq!(z.column_type(), "int(5) unsigned zerofill");
        assert_eq!(z.display_length(), 5);
        assert!(z.protocol_flags() & column_flag::ZEROFILL != 0);
        let y2 = Column {
            display_width: Some(2),
            ..Column::new(10, "y", SqlType::Year)
        };
        assert_eq!(
            (y2.column_type(), y2.display_length()),
            ("year(2)".into(), 2)
        );
        assert_eq!(
            SqlType::decimal(5, 6).validate("d").unwrap_err().code(),
            ErrorCode::MBiggerThanD
        );
        assert_eq!(
            SqlType::DateTime { fsp: 7 }
                .validate("d")
                .unwrap_err()
                .code(),
            ErrorCode::TooBigScale
        );
        assert_eq!(
            SqlType::Char { len: 256 }.validate("c").unwrap_err().code(),
            ErrorCode::TooBigFieldlength
        );
        assert!(SqlType::VarChar { len: 255 }.validate("c").is_ok());
        let c = Column::new(1, "b", SqlType::VarBinary { len: 4 })
            .with_collation(Collation::Utf8mb4Bin);
        assert_eq!(c.collation, Collation::Binary);
        let c = Column::new(2, "n", int(IntWidth::Int, true))
            .not_null()
            .auto_increment();
        assert_eq!(c.default_value(), Value::UInt(0));
        let f = c.protocol_flags();
        assert_eq!(f & column_flag::NOT_NULL, 1);
        assert!(f & column_flag::UNSIGNED != 0 && f & column_flag::AUTO_INCREMENT != 0);
        assert_eq!(
            Column::new(3, "x", SqlType::Date).default_value(),
            Value::Null
        );
    }
}
