//! Residuals (file-format.md §3.5): a run of unsigned integers, small after the transform of the
//! column that made them, stored bit-packed or, when every one is below 256, entropy coded.
//!
//! Layout: a mode byte, then: mode 0..=64: the values bit-packed at that width (`bits.rs`);
//! mode [`MODE_RANS`]: the values as byte symbols entropy coded (`rans.rs`).
//!
//! Invariant: [`Residuals::plan`] costs each mode exactly as [`Residuals::write`] would write it
//! (rANS within a few bytes, from its entropy), so the column encoders compare true sizes.

use super::{bits, rans};
use crate::encoding::{DecodeError, Decoder, Encode};

/// Mode byte of entropy-coded residuals.
pub const MODE_RANS: u8 = 65;

/// The cheaper way to store a run of residuals, and its size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Residuals {
    pub mode: u8,
    pub bytes: usize,
}

impl Residuals {
    /// The cheaper mode for `values` (their maximum is `max`).
    pub fn plan(values: &[u64], max: u64) -> Residuals {
        let width = bits::width_of(max);
        let packed = Residuals {
            mode: width as u8,
            bytes: 1 + bits::packed_len(values.len(), width),
        };
        // Entropy coding pays only when there is something to shave off a bit width; a column of
        // one value is bit-packed at width 0 for nothing.
        if max >= 256 || width == 0 || values.len() < 16 {
            return packed;
        }
        let hist = rans::histogram(values.iter().map(|&v| v as u8));
        let coded = 1 + rans::estimate_len(&hist, values.len());
        if coded < packed.bytes {
            Residuals {
                mode: MODE_RANS,
                bytes: coded,
            }
        } else {
            packed
        }
    }

    /// Appends `values` in this mode.
    pub fn write(self, values: &[u64], out: &mut Vec<u8>) {
        out.put_u8(self.mode);
        if self.mode == MODE_RANS {
            let symbols: Vec<u8> = values.iter().map(|&v| v as u8).collect();
            let hist = rans::histogram(symbols.iter().copied());
            rans::encode(&symbols, &hist, out);
        } else {
            bits::pack(values, u32::from(self.mode), out);
        }
    }
}

/// Reads `n` residuals written by [`Residuals::write`].
pub fn read(d: &mut Decoder<'_>, n: usize) -> Result<Vec<u64>, DecodeError> {
    let mode = d.u8()?;
    if mode == MODE_RANS {
        return Ok(rans::decode(d, n)?.into_iter().map(u64::from).collect());
    }
    if mode > 64 {
        return Err(DecodeError(format!("unknown residual mode {mode}")));
    }
    let len = bits::packed_len(n, u32::from(mode));
    if len > d.remaining() {
        return Err(DecodeError(format!(
            "{n} residuals of {mode} bits overrun the column"
        )));
    }
    let bytes = d.take(len)?;
    Ok(bits::unpack(bytes, n, u32::from(mode))?.0)
}
