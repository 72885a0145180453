//! The field and line splitter of LOAD DATA: turns a byte stream into records of fields with
//! MySQL's rules, streaming (memory: one buffer plus the current record).
//!
//! Rules (MySQL 8, `sql_load.cc` READ_INFO, for the delimited format):
//! * A record starts after LINES STARTING BY (bytes before it are skipped; a line without it is
//!   skipped) and ends at LINES TERMINATED BY or at the end of the input. A terminator at the very
//!   end does not start another record.
//! * Fields end at FIELDS TERMINATED BY. A field that starts with the ENCLOSED BY character is
//!   quoted: terminators inside it are data, a doubled quote is one quote, and the quote ends the
//!   field only when a field or line terminator (or the end) follows; otherwise it is data.
//!   An unterminated quote runs to the end of the input (MySQL does the same).
//! * ESCAPED BY `c`: `c0` NUL, `cb` backspace, `cn` newline, `cr` return, `ct` tab, `cZ` 0x1A, any
//!   other `cx` is `x` (so escaped terminators and quotes are data). A field that is exactly
//!   `cN` is NULL; with ENCLOSED BY set, an unquoted field `NULL` is NULL too. An empty ESCAPED BY
//!   turns escapes off.
//!
//! Invariant: `line` of a record is the 1-based physical line (count of `\n` before it + 1)
//! where the record starts, for error messages.

use std::io::{self, Read};

use crate::parser::load::Format;

/// One field of a record: a byte range of `Record::data`, or NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub start: usize,
    pub end: usize,
    pub null: bool,
}

/// One record (one row of the file).
#[derive(Debug, Default, Clone)]
pub struct Record {
    pub data: Vec<u8>,
    pub fields: Vec<Field>,
    /// Physical line (1-based) where the record starts.
    pub line: u64,
}

impl Record {
    /// The bytes of field `i` (None: NULL).
    pub fn field(&self, i: usize) -> Option<&[u8]> {
        let f = self.fields[i];
        (!f.null).then(|| &self.data[f.start..f.end])
    }
}

const BUF_BYTES: usize = 1 << 20;

/// Reads records from `R`.
pub struct FieldReader<R> {
    input: R,
    fmt: Format,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Newlines consumed so far.
    newlines: u64,
    /// Bytes consumed so far.
    consumed: u64,
}

impl<R: Read> FieldReader<R> {
    pub fn new(input: R, fmt: Format) -> FieldReader<R> {
        FieldReader {
            input,
            fmt,
            buf: vec![0; BUF_BYTES],
            pos: 0,
            end: 0,
            eof: false,
            newlines: 0,
            consumed: 0,
        }
    }

