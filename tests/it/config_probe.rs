#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Ollama probe against tiny fake servers on 127.0.0.1.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use light_agent::config::{probe_ollama, probe_ollama_within};

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

#[test]
fn returns_the_first_model_of_the_tag_list() {
    let (url, requests) = fake_server(json_reply(TAGS));
    assert_eq!(probe_ollama(&url).as_deref(), Some("qwen3:8b"));
    let head = requests.recv().unwrap();
    assert!(head.starts_with("GET /api/tags HTTP/1.1\r\n"), "{head}");
    assert!(
        head.contains(&format!(
            "Host: {}\r\n",
            url.trim_start_matches("http://").trim_end_matches("/v1")
        )),
        "{head}"
    );
    assert!(
        !head.to_ascii_lowercase().contains("authorization"),
        "{head}"
    );
}

#[test]
fn reads_a_chunked_reply() {
    let (a, b) = TAGS.split_at(10);
    let reply = format!(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let (url, _requests) = fake_server(reply.into_bytes());
    assert_eq!(probe_ollama(&url).as_deref(), Some("qwen3:8b"));
}

#[test]
fn an_empty_list_or_an_error_status_is_none() {
    let (url, _r) = fake_server(json_reply(r#"{"models":[]}"#));
    assert_eq!(probe_ollama(&url), None);
    let (url, _r) =
        fake_server(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found".to_vec());
    assert_eq!(probe_ollama(&url), None);
}

#[test]
fn returns_none_fast_when_nothing_listens() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let started = Instant::now();
    assert_eq!(probe_ollama(&format!("http://127.0.0.1:{port}/v1")), None);
    let elapsed = started.elapsed();
    println!("probe of a closed port took {elapsed:?}");
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
}

#[test]
fn gives_up_on_a_server_that_never_answers() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/v1",
        listener.local_addr().unwrap().port()
    );
    let started = Instant::now();
    assert_eq!(probe_ollama_within(&url, Duration::from_millis(300)), None);
    let elapsed = started.elapsed();
    println!("probe of a silent server took {elapsed:?}");
    assert!(
        elapsed >= Duration::from_millis(250) && elapsed < Duration::from_secs(2),
        "{elapsed:?}"
    );
    drop(listener);
}
