//! JSON-RPC 2.0 over lines: reading the client's messages from stdin with
//! a size cap, and writing ours to stdout (nothing else ever goes there).
//!
//! The ACP schema crate gives the payload types; the framing is this small
//! loop, so a malformed or oversized line is answered with an error and the
//! next line is read as if nothing happened.

pub use agent_client_protocol_schema::v1::Error as RpcError;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::sync::mpsc;

use crate::cli::output::{self, OutputError};

/// Largest message read (an image prompt of 20 MiB is about 27 MiB of
/// base64); a longer line is skipped and answered with an error.
pub const MAX_MESSAGE: usize = 32 * 1024 * 1024;

/// JSON-RPC's own error codes.
pub mod code {
    /// Not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// JSON, but not a request, notification or response.
    pub const INVALID_REQUEST: i32 = -32600;
    /// A method this agent does not serve.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Parameters that do not fit the method.
    pub const INVALID_PARAMS: i32 = -32602;
    /// The agent could not do it.
    pub const INTERNAL_ERROR: i32 = -32603;
}

/// An error with `code` and `message`.
pub fn error(code: i32, message: impl Into<String>) -> RpcError {
    RpcError::new(code, message)
}

/// One message from the client.
#[derive(Debug)]
pub enum Incoming {
    /// A call that wants an answer with the same `id`.
    Request {
        /// The client's id (number or string), echoed back.
        id: Value,
        /// The method.
        method: String,
        /// Its parameters (`null` when absent).
        params: Value,
    },
    /// A call without an answer.
    Notification {
        /// The method.
        method: String,
        /// Its parameters.
        params: Value,
    },
    /// The answer to one of our requests.
    Response {
        /// Our id.
        id: Value,
        /// The result, or the client's error.
        outcome: Result<Value, Value>,
    },
    /// A line that is none of these; answered with this error (id `null`
    /// unless the line had a usable id).
    Invalid {
        /// The id to answer with.
        id: Value,
        /// Why.
        error: RpcError,
    },
}

/// Reads messages from `input` until it closes, sending each to `out`.
/// Returns when `input` ends or cannot be read, or `out` closes.
pub async fn read_messages(
    mut input: impl AsyncBufRead + Unpin,
    out: mpsc::UnboundedSender<Incoming>,
) {
    loop {
        let line = match read_line(&mut input).await {
            Ok(Some(line)) => line,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!("acp: stdin cannot be read: {e}");
                return;
            }
        };
        let message = match line {
            Line::TooLong(bytes) => Incoming::Invalid {
                id: Value::Null,
                error: error(
                    code::INVALID_REQUEST,
                    format!(
                        "message of {bytes} bytes or more is over the limit of {MAX_MESSAGE} bytes"
                    ),
                ),
            },
            Line::Text(text) if text.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Text(text) => parse(&text),
        };
        if out.send(message).is_err() {
            return;
        }
    }
}

/// One line, or how long it was when it was too long.
enum Line {
    Text(Vec<u8>),
    TooLong(usize),
}

/// The next line (without its newline), keeping at most [`MAX_MESSAGE`]
/// bytes; `None` at the end of input.
async fn read_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut kept = Vec::new();
    let mut total = 0usize;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok((total > 0).then(|| finish(kept, total)));
        }
        let (used, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let body = if done { &chunk[..used - 1] } else { chunk };
        total += body.len();
        if total <= MAX_MESSAGE {
            kept.extend_from_slice(body);
        } else {
            kept = Vec::new();
        }
        input.consume(used);
        if done {
            return Ok(Some(finish(kept, total)));
        }
    }
}

fn finish(kept: Vec<u8>, total: usize) -> Line {
    if total > MAX_MESSAGE {
        Line::TooLong(total)
    } else {
        Line::Text(kept)
    }
}

/// One line as a message.
fn parse(line: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: error(code::PARSE_ERROR, format!("not JSON: {e}")),
            };
        }
    };
    let Value::Object(mut object) = value else {
        return Incoming::Invalid {
            id: Value::Null,
            error: error(code::INVALID_REQUEST, "a message must be a JSON object"),
        };
    };
    let id = object.remove("id");
    let usable_id = match &id {
        Some(id @ (Value::Number(_) | Value::String(_))) => Some(id.clone()),
        _ => None,
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    match (object.remove("method"), usable_id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request { id, method, params },
        (Some(Value::String(method)), None) if id.is_none() => {
            Incoming::Notification { method, params }
        }
        (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
            let outcome = match object.remove("error") {
                Some(error) => Err(error),
                None => Ok(object.remove("result").unwrap_or(Value::Null)),
            };
            Incoming::Response { id, outcome }
        }
        (_, id) => Incoming::Invalid {
            id: id.unwrap_or(Value::Null),
            error: error(
                code::INVALID_REQUEST,
                "not a JSON-RPC request, notification or response",
            ),
        },
    }
}

/// Our side of stdout: every line written is one JSON-RPC message.
pub struct Out {
    writer: output::SafeWriter<std::io::BufWriter<std::io::Stdout>>,
    next_id: u64,
}

impl Out {
    /// The process's stdout.
    pub fn stdout() -> Self {
        Self {
            writer: output::stdout(),
            next_id: 0,
        }
    }

    /// Answers request `id` with `result`.
    pub fn result(&mut self, id: Value, result: impl Serialize) -> Result<(), OutputError> {
        let result = serde_json::to_value(result).unwrap_or(Value::Null);
        self.write(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    /// Answers request `id` with `error`.
    pub fn error(&mut self, id: Value, error: RpcError) -> Result<(), OutputError> {
        tracing::info!("acp: error answer {}: {}", error.code, error.message);
        self.write(&json!({"jsonrpc": "2.0", "id": id, "error": error}))
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: impl Serialize) -> Result<(), OutputError> {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request; returns its id (the client's answer carries it).
    pub fn request(&mut self, method: &str, params: impl Serialize) -> Result<u64, OutputError> {
        self.next_id += 1;
        let id = self.next_id;
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    fn write(&mut self, message: &Value) -> Result<(), OutputError> {
        self.writer.json_line(&message.to_string())?;
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_told_apart_by_their_members() {
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            Incoming::Request { .. }
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Incoming::Response { outcome: Ok(_), .. }
        ));
        let Incoming::Invalid { error, .. } = parse(b"{oops") else {
            panic!("not invalid")
        };
        assert_eq!(i32::from(error.code), code::PARSE_ERROR);
        assert!(matches!(parse(b"[1,2]"), Incoming::Invalid { .. }));
        assert!(matches!(
            parse(br#"{"id":{"a":1},"method":"x"}"#),
            Incoming::Invalid { .. }
        ));
    }

    #[tokio::test]
    async fn a_line_over_the_cap_is_reported_and_the_next_one_read() {
        let mut input = vec![b'x'; MAX_MESSAGE + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n");
        let (tx, mut rx) = mpsc::unbounded_channel();
        read_messages(&input[..], tx).await;
        assert!(matches!(rx.recv().await, Some(Incoming::Invalid { .. })));
        assert!(matches!(
            rx.recv().await,
            Some(Incoming::Notification { .. })
        ));
        assert!(rx.recv().await.is_none());
    }
}
