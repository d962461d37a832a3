//! The client's files: when its `initialize` offers `fs.readTextFile` /
//! `fs.writeTextFile`, the file tools read and write text files inside the
//! session's directory through `fs/read_text_file` / `fs/write_text_file`
//! requests, so the editor's unsaved buffers are what the agent sees and
//! edits. The paths arrive here already checked by the tools' confinement
//! (`light_agent::tool::editor`); this module only carries them.

use std::path::PathBuf;
use std::time::Duration;

use agent_client_protocol_schema::v1::{
    FileSystemCapabilities, ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest,
};
use futures::future::BoxFuture;
use light_agent::tool::editor::EditorFiles;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// How long a tool waits for the client's answer before it fails the call
/// (nothing is lost: a read fails the change before anything is written).
pub const FS_TIMEOUT: Duration = Duration::from_secs(30);

/// What the client offered in `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FsOffer {
    /// `fs/read_text_file`.
    pub read: bool,
    /// `fs/write_text_file`.
    pub write: bool,
}

impl FsOffer {
    /// The offer in the client's capabilities.
    pub fn of(fs: &FileSystemCapabilities) -> Self {
        Self {
            read: fs.read_text_file,
            write: fs.write_text_file,
        }
    }

    /// Whether anything goes through the client.
    pub fn any(self) -> bool {
        self.read || self.write
    }
}

/// One request a tool makes, on its way to the connection's loop, which
/// sends it under the session's id and hands the client's answer back.
#[derive(Debug)]
pub struct FsCall {
    /// The session's key.
    pub key: u64,
    /// What to ask.
    pub request: FsRequest,
    /// Where the answer goes: the result, or the client's error message.
    pub reply: oneshot::Sender<Result<Value, String>>,
}

/// `fs/read_text_file` or `fs/write_text_file`.
#[derive(Debug)]
pub enum FsRequest {
    /// Read this absolute path.
    Read(PathBuf),
    /// Write this text to this absolute path.
    Write(PathBuf, String),
}

impl FsRequest {
    /// The method and its parameters for session `session`.
    pub fn message(self, session: String) -> (&'static str, Value) {
        let (method, params) = match self {
            FsRequest::Read(path) => (
                "fs/read_text_file",
                serde_json::to_value(ReadTextFileRequest::new(session, path)),
            ),
            FsRequest::Write(path, content) => (
                "fs/write_text_file",
                serde_json::to_value(WriteTextFileRequest::new(session, path, content)),
            ),
        };
        (method, params.unwrap_or(Value::Null))
    }
}

/// The client's error object as one line for the tool's result.
pub fn error_text(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(message) => match error.get("code") {
            Some(code) => format!("{message} (code {code})"),
            None => message.to_string(),
        },
        None => error.to_string(),
    }
}

/// One session's way to the client's files: [`EditorFiles`] for the tools.
pub struct ClientFiles {
    key: u64,
    offer: FsOffer,
    calls: mpsc::UnboundedSender<FsCall>,
    timeout: Duration,
}

impl ClientFiles {
    /// The files of session `key`, as offered, asked through `calls`.
    pub fn new(key: u64, offer: FsOffer, calls: mpsc::UnboundedSender<FsCall>) -> Self {
        Self {
            key,
            offer,
            calls,
            timeout: FS_TIMEOUT,
        }
    }

    /// Sends `request` and waits for the answer, at most the timeout.
    fn ask(&self, request: FsRequest) -> BoxFuture<'static, Result<Value, String>> {
        let (reply, answer) = oneshot::channel();
        let sent = self.calls.send(FsCall {
            key: self.key,
            request,
            reply,
        });
        let timeout = self.timeout;
        Box::pin(async move {
            sent.map_err(|_| "the connection to the editor is closed".to_string())?;
            match tokio::time::timeout(timeout, answer).await {
                Err(_) => Err(format!(
                    "the editor did not answer within {} s",
                    timeout.as_secs()
                )),
                Ok(Err(_)) => Err("the connection to the editor closed".to_string()),
                Ok(Ok(answer)) => answer,
            }
        })
    }
}

impl EditorFiles for ClientFiles {
    fn reads(&self) -> bool {
        self.offer.read
    }

    fn writes(&self) -> bool {
        self.offer.write
    }

    fn read_text(&self, path: PathBuf) -> BoxFuture<'static, Result<String, String>> {
        let asked = self.ask(FsRequest::Read(path));
        Box::pin(async move {
            let answer = asked.await?;
            serde_json::from_value::<ReadTextFileResponse>(answer)
                .map(|read| read.content)
                .map_err(|e| format!("the editor's answer does not parse: {e}"))
        })
    }

    fn write_text(&self, path: PathBuf, content: String) -> BoxFuture<'static, Result<(), String>> {
        let asked = self.ask(FsRequest::Write(path, content));
        Box::pin(async move { asked.await.map(|_| ()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unanswered_request_fails_after_the_timeout() {
        let (calls, mut asked) = mpsc::unbounded_channel();
        let mut files = ClientFiles::new(
            1,
            FsOffer {
                read: true,
                write: true,
            },
            calls,
        );
        files.timeout = Duration::from_millis(1);
        let read = files.read_text(PathBuf::from("/w/a.txt"));
        // The call reached the loop, which keeps it and never answers.
        let held = asked.recv().await;
        assert!(matches!(
            held,
            Some(FsCall {
                key: 1,
                request: FsRequest::Read(_),
                ..
            })
        ));
        let error = read.await.unwrap_err();
        assert!(error.contains("did not answer"), "{error}");
    }

    #[tokio::test]
    async fn a_client_error_becomes_the_message() {
        let (calls, mut asked) = mpsc::unbounded_channel();
        let files = ClientFiles::new(
            1,
            FsOffer {
                read: false,
                write: true,
            },
            calls,
        );
        let write = files.write_text(PathBuf::from("/w/a.txt"), "x".into());
        let call = asked.recv().await.unwrap();
        let (method, params) = call.request.message("s1".into());
        assert_eq!(method, "fs/write_text_file");
        assert_eq!(params["sessionId"], "s1");
        assert_eq!(params["content"], "x");
        let error = serde_json::json!({"code": -32000, "message": "disk full"});
        call.reply.send(Err(error_text(&error))).unwrap();
        assert_eq!(write.await.unwrap_err(), "disk full (code -32000)");
    }
}
