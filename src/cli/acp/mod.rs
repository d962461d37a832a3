//! `light-agent acp`: an Agent Client Protocol agent over stdio, for
//! editors (Zed, JetBrains, Neovim, Emacs) — a thin front end on the
//! library's [`Host`], like `exec` and the TUI.
//!
//! - `rpc`: JSON-RPC lines in (capped, malformed ones answered with an
//!   error) and out; stdout carries nothing else.
//! - `session`: one host per ACP session; its events as `session/update`s,
//!   prompt answers and permission requests.
//! - `updates`: agent events as ACP updates (chunks, tool calls).
//! - `prompt`: content blocks as the host's prompt parts, confined to the
//!   session's directory.
//! - `fs`: the client's `fs/read_text_file` / `fs/write_text_file`, which
//!   the file tools go through when offered (the editor's buffers).
//! - `commands`: the slash commands offered, `diff`: edits as `diff`
//!   contents.
//!
//! The payload types are the official `agent-client-protocol-schema`
//! crate's; one task owns every session, so nothing here is locked.

mod commands;
mod diff;
mod fs;
mod mcp;
mod prompt;
mod rpc;
mod session;
mod updates;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use agent_client_protocol_schema::ProtocolVersion;
use agent_client_protocol_schema::v1::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, McpCapabilities, McpServer, NewSessionRequest, PromptCapabilities,
    PromptRequest, RequestPermissionOutcome, RequestPermissionResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use anyhow::Result;
use light_agent::config::{Paths, Settings};
use light_agent::host::{Host, HostConfig, McpWait, SessionChoice};
use light_agent::protocol::{HostEvent, Op, PermissionMode, Submission};
use light_agent::session::SessionManager;
use light_agent::tool::editor::Editor;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::Exit;
use super::build::{self, FreshHint};
use super::output::OutputError;
use rpc::{Incoming, Out, code};
use session::{AcpSession, AskedPermission, Opening};

/// What every session's host is made from.
pub struct AcpSetup {
    /// Config, data and log locations.
    pub paths: Paths,
    /// Resolved settings.
    pub settings: Settings,
    /// Why no model can be used, if none can.
    pub model_missing: Option<String>,
    /// The process environment.
    pub env: Vec<(OsString, OsString)>,
    /// The session store.
    pub manager: SessionManager,
}

/// Serves the client on stdin/stdout until stdin closes; then every
/// session's host stops (its turn interrupted, its session flushed).
pub async fn run(setup: AcpSetup) -> Result<Exit> {
    let (incoming_tx, mut incoming) = mpsc::unbounded_channel();
    tokio::spawn(rpc::read_messages(
        tokio::io::BufReader::with_capacity(1 << 16, tokio::io::stdin()),
        incoming_tx,
    ));
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (fs_tx, mut fs_calls) = mpsc::unbounded_channel();
    let mut agent = AcpAgent {
        setup,
        out: Out::stdout(),
        sessions: HashMap::new(),
        asked: HashMap::new(),
        events: events_tx,
        fs: fs::FsOffer::default(),
        fs_calls: fs_tx,
        fs_asked: HashMap::new(),
        next_key: 0,
    };
    let served = loop {
        tokio::select! {
            message = incoming.recv() => match message {
                Some(message) => {
                    if let Err(e) = agent.on_message(message).await {
                        break Err(e);
                    }
                }
                None => break Ok(()),
            },
            Some((key, event)) = events.recv() => {
                if let Err(e) = agent.on_host_event(key, event) {
                    break Err(e);
                }
            }
            Some(call) = fs_calls.recv() => {
                if let Err(e) = agent.on_fs_call(call) {
                    break Err(e);
                }
            }
        }
    };
    for session in agent.sessions.values() {
        session.host.submit(Submission::new("", Op::Quit));
    }
    for (_, session) in agent.sessions.drain() {
        let _ = session.stopped.await;
    }
    served?;
    Ok(Exit::Success)
}

