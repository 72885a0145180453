//! Compression codecs for node chunks (file-format.md §6).
//!
//! A chunk is compressed on its own so it can be read and checked alone. Every codec's decoder is given the
//! expected raw length and fails (never panics) when the stored bytes do not decode to exactly that length.

use std::io::{Read, Write};

/// zstd's level when a tree names none. Chunks are frames of 16 KiB or less, where levels 1 and 3 store
/// the same bytes and level 1 compresses 1.3-1.9x as fast (its "fast" strategy against level 3's "double
/// fast"; `betula-bench codecs`, bench/results/2026-11-25-zstd-level.md); compressing was over a third
/// of the flusher's CPU in random inserts at 10x the cache (perf).
pub const ZSTD_DEFAULT_LEVEL: i32 = 1;

/// A compression codec. The numeric values are stored on disk: never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Codec {
    /// Stored raw.
    None = 0,
    /// LZ4 block format (lz4_flex).
    Lz4 = 1,
    /// Snappy raw format.
    Snappy = 2,
    /// zlib (flate2).
    Zlib = 3,
    /// Zstandard (the default).
    #[default]
    Zstd = 4,
    /// LZMA in an xz container.
    Lzma = 5,
}

impl Codec {
    /// All codecs, in on-disk order.
    pub const ALL: [Codec; 6] = [
        Codec::None,
        Codec::Lz4,
        Codec::Snappy,
        Codec::Zlib,
        Codec::Zstd,
        Codec::Lzma,
    ];

    /// The codec stored as `value`, if any.
    pub fn from_u8(value: u8) -> Option<Codec> {
        Codec::ALL.get(value as usize).copied()
    }

    /// The codec's name as users write it (`COMPRESSION='zstd'`).
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Lz4 => "lz4",
            Codec::Snappy => "snappy",
            Codec::Zlib => "zlib",
            Codec::Zstd => "zstd",
            Codec::Lzma => "lzma",
        }
    }

    /// Parses a user-facing name (case-insensitive), including TokuDB's row-format names.
    pub fn parse(name: &str) -> Option<Codec> {
        match name.to_ascii_lowercase().as_str() {
            "none" | "uncompressed" | "tokudb_uncompressed" => Some(Codec::None),
            "lz4" | "quicklz" | "tokudb_quicklz" | "fast" | "tokudb_fast" => Some(Codec::Lz4),
            "snappy" | "tokudb_snappy" => Some(Codec::Snappy),
            "zlib" | "tokudb_zlib" | "default" | "tokudb_default" => Some(Codec::Zlib),
            "zstd" => Some(Codec::Zstd),
            "lzma" | "tokudb_lzma" | "small" | "tokudb_small" => Some(Codec::Lzma),
            _ => None,
        }
    }

    /// Compresses `raw`. `level` is codec-specific (0 = the codec's default).
    pub fn compress(self, raw: &[u8], level: i32) -> Vec<u8> {
        match self {
            Codec::None => raw.to_vec(),
            Codec::Lz4 => lz4_flex::compress(raw),
            Codec::Snappy => snap::raw::Encoder::new()
                .compress_vec(raw)
                .expect("snappy cannot fail on in-memory input below 4 GiB"),
            Codec::Zlib => {
                let lvl = if level <= 0 { 6 } else { level.min(9) as u32 };
                let mut enc = flate2::write::ZlibEncoder::new(
                    Vec::with_capacity(raw.len() / 2),
                    flate2::Compression::new(lvl),
                );
                enc.write_all(raw).expect("writing to a Vec cannot fail");
                enc.finish().expect("writing to a Vec cannot fail")
            }
            Codec::Zstd => {
                let lvl = if level == 0 {
                    ZSTD_DEFAULT_LEVEL
                } else {
                    level
                };
                ZSTD_CCTX.with(|c| {
                    let mut c = c.borrow_mut();
                    if c.as_ref().is_none_or(|(l, _)| *l != lvl) {
                        let cctx = zstd::bulk::Compressor::new(lvl)
                            .expect("zstd compressor for a valid level");
                        *c = Some((lvl, cctx));
                    }
                    c.as_mut()
                        .expect("just set")
                        .1
                        .compress(raw)
                        .expect("zstd compression of memory cannot fail")
                })
            }
            Codec::Lzma => {
                let lvl = if level <= 0 { 2 } else { level.min(9) as u32 };
                let mut enc = xz2::write::XzEncoder::new(Vec::with_capacity(raw.len() / 2), lvl);
                enc.write_all(raw).expect("writing to a Vec cannot fail");
                enc.finish().expect("writing to a Vec cannot fail")
            }
        }
    }

    /// Decompresses `stored`, which must decode to exactly `raw_len` bytes.
    pub fn decompress(self, stored: &[u8], raw_len: usize) -> Result<Vec<u8>, String> {
        let out = match self {
            Codec::None => stored.to_vec(),
            Codec::Lz4 => lz4_flex::decompress(stored, raw_len).map_err(|e| e.to_string())?,
            Codec::Snappy => {
                let n = snap::raw::decompress_len(stored).map_err(|e| e.to_string())?;
                if n != raw_len {
                    return Err(format!("snappy length {n}, expected {raw_len}"));
                }
                snap::raw::Decoder::new()
                    .decompress_vec(stored)
                    .map_err(|e| e.to_string())?
            }
            Codec::Zlib => read_bounded(flate2::read::ZlibDecoder::new(stored), raw_len)?,
            Codec::Zstd => ZSTD_DCTX.with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = Some(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?);
                }
                d.as_mut()
                    .expect("just set")
                    .decompress(stored, raw_len)
                    .map_err(|e| e.to_string())
            })?,
            Codec::Lzma => read_bounded(xz2::read::XzDecoder::new(stored), raw_len)?,
        };
        if out.len() != raw_len {
            return Err(format!(
                "decompressed to {} bytes, expected {raw_len}",
                out.len()
            ));
        }
        Ok(out)
    }
}

thread_local! {
    /// zstd contexts are costly to create (a profile of point reads showed 8% in context creation): each
    /// thread keeps one of each.
    static ZSTD_CCTX: std::cell::RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { std::cell::RefCell::new(None) };
    static ZSTD_DCTX: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// Reads at most `raw_len + 1` bytes so a malicious stream cannot blow up memory.
fn read_bounded(reader: impl Read, raw_len: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(raw_len);
    reader
        .take(raw_len as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_round_trips_and_rejects_garbage() {
        let raw: Vec<u8> = (0..20000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for codec in Codec::ALL {
            let stored = codec.compress(&raw, 0);
            assert_eq!(
                codec.decompress(&stored, raw.len()).unwrap(),
                raw,
                "{codec:?}"
            );
            assert!(
                codec.decompress(&stored, raw.len() + 1).is_err(),
                "{codec:?}"
            );
            if codec != Codec::None {
                assert!(stored.len() < raw.len(), "{codec:?} did not compress");
                let garbage: Vec<u8> = stored.iter().map(|b| b.wrapping_mul(7) ^ 0x5a).collect();
                // Must not panic; may or may not error depending on codec framing.
                let _ = codec.decompress(&garbage, raw.len());
            }
            assert_eq!(Codec::from_u8(codec as u8), Some(codec));
            assert_eq!(Codec::parse(codec.name()), Some(codec));
        }
        assert_eq!(Codec::from_u8(6), None);
    }
}
