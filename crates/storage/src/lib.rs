//! Betula storage engine.
