//! Messages: the unit of change in a Bε-tree, and the registry of upsert functions.
//!
//! A message is stamped with an MSN, which is the LSN of its log record. Messages for one key are applied in
//! MSN order; a message never reads the row to be accepted (upserts are "blind"), the function runs when the
//! message meets the row (in a leaf) or a reader.

use crate::encoding::{DecodeError, Decoder, Encode};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::Arc;

/// Message sequence number: the LSN of the message's log record.
pub type Msn = u64;

/// Transaction id carried by a message (0 = not in a transaction).
pub type TxnId = u64;

/// On-disk message kinds (file-format.md §5). Never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MessageKind {
    Put = 1,
    Delete = 2,
    Upsert = 3,
    RangeDelete = 4,
    Broadcast = 5,
    Abort = 6,
}

impl MessageKind {
    pub fn from_u8(v: u8) -> Option<MessageKind> {
        Some(match v {
            1 => MessageKind::Put,
            2 => MessageKind::Delete,
            3 => MessageKind::Upsert,
            4 => MessageKind::RangeDelete,
            5 => MessageKind::Broadcast,
            6 => MessageKind::Abort,
            _ => return None,
        })
    }
}

/// What a message does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Insert or overwrite the row.
    Put(Vec<u8>),
    /// Remove the row if present.
    Delete,
    /// Apply function `func` with `arg` to the row (or to its absence).
    Upsert { func: u32, arg: Vec<u8> },
    /// Remove every row in [key, end).
    RangeDelete { end: Vec<u8> },
    /// Apply function `func` with `arg` to every existing row in [key, end); an empty `end` means no upper
    /// bound. (A broadcast copied into several buffers is clipped to each child's range, so merging buffers
    /// never applies it twice to the same row.)
    Broadcast {
        func: u32,
        arg: Vec<u8>,
        end: Vec<u8>,
    },
    /// Erase the versions that the message's transaction wrote to this row (rollback).
    Abort,
}

impl Op {
    /// Appends the kind-specific part of a message (what follows the key; file-format.md §3.3 and §4).
    pub fn encode_body(&self, out: &mut Vec<u8>) {
        match self {
            Op::Put(v) => out.put_bytes(v),
            Op::Delete | Op::Abort => {}
            Op::Upsert { func, arg } => {
                out.put_u32(*func);
                out.put_bytes(arg);
            }
            Op::Broadcast { func, arg, end } => {
                out.put_bytes(end);
                out.put_u32(*func);
                out.put_bytes(arg);
            }
            Op::RangeDelete { end } => out.put_bytes(end),
        }
    }

    /// Reads what [`Op::encode_body`] wrote for a message of `kind`.
    pub fn decode_body(kind: MessageKind, d: &mut Decoder<'_>) -> Result<Op, DecodeError> {
        Ok(match kind {
            MessageKind::Put => Op::Put(d.bytes()?.to_vec()),
            MessageKind::Delete => Op::Delete,
            MessageKind::Abort => Op::Abort,
            MessageKind::Upsert => Op::Upsert {
                func: d.u32()?,
                arg: d.bytes()?.to_vec(),
            },
            MessageKind::Broadcast => Op::Broadcast {
                end: d.bytes()?.to_vec(),
                func: d.u32()?,
                arg: d.bytes()?.to_vec(),
            },
            MessageKind::RangeDelete => Op::RangeDelete {
                end: d.bytes()?.to_vec(),
            },
        })
    }

    /// Steps over what [`Op::encode_body`] wrote for a message of `kind`, without copying it (a
    /// columnar buffer's writer reads every message of a buffer this way).
    pub fn skip_body(kind: MessageKind, d: &mut Decoder<'_>) -> Result<(), DecodeError> {
        match kind {
            MessageKind::Put | MessageKind::RangeDelete => {
                d.bytes()?;
            }
            MessageKind::Delete | MessageKind::Abort => {}
            MessageKind::Upsert => {
                d.u32()?;
                d.bytes()?;
            }
            MessageKind::Broadcast => {
                d.bytes()?;
                d.u32()?;
                d.bytes()?;
            }
        }
        Ok(())
    }

    pub fn kind(&self) -> MessageKind {
        match self {
            Op::Put(_) => MessageKind::Put,
            Op::Delete => MessageKind::Delete,
            Op::Upsert { .. } => MessageKind::Upsert,
            Op::RangeDelete { .. } => MessageKind::RangeDelete,
            Op::Broadcast { .. } => MessageKind::Broadcast,
            Op::Abort => MessageKind::Abort,
        }
    }
    /// Whether the message concerns a range of keys rather than one key.
    pub fn is_ranged(&self) -> bool {
        matches!(self, Op::RangeDelete { .. } | Op::Broadcast { .. })
    }
    /// Approximate bytes the message occupies in memory and on disk (besides the key).
    pub fn size(&self) -> usize {
        24 + match self {
            Op::Put(v) => v.len(),
            Op::Delete | Op::Abort => 0,
            Op::Upsert { arg, .. } => arg.len() + 4,
            Op::Broadcast { arg, end, .. } => arg.len() + end.len() + 4,
            Op::RangeDelete { end } => end.len(),
        }
    }
}

