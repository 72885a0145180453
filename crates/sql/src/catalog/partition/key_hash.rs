//! The hash of PARTITION BY KEY: MariaDB's (`Field::hash` with the binary collation's
//! `hash_sort`, seeds 1 and 4, the result cut to 32 bits) for integer columns, so rows of an
//! integer key land in the partitions MariaDB puts them in; for other columns the same mixing
//! over the column's key encoding (values equal under its collation hash alike), which differs
//! from MariaDB's placement (docs/mysql-compat.md).
//!
//! Invariant: a function of the values only (no seed, no run-dependent state): a row's partition
//! never changes while the table's partition count does not.

use crate::codec::key::{encode_key, KeyColumn};
use crate::error::db_error::DbResult;
use crate::types::value::Value;
use crate::types::SqlType;

/// MariaDB's `MY_HASH_ADD` over `bytes`.
fn add(nr1: &mut u64, nr2: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *nr1 ^= ((*nr1 & 63).wrapping_add(*nr2))
            .wrapping_mul(u64::from(b))
            .wrapping_add(*nr1 << 8);
        *nr2 = nr2.wrapping_add(3);
    }
}

/// The KEY hash of `vals` (one per column of `cols`, whose types are `types`).
pub(super) fn hash(cols: &[KeyColumn], types: &[SqlType], vals: &[Value]) -> DbResult<u32> {
    let (mut nr1, mut nr2) = (1u64, 4u64);
    for ((kc, ty), v) in cols.iter().zip(types).zip(vals) {
        if v.is_null() {
            nr1 ^= (nr1 << 1) | 1;
            continue;
        }
        match (ty, v) {
            (SqlType::Int { width, .. }, Value::Int(_) | Value::UInt(_)) => {
                let x = match v {
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    _ => 0,
                };
                add(&mut nr1, &mut nr2, &x.to_le_bytes()[..width.bytes()]);
            }
            _ => {
                let mut key = Vec::new();
                encode_key(std::slice::from_ref(kc), std::slice::from_ref(v), &mut key)?;
                add(&mut nr1, &mut nr2, &key);
            }
        }
    }
    Ok(nr1 as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Column, IntWidth};

    #[test]
    fn integer_keys_hash_as_mariadb_places_them() {
        // PARTITION BY KEY (a) PARTITIONS 5 with a INT: MariaDB 10.11 puts these in these partitions.
        let ty = SqlType::Int {
            width: IntWidth::Int,
            unsigned: false,
        };
        let kc = KeyColumn::from_column(&Column::new(0, "a", ty));
        let part = |v: Value| hash(&[kc.clone()], &[ty], &[v]).unwrap() % 5;
        for (v, p) in [
            (0, 1),
            (1, 4),
            (2, 1),
            (7, 4),
            (10, 1),
            (-1, 1),
            (1_000_000, 1),
        ] {
            assert_eq!(part(Value::Int(v)), p, "value {v}");
        }
        assert_eq!(part(Value::Null), 2);
    }
}
