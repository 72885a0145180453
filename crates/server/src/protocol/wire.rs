//! Primitive MySQL wire encodings: little-endian fixed-width integers,
//! length-encoded integers and strings, NUL-terminated strings.
//!
//! Invariants: [`WireReader`] never panics and never reads past its slice;
//! every getter returns `ProtocolError::Malformed` on truncated input. The
//! `put_*` functions append to a `Vec<u8>` and cannot fail.

use super::error::ProtocolError;

type Result<T> = std::result::Result<T, ProtocolError>;

/// A bounds-checked cursor over one packet payload.
#[derive(Debug, Clone)]
pub struct WireReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> WireReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        WireReader { buf, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(ProtocolError::Malformed("truncated packet"));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The rest of the payload (a `string<EOF>`).
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u24(&mut self) -> Result<u32> {
        let b = self.take(3)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-encoded integer. `None` is the NULL marker (0xFB).
    pub fn lenenc_int_or_null(&mut self) -> Result<Option<u64>> {
        match self.u8()? {
            v @ 0..=0xfa => Ok(Some(v as u64)),
            0xfb => Ok(None),
            0xfc => Ok(Some(self.u16()? as u64)),
            0xfd => Ok(Some(self.u24()? as u64)),
            0xfe => Ok(Some(self.u64()?)),
            _ => Err(ProtocolError::Malformed("invalid length-encoded integer")),
        }
    }

    /// A length-encoded integer; NULL is an error here.
    pub fn lenenc_int(&mut self) -> Result<u64> {
        self.lenenc_int_or_null()?
            .ok_or(ProtocolError::Malformed("unexpected NULL length"))
    }

    /// A length-encoded string.
    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8]> {
        let len = self.lenenc_int()?;
        if len > self.remaining() as u64 {
            return Err(ProtocolError::Malformed(
                "length-encoded string overruns packet",
            ));
        }
        self.take(len as usize)
    }

    /// A NUL-terminated string (the NUL is consumed, not returned). A string
    /// running to the end of the payload without NUL is accepted.
    pub fn nul_bytes(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(i) => {
                self.pos += i + 1;
                &rest[..i]
            }
            None => {
                self.pos = self.buf.len();
                rest
            }
        }
    }
}

pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u24(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes()[..3]);
}

pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 0xfb {
        out.push(v as u8);
    } else if v <= 0xffff {
        out.push(0xfc);
        put_u16(out, v as u16);
    } else if v <= 0xff_ffff {
        out.push(0xfd);
        put_u24(out, v as u32);
    } else {
        out.push(0xfe);
        put_u64(out, v);
    }
}

pub fn put_lenenc_bytes(out: &mut Vec<u8>, s: &[u8]) {
    put_lenenc_int(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// The NULL marker of text rows and length-encoded fields.
pub const NULL_MARKER: u8 = 0xfb;

pub fn put_nul_bytes(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(s);
    out.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenenc_round_trip() {
        for v in [
            0u64,
            1,
            250,
            251,
            252,
            0xffff,
            0x10000,
            0xff_ffff,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_lenenc_int(&mut out, v);
            let mut r = WireReader::new(&out);
            assert_eq!(r.lenenc_int().unwrap(), v);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn truncated_inputs_are_errors() {
        assert!(WireReader::new(&[0xfc, 1]).lenenc_int().is_err());
        assert!(WireReader::new(&[0xff]).lenenc_int().is_err());
        assert!(WireReader::new(&[0xfb]).lenenc_int().is_err());
        assert!(WireReader::new(&[5, b'a']).lenenc_bytes().is_err());
        assert!(
            WireReader::new(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
                .lenenc_bytes()
                .is_err()
        );
        assert!(WireReader::new(&[1, 2, 3]).u32().is_err());
    }

    #[test]
    fn nul_strings() {
        let mut r = WireReader::new(b"abc\0de");
        assert_eq!(r.nul_bytes(), b"abc");
        assert_eq!(r.nul_bytes(), b"de");
        assert!(r.is_empty());
        assert_eq!(r.nul_bytes(), b"");
    }
}
