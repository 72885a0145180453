//! Betula SQL layer (see docs/design.md).