    /// Bytes of input consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.consumed
    }

    /// Makes at least `n` bytes available at `pos` unless the input ends first; returns how many are.
    fn fill(&mut self, n: usize) -> io::Result<usize> {
        while self.end - self.pos < n && !self.eof {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.pos = 0;
            }
            if self.end == self.buf.len() {
                let len = self.buf.len();
                self.buf.resize(len * 2, 0);
            }
            let got = loop {
                match self.input.read(&mut self.buf[self.end..]) {
                    Ok(g) => break g,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if got == 0 {
                self.eof = true;
            }
            self.end += got;
        }
        Ok(self.end - self.pos)
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        if self.pos < self.end || self.fill(1)? > 0 {
            Ok(Some(self.buf[self.pos]))
        } else {
            Ok(None)
        }
    }

    fn bump(&mut self) {
        if self.buf[self.pos] == b'\n' {
            self.newlines += 1;
        }
        self.pos += 1;
        self.consumed += 1;
    }

    /// Whether the input continues with `s` at `pos + skip` (no bytes consumed).
    fn looking_at(&mut self, skip: usize, s: &[u8]) -> io::Result<bool> {
        if s.is_empty() {
            return Ok(false);
        }
        if self.end - self.pos < skip + s.len() && self.fill(skip + s.len())? < skip + s.len() {
            return Ok(false);
        }
        let at = self.pos + skip;
        Ok(&self.buf[at..at + s.len()] == s)
    }

    fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    /// Skips to just after the next LINES STARTING BY; false at the end of the input.
    fn find_line_start(&mut self) -> io::Result<bool> {
        let start = self.fmt.line_start.clone();
        loop {
            if self.looking_at(0, &start)? {
                self.skip(start.len());
                return Ok(true);
            }
            if self.peek()?.is_none() {
                return Ok(false);
            }
            self.bump();
        }
    }

    /// Reads the next record into `rec`; false at the end of the input.
    pub fn next_record(&mut self, rec: &mut Record) -> io::Result<bool> {
        rec.data.clear();
        rec.fields.clear();
        if self.peek()?.is_none() {
            return Ok(false);
        }
        if !self.fmt.line_start.is_empty() && !self.find_line_start()? {
            return Ok(false);
        }
        rec.line = self.newlines + 1;
        loop {
            let (field, line_end) = self.read_field(&mut rec.data)?;
            rec.fields.push(field);
            if line_end {
                return Ok(true);
            }
        }
    }

    /// Reads one field; returns it and whether the record ended after it.
    fn read_field(&mut self, data: &mut Vec<u8>) -> io::Result<(Field, bool)> {
        let start = data.len();
        let ft = std::mem::take(&mut self.fmt.field_term);
        let lt = std::mem::take(&mut self.fmt.line_term);
        let r = self.read_field_inner(data, &ft, &lt);
        self.fmt.field_term = ft;
        self.fmt.line_term = lt;
        let (quoted, escaped_n, line_end) = r?;
        let bytes = &data[start..];
        let null = (escaped_n && bytes == b"N")
            || (!quoted && self.fmt.enclosed.is_some() && bytes == b"NULL");
        if null {
            data.truncate(start);
        }
        Ok((
            Field {
                start,
                end: data.len(),
                null,
            },
            line_end,
        ))
    }

    /// Returns (quoted, saw an escaped `N`, line ended).
    fn read_field_inner(
        &mut self,
        data: &mut Vec<u8>,
        ft: &[u8],
        lt: &[u8],
    ) -> io::Result<(bool, bool, bool)> {
        let esc = self.fmt.escape;
        let enc = self.fmt.enclosed;
        let ft0 = ft.first().copied();
        let lt0 = lt[0];
        let mut escaped_n = false;
        let quoted = match (enc, self.peek()?) {
            (Some(q), Some(c)) if c == q => {
                self.bump();
                true
            }
            _ => false,
        };
        loop {
            // Fast path: plain bytes up to the next byte that may mean something.
            let avail = &self.buf[self.pos..self.end];
            let plain = avail
                .iter()
                .position(|&b| {
                    Some(b) == ft0 || b == lt0 || Some(b) == esc || Some(b) == enc || b == b'\n'
                })
                .unwrap_or(avail.len());
            if plain > 0 {
                data.extend_from_slice(&avail[..plain]);
                self.pos += plain;
                self.consumed += plain as u64;
                continue;
            }
            let Some(c) = self.peek()? else {
                return Ok((quoted, escaped_n, true));
            };
            if Some(c) == esc && !(quoted && enc == esc) {
                self.bump();
                match self.peek()? {
                    None => {
                        data.push(c);
                        return Ok((quoted, escaped_n, true));
                    }
                    Some(n) => {
                        self.bump();
                        data.push(match n {
                            b'0' => 0,
                            b'b' => 8,
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'Z' => 0x1a,
                            b'N' => {
                                escaped_n = true;
                                b'N'
                            }
                            other => other,
                        });
                    }
                }
                continue;
            }
            if quoted && Some(c) == enc {
                if self.looking_at(1, &[c])? {
                    self.skip(2);
                    data.push(c);
                    continue;
                }
                if self.looking_at(1, ft)? {
                    self.skip(1 + ft.len());
                    return Ok((quoted, escaped_n, false));
                }
                if self.looking_at(1, lt)? {
                    self.skip(1 + lt.len());
                    return Ok((quoted, escaped_n, true));
                }
                self.bump();
                if self.peek()?.is_none() {
                    return Ok((quoted, escaped_n, true));
                }
                data.push(c);
                continue;
            }
            if !quoted {
                if self.looking_at(0, ft)? {
                    self.skip(ft.len());
                    return Ok((quoted, escaped_n, false));
                }
                if self.looking_at(0, lt)? {
                    self.skip(lt.len());
                    return Ok((quoted, escaped_n, true));
                }
            }
            self.bump();
            data.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8], fmt: Format) -> Vec<(u64, Vec<Option<String>>)> {
        let mut r = FieldReader::new(input, fmt);
        let mut rec = Record::default();
        let mut out = Vec::new();
        while r.next_record(&mut rec).unwrap() {
            let fields = (0..rec.fields.len())
                .map(|i| {
                    rec.field(i)
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                })
                .collect();
            out.push((rec.line, fields));
        }
        out
    }
    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }
    fn csv() -> Format {
        Format {
            field_term: b",".to_vec(),
            enclosed: Some(b'"'),
            ..Format::default()
        }
    }

    #[test]
    fn tab_separated_defaults() {
        let r = split(b"1\tab\\tc\t\\N\n2\t\\\\x\t\n", Format::default());
        assert_eq!(
            r,
            vec![
                (1, vec![s("1"), s("ab\tc"), None]),
                (2, vec![s("2"), s("\\x"), s("")])
            ]
        );
    }

    #[test]
    fn quoted_csv() {
        let r = split(
            b"1,\"a,b\",\"say \"\"hi\"\"\"\n2,\"multi\nline\",NULL\n3,\"NULL\",x\"y\n",
            csv(),
        );
        assert_eq!(
            r,
            vec![
                (1, vec![s("1"), s("a,b"), s("say \"hi\"")]),
                (2, vec![s("2"), s("multi\nline"), None]),
                (4, vec![s("3"), s("NULL"), s("x\"y")]),
            ]
        );
    }

    #[test]
    fn unterminated_quote_runs_to_the_end() {
        let r = split(b"1,\"open\n2,x\n", csv());
        assert_eq!(r, vec![(1, vec![s("1"), s("open\n2,x\n")])]);
    }

    #[test]
    fn line_options() {
        let fmt = Format {
            field_term: b"||".to_vec(),
            line_start: b">>".to_vec(),
            line_term: b"\r\n".to_vec(),
            ..Format::default()
        };
        let r = split(b"junk>>a||b\r\nno prefix\r\nxx>>c||d||\r\n", fmt);
        assert_eq!(
            r,
            vec![(1, vec![s("a"), s("b")]), (3, vec![s("c"), s("d"), s("")])]
        );
    }

    #[test]
    fn no_escape_and_last_line_without_terminator() {
        let fmt = Format {
            escape: None,
            ..Format::default()
        };
        let r = split(b"a\\N\t\\N\nlast", fmt);
        assert_eq!(
            r,
            vec![(1, vec![s("a\\N"), s("\\N")]), (2, vec![s("last")])]
        );
    }

    #[test]
    fn escaped_terminators_and_specials() {
        let r = split(b"a\\,b,c\\0\\Z\n", csv());
        assert_eq!(r, vec![(1, vec![s("a,b"), s("c\0\x1a")])]);
    }

    #[test]
    fn tiny_reads_give_the_same_records() {
        struct Drip<'a>(&'a [u8]);
        impl Read for Drip<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let input = b"1,\"a\"\"b\",x\r\n2,\\N,\"q\"\r\n";
        let fmt = Format {
            line_term: b"\r\n".to_vec(),
            ..csv()
        };
        let mut a = FieldReader::new(Drip(input), fmt.clone());
        let mut rec = Record::default();
        let mut n = 0;
        while a.next_record(&mut rec).unwrap() {
            n += 1;
        }
        assert_eq!(n, 2);
        assert_eq!(split(input, fmt).len(), 2);
        assert_eq!(a.bytes_read(), input.len() as u64);
    }
}
