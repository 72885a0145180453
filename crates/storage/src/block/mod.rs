//! The tree file's block layer: header slots, the translation table and space allocation
//! (file-format.md §3).

pub mod allocator;
pub mod slots;
pub mod table;

pub use allocator::Allocator;
pub use table::{BlockLoc, TranslationTable};
