//! Server status flags carried by OK and EOF packets.
//!
//! Invariant: backends report only session state (IN_TRANS, AUTOCOMMIT,
//! IN_TRANS_READONLY, NO_BACKSLASH_ESCAPES); the protocol layer owns
//! MORE_RESULTS_EXISTS and adds or clears it itself.

use std::ops::{BitOr, BitOrAssign};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct StatusFlags(pub u16);

impl StatusFlags {
    pub const IN_TRANS: StatusFlags = StatusFlags(0x0001);
    pub const AUTOCOMMIT: StatusFlags = StatusFlags(0x0002);
    pub const MORE_RESULTS_EXISTS: StatusFlags = StatusFlags(0x0008);
    pub const NO_GOOD_INDEX_USED: StatusFlags = StatusFlags(0x0010);
    pub const NO_INDEX_USED: StatusFlags = StatusFlags(0x0020);
    pub const CURSOR_EXISTS: StatusFlags = StatusFlags(0x0040);
    pub const LAST_ROW_SENT: StatusFlags = StatusFlags(0x0080);
    pub const DB_DROPPED: StatusFlags = StatusFlags(0x0100);
    pub const NO_BACKSLASH_ESCAPES: StatusFlags = StatusFlags(0x0200);
    pub const METADATA_CHANGED: StatusFlags = StatusFlags(0x0400);
    pub const IN_TRANS_READONLY: StatusFlags = StatusFlags(0x2000);

    /// The bits a backend is allowed to set.
    pub const SESSION_MASK: StatusFlags = StatusFlags(0x0001 | 0x0002 | 0x0200 | 0x2000);

    pub fn contains(self, other: StatusFlags) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn with(self, other: StatusFlags, on: bool) -> StatusFlags {
        if on {
            StatusFlags(self.0 | other.0)
        } else {
            StatusFlags(self.0 & !other.0)
        }
    }

    /// Keeps only the session-state bits.
    pub fn session_only(self) -> StatusFlags {
        StatusFlags(self.0 & Self::SESSION_MASK.0)
    }
}

impl BitOr for StatusFlags {
    type Output = StatusFlags;
    fn bitor(self, rhs: StatusFlags) -> StatusFlags {
        StatusFlags(self.0 | rhs.0)
    }
}

impl BitOrAssign for StatusFlags {
    fn bitor_assign(&mut self, rhs: StatusFlags) {
        self.0 |= rhs.0;
    }
}