/// The connection's state, owned by [`run`]'s loop.
struct AcpAgent {
    setup: AcpSetup,
    out: Out,
    /// Sessions by key (a session's id is known only once it opened).
    sessions: HashMap<u64, AcpSession>,
    /// Permission requests sent, by our request id.
    asked: HashMap<u64, AskedPermission>,
    /// Every host's events, tagged with its session's key (`None`: the
    /// host stopped).
    events: mpsc::UnboundedSender<(u64, Option<HostEvent>)>,
    /// The client's files, as its `initialize` offered them.
    fs: fs::FsOffer,
    /// Where the sessions' file tools send their `fs/*` calls.
    fs_calls: mpsc::UnboundedSender<fs::FsCall>,
    /// `fs/*` requests sent, by our request id: where the answer goes.
    fs_asked: HashMap<u64, oneshot::Sender<Result<Value, String>>>,
    next_key: u64,
}

impl AcpAgent {
    async fn on_message(&mut self, message: Incoming) -> Result<(), OutputError> {
        match message {
            Incoming::Request { id, method, params } => self.on_request(id, &method, params).await,
            Incoming::Notification { method, params } => {
                self.on_notification(&method, params);
                Ok(())
            }
            Incoming::Response { id, outcome } => {
                self.on_response(&id, outcome);
                Ok(())
            }
            Incoming::Invalid { id, error } => self.out.error(id, error),
        }
    }

