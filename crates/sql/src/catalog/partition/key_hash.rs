//! The hash of PARTITION BY KEY: MariaDB's for integer columns (the field's little-endian bytes,
//! trailing bytes that weigh as a space dropped, each byte's weight under the latin1 Swedish
//! order that MariaDB's "numeric" collation has, mixed with `MY_HASH_ADD` from seeds 1 and 4, the
//! result cut to 32 bits), so rows of an integer key land in the partitions MariaDB puts them in;
//! for other columns the same mixing over the column's key encoding (values equal under its
//! collation hash alike), which differs from MariaDB's placement (docs/mysql-compat.md).
//!
//! Invariant: a function of the values only (no seed, no run-dependent state): a row's partition
//! never changes while the table's partition count does not.

use crate::codec::key::{encode_key, KeyColumn};
use crate::error::db_error::DbResult;
use crate::types::value::Value;
use crate::types::SqlType;

/// The weight of each byte under latin1_swedish_ci, which MariaDB hashes numbers under: case
/// folded letters, accented letters to their base (and Ä, Å, Æ, Ö after Z).
const WEIGHTS: [u8; 256] = {
    let mut w = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        w[i] = i as u8;
        i += 1;
    }
    let mut c = b'a';
    while c <= b'z' {
        w[c as usize] = c - 32;
        c += 1;
    }
    const HIGH: [u8; 32] = [
        65, 65, 65, 65, 92, 91, 92, 67, 69, 69, 69, 69, 73, 73, 73, 73, 68, 78, 79, 79, 79, 79, 93,
        215, 216, 85, 85, 85, 89, 89, 222, 223,
    ];
    let mut j = 0;
    while j < 32 {
        w[192 + j] = HIGH[j];
        w[224 + j] = HIGH[j];
        j += 1;
    }
    w[247] = 247;
    w[255] = 255;
    w
};

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
                let bytes = &x.to_le_bytes()[..width.bytes()];
                let space = WEIGHTS[usize::from(b' ')];
                let kept = bytes.len()
                    - bytes
                        .iter()
                        .rev()
                        .take_while(|b| WEIGHTS[usize::from(**b)] == space)
                        .count();
                let weighed: Vec<u8> = bytes[..kept]
                    .iter()
                    .map(|b| WEIGHTS[usize::from(*b)])
                    .collect();
                add(&mut nr1, &mut nr2, &weighed);
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
        let part = |v: Value| hash(std::slice::from_ref(&kc), &[ty], &[v]).unwrap() % 5;
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
        // With 3 partitions: bytes that are letters weigh as capitals, accented ones as their
        // base letter, and a trailing 0x20 byte weighs as a space and is dropped.
        let part3 = |v: i64| hash(std::slice::from_ref(&kc), &[ty], &[Value::Int(v)]).unwrap() % 3;
        for (v, p) in [(100, 1), (-500, 1), (-487, 2), (3, 2), (0x2000_0000, 1)] {
            assert_eq!(part3(v), p, "value {v}");
        }
    }
}
