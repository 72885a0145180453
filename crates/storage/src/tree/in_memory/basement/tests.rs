use super::*;
use crate::tree::in_memory::message::{Message, Op, TxnId, UpdateRegistry};

#[test]
fn apply_split_and_round_trip() {
    let mut reg = UpdateRegistry::new();
    reg.register(1, |_, old, arg| {
        let mut v = old.map(|o| o.to_vec()).unwrap_or_default();
        v.extend_from_slice(arg);
        Some(v)
    });
    let all = TxnId::MAX;
    let mut b = Basement::default();
    for i in 0..100u32 {
        let m = Message {
            msn: i as u64 + 1,
            txn: 0,
            key: format!("k{i:03}").into_bytes(),
            op: Op::Put(vec![1; 10]),
        };
        b.apply(&m, &reg, all, &[]).unwrap();
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
    b.apply(&up, &reg, all, &[]).unwrap();
    assert_eq!(b.get(b"k005").unwrap().newest(&[]).unwrap().len(), 11);
    let rd = Message {
        msn: 201,
        txn: 0,
        key: b"k010".to_vec(),
        op: Op::RangeDelete {
            end: b"k020".to_vec(),
        },
    };
    b.apply(&rd, &reg, all, &[]).unwrap();
    assert_eq!(b.len(), 90);
    // A transactional write below no horizon keeps versions.
    let tx = Message {
        msn: 300,
        txn: 250,
        key: b"k050".to_vec(),
        op: Op::Put(b"new".to_vec()),
    };
    b.apply(&tx, &reg, 100, &[]).unwrap();
    assert!(matches!(b.get(b"k050").as_deref(), Some(Cell::Versions(v)) if v.len() == 2));
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
