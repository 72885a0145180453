//! The environment's failure latch (design.md, "Failure handling").
//!
//! After the first failed write or fsync the latch is set for good: every later write is refused with
//! [`Error::Poisoned`] naming the first failure. Nothing retries an fsync.

use crate::error::{Error, Result};
use parking_lot::Mutex;

#[derive(Default)]
pub struct Health {
    failure: Mutex<Option<String>>,
}

impl Health {
    /// Fails if the latch is set.
    pub fn check(&self) -> Result<()> {
        match &*self.failure.lock() {
            Some(why) => Err(Error::Poisoned(why.clone())),
            None => Ok(()),
        }
    }

    /// Sets the latch (keeping the first reason) and returns the error to hand back.
    pub fn fail(&self, err: Error) -> Error {
        let mut f = self.failure.lock();
        if f.is_none() {
            *f = Some(err.to_string());
        }
        err
    }

    /// The first failure, if any.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().clone()
    }
}
