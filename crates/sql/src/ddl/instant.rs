//! How an ALTER TABLE is carried out, and whether that is how the statement asked for it:
//! [`evolve`] gives the new row layout of an instant ALTER (design.md INS1-INS3) or why the rows
//! must be copied, and [`check_how`] holds the plan against ALGORITHM= and LOCK= (INS8).
//!
//! Invariants: an ALTER is instant only if every stored row decodes to the new columns by its own
//! version (codec/row/history.rs decides for the bytes; this module adds what the table's meaning
//! requires: the same primary key, no new CHECK, no NULL → NOT NULL, no new AUTO_INCREMENT or
//! DEFAULT CURRENT_TIMESTAMP column, no wider integer in a key); a statement that names an
//! ALGORITHM or LOCK its plan cannot honour fails before anything is written, with MariaDB's
//! error (1845 / 1846).

use crate::catalog::TableDef;
use crate::codec::row::{Evolve, RowLayout, TYPE_CHANGE};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::alter::{AlterAlgorithm, AlterLock};

/// How the ALTER runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The catalog entry only (INS4).
    Instant,
    /// The catalog entry and new secondary indexes built from the primary tree.
    Inplace,
    /// Every row copied into the next generation's trees (rebuild.rs).
    Copy,
}

/// Why an ALTER cannot be instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Why {
    /// MariaDB's reason text (`None`: the operation itself needs it: 1845).
    pub reason: Option<&'static str>,
    /// The rows' values must be converted to another type.
    pub type_change: bool,
}

impl Why {
    fn because(reason: &'static str) -> Why {
        Why {
            reason: Some(reason),
            type_change: reason == TYPE_CHANGE,
        }
    }
}

/// The new row layout if `new` can replace `old` without touching a row (`origin`: per new
/// column, the old column it takes its values from).
pub fn evolve(old: &TableDef, new: &TableDef, origin: &[Option<usize>]) -> Result<RowLayout, Why> {
    // Generated values are stored (design.md GEN1): a table with generated columns is copied,
    // which computes them again.
    if crate::ddl::check_ops::adds_checks(old, new) || old.has_generated() || new.has_generated() {
        return Err(Why::default());
    }
    let old_pk: Vec<Option<usize>> = new.pk.iter().map(|&i| origin[i]).collect();
    if old_pk != old.pk.iter().map(|&i| Some(i)).collect::<Vec<_>>()
        || new.pk_prefix != old.pk_prefix
    {
        return Err(Why::default());
    }
    for (i, c) in new.columns.iter().enumerate() {
        match origin[i] {
            Some(j) => {
                let o = &old.columns[j];
                if o.nullable && !c.nullable {
                    // every row must be checked for NULL: a rebuild does it
                    return Err(Why::default());
                }
                if c.auto_increment && !o.auto_increment {
                    return Err(Why::because(
                        "Adding an auto-increment column requires a lock",
                    ));
                }
            }
            None if c.auto_increment => {
                return Err(Why::because(
                    "Adding an auto-increment column requires a lock",
                ))
            }
            None if new.default_now[i] => return Err(Why::default()),
            None => {}
        }
    }
    let keyed: Vec<bool> = (0..new.columns.len())
        .map(|i| {
            new.pk.contains(&i)
                || new.indexes.iter().any(|ix| ix.columns.contains(&i))
                || new.partition_columns().contains(&i)
        })
        .collect();
    Evolve {
        old: &old.layout,
        full: old.full_columns,
        columns: &new.columns,
        origin,
        keyed: &keyed,
    }
    .layout()
    .map_err(Why::because)
}

fn refuse(what: &str, why: Option<&str>, try_: &str) -> DbError {
    match why {
        None => DbError::new(
            ErrorCode::AlterOperationNotSupported,
            format!("{what} is not supported for this operation. Try {try_}"),
        ),
        Some(r) => DbError::new(
            ErrorCode::AlterOperationNotSupportedReason,
            format!("{what} is not supported. Reason: {r}. Try {try_}"),
        ),
    }
}

/// Refuses the plan when ALGORITHM= or LOCK= asks for less than it does (INS8); `why` says why
/// a copy plan is one.
pub fn check_how(algorithm: AlterAlgorithm, lock: AlterLock, plan: Plan, why: Why) -> DbResult<()> {
    // What a copy would be allowed under: INPLACE rebuilds without converting a type.
    let copy_try = if why.type_change {
        "ALGORITHM=COPY"
    } else {
        "ALGORITHM=INPLACE"
    };
    match (algorithm, plan) {
        (AlterAlgorithm::Instant, Plan::Inplace) => {
            return Err(refuse("ALGORITHM=INSTANT", None, "ALGORITHM=NOCOPY"))
        }
        (AlterAlgorithm::Instant, Plan::Copy) => {
            return Err(refuse("ALGORITHM=INSTANT", why.reason, copy_try))
        }
        (AlterAlgorithm::Nocopy, Plan::Copy) => {
            return Err(refuse("ALGORITHM=NOCOPY", why.reason, copy_try))
        }
        (AlterAlgorithm::Inplace, Plan::Copy) if why.type_change => {
            return Err(refuse(
                "ALGORITHM=INPLACE",
                Some("Cannot change column type INPLACE"),
                "ALGORITHM=COPY",
            ))
        }
        _ => {}
    }
    if lock == AlterLock::None && plan == Plan::Copy {
        // writers wait for a rebuild (design.md RBD, INS8); readers do not
        let reason = if why.type_change {
            TYPE_CHANGE
        } else {
            "COPY algorithm requires a lock"
        };
        return Err(refuse("LOCK=NONE", Some(reason), "LOCK=SHARED"));
    }
    Ok(())
}
