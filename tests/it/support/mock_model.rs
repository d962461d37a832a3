//! A scripted model provider on `127.0.0.1:0`, speaking both the OpenAI
//! Chat Completions and the Anthropic Messages wire formats.
//!
//! ```ignore
//! let mock = MockModel::start([Reply::status(429).retry_after(1), Reply::openai_text("hi")]).await;
//! let adaptor = OpenAiAdaptor::new(mock.openai_base_url(), None, "m", HttpOptions::default())?;
//! // … run the adaptor …
//! assert_eq!(mock.requests()[0].body["model"], "m");
//! ```
//!
//! Every request (any path) takes the next scripted [`Reply`] in order; when
//! none is left the mock answers 418 so a missing script never looks like
//! a retryable failure. Every request is recorded ([`RecordedRequest`]).
//! HTTP/1.1 is handled by hand: one request per connection
//! (`Connection: close`), streamed bodies sent with chunked encoding so a
//! reply can be split at any byte, delayed, cut, or held open until the
//! client disconnects ([`MockModel::wait_for_disconnect`]).
//! [`MockModel::close_reused_connections`] plays a server that advertises
//! keep-alive but closes the connection instead of answering a second
//! request on it (what llama.cpp's server does in effect).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::streams::{AnthropicStream, OpenAiStream};

/// One request as the mock received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Request target, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers in arrival order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Value::String` of the text if it is not JSON).
    pub body: Value,
    /// The body's length in bytes, as sent.
    pub body_bytes: usize,
    /// When the request had been read completely.
    pub received_at: Instant,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone)]
enum Chunking {
    /// One chunk per SSE event (split after each blank line).
    Events,
    /// Fixed-size pieces of this many bytes.
    Every(usize),
    /// Cut at these byte offsets.
    At(Vec<usize>),
}

#[derive(Debug, Clone, Copy)]
enum Ending {
    Complete,
    HangAfter(usize),
    CutAfter(usize),
}

/// One scripted HTTP response.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    content_type: &'static str,
    body: Vec<u8>,
    streamed: bool,
    chunking: Chunking,
    chunk_delay: Duration,
    first_byte_delay: Duration,
    ending: Ending,
    /// Sent only once this turns true (see [`Reply::held_until`]).
    hold: Option<tokio::sync::watch::Receiver<bool>>,
}

