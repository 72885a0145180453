//! Betula benchmark suite.
fn main() {}
