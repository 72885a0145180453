//! Shared pieces of the storage integration tests: the update functions and a reference model.

#![allow(dead_code)]

use betula_storage::{Codec, Durability, EnvOptions, Op, TreeOptions, UpdateRegistry};
use std::collections::BTreeMap;
use std::ops::Bound;

/// Appends the argument to the value (creating it if absent).
pub const F_APPEND: u32 = 1;
/// Adds a little-endian u64 argument to a u64 value (absent = 0).
pub const F_ADD: u32 = 2;
/// Broadcast: appends the argument to every value.
pub const F_TAG: u32 = 3;

pub fn registry() -> UpdateRegistry {
    let mut r = UpdateRegistry::new();
    r.register(F_APPEND, |_, old, arg| Some(append(old, arg)));
    r.register(F_ADD, |_, old, arg| Some(add(old, arg)));
    r.register(F_TAG, |_, old, arg| Some(append(old, arg)));
    r
}

fn append(old: Option<&[u8]>, arg: &[u8]) -> Vec<u8> {
    let mut v = old.map(|o| o.to_vec()).unwrap_or_default();
    v.extend_from_slice(arg);
    v
}

fn add(old: Option<&[u8]>, arg: &[u8]) -> Vec<u8> {
    let get = |b: Option<&[u8]>| {
        b.and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .unwrap_or(0)
    };
    get(old).wrapping_add(get(Some(arg))).to_le_bytes().to_vec()
}

/// The reference: a BTreeMap with the same semantics.
#[derive(Default, Clone, Debug, PartialEq)]
pub struct Model {
    pub map: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl Model {
    pub fn apply(&mut self, key: &[u8], op: &Op) {
        match op {
            Op::Put(v) => {
                self.map.insert(key.to_vec(), v.clone());
            }
            Op::Delete => {
                self.map.remove(key);
            }
            Op::Upsert { func, arg } => {
                let old = self.map.get(key).map(|v| v.as_slice());
                let new = match *func {
                    F_APPEND => append(old, arg),
                    F_ADD => add(old, arg),
                    _ => unreachable!(),
                };
                self.map.insert(key.to_vec(), new);
            }
            Op::RangeDelete { end } => {
                let doomed: Vec<Vec<u8>> = self
                    .map
                    .range::<[u8], _>((Bound::Included(key), Bound::Excluded(end.as_slice())))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in doomed {
                    self.map.remove(&k);
                }
            }
            Op::Broadcast { arg, .. } => {
                for v in self.map.values_mut() {
                    v.extend_from_slice(arg);
                }
            }
            Op::Abort => unreachable!("abort messages are internal"),
        }
    }
}

/// A small deterministic generator (xorshift64*), so failures replay from the printed seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A key from a space of `space` keys, spread so neighbours interleave with range bounds.
pub fn key(i: u64) -> Vec<u8> {
    format!("key{:08}", i).into_bytes()
}

/// A random operation over a key space.
pub fn random_op(rng: &mut Rng, space: u64) -> (Vec<u8>, Op) {
    let k = key(rng.below(space));
    let roll = rng.below(100);
    let op = if roll < 55 {
        let len = rng.below(120) as usize;
        let b = rng.below(256) as u8;
        Op::Put(vec![b; len])
    } else if roll < 70 {
        Op::Delete
    } else if roll < 82 {
        Op::Upsert {
            func: F_APPEND,
            arg: vec![rng.below(256) as u8; 3],
        }
    } else if roll < 93 {
        Op::Upsert {
            func: F_ADD,
            arg: rng.below(1000).to_le_bytes().to_vec(),
        }
    } else if roll < 98 {
        let span = 1 + rng.below(space / 20 + 1);
        let start = rng.below(space);
        return (
            key(start),
            Op::RangeDelete {
                end: key(start + span),
            },
        );
    } else {
        return (
            Vec::new(),
            Op::Broadcast {
                func: F_TAG,
                arg: vec![b'#'],
                end: Vec::new(),
            },
        );
    };
    (k, op)
}

/// The crash tests' environment: tiny nodes and log segments (so a short workload splits, flushes and rolls
/// often), synchronous commits, no background threads (the test drives every checkpoint).
pub fn crash_opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: 48 << 10,
        durability: Durability::Sync,
        background: false,
        wal_segment_bytes: 16 << 10,
        default_tree: TreeOptions {
            node_size_bytes: 2048,
            basement_size_bytes: 512,
            fanout: 4,
            codec: Codec::Lz4,
            level: 0,
        },
        ..EnvOptions::default()
    }
}
