//! One ACP session: the host it drives, the prompts waiting for their
//! answer, and how its host events become `session/update`s, answers and
//! `session/request_permission` requests.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use agent_client_protocol_schema::v1::{
    ContentBlock, ContentChunk, CurrentModeUpdate, PermissionOption, PermissionOptionKind,
    PromptResponse, RequestPermissionRequest, SessionMode, SessionModeState, SessionNotification,
    SessionUpdate, StopReason,
};
use light_agent::host::Host;
use light_agent::protocol::{
    AgentEvent, ApprovalDecision, HostEvent, JobId, JobUpdate, Notice, NoticeLevel, Op, OpId,
    PermissionMode, StopCause, Submission,
};
use serde_json::Value;
use tokio::task::JoinHandle;

use super::rpc::{self, Out, code};
use super::{commands, updates};
use crate::cli::output::OutputError;

/// The modes a session offers, by id (their names).
pub const MODES: [(PermissionMode, &str, &str); 3] = [
    (
        PermissionMode::ReadOnly,
        "read-only",
        "Explore only: no writing tool is offered",
    ),
    (
        PermissionMode::Ask,
        "ask",
        "Every edit and command outside the rules is asked about",
    ),
    (
        PermissionMode::Auto,
        "auto",
        "Edits inside the directory apply; commands inside the sandbox run",
    ),
];

/// The mode named `id`, if it is offered.
pub fn mode_of(id: &str) -> Option<PermissionMode> {
    MODES
        .iter()
        .find(|(_, name, _)| *name == id)
        .map(|(mode, ..)| *mode)
}

/// The name of `mode`.
pub fn mode_name(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::ReadOnly => "read-only",
        PermissionMode::Ask => "ask",
        PermissionMode::Auto => "auto",
        PermissionMode::Full => "full",
    }
}

/// The modes' state with `current` selected (a mode set outside the
/// offered ones, `full`, is listed too, so the state is honest).
pub fn modes(current: PermissionMode) -> SessionModeState {
    let mut available: Vec<SessionMode> = MODES
        .iter()
        .map(|(_, id, about)| SessionMode::new(*id, *id).description(about.to_string()))
        .collect();
    if mode_of(mode_name(current)).is_none() {
        available.push(SessionMode::new(mode_name(current), mode_name(current)));
    }
    SessionModeState::new(mode_name(current), available)
}

/// What the client waits for while a session opens.
#[derive(Debug)]
pub enum Opening {
    /// `session/new` (answered with the session's id).
    New(Value),
    /// `session/load` of this session id (answered after the replay).
    Load(Value, String),
}

/// One session of the connection.
pub struct AcpSession {
    /// The host on it.
    pub host: Host,
    /// Ends when the host has stopped.
    pub stopped: JoinHandle<()>,
    /// Its canonical directory.
    pub cwd: PathBuf,
    /// Its id, once the host opened it.
    pub id: Option<String>,
    /// The request waiting for it to open.
    pub opening: Option<Opening>,
    /// The permission mode in force.
    pub mode: PermissionMode,
    /// Prompts sent and not answered: op id → the client's request id.
    prompts: HashMap<OpId, Value>,
    /// The job each prompt became.
    jobs: HashMap<JobId, OpId>,
    /// Prompts a `session/cancel` covered (answered `cancelled` however
    /// they end).
    cancelled: HashSet<OpId>,
    /// Tools the user rejected for the session ("reject always").
    rejected: HashSet<String>,
    /// Whether a plan was shown (an empty plan then clears it).
    plan_shown: bool,
    next_prompt: u64,
}

/// A `session/request_permission` we sent: which approval it answers.
#[derive(Debug, Clone)]
pub struct AskedPermission {
    /// The session's key.
    pub key: u64,
    /// The host's approval id.
    pub approval: OpId,
    /// The tool asked about.
    pub tool: String,
}

impl AcpSession {
    /// A session on `host`, opening.
    pub fn new(
        host: Host,
        stopped: JoinHandle<()>,
        cwd: PathBuf,
        mode: PermissionMode,
        opening: Opening,
    ) -> Self {
        Self {
            host,
            stopped,
            cwd,
            id: None,
            opening: Some(opening),
            mode,
            prompts: HashMap::new(),
            jobs: HashMap::new(),
            cancelled: HashSet::new(),
            rejected: HashSet::new(),
            plan_shown: false,
            next_prompt: 0,
        }
    }

