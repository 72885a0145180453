//! Per-connection prepared-statement state and COM_STMT_EXECUTE /
//! COM_STMT_SEND_LONG_DATA decoding.
//!
//! Invariants:
//! * parameter types are stored with the statement the first time an execute
//!   carries new-params-bound-flag=1 and reused by every later execute with
//!   flag 0 (libmariadb/sysbench send types only once); a flag-0 execute
//!   before any types were bound is accepted only if every parameter is NULL
//!   or was sent as long data;
//! * long data accumulates per parameter until the next execute or
//!   COM_STMT_RESET consumes/clears it; a long-data parameter's value is not
//!   present in the execute packet;
//! * decoding never panics: any inconsistency yields an ER_MALFORMED_PACKET
//!   `SqlError` and leaves the stored types untouched.

use std::collections::HashMap;

use super::binary_value::decode_value;
use super::column::{ColumnDef, ColumnType};
use super::error::{ProtocolError, SqlError};
use super::value::Value;
use super::wire::WireReader;

/// A prepared statement's id, unique within a connection (never 0).
pub type StatementId = u32;

/// MySQL's default `max_prepared_stmt_count` per connection here.
pub const MAX_STATEMENTS: usize = 16382;

#[derive(Debug)]
pub struct PreparedStatement {
    pub id: StatementId,
    pub param_count: u16,
    pub columns: Vec<ColumnDef>,
    /// Bound parameter types: (type, unsigned).
    param_types: Option<Vec<(ColumnType, bool)>>,
    long_data: Vec<Option<Vec<u8>>>,
}

impl PreparedStatement {
    pub fn new(id: StatementId, param_count: u16, columns: Vec<ColumnDef>) -> Self {
        PreparedStatement {
            id,
            param_count,
            columns,
            param_types: None,
            long_data: vec![None; param_count as usize],
        }
    }

    /// Appends a COM_STMT_SEND_LONG_DATA chunk. Out-of-range parameters are
    /// ignored (the protocol gives this command no reply to carry an error).
    pub fn append_long_data(&mut self, param: u16, data: &[u8]) {
        if let Some(slot) = self.long_data.get_mut(param as usize) {
            slot.get_or_insert_with(Vec::new).extend_from_slice(data);
        }
    }

    /// COM_STMT_RESET: drops pending long data (bound types are kept).
    pub fn reset(&mut self) {
        self.long_data.iter_mut().for_each(|s| *s = None);
    }

    pub fn param_types(&self) -> Option<&[(ColumnType, bool)]> {
        self.param_types.as_deref()
    }

    /// Decodes the parameters of an execute packet. `body` is the payload
    /// after the command byte and statement id: flags, iteration count,
    /// NULL bitmap, new-params-bound flag, [types], values.
    pub fn decode_params(&mut self, body: &[u8]) -> Result<Vec<Value>, SqlError> {
        let r = self.decode_inner(body).map_err(|e| match e {
            ProtocolError::Malformed(m) => SqlError::malformed(m),
            other => SqlError::malformed(other.to_string()),
        });
        self.reset();
        r
    }

    fn decode_inner(&mut self, body: &[u8]) -> Result<Vec<Value>, ProtocolError> {
        let mut r = WireReader::new(body);
        let _cursor_flags = r.u8()?;
        let _iterations = r.u32()?;
        let n = self.param_count as usize;
        if n == 0 {
            return Ok(Vec::new());
        }
        let null_bitmap = r.take(n.div_ceil(8))?;
        let is_null = |i: usize| null_bitmap[i / 8] & (1 << (i % 8)) != 0;
        let new_bound = r.u8()?;
        let fresh;
        let types: Option<&[(ColumnType, bool)]> = match new_bound {
            1 => {
                let mut t = Vec::with_capacity(n);
                for _ in 0..n {
                    let ty = r.u8()?;
                    let fl = r.u8()?;
                    t.push((ColumnType(ty), fl & 0x80 != 0));
                }
                fresh = t;
                Some(&fresh)
            }
            0 => self.param_types.as_deref(),
            _ => return Err(ProtocolError::Malformed("bad new-params-bound flag")),
        };
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            if is_null(i) {
                values.push(Value::Null);
            } else if let Some(data) = self.long_data[i].take() {
                values.push(Value::Bytes(data));
            } else {
                let (ty, unsigned) = types.ok_or(ProtocolError::Malformed(
                    "parameter types were never sent for this statement",
                ))?[i];
                values.push(decode_value(&mut r, ty, unsigned)?);
            }
        }
        if new_bound == 1 {
            self.param_types = types.map(<[_]>::to_vec);
        }
        Ok(values)
    }
}

/// The prepared statements of one connection.
#[derive(Debug, Default)]
pub struct StatementTable {
    next_id: StatementId,
    stmts: HashMap<StatementId, PreparedStatement>,
}

impl StatementTable {
    /// Reserves the id the next prepared statement will get.
    pub fn next_id(&mut self) -> Result<StatementId, SqlError> {
        if self.stmts.len() >= MAX_STATEMENTS {
            return Err(SqlError::new(
                1461,
                b"42000",
                "Can't create more than max_prepared_stmt_count statements",
            ));
        }
        loop {
            self.next_id = self.next_id.wrapping_add(1);
            if self.next_id != 0 && !self.stmts.contains_key(&self.next_id) {
                return Ok(self.next_id);
            }
        }
    }

