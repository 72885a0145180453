//! Model test of columnar frames (design.md COL1-COL5): a table of sensor-like rows written through
//! plain writes and transactions (version stacks), with rows that fit the tree's column layout and rows
//! that do not, the layout changed as an ALTER TABLE would change it, cleared, and missing after a
//! restart, across checkpoints, evictions, cold reads of single frames, leaf writes that reuse unchanged
//! basements' stored bytes (TREE6) and reopens; every read must give the model's rows.

mod common;

use betula_storage::vfs::SimVfs;
use betula_storage::{
    Codec, ColumnLayout, Durability, Env, EnvOptions, FieldKind, KeyField, Op, TreeHandle,
    TreeOptions, TxnOptions, ValueLayout,
};
use common::{registry, Model, Rng};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

/// Key: marker, sensor (u32 big-endian), marker, second (5 bytes big-endian), as the SQL layer
/// encodes a primary key (INT, DATETIME).
fn key(sensor: u32, second: u64) -> Vec<u8> {
    let mut k = vec![1];
    k.extend_from_slice(&(sensor ^ 0x8000_0000).to_be_bytes());
    k.push(1);
    k.extend_from_slice(&second.to_be_bytes()[3..]);
    k
}

/// The row's layout with `slots` slots: version, schema version, slot count, bitmap, a 5-byte time,
/// a 4-byte id, then doubles (the first nullable in practice).
fn layout(slots: usize) -> ColumnLayout {
    let marked = |kind| KeyField {
        kind,
        marker: true,
        inverted: false,
    };
    ColumnLayout {
        key: vec![
            marked(FieldKind::UintBe { bytes: 4 }),
            marked(FieldKind::UintBe { bytes: 5 }),
        ],
        value: ValueLayout::Record {
            head: vec![
                FieldKind::IntLe {
                    bytes: 1,
                    signed: false,
                },
                FieldKind::Varint,
                FieldKind::Varint,
            ],
            slots: [
                FieldKind::IntLe {
                    bytes: 5,
                    signed: false,
                },
                FieldKind::IntLe {
                    bytes: 4,
                    signed: true,
                },
            ]
            .into_iter()
            .chain(std::iter::repeat_n(FieldKind::F64Le, slots - 2))
            .collect(),
        },
    }
}

/// A row of `slots` slots as the SQL row format writes it; now and then a NULL reading or an odd double.
fn row(rng: &mut Rng, sensor: u32, second: u64, slots: usize, schema: u8) -> Vec<u8> {
    let mut v = vec![1, schema, slots as u8];
    let mut bitmap = vec![0u8; slots.div_ceil(8)];
    let null = rng
        .chance(10)
        .then(|| 2 + rng.below(slots as u64 - 2) as usize);
    if let Some(n) = null {
        bitmap[n / 8] |= 1 << (n % 8);
    }
    v.extend_from_slice(&bitmap);
    v.extend_from_slice(&second.to_le_bytes()[..5]);
    v.extend_from_slice(&(sensor as i32).to_le_bytes());
    for s in 2..slots {
        if null == Some(s) {
            continue;
        }
        let x = match rng.below(50) {
            0 => f64::from_bits(rng.next()),
            1 => -0.0,
            2 => f64::NAN,
            _ => (20.0 + (second % 1000) as f64 / 100.0 + s as f64).mul_add(1.0, 0.0),
        };
        let x = if rng.chance(95) {
            (x * 100.0).round() / 100.0
        } else {
            x
        };
        v.extend_from_slice(&x.to_le_bytes());
    }
    v
}

fn opts() -> EnvOptions {
    EnvOptions {
        cache_bytes: 96 << 10,
        durability: Durability::Sync,
        background: false,
        default_tree: TreeOptions {
            node_size_bytes: 16 << 10,
            basement_size_bytes: 2 << 10,
            fanout: 6,
            codec: Codec::Zstd,
            level: 0,
        },
        wal_segment_bytes: 256 << 10,
        ..EnvOptions::default()
    }
}

fn check(t: &TreeHandle, model: &Model, rng: &mut Rng, ctx: &str) {
    let got: Vec<(Vec<u8>, Vec<u8>)> = t
        .range(Bound::Unbounded, Bound::Unbounded, false)
        .collect::<Result<_, _>>()
        .unwrap();
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.map.clone().into_iter().collect();
    assert_eq!(got.len(), want.len(), "{ctx}: row count");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{ctx}: scan");
    }
    let keys: Vec<&Vec<u8>> = model.map.keys().collect();
    for _ in 0..40 {
        if keys.is_empty() {
            break;
        }
        let k = keys[rng.below(keys.len() as u64) as usize];
        assert_eq!(t.get(k).unwrap().as_ref(), model.map.get(k), "{ctx}: get");
        let absent = key(rng.below(20) as u32, 1 << 30 | rng.below(1000));
        assert_eq!(t.get(&absent).unwrap(), None, "{ctx}: absent get");
    }
    t.check_invariants().unwrap();
}

struct State {
    /// Whether transactions may roll back.
    rollbacks: bool,
    slots: usize,
    schema: u8,
    next_second: Vec<u64>,
}