    /// Sends a prompt; the client's request `id` is answered when it ends.
    pub fn prompt(
        &mut self,
        id: Value,
        text: String,
        parts: Vec<light_agent::protocol::PromptPart>,
    ) {
        self.next_prompt += 1;
        let op = OpId(format!("prompt-{}", self.next_prompt));
        self.prompts.insert(op.clone(), id);
        self.host
            .submit(Submission::new(op.0.clone(), Op::Prompt { text, parts }));
    }

    /// A prompt that is a slash command: `op` is sent instead; the client's
    /// request `id` is answered when it is done.
    pub fn command(&mut self, id: Value, op: Op) {
        self.next_prompt += 1;
        let op_id = OpId(format!("prompt-{}", self.next_prompt));
        self.prompts.insert(op_id.clone(), id);
        self.host.submit(Submission::new(op_id.0, op));
    }

    /// `session/cancel`: every prompt sent so far ends `cancelled`.
    pub fn cancel(&mut self) {
        self.cancelled.extend(self.prompts.keys().cloned());
        self.host.submit(Submission::new("", Op::Interrupt));
    }

    /// Uses `mode` from the next gated call on and tells the client.
    pub fn set_mode(&mut self, out: &mut Out, mode: PermissionMode) -> Result<(), OutputError> {
        self.mode = mode;
        self.host
            .submit(Submission::new("", Op::SetPermissionMode { mode }));
        self.update(
            out,
            SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode_name(mode))),
        )
    }

    /// The user's answer to a permission request about `tool`.
    pub fn answer(&mut self, approval: OpId, tool: &str, option: Option<&str>) {
        let decision = match option {
            Some("allow_once") => ApprovalDecision::Approve,
            Some("allow_always") => ApprovalDecision::ApproveForSession,
            Some("reject_always") => {
                self.rejected.insert(tool.to_string());
                ApprovalDecision::Deny { reason: None }
            }
            _ => ApprovalDecision::Deny { reason: None },
        };
        self.host
            .submit(Submission::new(approval.0, Op::Approval { decision }));
    }

    /// Handles one host event; returns the permission request it sent, if
    /// it sent one.
    pub fn on_event(
        &mut self,
        key: u64,
        out: &mut Out,
        event: HostEvent,
    ) -> Result<Option<(u64, AskedPermission)>, OutputError> {
        match event {
            HostEvent::Agent { event } => {
                for update in updates::of_event(&event, false, &self.cwd) {
                    self.update(out, update)?;
                }
            }
            HostEvent::SessionOpened { header, recent } => self.opened(out, header.id, &recent)?,
            HostEvent::Job {
                op: Some(op),
                update: JobUpdate::Queued { id, .. },
            } => {
                self.jobs.insert(id, op);
            }
            HostEvent::Job {
                op: Some(op),
                update: JobUpdate::Ended { cause, message, .. },
            } => {
                let outcome = match cause {
                    StopCause::Done => Ok(StopReason::EndTurn),
                    StopCause::User => Ok(StopReason::Cancelled),
                    StopCause::Llm | StopCause::Runtime => Err(message),
                };
                self.end_prompt(out, &op, outcome)?;
            }
            HostEvent::Job {
                update: JobUpdate::Withdrawn { prompts },
                ..
            } => {
                for prompt in prompts {
                    if let Some(op) = self.jobs.remove(&prompt.id) {
                        self.end_prompt(out, &op, Ok(StopReason::Cancelled))?;
                    }
                }
            }
            HostEvent::PromptRejected { op, reason, .. } => {
                let outcome = if self.cancelled.contains(&op) {
                    Ok(StopReason::Cancelled)
                } else {
                    Err(reason)
                };
                self.end_prompt(out, &op, outcome)?;
            }
            HostEvent::ApprovalRequested { id, request } => {
                if self.rejected.contains(&request.tool) {
                    self.answer(id, &request.tool, Some("reject_always"));
                    return Ok(None);
                }
                let Some(session) = self.id.clone() else {
                    self.answer(id, &request.tool, None);
                    return Ok(None);
                };
                let options = [
                    ("allow_once", "Allow", PermissionOptionKind::AllowOnce),
                    (
                        "allow_always",
                        "Allow for this session",
                        PermissionOptionKind::AllowAlways,
                    ),
                    ("reject_once", "Reject", PermissionOptionKind::RejectOnce),
                    (
                        "reject_always",
                        "Reject for this session",
                        PermissionOptionKind::RejectAlways,
                    ),
                ]
                .into_iter()
                .map(|(id, name, kind)| PermissionOption::new(id, name, kind))
                .collect();
                let params = RequestPermissionRequest::new(
                    session,
                    updates::approval_subject(&request, &self.cwd),
                    options,
                );
                let sent = out.request("session/request_permission", params)?;
                return Ok(Some((
                    sent,
                    AskedPermission {
                        key,
                        approval: id,
                        tool: request.tool,
                    },
                )));
            }
            HostEvent::QuestionAsked { id, .. } => {
                // ACP has no way to put a free question to the user yet: no
                // answer, and the model decides (instead of a turn that
                // waits until it is cancelled).
                self.host.submit(Submission::new(
                    id.0,
                    Op::Answer {
                        answers: Vec::new(),
                    },
                ));
            }
            HostEvent::Plan { plan } if !plan.plan.is_empty() || self.plan_shown => {
                self.plan_shown = true;
                self.update(out, updates::plan(&plan))?;
            }
            HostEvent::Notice {
                op,
                notice: Notice::Message { level, text },
            } => self.on_message(out, op, level, text)?,
            _ => {}
        }
        Ok(None)
    }

    /// A message notice: the whole answer to a prompt that was a slash
    /// command (`/undo`, `/diff`), when it carries that prompt's op id;
    /// else logged.
    fn on_message(
        &mut self,
        out: &mut Out,
        op: Option<OpId>,
        level: NoticeLevel,
        text: String,
    ) -> Result<(), OutputError> {
        if let Some(op) = op.filter(|op| self.prompts.contains_key(op)) {
            let chunk = ContentChunk::new(ContentBlock::from(text));
            self.update(out, SessionUpdate::AgentMessageChunk(chunk))?;
            return self.end_prompt(out, &op, Ok(StopReason::EndTurn));
        }
        match level {
            NoticeLevel::Error => tracing::error!("acp session: {text}"),
            NoticeLevel::Warn => tracing::warn!("acp session: {text}"),
            NoticeLevel::Info => tracing::info!("acp session: {text}"),
        }
        Ok(())
    }

    /// The host opened the session: the waiting request is answered (a load
    /// after its history was replayed).
    fn opened(
        &mut self,
        out: &mut Out,
        id: String,
        recent: &[AgentEvent],
    ) -> Result<(), OutputError> {
        match self.opening.take() {
            Some(Opening::New(request)) => {
                self.id = Some(id.clone());
                let answer = agent_client_protocol_schema::v1::NewSessionResponse::new(id)
                    .modes(modes(self.mode));
                out.result(request, answer)?;
                self.update(out, commands::available())?;
            }
            Some(Opening::Load(request, wanted)) if wanted == id => {
                self.id = Some(id);
                for event in recent {
                    for update in updates::of_event(event, true, &self.cwd) {
                        self.update(out, update)?;
                    }
                }
                let answer = agent_client_protocol_schema::v1::LoadSessionResponse::new()
                    .modes(modes(self.mode));
                out.result(request, answer)?;
                self.update(out, commands::available())?;
            }
            Some(Opening::Load(request, wanted)) => {
                // The host could not open it (busy elsewhere) and made a
                // fresh one instead: that is not what was asked for.
                out.error(
                    request,
                    rpc::error(
                        code::INVALID_PARAMS,
                        format!("session {wanted} cannot be opened here now"),
                    ),
                )?;
                self.host.submit(Submission::new("", Op::Quit));
            }
            None => self.id = Some(id),
        }
        Ok(())
    }

    /// The host stopped before the session opened: the request is refused.
    pub fn failed_to_open(&mut self, out: &mut Out) -> Result<(), OutputError> {
        let request = match self.opening.take() {
            Some(Opening::New(request) | Opening::Load(request, _)) => request,
            None => return Ok(()),
        };
        out.error(
            request,
            rpc::error(code::INTERNAL_ERROR, "the session could not be opened"),
        )
    }

    fn end_prompt(
        &mut self,
        out: &mut Out,
        op: &OpId,
        outcome: Result<StopReason, String>,
    ) -> Result<(), OutputError> {
        let Some(request) = self.prompts.remove(op) else {
            return Ok(());
        };
        self.jobs.retain(|_, o| o != op);
        let outcome = match outcome {
            Err(_) if self.cancelled.remove(op) => Ok(StopReason::Cancelled),
            other => {
                self.cancelled.remove(op);
                other
            }
        };
        match outcome {
            Ok(reason) => out.result(request, PromptResponse::new(reason)),
            Err(why) => out.error(request, rpc::error(code::INTERNAL_ERROR, why)),
        }
    }

    fn update(&self, out: &mut Out, update: SessionUpdate) -> Result<(), OutputError> {
        let Some(id) = &self.id else {
            return Ok(());
        };
        out.notify(
            "session/update",
            SessionNotification::new(id.clone(), update),
        )
    }
}