    async fn on_request(
        &mut self,
        id: Value,
        method: &str,
        params: Value,
    ) -> Result<(), OutputError> {
        tracing::debug!("acp: request {method}");
        let outcome = match method {
            "initialize" => match parse::<InitializeRequest>(params) {
                Ok(request) => {
                    self.fs = fs::FsOffer::of(&request.client_capabilities.fs);
                    return self.out.result(id, initialize());
                }
                Err(e) => Err(e),
            },
            "authenticate" => return self.out.result(id, serde_json::json!({})),
            "session/new" => match parse::<NewSessionRequest>(params) {
                Ok(request) => {
                    self.open(id.clone(), &request.cwd, &request.mcp_servers, None)
                        .await
                }
                Err(e) => Err(e),
            },
            "session/load" => match parse::<LoadSessionRequest>(params) {
                Ok(request) => {
                    let wanted = request.session_id.0.to_string();
                    self.open(id.clone(), &request.cwd, &request.mcp_servers, Some(wanted))
                        .await
                }
                Err(e) => Err(e),
            },
            "session/prompt" => match parse::<PromptRequest>(params) {
                Ok(request) => self.prompt(id.clone(), &request),
                Err(e) => Err(e),
            },
            "session/set_mode" => match parse::<SetSessionModeRequest>(params) {
                Ok(request) => {
                    return match self.set_mode(&request) {
                        Ok(()) => self.out.result(id, SetSessionModeResponse::new()),
                        Err(e) => self.out.error(id, e),
                    };
                }
                Err(e) => Err(e),
            },
            "session/cancel" => match parse::<CancelNotification>(params) {
                Ok(request) => match self.cancel(&request.session_id.0) {
                    Ok(()) => return self.out.result(id, serde_json::json!({})),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            },
            _ => Err(rpc::error(
                code::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            )),
        };
        match outcome {
            // Answered later (the session opens, the prompt ends).
            Ok(()) => Ok(()),
            Err(e) => self.out.error(id, e),
        }
    }

    fn on_notification(&mut self, method: &str, params: Value) {
        tracing::debug!("acp: notification {method}");
        match method {
            "session/cancel" => match parse::<CancelNotification>(params) {
                Ok(request) => {
                    if let Err(e) = self.cancel(&request.session_id.0) {
                        tracing::info!("acp: session/cancel ignored: {}", e.message);
                    }
                }
                Err(e) => tracing::info!("acp: session/cancel ignored: {}", e.message),
            },
            other => tracing::info!("acp: notification {other} ignored"),
        }
    }

    /// A file tool's `fs/*` call: sent under its session's id; the answer
    /// goes back when the client gives it.
    fn on_fs_call(&mut self, call: fs::FsCall) -> Result<(), OutputError> {
        let session = self
            .sessions
            .get(&call.key)
            .and_then(|session| session.id.clone());
        let Some(session) = session else {
            let _ = call.reply.send(Err("the session is not open".to_string()));
            return Ok(());
        };
        let (method, params) = call.request.message(session);
        let sent = self.out.request(method, params)?;
        // Calls whose tool gave up (timed out, cancelled) wait no more.
        self.fs_asked.retain(|_, reply| !reply.is_closed());
        self.fs_asked.insert(sent, call.reply);
        Ok(())
    }

    /// The client's answer to one of our requests: an `fs/*` call or a
    /// permission request.
    fn on_response(&mut self, id: &Value, outcome: Result<Value, Value>) {
        if let Some(reply) = id.as_u64().and_then(|id| self.fs_asked.remove(&id)) {
            let _ = reply.send(outcome.map_err(|error| fs::error_text(&error)));
            return;
        }
        let Some(asked) = id.as_u64().and_then(|id| self.asked.remove(&id)) else {
            tracing::info!("acp: an answer to no request of ours: {id}");
            return;
        };
        let Some(session) = self.sessions.get_mut(&asked.key) else {
            return;
        };
        let option = match outcome.map(serde_json::from_value::<RequestPermissionResponse>) {
            Ok(Ok(answer)) => match answer.outcome {
                RequestPermissionOutcome::Selected(selected) => {
                    Some(selected.option_id.0.to_string())
                }
                _ => None,
            },
            Ok(Err(e)) => {
                tracing::warn!("acp: a permission answer that does not parse: {e}");
                None
            }
            Err(error) => {
                tracing::warn!("acp: the client failed a permission request: {error}");
                None
            }
        };
        session.answer(asked.approval, &asked.tool, option.as_deref());
    }

    fn on_host_event(&mut self, key: u64, event: Option<HostEvent>) -> Result<(), OutputError> {
        let Some(session) = self.sessions.get_mut(&key) else {
            return Ok(());
        };
        let Some(event) = event else {
            session.failed_to_open(&mut self.out)?;
            if session.id.is_none() {
                self.sessions.remove(&key);
            }
            return Ok(());
        };
        if let Some((sent, asked)) = session.on_event(key, &mut self.out, event)? {
            self.asked.insert(sent, asked);
        }
        Ok(())
    }

    /// Starts a host on `cwd` for `session/new` (`wanted` none) or
    /// `session/load`; the request is answered once the host opened it.
    async fn open(
        &mut self,
        request: Value,
        cwd: &Path,
        servers: &[McpServer],
        wanted: Option<String>,
    ) -> Result<(), rpc::RpcError> {
        let settings = mcp::with_client_servers(&self.setup.settings, servers)?;
        if !cwd.is_absolute() {
            return Err(rpc::error(
                code::INVALID_PARAMS,
                "cwd must be an absolute path",
            ));
        }
        let cwd = build::canonical_cwd(Some(cwd)).map_err(|e| {
            rpc::error(
                code::INVALID_PARAMS,
                format!("{} cannot be used: {e}", cwd.display()),
            )
        })?;
        let (choice, opening) = match wanted {
            None => (SessionChoice::New, Opening::New(request)),
            Some(wanted) => {
                if self
                    .sessions
                    .values()
                    .any(|s| s.id.as_deref() == Some(wanted.as_str()))
                {
                    return Err(rpc::error(
                        code::INVALID_PARAMS,
                        format!("session {wanted} is already open"),
                    ));
                }
                let choice = build::check_choice(
                    &self.setup.manager,
                    &cwd,
                    SessionChoice::Id(wanted),
                    FreshHint::Editor,
                )
                .await
                .map_err(|e| rpc::error(code::INVALID_PARAMS, format!("{e:#}")))?;
                let SessionChoice::Id(id) = &choice else {
                    return Err(rpc::error(code::INTERNAL_ERROR, "no session chosen"));
                };
                let opening = Opening::Load(request, id.clone());
                (choice, opening)
            }
        };
        let mode = settings.permissions.mode.unwrap_or(PermissionMode::Ask);
        self.next_key += 1;
        let key = self.next_key;
        let editor = self.fs.any().then(|| {
            Editor::new(Arc::new(fs::ClientFiles::new(
                key,
                self.fs,
                self.fs_calls.clone(),
            )))
        });
        let config = HostConfig {
            cwd: cwd.clone(),
            paths: self.setup.paths.clone(),
            settings,
            model_missing: self.setup.model_missing.clone(),
            choice,
            session: None,
            offer_project_files: false,
            env: self.setup.env.clone(),
            default_mode: PermissionMode::Ask,
            approvals: true,
            fresh_hint: FreshHint::Editor,
            // An editor is interactive: like the TUI, a prompt waits for MCP
            // servers still starting only within the grace.
            mcp_wait: McpWait::Grace,
            title: None,
            editor,
        };
        let (host_tx, mut host_rx) = mpsc::unbounded_channel();
        let (host, stopped) = Host::start(config, self.setup.manager.clone(), host_tx);
        let events = self.events.clone();
        tokio::spawn(async move {
            while let Some(event) = host_rx.recv().await {
                if events.send((key, Some(event))).is_err() {
                    return;
                }
            }
            let _ = events.send((key, None));
        });
        self.sessions
            .insert(key, AcpSession::new(host, stopped, cwd, mode, opening));
        Ok(())
    }

    fn prompt(&mut self, id: Value, request: &PromptRequest) -> Result<(), rpc::RpcError> {
        let session = self.session(&request.session_id.0)?;
        let (text, parts) = prompt::to_parts(&session.cwd, &request.prompt)
            .map_err(|why| rpc::error(code::INVALID_PARAMS, why))?;
        match commands::op_of(&text, &session.prompt_files).filter(|_| parts.is_empty()) {
            Some(op) => session.command(id, op),
            None => session.prompt(id, text, parts),
        }
        Ok(())
    }

    fn set_mode(&mut self, request: &SetSessionModeRequest) -> Result<(), rpc::RpcError> {
        let mode = session::mode_of(&request.mode_id.0).ok_or_else(|| {
            rpc::error(
                code::INVALID_PARAMS,
                format!("unknown mode {}: read-only, ask or auto", request.mode_id.0),
            )
        })?;
        let out = &mut self.out;
        let session = self
            .sessions
            .values_mut()
            .find(|s| s.id.as_deref() == Some(&*request.session_id.0))
            .ok_or_else(|| unknown_session(&request.session_id.0))?;
        session
            .set_mode(out, mode)
            .map_err(|e| rpc::error(code::INTERNAL_ERROR, e.to_string()))
    }

    fn cancel(&mut self, id: &str) -> Result<(), rpc::RpcError> {
        self.session(id)?.cancel();
        Ok(())
    }

    fn session(&mut self, id: &str) -> Result<&mut AcpSession, rpc::RpcError> {
        self.sessions
            .values_mut()
            .find(|s| s.id.as_deref() == Some(id))
            .ok_or_else(|| unknown_session(id))
    }
}

fn unknown_session(id: &str) -> rpc::RpcError {
    rpc::error(
        code::INVALID_PARAMS,
        format!("no open session {id}: call session/new or session/load first"),
    )
}

/// What this agent can do, honestly: stored sessions load, prompts take
/// images and embedded files; MCP servers over stdio and HTTP join the
/// configured ones.
fn initialize() -> InitializeResponse {
    let capabilities = AgentCapabilities::new()
        .load_session(true)
        .prompt_capabilities(
            PromptCapabilities::new()
                .image(true)
                .audio(false)
                .embedded_context(true),
        )
        .mcp_capabilities(McpCapabilities::new().http(true).sse(false));
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(capabilities)
        .agent_info(Implementation::new(
            "light-agent",
            env!("CARGO_PKG_VERSION"),
        ))
}

/// A method's parameters as its payload type.
fn parse<T: DeserializeOwned>(params: Value) -> Result<T, rpc::RpcError> {
    serde_json::from_value(params)
        .map_err(|e| rpc::error(code::INVALID_PARAMS, format!("invalid params: {e}")))
}