/// One step: a batch of new rows (arrival order across sensors), updates, deletes, or a transaction.
fn step(rng: &mut Rng, env: &Env, t: &TreeHandle, model: &mut Model, st: &mut State) {
    let sensors = st.next_second.len() as u32;
    match rng.below(10) {
        0..=5 => {
            let mut ops = Vec::new();
            for s in 0..sensors {
                let second = st.next_second[s as usize];
                st.next_second[s as usize] += 1;
                let v = if rng.chance(3) {
                    // Not a row of the layout at all.
                    (0..rng.below(30)).map(|_| rng.next() as u8).collect()
                } else {
                    row(rng, s, second, st.slots, st.schema)
                };
                ops.push((key(s, second), Op::Put(v)));
            }
            for (k, op) in &ops {
                model.apply(k, op);
            }
            t.write_batch(ops).unwrap();
        }
        6 | 7 => {
            let s = rng.below(u64::from(sensors)) as u32;
            let upto = st.next_second[s as usize];
            let second = rng.below(upto.max(1));
            let k = key(s, second);
            let op = if rng.chance(50) {
                Op::Delete
            } else {
                Op::Put(row(rng, s, second, st.slots, st.schema))
            };
            model.apply(&k, &op);
            t.write_batch(vec![(k, op)]).unwrap();
        }
        _ => {
            // A transaction leaves version stacks behind where its rows meet the leaves.
            let mut txn = env.begin(TxnOptions::default()).unwrap();
            let mut ops = Vec::new();
            for _ in 0..5 {
                let s = rng.below(u64::from(sensors)) as u32;
                let second = rng.below(st.next_second[s as usize] + 3);
                ops.push((key(s, second), row(rng, s, second, st.slots, st.schema)));
            }
            ops.sort();
            ops.dedup_by(|a, b| a.0 == b.0);
            for (k, v) in &ops {
                txn.put(t, k, v).unwrap();
            }
            if !st.rollbacks || rng.chance(70) {
                txn.commit().unwrap();
                for (k, v) in ops {
                    model.apply(&k, &Op::Put(v));
                }
            } else {
                txn.rollback().unwrap();
            }
        }
    }
}

#[test]
fn columnar_tables_match_the_model_through_layout_changes_and_reopens() {
    run(false);
}

/// The same with rolled-back transactions, whose rows must stay gone through checkpoints and reopens
/// (they reappeared after a reopen while a flush could turn a rolled-back message into a committed value).
#[test]
fn with_rollbacks() {
    run(true);
}

fn run(rollbacks: bool) {
    let vfs = Arc::new(SimVfs::new());
    let dir = Path::new("/db");
    let mut env = Env::open_with_vfs(vfs.clone(), dir, opts(), registry()).unwrap();
    let mut t = env.create_tree("sensors", None).unwrap();
    let mut st = State {
        rollbacks,
        slots: 8,
        schema: 1,
        next_second: vec![86_400 * 1000 - 200; 12],
    };
    t.set_column_layout(Some(layout(st.slots)));
    let mut model = Model::default();
    let mut rng = Rng::new(42);
    let (mut columnar, mut frames, mut frame_reads, mut reused) = (0, 0, 0, 0);
    for i in 0..1500 {
        step(&mut rng, &env, &t, &mut model, &mut st);
        if rng.chance(3) {
            env.checkpoint().unwrap();
        }
        if rng.chance(4) {
            t.flush_now().unwrap();
        }
        match i {
            // ALTER TABLE ... ADD COLUMN: new rows have one more slot; old ones no longer fit.
            500 => {
                st.slots = 9;
                st.schema = 2;
                t.set_column_layout(Some(layout(st.slots)));
            }
            // A tree without a layout writes plain frames.
            900 => t.set_column_layout(None),
            1000 => t.set_column_layout(Some(layout(st.slots))),
            _ => {}
        }
        if i % 300 == 299 {
            check(&t, &model, &mut rng, &format!("op {i}"));
        }
        if rng.below(1000) < 4 {
            drop(t);
            let s = env.stats();
            (columnar, frames, frame_reads, reused) = (
                columnar + s.columnar_frames_written,
                frames + s.frames_written,
                frame_reads + s.frame_reads,
                reused + s.basements_reused,
            );
            if rng.chance(50) {
                env.close().unwrap();
            } else {
                drop(env);
            }
            env = Env::open_with_vfs(vfs.clone(), dir, opts(), registry()).unwrap();
            t = env.open_tree("sensors").unwrap();
            // Recovery ran without a layout; the owner sets it again, or (sometimes) not yet.
            if rng.chance(80) {
                t.set_column_layout(Some(layout(st.slots)));
            }
            check(&t, &model, &mut rng, &format!("reopen at {i}"));
        }
    }
    check(&t, &model, &mut rng, "end");
    drop(t);
    let s = env.stats();
    columnar += s.columnar_frames_written;
    frames += s.frames_written;
    frame_reads += s.frame_reads;
    reused += s.basements_reused;
    env.close().unwrap();
    let env = Env::open_with_vfs(vfs, dir, opts(), registry()).unwrap();
    let t = env.open_tree("sensors").unwrap();
    check(&t, &model, &mut rng, "final reopen");
    assert!(
        columnar > frames / 4 && columnar < frames,
        "{columnar} of {frames} frames columnar"
    );
    assert!(frame_reads > 0, "no point read decoded a single frame");
    // Leaves rewritten after a change to some of their basements carried the others' stored bytes
    // (design.md TREE6), and every read above still gave the model's rows.
    assert!(reused > 0, "no leaf write reused a basement's stored copy");
}
