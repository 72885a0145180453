use super::*;
use crate::tree::in_memory::message::{Message, MsgRef, Op, TxnId, UpdateRegistry};
use crate::tree::in_memory::mvcc::Version;
use std::sync::Arc;

fn view_below(low_limit: TxnId) -> ReadView {
    ReadView {
        own: 0,
        low_limit,
        active: Arc::new(Vec::new()),
        aborted: Arc::new(Vec::new()),
    }
}

/// Entries mixing plain values, version stacks and a deleted version, keys with a shared prefix.
fn sample() -> Basement {
    let mut entries = Vec::new();
    for i in 0..300u32 {
        let k = format!("user/{:05}", i * 3).into_bytes();
        let c = match i % 5 {
            0 => Cell::Versions(vec![
                Version {
                    txn: 0,
                    value: Some(vec![i as u8; 3]),
                },
                Version {
                    txn: 50 + u64::from(i),
                    value: if i % 2 == 0 {
                        None
                    } else {
                        Some(b"new".to_vec())
                    },
                },
            ]),
            _ => Cell::Plain(vec![(i % 256) as u8; (i % 40) as usize]),
        };
        entries.push((k, c));
    }
    Basement::from_sorted(entries)
}

#[test]
fn a_packed_basement_reads_like_the_decoded_one() {
    let owned = sample();
    let packed = Basement::decode(&owned.encode()).unwrap();
    assert!(packed.is_packed() && !owned.is_packed());
    assert_eq!(packed, owned);
    assert_eq!(packed.len(), owned.len());
    assert_eq!(packed.bytes(), owned.bytes());
    assert_eq!(packed.first_key(), owned.first_key());
    assert_eq!(packed.encode(), owned.encode());
    for i in 0..950u32 {
        let k = format!("user/{i:05}").into_bytes();
        assert_eq!(packed.get(&k), owned.get(&k), "key {i}");
        assert_eq!(packed.lower_bound(&k), owned.lower_bound(&k), "key {i}");
    }
    for probe in [&b""[..], b"a", b"user/", b"user/99999", b"zzz"] {
        assert_eq!(packed.get(probe), owned.get(probe));
        assert_eq!(packed.lower_bound(probe), owned.lower_bound(probe));
    }
    for sees in [0u64, 100, TxnId::MAX] {
        let view = view_below(sees);
        assert_eq!(packed.visible_entries(&view), owned.visible_entries(&view));
    }
}

#[test]
fn a_packed_basement_unpacks_before_it_changes() {
    let reg = UpdateRegistry::new();
    let mut owned = sample();
    let mut packed = Basement::decode(&owned.encode()).unwrap();
    let msgs = [
        Message {
            msn: 1,
            txn: 0,
            key: b"user/00003".to_vec(),
            op: Op::Put(b"x".to_vec()),
        },
        Message {
            msn: 2,
            txn: 0,
            key: b"user/00004".to_vec(),
            op: Op::Put(b"y".to_vec()),
        },
        Message {
            msn: 3,
            txn: 0,
            key: b"user/00100".to_vec(),
            op: Op::RangeDelete {
                end: b"user/00200".to_vec(),
            },
        },
    ];
    for m in &msgs {
        owned.apply(m, &reg, TxnId::MAX, &[]).unwrap();
        packed.apply(m, &reg, TxnId::MAX, &[]).unwrap();
        assert!(!packed.is_packed());
        assert_eq!(packed, owned);
        assert_eq!(packed.bytes(), owned.bytes());
    }
    let mut p2 = Basement::decode(&owned.encode()).unwrap();
    let (r1, r2) = (owned.split_half(), p2.split_half());
    assert_eq!((&p2, &r2), (&owned, &r1));
    let mut p3 = Basement::decode(&owned.encode()).unwrap();
    p3.append(Basement::decode(&r1.encode()).unwrap());
    owned.append(r1);
    assert_eq!(p3, owned);
    assert_eq!(p3.bytes(), owned.bytes());
}

#[test]
fn damaged_bytes_fail_to_parse_or_read_consistently() {
    let enc = sample().encode();
    for cut in 0..enc.len() {
        assert!(Basement::decode(&enc[..cut]).is_err(), "cut at {cut}");
    }
    // Any single damaged byte either fails to parse or yields a basement every accessor can read.
    for at in 0..enc.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = enc.clone();
            bad[at] ^= flip;
            if let Ok(b) = Basement::decode(&bad) {
                let all = b.entries().into_owned();
                assert_eq!(all.len(), b.len());
                for (k, c) in &all {
                    assert_eq!(b.get(k).as_deref(), Some(c));
                }
                b.visible_entries(&view_below(TxnId::MAX));
            }
        }
    }
}

