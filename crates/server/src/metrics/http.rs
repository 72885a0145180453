//! The little HTTP/1.1 the metrics endpoint speaks: one request per connection, read with a size limit
//! ([`read_request`]), answered by [`route`] and closed (`Connection: close`).
//!
//! Invariants: no input makes this panic; a request head larger than [`MAX_HEAD_BYTES`], or one that is
//! not `METHOD SP target SP HTTP/1.x` with printable ASCII, is answered 400; only `GET` and `HEAD` are
//! served (405 otherwise, with `Allow`); `/metrics` is the only path with content (404 otherwise, `/`
//! gives a pointer to it); `HEAD` gets the headers `GET` would, without the body.

use std::io::{self, Read, Write};

/// Largest request head (request line and headers) read.
pub const MAX_HEAD_BYTES: usize = 8 << 10;

/// The content type of the Prometheus text exposition format.
pub const EXPOSITION_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A request's line, as far as answering it needs.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The target's path (without the query).
    pub path: String,
}

/// Why a request is not answered with content.
#[derive(Debug, PartialEq, Eq)]
pub enum BadRequest {
    /// Not HTTP, or a head too large (400).
    Malformed,
    /// The connection ended or timed out before a whole head arrived (no answer).
    Incomplete,
}

/// Reads a request head from `r` (up to the blank line ending it).
pub fn read_request(r: &mut impl Read) -> Result<Request, BadRequest> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    loop {
        if let Some(end) = find_blank_line(&head) {
            head.truncate(end);
            return parse_head(&head);
        }
        if head.len() > MAX_HEAD_BYTES {
            return Err(BadRequest::Malformed);
        }
        match r.read(&mut buf) {
            Ok(0) if head.is_empty() => return Err(BadRequest::Incomplete),
            // A client that sent a line and closed its side: answer what arrived.
            Ok(0) => return parse_head(&head),
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(BadRequest::Incomplete),
        }
    }
}

/// The end of the head: the first empty line (CRLF CRLF, or LF LF from a lenient client).
fn find_blank_line(b: &[u8]) -> Option<usize> {
    let crlf = b.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = b.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The request line of a head.
fn parse_head(head: &[u8]) -> Result<Request, BadRequest> {
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    let line = std::str::from_utf8(&head[..line_end])
        .map_err(|_| BadRequest::Malformed)?
        .trim_end_matches('\r');
    if !line.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err(BadRequest::Malformed);
    }
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadRequest::Malformed);
    };
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    if !token(method) || !target.starts_with('/') || !version.starts_with("HTTP/1.") {
        return Err(BadRequest::Malformed);
    }
    let path = target.split(['?', '#']).next().unwrap_or(target);
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
    })
}

/// A response: status line, content type and body.
#[derive(Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub reason: &'static str,
    pub content_type: &'static str,
    pub body: String,
    /// `HEAD`: the headers only.
    pub head_only: bool,
    /// 405: the methods allowed.
    pub allow: bool,
}

impl Response {
    fn plain(status: u16, reason: &'static str, body: &str) -> Response {
        Response {
            status,
            reason,
            content_type: "text/plain; charset=utf-8",
            body: format!("{body}\n"),
            head_only: false,
            allow: false,
        }
    }

    /// The answer to a request that could not be read as HTTP.
    pub fn bad_request() -> Response {
        Response::plain(400, "Bad Request", "400 bad request")
    }

    /// Writes the response (the body's length is in `Content-Length`; the connection then closes).
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.status,
            self.reason,
            self.content_type,
            self.body.len()
        );
        if self.allow {
            head.push_str("Allow: GET, HEAD\r\n");
        }
        head.push_str("\r\n");
        w.write_all(head.as_bytes())?;
        if !self.head_only {
            w.write_all(self.body.as_bytes())?;
        }
        w.flush()
    }
}

/// The answer to `req`; `metrics` renders the exposition text (called only for `/metrics`).
pub fn route(req: &Request, metrics: impl FnOnce() -> String) -> Response {
    let head_only = req.method == "HEAD";
    if req.method != "GET" && !head_only {
        return Response {
            allow: true,
            ..Response::plain(405, "Method Not Allowed", "405 method not allowed")
        };
    }
    let mut r = match req.path.as_str() {
        "/metrics" => Response {
            content_type: EXPOSITION_TYPE,
            body: metrics(),
            ..Response::plain(200, "OK", "")
        },
        "/" => Response::plain(200, "OK", "Betula metrics: /metrics"),
        _ => Response::plain(404, "Not Found", "404 not found"),
    };
    r.head_only = head_only;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<Request, BadRequest> {
        read_request(&mut &bytes[..])
    }

    #[test]
    fn requests_are_read_up_to_the_blank_line() {
        let r = read(b"GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\nrest").unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/metrics");
        assert_eq!(read(b"HEAD / HTTP/1.0\n\n").unwrap().path, "/");
        assert_eq!(read(b"GET /metrics HTTP/1.1\r\n").unwrap().path, "/metrics");
        assert_eq!(read(b""), Err(BadRequest::Incomplete));
    }

    #[test]
    fn malformed_requests_are_bad() {
        for bad in [
            &b"hello\r\n\r\n"[..],
            b"GET metrics HTTP/1.1\r\n\r\n",
            b"GET /metrics\r\n\r\n",
            b"GET /metrics HTTP/2\r\n\r\n",
            b"GET /a b HTTP/1.1\r\n\r\n",
            b"G\xffT / HTTP/1.1\r\n\r\n",
            b"GET /\x01 HTTP/1.1\r\n\r\n",
            b"\r\n\r\n",
        ] {
            assert_eq!(read(bad), Err(BadRequest::Malformed), "{bad:?}");
        }
        let huge = format!("GET /{} HTTP/1.1", "a".repeat(MAX_HEAD_BYTES + 10));
        assert_eq!(read(huge.as_bytes()), Err(BadRequest::Malformed));
    }

    #[test]
    fn only_get_and_head_of_metrics_have_content() {
        let req = |m: &str, p: &str| Request {
            method: m.into(),
            path: p.into(),
        };
        let ok = route(&req("GET", "/metrics"), || "a 1\n".into());
        assert_eq!((ok.status, ok.body.as_str()), (200, "a 1\n"));
        assert_eq!(ok.content_type, EXPOSITION_TYPE);
        let head = route(&req("HEAD", "/metrics"), || "a 1\n".into());
        let mut out = Vec::new();
        head.write_to(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.contains("Content-Length: 4\r\n") && text.ends_with("\r\n\r\n"));
        assert_eq!(route(&req("GET", "/nope"), String::new).status, 404);
        let post = route(&req("POST", "/metrics"), || unreachable!());
        assert_eq!(post.status, 405);
        let mut out = Vec::new();
        post.write_to(&mut out).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .contains("Allow: GET, HEAD\r\n"));
        assert_eq!(route(&req("GET", "/"), String::new).status, 200);
    }
}
