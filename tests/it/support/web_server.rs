//! A tiny HTTP/1.1 server on 127.0.0.1:0 for `web_fetch`: fixed routes
//! (pages, redirects, a 20 MiB body), every request recorded. One request a
//! connection (`Connection: close`).

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The page `/page.html` serves.
pub const PAGE: &str = "<!doctype html><html><head><title>T</title><script>steal()</script></head><body><h1>Release notes</h1><p>Read <a href=\"https://docs.example/guide\">the guide</a> first.</p></body></html>";
/// The size of `/big`.
pub const BIG: usize = 20 * 1024 * 1024;

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The request target (`/page.html`).
    pub path: String,
    /// The raw head, request line and headers.
    pub head: String,
}

/// The running server.
pub struct WebServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl WebServer {
    /// Starts serving in the background.
    pub async fn start() -> WebServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let record = seen.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, port, record.clone()));
            }
        });
        WebServer { port, seen }
    }

    /// `http://HOST:PORT/path`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port)
    }

    /// The requests so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The paths requested so far.
    pub fn paths(&self) -> Vec<String> {
        self.seen().into_iter().map(|s| s.path).collect()
    }
}

async fn serve(mut stream: TcpStream, port: u16, seen: Arc<Mutex<Vec<Seen>>>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1024];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte[..1]).await {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    seen.lock().unwrap().push(Seen {
        path: path.clone(),
        head: head.clone(),
    });
    let redirect = |to: String| {
        format!(
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nSet-Cookie: session=abc\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    };
    let ok = |kind: &str, body: &str| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let answer = match path.as_str() {
        "/page.html" => ok("text/html; charset=utf-8", PAGE),
        "/notes.md" => ok("text/markdown", "# Notes\n\n<b>kept as is</b>\n"),
        "/data.json" => ok("application/json", "{\"a\": [1, 2]}"),
        "/image.png" => ok("image/png", "\u{89}PNG"),
        "/missing" => "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\ngone".to_string(),
        "/to-page" => redirect("/page.html".into()),
        "/to-loopback" => redirect(format!("http://127.0.0.1:{port}/secret")),
        "/to-file" => redirect("file:///etc/passwd".into()),
        "/loop-a" => redirect("/loop-b".into()),
        "/loop-b" => redirect("/loop-a".into()),
        "/big" => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {BIG}\r\nConnection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 64 * 1024];
            for _ in 0..BIG / chunk.len() {
                // The client stops reading at 5 MiB and closes.
                if stream.write_all(&chunk).await.is_err() {
                    return;
                }
            }
            return;
        }
        other => match other.strip_prefix("/hop/").and_then(|n| n.parse::<u32>().ok()) {
            Some(n) => redirect(format!("/hop/{}", n + 1)),
            None => ok("text/plain", "secret"),
        },
    };
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
}