/// A batch merged into a packed basement gives the same entries, byte count and encoding as the
/// same batch applied to its unpacked form, whatever the mix of puts, deletes, upserts,
/// transactional versions and aborts.
#[test]
fn packed_merge_matches_the_unpacked_merge() {
    use rand::{Rng, SeedableRng};
    let mut reg = UpdateRegistry::new();
    reg.register(1, |_, old, arg| {
        let mut v = old.map(|o| o.to_vec()).unwrap_or_default();
        v.extend_from_slice(arg);
        (v.len() < 40).then_some(v)
    });
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for round in 0..300 {
        let mut base = Basement::default();
        let mut msn = 1;
        let n = rng.gen_range(0..60);
        for _ in 0..n {
            let key = format!("k{:04}", rng.gen_range(0..200)).into_bytes();
            let len = rng.gen_range(0..300);
            let txn = if rng.gen_bool(0.2) {
                rng.gen_range(1..50)
            } else {
                0
            };
            let m = Message {
                msn,
                txn,
                key,
                op: Op::Put(vec![b'v'; len]),
            };
            msn += 1;
            base.apply(&m, &reg, 10, &[]).unwrap();
        }
        let packed = Basement::decode(&base.encode()).unwrap();
        assert!(packed.is_packed());
        let mut msgs = Vec::new();
        for _ in 0..rng.gen_range(1..40) {
            let key = format!("k{:04}", rng.gen_range(0..200)).into_bytes();
            let txn = if rng.gen_bool(0.3) {
                rng.gen_range(1..50)
            } else {
                0
            };
            let op = match rng.gen_range(0..4) {
                0 => Op::Delete,
                1 => Op::Upsert {
                    func: 1,
                    arg: vec![b'u'; rng.gen_range(0..8)],
                },
                2 if txn > 0 => Op::Abort,
                _ => Op::Put(vec![b'w'; rng.gen_range(0..100)]),
            };
            msgs.push(Message { msn, txn, key, op });
            msn += 1;
        }
        let mut sorted: Vec<MsgRef> = msgs.iter().map(Message::as_ref).collect();
        sorted.sort_by(|a, b| a.key.cmp(b.key));
        let (horizon, aborted) = (rng.gen_range(0..60), vec![3, 17]);
        let mut a = packed.clone();
        a.apply_sorted(&sorted, &reg, horizon, &aborted).unwrap();
        let mut b = packed.clone();
        b.unpack();
        b.apply_sorted(&sorted, &reg, horizon, &aborted).unwrap();
        assert!(a.is_packed() && !b.is_packed(), "round {round}");
        assert_eq!(a.entries(), b.entries(), "round {round}");
        assert_eq!(a.bytes(), b.bytes(), "round {round}");
        assert_eq!(a.encode(), b.encode(), "round {round}");
        for (k, _) in b.entries().iter() {
            assert_eq!(a.get(k), b.get(k), "round {round}");
        }
        assert_eq!(Basement::decode(&a.encode()).unwrap(), a, "round {round}");
        // Splitting the packed result cuts where splitting its owned entries does, with the same
        // byte counts on both sides.
        if a.len() >= 2 {
            let (mut pl, mut ul) = (a.clone(), a.clone());
            ul.unpack();
            let (pr, ur) = (pl.split_half(), ul.split_half());
            assert!(pl.is_packed() && pr.is_packed(), "round {round}");
            assert_eq!((pl.entries(), pr.entries()), (ul.entries(), ur.entries()));
            assert_eq!((pl.bytes(), pr.bytes()), (ul.bytes(), ur.bytes()));
            assert_eq!(pr.first_key(), ur.first_key());
        }
    }
}

#[test]
fn overlong_key_lengths_are_refused() {
    // encoding 0, one entry: key length 1 written in two bytes (0x81 0x00), key "a", plain value.
    let mut raw = vec![ENCODING_PLAIN, 1, 0x81, 0x00, b'a'];
    Cell::Plain(b"v".to_vec()).encode(&mut raw);
    assert!(Basement::decode(&raw).is_err());
    let mut ok = vec![ENCODING_PLAIN, 1, 0x01, b'a'];
    Cell::Plain(b"v".to_vec()).encode(&mut ok);
    assert!(Basement::decode(&ok).is_ok());
}