    pub fn insert(&mut self, stmt: PreparedStatement) {
        self.stmts.insert(stmt.id, stmt);
    }

    pub fn get_mut(&mut self, id: StatementId) -> Option<&mut PreparedStatement> {
        self.stmts.get_mut(&id)
    }

    pub fn remove(&mut self, id: StatementId) -> Option<PreparedStatement> {
        self.stmts.remove(&id)
    }

    /// Removes every statement, returning their ids.
    pub fn drain_ids(&mut self) -> Vec<StatementId> {
        self.stmts.drain().map(|(id, _)| id).collect()
    }

    pub fn len(&self) -> usize {
        self.stmts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Body of an execute for `params` (None = NULL) with optional types.
    fn body(nulls: &[bool], types: Option<&[(u8, u8)]>, values: &[u8]) -> Vec<u8> {
        let mut b = vec![0, 1, 0, 0, 0];
        let mut bitmap = vec![0u8; nulls.len().div_ceil(8)];
        for (i, &n) in nulls.iter().enumerate() {
            if n {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        b.extend_from_slice(&bitmap);
        match types {
            Some(t) => {
                b.push(1);
                for &(ty, fl) in t {
                    b.extend_from_slice(&[ty, fl]);
                }
            }
            None => b.push(0),
        }
        b.extend_from_slice(values);
        b
    }

    #[test]
    fn reexecute_without_types_reuses_stored_types() {
        let mut s = PreparedStatement::new(1, 2, vec![]);
        // First execute: LONG 51 and VAR_STRING "ab", types sent.
        let first = body(
            &[false, false],
            Some(&[(3, 0), (253, 0)]),
            &[51, 0, 0, 0, 2, b'a', b'b'],
        );
        assert_eq!(
            s.decode_params(&first).unwrap(),
            vec![Value::Int(51), Value::from("ab")]
        );
        // Re-execute with flag 0: 51 must not be read as a 2-byte 13056 etc.
        let again = body(&[false, false], None, &[0x33, 0x33, 0, 0, 1, b'z']);
        assert_eq!(
            s.decode_params(&again).unwrap(),
            vec![Value::Int(0x3333), Value::from("z")]
        );
        let again = body(&[false, false], None, &[51, 0, 0, 0, 0]);
        assert_eq!(
            s.decode_params(&again).unwrap(),
            vec![Value::Int(51), Value::from("")]
        );
    }

    #[test]
    fn unsigned_nulls_and_many_params() {
        let mut s = PreparedStatement::new(1, 9, vec![]);
        let mut types = vec![(8u8, 0x80u8)];
        types.extend(std::iter::repeat_n((1u8, 0u8), 8));
        let mut nulls = vec![false];
        nulls.extend([true; 7]);
        nulls.push(false);
        let mut vals = u64::MAX.to_le_bytes().to_vec();
        vals.push(0xff);
        let v = s.decode_params(&body(&nulls, Some(&types), &vals)).unwrap();
        assert_eq!(v[0], Value::UInt(u64::MAX));
        assert!(v[1..8].iter().all(Value::is_null));
        assert_eq!(v[8], Value::Int(-1));
    }

    #[test]
    fn flag_zero_before_any_types() {
        let mut s = PreparedStatement::new(1, 1, vec![]);
        assert!(s.decode_params(&body(&[false], None, &[1])).is_err());
        assert_eq!(
            s.decode_params(&body(&[true], None, &[])).unwrap(),
            vec![Value::Null]
        );
        s.append_long_data(0, b"big ");
        s.append_long_data(0, b"blob");
        s.append_long_data(5, b"ignored");
        assert_eq!(
            s.decode_params(&body(&[false], None, &[])).unwrap(),
            vec![Value::from("big blob")]
        );
        // Long data is consumed by the execute.
        assert!(s.decode_params(&body(&[false], None, &[1])).is_err());
    }

    #[test]
    fn malformed_execute_keeps_types() {
        let mut s = PreparedStatement::new(1, 1, vec![]);
        s.decode_params(&body(&[false], Some(&[(3, 0)]), &[1, 0, 0, 0]))
            .unwrap();
        assert!(s
            .decode_params(&body(&[false], Some(&[(8, 0)]), &[1, 0]))
            .is_err());
        assert_eq!(s.param_types().unwrap(), &[(ColumnType::LONG, false)]);
        assert!(s.decode_params(&[0]).is_err());
        assert!(s
            .decode_params(&body(&[false], Some(&[(100, 0)]), &[1]))
            .is_err());
    }

    #[test]
    fn random_garbage_never_panics() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut s = PreparedStatement::new(1, 3, vec![]);
        for _ in 0..20000 {
            let len = rng.gen_range(0..40);
            let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            if rng.gen_bool(0.5) && b.len() > 6 {
                b[6] = rng.gen_range(0..2);
            }
            let _ = s.decode_params(&b);
        }
    }

    #[test]
    fn table_ids() {
        let mut t = StatementTable::default();
        let a = t.next_id().unwrap();
        t.insert(PreparedStatement::new(a, 0, vec![]));
        let b = t.next_id().unwrap();
        assert_ne!(a, b);
        assert!(t.remove(a).is_some());
        assert!(t.get_mut(a).is_none());
    }
}
