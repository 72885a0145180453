//! Sorted streams of a rebuild into a partitioned table's trees: each sort key starts with the
//! number of the partition it belongs to ([`sort_key`]), so one sorter per tree kind (primary,
//! each index) holds every partition's entries, and its merged output is cut into one stream per
//! partition ([`split`]), in partition order: the order `Env::bulk_replace` consumes them in.
//!
//! Invariant: a stream yields exactly the entries of its partition, with the prefix removed;
//! streams must be consumed in partition order, each to its end (a stream reads its partition's
//! entries from the shared merge and stops at the first entry of the next).

use std::cell::RefCell;
use std::iter::Peekable;
use std::rc::Rc;

use crate::error::db_error::DbResult;
use crate::load::sorter::{Entry, Merge};

/// A tree's sorted entries, `(key, seq, value)`.
pub type Entries = Box<dyn Iterator<Item = DbResult<Entry>>>;

/// `key` prefixed with partition `part` (`None`: a table that is not partitioned, no prefix).
pub fn sort_key(part: Option<usize>, key: &[u8]) -> Vec<u8> {
    match part {
        None => key.to_vec(),
        Some(p) => {
            let mut k = Vec::with_capacity(4 + key.len());
            k.extend_from_slice(&(p as u32).to_be_bytes());
            k.extend_from_slice(key);
            k
        }
    }
}

/// One stream per partition in `parts` (in that order, which must be increasing) from the merged
/// entries of a sorter fed with [`sort_key`]s; `[None]` gives the merge itself.
pub fn split(merge: Merge, parts: &[Option<usize>]) -> Vec<Entries> {
    if parts == [None] {
        return vec![Box::new(merge)];
    }
    let shared = Rc::new(RefCell::new(merge.peekable()));
    parts
        .iter()
        .map(|p| {
            Box::new(PartStream {
                merge: shared.clone(),
                part: p.unwrap_or(0) as u32,
            }) as Entries
        })
        .collect()
}

struct PartStream {
    merge: Rc<RefCell<Peekable<Merge>>>,
    part: u32,
}

impl Iterator for PartStream {
    type Item = DbResult<Entry>;
    fn next(&mut self) -> Option<DbResult<Entry>> {
        let mut m = self.merge.borrow_mut();
        let mine = match m.peek()? {
            Err(_) => true,
            Ok((k, _, _)) => k[..4] == self.part.to_be_bytes(),
        };
        if !mine {
            return None;
        }
        m.next().map(|r| r.map(|(k, s, v)| (k[4..].to_vec(), s, v)))
    }
}
