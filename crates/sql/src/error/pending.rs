//! Warnings raised while expressions are evaluated (a JSON function's 4038 on a bad document,
//! ...), where no connection is at hand: they wait in a per-thread list ([`push`]) until the
//! session takes them into the statement's diagnostics ([`take`]) when the statement ends.
//!
//! Invariants: the session empties the list when a statement starts ([`clear`]) and takes it
//! when the statement ends, so a statement reports exactly the warnings its own evaluation
//! raised on the connection's thread, in the order raised; the list keeps at most
//! [`MAX_PENDING`] (MariaDB's max_error_count default, 64), dropping later ones.

use std::cell::RefCell;

use super::sql_error::Warning;

/// Warnings kept per statement.
pub const MAX_PENDING: usize = 64;

thread_local! {
    static PENDING: RefCell<Vec<Warning>> = const { RefCell::new(Vec::new()) };
}

/// Records a warning of the running statement.
pub fn push(w: Warning) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < MAX_PENDING {
            p.push(w);
        }
    });
}

/// The warnings recorded since the last [`take`] or [`clear`].
pub fn take() -> Vec<Warning> {
    PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// Forgets the recorded warnings.
pub fn clear() {
    PENDING.with(|p| p.borrow_mut().clear());
}
