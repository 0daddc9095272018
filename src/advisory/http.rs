//! A tiny HTTP/1.1 client: one `POST` of a JSON body to an `http://` URL over
//! `std::net::TcpStream`, with one deadline over connect, send and receive, a bounded response,
//! and `Content-Length`, chunked or read-to-close bodies. That is all a local llama.cpp or
//! Ollama endpoint needs; `https://` is deliberately out of scope.

use super::AdvisoryError;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Largest response accepted, in bytes.
const MAX_RESPONSE: usize = 1 << 20;

/// `http://host[:port][/path]`, split.
#[derive(Debug, PartialEq, Eq)]
pub struct Url {
    pub host: String,
    pub port: u16,
    pub path: String,
}

pub fn parse_url(url: &str) -> Result<Url, AdvisoryError> {
    let bad = || AdvisoryError::BadUrl(url.to_string());
    let rest = url.strip_prefix("http://").ok_or_else(bad)?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(bad());
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => {
            (h, p.parse::<u16>().map_err(|_| bad())?)
        }
        _ => (authority, 80),
    };
    Ok(Url {
        host: host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        port,
        path: path.trim_end_matches('/').to_string(),
    })
}

/// POSTs `body` to `url` + `path`; returns the status and the body.
pub fn post_json(
    url: &Url,
    path: &str,
    body: &str,
    bearer: Option<&str>,
    timeout: Duration,
) -> Result<(u16, Vec<u8>), AdvisoryError> {
    let deadline = Instant::now() + timeout;
    let millis = timeout.as_millis() as u64;
    let left = || {
        let d = deadline.saturating_duration_since(Instant::now());
        if d.is_zero() {
            Err(AdvisoryError::Timeout(millis))
        } else {
            Ok(d)
        }
    };
    let addrs: Vec<_> = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(|e| AdvisoryError::Connect(format!("{}:{} ({e})", url.host, url.port)))?
        .collect();
    let mut stream = None;
    for addr in &addrs {
        match TcpStream::connect_timeout(addr, left()?) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                return Err(AdvisoryError::Timeout(millis))
            }
            Err(_) => continue,
        }
    }
    let mut stream =
        stream.ok_or_else(|| AdvisoryError::Connect(format!("{}:{}", url.host, url.port)))?;
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            AdvisoryError::Timeout(millis)
        }
        _ => AdvisoryError::Io(e.to_string()),
    };
    let mut request = format!(
        "POST {}{path} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        url.path,
        url.host,
        url.port,
        body.len()
    );
    if let Some(key) = bearer {
        request.push_str(&format!("Authorization: Bearer {key}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.set_write_timeout(Some(left()?)).map_err(io)?;
    stream.write_all(request.as_bytes()).map_err(io)?;
    let mut response = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        stream.set_read_timeout(Some(left()?)).map_err(io)?;
        let n = stream.read(&mut chunk).map_err(io)?;
        if n == 0 {
            break;
        }
        response.extend_from_slice(chunk.get(..n).unwrap_or_default());
        if response.len() > MAX_RESPONSE {
            return Err(AdvisoryError::Malformed(format!(
                "response over {MAX_RESPONSE} bytes"
            )));
        }
        if complete(&response) {
            break;
        }
    }
    split(&response)
}

/// True when a response with a `Content-Length` (or a final chunk) has fully arrived.
fn complete(response: &[u8]) -> bool {
    let Ok((head, body)) = head_body(response) else {
        return false;
    };
    if let Some(len) = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        return body.len() >= len;
    }
    header(&head, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        && body.ends_with(b"0\r\n\r\n")
}

fn head_body(response: &[u8]) -> Result<(String, &[u8]), AdvisoryError> {
    let at = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| AdvisoryError::Malformed("no HTTP header end".into()))?;
    let head = String::from_utf8_lossy(response.get(..at).unwrap_or_default()).into_owned();
    Ok((head, response.get(at + 4..).unwrap_or_default()))
}

fn header(head: &str, name: &str) -> Option<String> {
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_string())
    })
}

/// Splits a raw response into status and decoded body.
fn split(response: &[u8]) -> Result<(u16, Vec<u8>), AdvisoryError> {
    let (head, body) = head_body(response)?;
    let status = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| AdvisoryError::Malformed("no HTTP status line".into()))?;
    let body = if header(&head, "transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        dechunk(body)?
    } else if let Some(len) = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok())
    {
        body.get(..len)
            .ok_or_else(|| AdvisoryError::Malformed("body shorter than Content-Length".into()))?
            .to_vec()
    } else {
        body.to_vec()
    };
    Ok((status, body))
}

fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, AdvisoryError> {
    let bad = || AdvisoryError::Malformed("bad chunked encoding".into());
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n").ok_or_else(bad)?;
        let size_text =
            String::from_utf8_lossy(body.get(..line_end).unwrap_or_default()).into_owned();
        let size_text = size_text
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let size = usize::from_str_radix(&size_text, 16).map_err(|_| bad())?;
        if size == 0 {
            return Ok(out);
        }
        let start = line_end + 2;
        out.extend_from_slice(body.get(start..start + size).ok_or_else(bad)?);
        body = body.get(start + size + 2..).ok_or_else(bad)?;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let u = parse_url("http://127.0.0.1:8080/v1/").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("127.0.0.1", 8080, "/v1")
        );
        let u = parse_url("http://localhost").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("localhost", 80, "")
        );
        let u = parse_url("http://[::1]:11434/v1").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 11434));
        for bad in [
            "https://x/v1",
            "x:80",
            "http://",
            "http://u@h/",
            "http://h:99999/",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bodies() {
        let r = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiXX";
        assert_eq!(split(r).unwrap(), (200, b"hi".to_vec()));
        let r = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert!(complete(r));
        assert_eq!(split(r).unwrap(), (200, b"abcde".to_vec()));
        let r = b"HTTP/1.0 500 Oops\r\n\r\nboom";
        assert_eq!(split(r).unwrap(), (500, b"boom".to_vec()));
        assert!(split(b"garbage").is_err());
    }
}
