//! The `betula` binary.
fn main() {}
