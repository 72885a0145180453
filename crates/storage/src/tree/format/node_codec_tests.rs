//! Tests of node_codec.rs: nodes round-trip, every flipped bit is caught, and blocks of older versions read.
use super::*;
use crate::tree::in_memory::message::{Message, Op};

#[test]
fn nodes_round_trip_and_every_flipped_bit_is_caught() {
    let mut b1 = Basement::default();
    let reg = crate::tree::in_memory::message::UpdateRegistry::new();
    for i in 0..50u32 {
        let m = Message {
            msn: 1,
            txn: 0,
            key: i.to_be_bytes().to_vec(),
            op: Op::Put(vec![i as u8; 20]),
        };
        b1.apply(&m, &reg, u64::MAX, &[]).unwrap();
    }
    let b2 = b1.split_half();
    let pivot = b2.first_key().unwrap().to_vec();
    let leaf = Node::Leaf {
        pivots: vec![pivot.clone()].into(),
        basements: vec![BasementSlot::new(b1.clone()), BasementSlot::new(b2.clone())],
    };
    for codec in [Codec::None, Codec::Zstd, Codec::Lz4] {
        let enc = encode(&leaf, 9, codec, 0, 256, None);
        let back = decode_node(&enc.bytes, 9, false).unwrap();
        match &back {
            Node::Leaf { pivots, basements } => {
                assert_eq!(&pivots[..], &[pivot.clone()][..]);
                assert_eq!(**basements[0].loaded.as_ref().unwrap(), b1);
                assert_eq!(**basements[1].loaded.as_ref().unwrap(), b2);
                assert_eq!(basements[1].part, Some(enc.parts[1]));
            }
            _ => panic!("not a leaf"),
        }
        assert!(decode_node(&enc.bytes, 10, false).is_err());
        let prefix = decode_prefix(&enc.bytes[..enc.prefix_len as usize], 9).unwrap();
        assert_eq!(prefix.parts, enc.parts);
        for i in 0..enc.bytes.len() {
            let mut bad = enc.bytes.clone();
            bad[i] ^= 0x10;
            assert!(
                decode_node(&bad, 9, false).is_err(),
                "flip at byte {i} not caught"
            );
        }
    }
    // Filters: every basement key is in its basement's filter, and they survive the round trip.
    let enc = encode(&leaf, 9, Codec::Zstd, 0, 256, None);
    let prefix = decode_prefix(&enc.bytes[..enc.prefix_len as usize], 9).unwrap();
    assert_eq!(prefix.filters, enc.filters);
    for (b, f) in [(&b1, &prefix.filters[0]), (&b2, &prefix.filters[1])] {
        let f = f.as_ref().expect("a basement always has a filter");
        assert!(b.entries().iter().all(|(k, _)| f.may_contain(k)));
    }
    let mut buf = Buffer::default();
    buf.push(Message {
        msn: 5,
        txn: 1,
        key: b"x".to_vec(),
        op: Op::Delete,
    });
    let internal = Node::Internal {
        height: 1,
        pivots: vec![b"m".to_vec()].into(),
        children: vec![3, 4],
        buffers: vec![BufferSlot::new(buf), BufferSlot::new(Buffer::default())],
    };
    let enc = encode(&internal, 2, Codec::Zstd, 0, 256, None);
    match decode_node(&enc.bytes, 2, false).unwrap() {
        Node::Internal {
            children, buffers, ..
        } => {
            assert_eq!(children, vec![3, 4]);
            assert_eq!(buffers[0].get().count(), 1);
        }
        _ => panic!("not internal"),
    }
}

/// A version 1 block (no filter chunk: header bytes 36..44 zero) made from a version 2 one.
fn as_version_1(enc: &EncodedNode) -> Vec<u8> {
    let b = &enc.bytes;
    let n = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let meta_len = u32::from_le_bytes(b[24..28].try_into().unwrap()) as usize;
    let filters_len = u32::from_le_bytes(b[36..40].try_into().unwrap()) as usize;
    let dir_end = HEADER_BYTES + n * DIR_ENTRY_BYTES;
    let mut out = b[..dir_end].to_vec();
    out[4..6].copy_from_slice(&1u16.to_le_bytes());
    out[36..44].fill(0);
    for i in 0..n {
        let at = HEADER_BYTES + i * DIR_ENTRY_BYTES;
        let off = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        out[at..at + 4].copy_from_slice(&(off - filters_len as u32).to_le_bytes());
    }
    let crc = crc32c::crc32c_append(crc32c::crc32c(&out[..44]), &out[48..dir_end]);
    out[44..48].copy_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&b[dir_end..dir_end + meta_len]);
    out.extend_from_slice(&b[dir_end + meta_len + filters_len..]);
    out
}

