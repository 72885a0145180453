//! HANDLER cursors a connection holds open (`HANDLER t OPEN`): per alias, the table, the key
//! read and the last entry examined (exec/handler.rs reads through them).

use std::collections::HashMap;

/// Open handlers of a session, by lower-cased alias.
pub type Handlers = HashMap<String, Handler>;

#[derive(Clone, Debug)]
pub struct Handler {
    pub(crate) db: String,
    pub(crate) table: String,
    pub(crate) alias: String,
    /// Key read (`None`: natural order) and the last entry examined.
    pub(crate) key: Option<Option<usize>>,
    pub(crate) pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Pos {
    Start,
    At(Vec<u8>),
    /// Ran off the end reading forward (true) or backward (false).
    End(bool),
}