impl Reply {
    /// A 200 `text/event-stream` reply with this raw SSE body.
    pub fn sse(raw: impl Into<String>) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            content_type: "text/event-stream",
            body: raw.into().into_bytes(),
            streamed: true,
            chunking: Chunking::Events,
            chunk_delay: Duration::ZERO,
            first_byte_delay: Duration::ZERO,
            ending: Ending::Complete,
            hold: None,
        }
    }

    /// A 200 JSON reply (for non-streamed calls such as `generate_text`).
    pub fn json(value: Value) -> Self {
        Self {
            content_type: "application/json",
            streamed: false,
            ..Self::sse(value.to_string())
        }
    }

    /// An error status with an OpenAI-shaped JSON error body
    /// (`{"error":{"message":"mock status N"}}`); see [`Reply::body_json`].
    pub fn status(status: u16) -> Self {
        Self {
            status,
            ..Self::json(json!({ "error": { "message": format!("mock status {status}") } }))
        }
    }

    /// An OpenAI stream of `text` in a few deltas, then usage 10 in / 5 out.
    pub fn openai_text(text: &str) -> Self {
        OpenAiStream::new().text(text).usage(10, 5).into_reply()
    }

    /// An OpenAI stream that sends one delta, "never finishes", then hangs
    /// (for interrupts and cancels mid-stream).
    pub fn openai_hanging() -> Self {
        OpenAiStream::new()
            .text("never finishes")
            .into_reply()
            .hang_after(1)
    }

    /// An Anthropic stream of `text` in a few deltas, usage 10 in / 5 out.
    pub fn anthropic_text(text: &str) -> Self {
        AnthropicStream::new().text(text).usage(10, 5).into_reply()
    }

    /// Replaces the body with this JSON value.
    pub fn body_json(mut self, value: Value) -> Self {
        self.body = value.to_string().into_bytes();
        self
    }

    /// Adds a `Retry-After: secs` header.
    pub fn retry_after(self, secs: u64) -> Self {
        self.header("retry-after", &secs.to_string())
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sends the body in pieces of `bytes` bytes (splitting lines, CRLF
    /// pairs and UTF-8 characters wherever they fall).
    pub fn chunk_every(mut self, bytes: usize) -> Self {
        self.streamed = true;
        self.chunking = Chunking::Every(bytes.max(1));
        self
    }

    /// Sends the body cut at these byte offsets.
    pub fn split_at(mut self, mut offsets: Vec<usize>) -> Self {
        self.streamed = true;
        offsets.sort_unstable();
        self.chunking = Chunking::At(offsets);
        self
    }

    /// Waits this long before sending anything, headers included (a model
    /// reading a long prompt).
    pub fn first_byte_delay(mut self, delay: Duration) -> Self {
        self.first_byte_delay = delay;
        self
    }

    /// Holds the reply (nothing is sent, not even the status line) until
    /// `gate` turns true: requests that must all arrive before any is
    /// answered (subagents running in parallel).
    pub fn held_until(mut self, gate: tokio::sync::watch::Receiver<bool>) -> Self {
        self.hold = Some(gate);
        self
    }

    /// Waits this long after each chunk.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Sends `chunks` chunks, then holds the connection open until the
    /// client disconnects, which the mock records.
    pub fn hang_after(mut self, chunks: usize) -> Self {
        self.streamed = true;
        self.ending = Ending::HangAfter(chunks);
        self
    }

    /// Sends `chunks` chunks, then closes the socket without finishing the
    /// chunked body.
    pub fn cut_after(mut self, chunks: usize) -> Self {
        self.streamed = true;
        self.ending = Ending::CutAfter(chunks);
        self
    }

    fn chunks(&self) -> Vec<&[u8]> {
        let body = self.body.as_slice();
        let mut cuts: Vec<usize> = match &self.chunking {
            Chunking::Events => body
                .windows(2)
                .enumerate()
                .filter(|(_, w)| w == b"\n\n")
                .map(|(i, _)| i + 2)
                .collect(),
            Chunking::Every(n) => (1..)
                .map(|i| i * n)
                .take_while(|&c| c < body.len())
                .collect(),
            Chunking::At(offsets) => offsets
                .iter()
                .copied()
                .filter(|&c| c < body.len())
                .collect(),
        };
        cuts.push(body.len());
        let mut start = 0;
        let mut chunks = Vec::new();
        for cut in cuts {
            if cut > start {
                chunks.push(&body[start..cut]);
                start = cut;
            }
        }
        chunks
    }
}

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    /// Answers every non-streamed request (summaries) when set, leaving the
    /// script to the streamed ones.
    text_reply: Option<Reply>,
    requests: Vec<RecordedRequest>,
    disconnects: usize,
    close_reused: bool,
    dropped_on_reuse: usize,
    responder: Option<Responder>,
}

/// Decides a reply from the request itself (see [`MockModel::respond_with`]).
pub type Responder = Box<dyn FnMut(&RecordedRequest) -> Reply + Send>;

