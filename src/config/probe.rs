//! [`probe_ollama`]: asks a local Ollama for its first model, quickly.
//!
//! Hand-written HTTP/1.1 over `std::net` on purpose: it runs before any
//! async runtime exists and must give up within a fixed, short time.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Total time the probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(300);

/// Largest reply the probe reads; a model list is far smaller.
const MAX_REPLY_BYTES: u64 = 1 << 20;

/// The first model a local Ollama at `base_url` lists (`GET /api/tags`), or
/// `None` if nothing answers within [`PROBE_TIMEOUT`], the answer is not a
/// model list, or the list is empty.
///
/// `base_url` is the profile's URL (`http://127.0.0.1:11434/v1`); a trailing
/// `/v1` is dropped. Only `http://` URLs are probed. No key is ever sent.
pub fn probe_ollama(base_url: &str) -> Option<String> {
    probe_ollama_within(base_url, PROBE_TIMEOUT)
}

/// [`probe_ollama`] with a caller-chosen time budget.
pub fn probe_ollama_within(base_url: &str, budget: Duration) -> Option<String> {
    let deadline = Instant::now() + budget;
    let (authority, prefix) = split_http_url(base_url)?;
    let address = authority_with_port(authority)
        .to_socket_addrs()
        .ok()?
        .next()?;
    let mut stream = TcpStream::connect_timeout(&address, remaining(deadline)?).ok()?;
    stream.set_write_timeout(Some(remaining(deadline)?)).ok()?;
    let request = format!(
        "GET {prefix}/api/tags HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;

    let mut reply = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        stream.set_read_timeout(Some(remaining(deadline)?)).ok()?;
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                reply.extend_from_slice(&chunk[..n]);
                if reply.len() as u64 > MAX_REPLY_BYTES {
                    return None;
                }
                if complete_body(&reply).is_some() {
                    break;
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let body = complete_body(&reply)?;
    first_model(&body)
}

/// `http://host:port/path` → (`host:port`, `/path` without a trailing `/v1`).
fn split_http_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("http://")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let path = path.trim_end_matches('/');
    let path = path.strip_suffix("/v1").unwrap_or(path);
    (!authority.is_empty()).then_some((authority, path))
}

fn authority_with_port(authority: &str) -> String {
    let has_port = match authority.rfind(']') {
        Some(bracket) => authority[bracket..].contains(':'),
        None => authority.contains(':'),
    };
    if has_port {
        authority.to_string()
    } else {
        format!("{authority}:80")
    }
}

fn remaining(deadline: Instant) -> Option<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}

/// The body of a complete `200` reply, or `None` if the reply is not yet
/// complete (or not a success).
fn complete_body(reply: &[u8]) -> Option<Vec<u8>> {
    let split = reply.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&reply[..split]).ok()?;
    let body = &reply[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next()?;
    if status.split_whitespace().nth(1) != Some("200") {
        return None;
    }
    let mut length = None;
    let mut chunked = false;
    for header in lines {
        let (name, value) = header.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    if chunked {
        dechunk(body)
    } else if let Some(length) = length {
        (body.len() >= length).then(|| body[..length].to_vec())
    } else {
        // Neither length nor chunking: the body ends when the server closes,
        // so whatever parses as JSON is complete.
        serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .map(|_| body.to_vec())
    }
}

/// Decodes a chunked body; `None` until the terminating chunk has arrived.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size_text = size_text.split(';').next()?.trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        if body.len() < size + 2 {
            return None;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

fn first_model(body: &[u8]) -> Option<String> {
    let tags: serde_json::Value = serde_json::from_slice(body).ok()?;
    let first = tags.get("models")?.as_array()?.first()?;
    first
        .get("name")
        .or_else(|| first.get("model"))?
        .as_str()
        .filter(|name| !name.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_parts() {
        assert_eq!(
            split_http_url("http://127.0.0.1:11434/v1"),
            Some(("127.0.0.1:11434", ""))
        );
        assert_eq!(
            split_http_url("http://h:1/proxy/v1/"),
            Some(("h:1", "/proxy"))
        );
        assert_eq!(split_http_url("http://h"), Some(("h", "")));
        assert_eq!(split_http_url("https://api.openai.com/v1"), None);
        assert_eq!(authority_with_port("h"), "h:80");
        assert_eq!(authority_with_port("[::1]"), "[::1]:80");
        assert_eq!(authority_with_port("[::1]:5"), "[::1]:5");
    }

    #[test]
    fn bodies_by_length_and_by_chunks() {
        let json = br#"{"models":[{"name":"a"}]}"#;
        let by_length = [
            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", json.len()).into_bytes(),
            json.to_vec(),
        ]
        .concat();
        assert_eq!(complete_body(&by_length).as_deref(), Some(&json[..]));
        assert_eq!(complete_body(&by_length[..by_length.len() - 1]), None);

        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"mod\r\n3\r\nels\r\n0\r\n\r\n";
        assert_eq!(complete_body(chunked).as_deref(), Some(&b"{\"models"[..]));
        assert_eq!(complete_body(&chunked[..chunked.len() - 5]), None);

        let not_found = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(complete_body(not_found), None);
    }

    #[test]
    fn first_model_reads_name_then_model() {
        assert_eq!(
            first_model(br#"{"models":[{"name":"qwen3:8b"},{"name":"b"}]}"#),
            Some("qwen3:8b".into())
        );
        assert_eq!(
            first_model(br#"{"models":[{"model":"m"}]}"#),
            Some("m".into())
        );
        assert_eq!(first_model(br#"{"models":[]}"#), None);
        assert_eq!(first_model(b"not json"), None);
    }
}
