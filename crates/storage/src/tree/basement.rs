//! A basement: a sorted run of a leaf's entries, compressed and read on its own (file-format.md §3.3).
//!
//! Invariant: keys strictly increase. Applying a message keeps them so; a message whose function deletes the
//! row removes the entry.

use super::message::{Message, Op, UpdateRegistry};
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::error::Result;

/// Entry kind stored before each value (file-format.md §3.3). Never renumber.
pub const ENTRY_COMMITTED: u8 = 0;
/// Basement encoding: plain entry list.
pub const ENCODING_PLAIN: u8 = 0;
/// Per-entry overhead counted in [`Basement::bytes`].
pub const ENTRY_OVERHEAD: usize = 8;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Basement {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    bytes: usize,
}

fn entry_size(k: &[u8], v: &[u8]) -> usize {
    k.len() + v.len() + ENTRY_OVERHEAD
}

impl Basement {
    pub fn from_sorted(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Basement {
        let bytes = entries.iter().map(|(k, v)| entry_size(k, v)).sum();
        Basement { entries, bytes }
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Serialized size estimate in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn entries(&self) -> &[(Vec<u8>, Vec<u8>)] {
        &self.entries
    }
    pub fn first_key(&self) -> Option<&[u8]> {
        self.entries.first().map(|(k, _)| k.as_slice())
    }

    pub fn get(&self, key: &[u8]) -> Option<&[u8]> {
        self.entries
            .binary_search_by(|(k, _)| k.as_slice().cmp(key))
            .ok()
            .map(|i| self.entries[i].1.as_slice())
    }

    /// Index of the first entry with key ≥ `key`.
    pub fn lower_bound(&self, key: &[u8]) -> usize {
        self.entries.partition_point(|(k, _)| k.as_slice() < key)
    }

    /// Applies one message (already clipped to this basement's range, if ranged).
    pub fn apply(&mut self, msg: &Message, reg: &UpdateRegistry) -> Result<()> {
        match &msg.op {
            Op::RangeDelete { end } => {
                let a = self.lower_bound(&msg.key);
                let b = self.lower_bound(end);
                if a < b {
                    for (k, v) in self.entries.drain(a..b) {
                        self.bytes -= entry_size(&k, &v);
                    }
                }
            }
            Op::Broadcast { .. } => {
                let old = std::mem::take(&mut self.entries);
                self.bytes = 0;
                for (k, v) in old {
                    if !msg.covers(&k) {
                        self.bytes += entry_size(&k, &v);
                        self.entries.push((k, v));
                        continue;
                    }
                    if let Some(nv) = reg.apply(&k, Some(v), &msg.op)? {
                        self.bytes += entry_size(&k, &nv);
                        self.entries.push((k, nv));
                    }
                }
            }
            _ => match self
                .entries
                .binary_search_by(|(k, _)| k.as_slice().cmp(&msg.key))
            {
                Ok(i) => {
                    let (k, v) = &mut self.entries[i];
                    self.bytes -= entry_size(k, v);
                    let old = std::mem::take(v);
                    match reg.apply(&msg.key, Some(old), &msg.op)? {
                        Some(nv) => {
                            self.bytes += entry_size(&msg.key, &nv);
                            self.entries[i].1 = nv;
                        }
                        None => {
                            self.entries.remove(i);
                        }
                    }
                }
                Err(i) => {
                    if let Some(nv) = reg.apply(&msg.key, None, &msg.op)? {
                        self.bytes += entry_size(&msg.key, &nv);
                        self.entries.insert(i, (msg.key.clone(), nv));
                    }
                }
            },
        }
        Ok(())
    }

    /// Splits off the upper half by bytes; returns the new right basement (its first key is the pivot).
    pub fn split_half(&mut self) -> Basement {
        let mut acc = 0;
        let mut at = self.entries.len() / 2;
        for (i, (k, v)) in self.entries.iter().enumerate() {
            acc += entry_size(k, v);
            if acc >= self.bytes / 2 {
                at = i + 1;
                break;
            }
        }
        let at = at.clamp(1, self.entries.len().saturating_sub(1).max(1));
        let right = Basement::from_sorted(self.entries.split_off(at));
        self.bytes -= right.bytes;
        right
    }

    /// Appends `other`, whose keys are all greater.
    pub fn append(&mut self, mut other: Basement) {
        self.bytes += other.bytes;
        self.entries.append(&mut other.entries);
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes + 8);
        out.put_u8(ENCODING_PLAIN);
        out.put_varint(self.entries.len() as u64);
        for (k, v) in &self.entries {
            out.put_bytes(k);
            out.put_u8(ENTRY_COMMITTED);
            out.put_bytes(v);
        }
        out
    }

    pub fn decode(raw: &[u8]) -> Result<Basement, DecodeError> {
        let mut d = Decoder::new(raw);
        let encoding = d.u8()?;
        if encoding != ENCODING_PLAIN {
            return Err(DecodeError(format!("unknown basement encoding {encoding}")));
        }
        let count = d.varint()?;
        if count > raw.len() as u64 {
            return Err(DecodeError(format!(
                "entry count {count} exceeds basement size"
            )));
        }
        let mut entries: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let k = d.bytes()?.to_vec();
            let kind = d.u8()?;
            if kind != ENTRY_COMMITTED {
                return Err(DecodeError(format!("unknown entry kind {kind}")));
            }
            let v = d.bytes()?.to_vec();
            if let Some((last, _)) = entries.last() {
                if *last >= k {
                    return Err(DecodeError("keys not strictly increasing".into()));
                }
            }
            entries.push((k, v));
        }
        d.finish()?;
        Ok(Basement::from_sorted(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_split_and_round_trip() {
        let mut reg = UpdateRegistry::new();
        reg.register(1, |_, old, arg| {
            let mut v = old.map(|o| o.to_vec()).unwrap_or_default();
            v.extend_from_slice(arg);
            Some(v)
        });
        let mut b = Basement::default();
        for i in 0..100u32 {
            let m = Message {
                msn: i as u64 + 1,
                txn: 0,
                key: format!("k{i:03}").into_bytes(),
                op: Op::Put(vec![1; 10]),
            };
            b.apply(&m, &reg).unwrap();
        }
        let up = Message {
            msn: 200,
            txn: 0,
            key: b"k005".to_vec(),
            op: Op::Upsert {
                func: 1,
                arg: vec![2],
            },
        };
        b.apply(&up, &reg).unwrap();
        assert_eq!(b.get(b"k005").unwrap().len(), 11);
        let rd = Message {
            msn: 201,
            txn: 0,
            key: b"k010".to_vec(),
            op: Op::RangeDelete {
                end: b"k020".to_vec(),
            },
        };
        b.apply(&rd, &reg).unwrap();
        assert_eq!(b.len(), 90);
        let back = Basement::decode(&b.encode()).unwrap();
        assert_eq!(back, b);
        let total = b.bytes();
        let right = b.split_half();
        assert_eq!(b.bytes() + right.bytes(), total);
        assert!(b.entries().last().unwrap().0 < right.entries()[0].0);
        let enc = right.encode();
        for cut in 0..enc.len() {
            assert!(Basement::decode(&enc[..cut]).is_err());
        }
    }
}
