#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Ollama probe against tiny fake servers on 127.0.0.1.

use crate::support::bounded::ends;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use light_agent::ai::{PROBE_TIMEOUT, probe_ollama as probe_within};

async fn probe_ollama(url: &str) -> Option<String> {
    probe_within(url, PROBE_TIMEOUT).await
}

/// Serves one connection with `reply`; sends back the request head it read.
fn fake_server(reply: Vec<u8>) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap() == 1 {
            head.push(byte[0]);
        }
        tx.send(String::from_utf8(head).unwrap()).unwrap();
        // Written in two parts so the client must keep reading.
        let (first, rest) = reply.split_at(reply.len() / 2);
        conn.write_all(first).unwrap();
        conn.flush().unwrap();
        thread::sleep(Duration::from_millis(20));
        conn.write_all(rest).unwrap();
    });
    (format!("http://127.0.0.1:{port}/v1"), rx)
}

fn json_reply(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

const TAGS: &str =
    r#"{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":1},{"name":"llama3.2:latest"}]}"#;

#[tokio::test]
async fn returns_the_first_model_of_the_tag_list() {
    let (url, requests) = fake_server(json_reply(TAGS));
    assert_eq!(probe_ollama(&url).await.as_deref(), Some("qwen3:8b"));
    let head = requests.recv().unwrap();
    assert!(head.starts_with("GET /api/tags HTTP/1.1\r\n"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains(&format!(
            "host: {}\r\n",
            url.trim_start_matches("http://").trim_end_matches("/v1")
        )),
        "{head}"
    );
    assert!(
        !head.to_ascii_lowercase().contains("authorization"),
        "{head}"
    );
}

#[tokio::test]
async fn reads_a_chunked_reply() {
    let (a, b) = TAGS.split_at(10);
    let reply = format!(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let (url, _requests) = fake_server(reply.into_bytes());
    assert_eq!(probe_ollama(&url).await.as_deref(), Some("qwen3:8b"));
}

#[tokio::test]
async fn an_empty_list_or_an_error_status_is_none() {
    let (url, _r) = fake_server(json_reply(r#"{"models":[]}"#));
    assert_eq!(probe_ollama(&url).await, None);
    let (url, _r) =
        fake_server(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found".to_vec());
    assert_eq!(probe_ollama(&url).await, None);
}

#[tokio::test]
async fn returns_none_when_nothing_listens() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    assert_eq!(
        ends("the probe of a closed port", probe_ollama(&url)).await,
        None
    );
}

#[tokio::test]
async fn gives_up_on_a_server_that_never_answers() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/v1",
        listener.local_addr().unwrap().port()
    );
    // Accepted by the kernel's backlog, never answered: only the budget ends it.
    let probe = probe_within(&url, Duration::from_millis(300));
    assert_eq!(ends("the probe of a silent server", probe).await, None);
    drop(listener);
}

#[tokio::test]
async fn only_plain_http_is_probed() {
    assert_eq!(probe_ollama("https://127.0.0.1:1/v1").await, None);
}
