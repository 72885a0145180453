//! Sequence tables: MariaDB's Sequence engine's virtual tables `seq_<from>_to_<to>` and
//! `seq_<from>_to_<to>_step_<step>`, readable in any database without being created. Each has
//! one column, `seq BIGINT UNSIGNED NOT NULL PRIMARY KEY`, and one row per value; nothing is
//! stored, the values are computed as they are read.
//!
//! Values, as MariaDB's engine gives them (all arithmetic modulo 2^64, as its unsigned
//! arithmetic): `from` rising by `step` up to `to` (`seq_1_to_10_step_3`: 1, 4, 7, 10). When
//! `from > to` the table is read downwards, over the values of `seq_<to>_to_<from>_step_<step>`
//! (`seq_10_to_2_step_3`: 8, 5, 2), or `from` alone when `step > from - to`.
//!
//! Invariants: a name is a sequence name only if it matches the pattern exactly (lower-case
//! `seq_`, `_to_`, `_step_`, decimal digits, nothing after); a real table or view of the same
//! name wins over the sequence (the caller looks for those first); a sequence table is
//! read-only: every write is refused with MariaDB's 1031 ([`refused_write`]); step 0 is 1030.

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};

/// One sequence table: the values `first, first + step, ...` until `end` (exclusive, reached
/// exactly modulo 2^64), read upwards or downwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceTable {
    first: u64,
    end: u64,
    step: u64,
    descending: bool,
}

/// The column's name.
pub const COLUMN: &str = "seq";

/// The sequence `name` stands for: None when it is no sequence name, 1030 when its step is 0.
pub fn parse(name: &str) -> Option<DbResult<SequenceTable>> {
    let rest = name.strip_prefix("seq_")?;
    let (from, rest) = digits(rest)?;
    let rest = rest.strip_prefix("_to_")?;
    let (to, rest) = digits(rest)?;
    let step = if rest.is_empty() {
        1
    } else {
        let (step, rest) = digits(rest.strip_prefix("_step_")?)?;
        if !rest.is_empty() {
            return None;
        }
        step
    };
    if step == 0 {
        return Some(Err(DbError::new(
            ErrorCode::GetErrno,
            "Got error 140 \"Wrong create options\" from storage engine SEQUENCE",
        )));
    }
    Some(Ok(SequenceTable::new(from, to, step)))
}

/// A run of decimal digits at the start of `s` as a number (saturating at 2^64 - 1, as C's
/// `strtoull`), and what follows it.
fn digits(s: &str) -> Option<(u64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let value = s[..n].bytes().fold(0u64, |acc, d| {
        acc.checked_mul(10)
            .and_then(|a| a.checked_add(u64::from(d - b'0')))
            .unwrap_or(u64::MAX)
    });
    Some((value, &s[n..]))
}

/// 1031: a write (INSERT, UPDATE, DELETE, TRUNCATE, ALTER) to the sequence table `db`.`name`.
pub fn refused_write(db: &str, name: &str) -> DbError {
    DbError::new(
        ErrorCode::IllegalHa,
        format!("Storage engine SEQUENCE of the table `{db}`.`{name}` doesn't have this option"),
    )
}

impl SequenceTable {
    fn new(from: u64, to: u64, step: u64) -> SequenceTable {
        let descending = from > to;
        let (low, high) = match descending {
            true if step > from - to => (from, from),
            true => (to, from),
            false => (from, to),
        };
        let end = ((high - low) / step * step)
            .wrapping_add(step)
            .wrapping_add(low);
        SequenceTable {
            first: low,
            end,
            step,
            descending,
        }
    }

    /// The number of rows (modulo 2^64, as MariaDB counts them: `seq_0_to_18446744073709551615`
    /// says 0).
    pub fn row_count(&self) -> u64 {
        self.end.wrapping_sub(self.first) / self.step
    }

    /// The values in the order a scan reads them.
    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        let up = std::iter::successors(Some(self.first), |v| Some(v.wrapping_add(self.step)))
            .take_while(|v| *v != self.end);
        // Downwards: end - step, end - 2 step, ..., first.
        let down = std::iter::successors(Some(self.end), |v| Some(v.wrapping_sub(self.step)))
            .take_while(|v| *v != self.first)
            .map(|v| v.wrapping_sub(self.step));
        let (up, down) = match self.descending {
            false => (Some(up), None),
            true => (None, Some(down)),
        };
        up.into_iter().flatten().chain(down.into_iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(name: &str) -> Vec<u64> {
        parse(name).unwrap().unwrap().values().collect()
    }

    #[test]
    fn values_follow_mariadb() {
        assert_eq!(values("seq_1_to_3"), [1, 2, 3]);
        assert_eq!(values("seq_5_to_1"), [5, 4, 3, 2, 1]);
        assert_eq!(values("seq_1_to_10_step_3"), [1, 4, 7, 10]);
        assert_eq!(values("seq_10_to_1_step_3"), [10, 7, 4, 1]);
        assert_eq!(values("seq_10_to_2_step_3"), [8, 5, 2]);
        assert_eq!(values("seq_2_to_10_step_3"), [2, 5, 8]);
        assert_eq!(values("seq_5_to_4_step_3"), [5]);
        assert_eq!(values("seq_0_to_0"), [0]);
        assert_eq!(values("seq_1_to_0"), [1, 0]);
        assert_eq!(values("seq_01_to_2"), [1, 2]);
        assert_eq!(values("seq_0_to_1_step_18446744073709551615"), [0]);
        let top = u64::MAX;
        assert_eq!(
            values("seq_18446744073709551614_to_18446744073709551615"),
            [top - 1, top]
        );
        assert_eq!(
            values("seq_18446744073709551615_to_18446744073709551614"),
            [top, top - 1]
        );
        let s = parse("seq_1_to_18446744073709551615").unwrap().unwrap();
        assert_eq!(s.values().take(2).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(parse("seq_1_to_10_step_3").unwrap().unwrap().row_count(), 4);
    }

    #[test]
    fn only_exact_names_are_sequences() {
        for name in [
            "SEQ_1_TO_2",
            "seq_1_to_2x",
            "seq_1_to_2_step_",
            "seq_1_to_2_step_1x",
            "seq_-1_to_2",
            "seq_1_to_",
            "seq__to_2",
            "sequence",
        ] {
            assert!(parse(name).is_none(), "{name}");
        }
        let e = parse("seq_3_to_3_step_0").unwrap().unwrap_err();
        assert_eq!(e.code, ErrorCode::GetErrno);
    }
}