/// The running mock; stops when dropped.
pub struct MockModel {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept_task: JoinHandle<()>,
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

impl MockModel {
    /// Starts a mock that will answer requests with `replies` in order.
    pub async fn start(replies: impl IntoIterator<Item = Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(Mutex::new(State {
            replies: replies.into_iter().collect(),
            ..State::default()
        }));
        let shared = state.clone();
        let accept_task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, shared.clone()));
            }
        });
        Self {
            addr,
            state,
            accept_task,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers every non-streamed request (a summary) with `reply` from now
    /// on; scripted replies then go to streamed requests only.
    pub fn answer_text_requests_with(&self, reply: Reply) {
        self.lock().text_reply = Some(reply);
    }

    /// Answers every request with what `responder` makes of it from now
    /// on, instead of the script (a server that counts what it is sent).
    pub fn respond_with(&self, responder: impl FnMut(&RecordedRequest) -> Reply + Send + 'static) {
        self.lock().responder = Some(Box::new(responder));
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: Reply) {
        self.lock().replies.push_back(reply);
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL for an OpenAI-compatible client (`…/v1`).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// The base URL for an Anthropic client (the client adds `/v1/messages`).
    pub fn anthropic_base_url(&self) -> String {
        self.url()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// How many requests have been received.
    pub fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    /// From now on, complete replies say `connection: keep-alive` and the
    /// connection stays open; a request that arrives on it again is read,
    /// counted ([`MockModel::dropped_on_reuse`]) and answered by closing the
    /// connection, so the client sees it die before any byte of an answer.
    pub fn close_reused_connections(&self) {
        self.lock().close_reused = true;
    }

    /// How many requests arrived on a reused connection and were dropped.
    pub fn dropped_on_reuse(&self) -> usize {
        self.lock().dropped_on_reuse
    }

    /// How many `hang_after` replies saw their client disconnect.
    pub fn disconnects(&self) -> usize {
        self.lock().disconnects
    }

    /// Waits until at least `count` requests have arrived; false if they
    /// have not within `within`.
    pub async fn wait_for_requests(&self, count: usize, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while self.request_count() < count && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        self.request_count() >= count
    }

    /// How many scripted replies have not been used yet.
    pub fn remaining_replies(&self) -> usize {
        self.lock().replies.len()
    }

    /// Waits until a held-open reply sees its client disconnect; false if
    /// that has not happened within `within`.
    pub async fn wait_for_disconnect(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.disconnects() > 0 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        self.disconnects() > 0
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Reads one request: request line, headers, `Content-Length` body.
async fn read_request(socket: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut piece = [0u8; 8192];
    let header_end = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&piece[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[header_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&piece[..n]);
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    Some(RecordedRequest {
        method,
        path,
        headers,
        body_bytes: body.len(),
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        received_at: Instant::now(),
    })
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let (reply, keep_alive) = {
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        let streamed = request.body.get("stream").is_some_and(|s| s == true);
        let state = &mut *state;
        let reply = match (&state.text_reply, streamed, &mut state.responder) {
            (Some(reply), false, _) => Some(reply.clone()),
            (_, _, Some(responder)) => Some(responder(&request)),
            _ => state.replies.pop_front(),
        };
        state.requests.push(request);
        (reply, state.close_reused)
    };
    let reply = reply.unwrap_or_else(|| {
        Reply::status(418)
            .body_json(json!({ "error": { "message": "mock: no scripted reply left" } }))
    });
    if let Some(mut gate) = reply.hold.clone() {
        let _ = gate.wait_for(|open| *open).await;
    }
    if !reply.first_byte_delay.is_zero() {
        tokio::time::sleep(reply.first_byte_delay).await;
    }
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {}\r\nconnection: {}\r\n",
        reply.status,
        reason_phrase(reply.status),
        reply.content_type,
        if keep_alive { "keep-alive" } else { "close" }
    );
    for (name, value) in &reply.headers {
        head += &format!("{name}: {value}\r\n");
    }
    if !reply.streamed {
        head += &format!("content-length: {}\r\n\r\n", reply.body.len());
        let _ = socket.write_all(head.as_bytes()).await;
        let _ = socket.write_all(&reply.body).await;
        return end_complete_reply(socket, &state, keep_alive).await;
    }
    head += "transfer-encoding: chunked\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for (i, chunk) in reply.chunks().into_iter().enumerate() {
        match reply.ending {
            Ending::HangAfter(n) if i == n => return hang(socket, &state).await,
            Ending::CutAfter(n) if i == n => return,
            _ => {}
        }
        let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), chunk, b"\r\n"].concat();
        if socket.write_all(&framed).await.is_err() || socket.flush().await.is_err() {
            return;
        }
        if !reply.chunk_delay.is_zero() {
            tokio::time::sleep(reply.chunk_delay).await;
        }
    }
    match reply.ending {
        Ending::HangAfter(_) => hang(socket, &state).await,
        Ending::CutAfter(_) => {}
        Ending::Complete => {
            let _ = socket.write_all(b"0\r\n\r\n").await;
            end_complete_reply(socket, &state, keep_alive).await;
        }
    }
}

/// Closes the connection after a complete reply, or keeps it open and
/// drops the next request that arrives on it.
async fn end_complete_reply(mut socket: TcpStream, state: &Mutex<State>, keep_alive: bool) {
    if !keep_alive {
        let _ = socket.shutdown().await;
        return;
    }
    let _ = socket.flush().await;
    if read_request(&mut socket).await.is_some() {
        state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .dropped_on_reuse += 1;
    }
}

/// Holds the connection until the client closes it, then records that.
async fn hang(mut socket: TcpStream, state: &Mutex<State>) {
    let mut sink = [0u8; 1024];
    loop {
        match socket.read(&mut sink).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    state.lock().unwrap_or_else(|e| e.into_inner()).disconnects += 1;
}