/// A message with its key (range messages: the start key; broadcasts: empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub msn: Msn,
    pub txn: TxnId,
    pub key: Vec<u8>,
    pub op: Op,
}

/// A message borrowed from where it is kept (a buffer's entry, a [`Message`]): what applying it to a leaf
/// needs, without copying its key and value.
#[derive(Debug, Clone, Copy)]
pub struct MsgRef<'a> {
    pub msn: Msn,
    pub txn: TxnId,
    pub key: &'a [u8],
    pub op: &'a Op,
}

impl MsgRef<'_> {
    /// Whether the message concerns `key` (its key, or a key in its range).
    pub fn covers(&self, key: &[u8]) -> bool {
        match self.op {
            Op::RangeDelete { end } => self.key <= key && key < end.as_slice(),
            Op::Broadcast { end, .. } => {
                self.key <= key && (end.is_empty() || key < end.as_slice())
            }
            _ => self.key == key,
        }
    }

    /// An owned copy.
    pub fn to_message(&self) -> Message {
        Message {
            msn: self.msn,
            txn: self.txn,
            key: self.key.to_vec(),
            op: self.op.clone(),
        }
    }
}

impl Message {
    /// The message borrowed.
    pub fn as_ref(&self) -> MsgRef<'_> {
        MsgRef {
            msn: self.msn,
            txn: self.txn,
            key: &self.key,
            op: &self.op,
        }
    }

    pub fn size(&self) -> usize {
        self.key.len() + self.op.size()
    }

    /// Whether the message concerns `key`.
    pub fn covers(&self, key: &[u8]) -> bool {
        self.as_ref().covers(key)
    }

    /// Appends the message fields (after any tree id) in the layout of file-format.md §3.3.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_u64(self.msn);
        out.put_u64(self.txn);
        out.put_u8(self.op.kind() as u8);
        out.put_bytes(&self.key);
        self.op.encode_body(out);
    }

    /// Reads a message written by [`Message::encode`].
    pub fn decode(d: &mut Decoder<'_>) -> Result<Message, DecodeError> {
        let msn = d.u64()?;
        let txn = d.u64()?;
        let kind = d.u8()?;
        let kind = MessageKind::from_u8(kind)
            .ok_or_else(|| DecodeError(format!("unknown message kind {kind}")))?;
        let key = d.bytes()?.to_vec();
        let op = Op::decode_body(kind, d)?;
        Ok(Message { msn, txn, key, op })
    }
}

/// An upsert function: given the key, the current value (None if absent) and the message's argument, returns
/// the new value (None deletes the row). It must be deterministic: replay after a crash runs it again.
pub type UpdateFn = dyn Fn(&[u8], Option<&[u8]>, &[u8]) -> Option<Vec<u8>> + Send + Sync;

/// Upsert functions by id, registered when the environment is opened.
#[derive(Clone, Default)]
pub struct UpdateRegistry {
    funcs: HashMap<u32, Arc<UpdateFn>>,
}

impl UpdateRegistry {
    pub fn new() -> UpdateRegistry {
        UpdateRegistry::default()
    }

    /// Registers `f` under `id`, replacing any earlier one.
    pub fn register(
        &mut self,
        id: u32,
        f: impl Fn(&[u8], Option<&[u8]>, &[u8]) -> Option<Vec<u8>> + Send + Sync + 'static,
    ) {
        self.funcs.insert(id, Arc::new(f));
    }

    pub fn contains(&self, id: u32) -> bool {
        self.funcs.contains_key(&id)
    }

    fn get(&self, id: u32) -> Result<&Arc<UpdateFn>> {
        self.funcs.get(&id).ok_or(Error::UnknownFunction(id))
    }

    /// Applies one message to the value of `key` (None = absent). Ranged messages must cover `key`.
    pub fn apply(&self, key: &[u8], old: Option<Vec<u8>>, op: &Op) -> Result<Option<Vec<u8>>> {
        Ok(match op {
            Op::Put(v) => Some(v.clone()),
            Op::Delete | Op::RangeDelete { .. } => None,
            Op::Abort => old,
            Op::Upsert { func, arg } => (self.get(*func)?)(key, old.as_deref(), arg),
            Op::Broadcast { func, arg, .. } => match old {
                Some(old) => (self.get(*func)?)(key, Some(&old), arg),
                None => None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let msgs = [
            Op::Put(b"v".to_vec()),
            Op::Delete,
            Op::Upsert {
                func: 7,
                arg: b"a".to_vec(),
            },
            Op::RangeDelete { end: b"z".to_vec() },
            Op::Broadcast {
                func: 1,
                arg: vec![],
                end: vec![],
            },
        ];
        for op in msgs {
            let m = Message {
                msn: 42,
                txn: 3,
                key: b"k".to_vec(),
                op,
            };
            let mut b = Vec::new();
            m.encode(&mut b);
            let mut d = Decoder::new(&b);
            assert_eq!(Message::decode(&mut d).unwrap(), m);
            d.finish().unwrap();
            for cut in 0..b.len() {
                assert!(Message::decode(&mut Decoder::new(&b[..cut])).is_err());
            }
        }
    }
}