#[test]
fn version_2_leaves_read_as_unframed_basements_and_version_3_ones_as_frames() {
    let reg = crate::tree::in_memory::message::UpdateRegistry::new();
    let mut b = Basement::default();
    for i in 0..60u32 {
        let m = Message {
            msn: 1,
            txn: 0,
            key: i.to_be_bytes().to_vec(),
            op: Op::Put(vec![i as u8; 30]),
        };
        b.apply(&m, &reg, u64::MAX, &[]).unwrap();
    }
    let leaf = Node::Leaf {
        pivots: Vec::new().into(),
        basements: vec![BasementSlot::new(b.clone())],
    };
    for (written, version, framed) in [
        (Written::Version2, 2u16, false),
        (Written::Version5(300), 5, true),
        (Written::Current(300, None), FORMAT_VERSION as u16, true),
    ] {
        let enc = encode_as(&leaf, 4, Codec::Zstd, 0, written);
        assert_eq!(u16::from_le_bytes([enc.bytes[4], enc.bytes[5]]), version);
        let prefix = decode_prefix(&enc.bytes[..enc.prefix_len as usize], 4).unwrap();
        assert_eq!(prefix.parts[0].framed, framed);
        match decode_node(&enc.bytes, 4, false).unwrap() {
            Node::Leaf { basements, .. } => {
                assert_eq!(**basements[0].loaded.as_ref().unwrap(), b)
            }
            _ => panic!("not a leaf"),
        }
        // One frame of a version 3 basement answers a point read alone.
        if framed {
            let loc = prefix.parts[0];
            let stored = part_slice(&enc.bytes, &loc).unwrap();
            for (k, c) in b.entries().iter() {
                assert_eq!(
                    frames::lookup(stored, loc.codec, loc.tagged, k)
                        .unwrap()
                        .as_ref(),
                    Some(c)
                );
            }
        }
    }
}

#[test]
fn version_1_blocks_read_as_blocks_without_filters() {
    let reg = crate::tree::in_memory::message::UpdateRegistry::new();
    let mut b = Basement::default();
    for i in 0..40u32 {
        let m = Message {
            msn: 1,
            txn: 0,
            key: i.to_be_bytes().to_vec(),
            op: Op::Put(vec![1; 10]),
        };
        b.apply(&m, &reg, u64::MAX, &[]).unwrap();
    }
    let leaf = Node::Leaf {
        pivots: Vec::new().into(),
        basements: vec![BasementSlot::new(b.clone())],
    };
    let enc = encode_as(&leaf, 4, Codec::Lz4, 0, Written::Version2);
    let v1 = as_version_1(&enc);
    assert!(v1.len() < enc.bytes.len());
    match decode_node(&v1, 4, false).unwrap() {
        Node::Leaf { basements, .. } => {
            assert_eq!(**basements[0].loaded.as_ref().unwrap(), b);
            assert!(basements[0].filter.is_none());
        }
        _ => panic!("not a leaf"),
    }
    // A version this build does not know is refused.
    let mut v9 = enc.bytes.clone();
    v9[4..6].copy_from_slice(&9u16.to_le_bytes());
    assert!(decode_node(&v9, 4, false).is_err());
}

/// A layout of 4-byte big-endian keys and 8-byte little-endian values.
fn int_layout() -> ColumnLayout {
    use crate::tree::format::columnar::{FieldKind, KeyField, ValueLayout};
    ColumnLayout {
        key: vec![KeyField {
            kind: FieldKind::UintBe { bytes: 4 },
            marker: false,
            inverted: false,
        }],
        value: ValueLayout::Record {
            head: vec![FieldKind::IntLe {
                bytes: 8,
                signed: false,
            }],
            slots: vec![],
        },
    }
}

#[test]
fn internal_buffers_are_columnar_with_a_layout_and_version_5_ones_read_untagged() {
    let mut buf = Buffer::default();
    for i in 0..400u32 {
        buf.push(Message {
            msn: 10 + u64::from(i),
            txn: u64::from(i % 3),
            key: (i * 7).to_be_bytes().to_vec(),
            op: if i % 50 == 49 {
                Op::Delete
            } else {
                Op::Put(u64::from(i * 3).to_le_bytes().to_vec())
            },
        });
    }
    let internal = Node::Internal {
        height: 1,
        pivots: vec![b"m".to_vec()].into(),
        children: vec![3, 4],
        buffers: vec![
            BufferSlot::new(buf.clone()),
            BufferSlot::new(Buffer::default()),
        ],
    };
    let layout = int_layout();
    let plain = encode(&internal, 2, Codec::Zstd, 0, 256, None);
    let col = encode(&internal, 2, Codec::Zstd, 0, 256, Some(&layout));
    let v5 = encode_version_5(&internal, 2, Codec::Zstd, 0, 256);
    assert_eq!(part_slice(&plain.bytes, &plain.parts[0]).unwrap()[0], 0);
    assert_eq!(part_slice(&col.bytes, &col.parts[0]).unwrap()[0], 1);
    assert!(col.bytes.len() < plain.bytes.len());
    for (enc, tagged) in [(&plain, true), (&col, true), (&v5, false)] {
        let prefix = decode_prefix(&enc.bytes[..enc.prefix_len as usize], 2).unwrap();
        assert!(prefix.parts.iter().all(|p| p.tagged == tagged && !p.framed));
        match decode_node(&enc.bytes, 2, false).unwrap() {
            Node::Internal { buffers, .. } => {
                assert_eq!(buffers[0].get().encode(), buf.encode());
                assert_eq!(buffers[1].get().count(), 0);
            }
            _ => panic!("not internal"),
        }
    }
    for i in 0..col.bytes.len() {
        let mut bad = col.bytes.clone();
        bad[i] ^= 0x04;
        assert!(
            decode_node(&bad, 2, false).is_err(),
            "flip at byte {i} not caught"
        );
    }
}
