//! The host's vocabulary: the operations a front end submits and the events
//! it receives. Every front end (the TUI, `exec`, an editor) speaks only this.
//!
//! A [`Submission`] carries a caller-chosen [`OpId`]; every answer to it
//! carries the same id, so a front end matches answers to requests instead
//! of counting. The JSON form of a submission is one object tagged by
//! `type` in snake_case, with the id beside the tag:
//! `{"type":"prompt","id":"p1","text":"fix the test"}`,
//! `{"type":"interrupt"}`,
//! `{"type":"approval","id":"approval-3","decision":"allow"}`.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{
    AgentEvent, ApprovalDecision, ApprovalRequest, Effort, JobId, JobUpdate, MentionCheck,
    ModelChoice, Notice, PermissionMode, Plan, PromptCommand, PromptPart, PromptRow, Question,
    Report, ReportKind, RewindOutcome, SessionHeader, SessionRow, StatusSnapshot, TokenTotals,
    WorkspaceEntry,
};

/// A caller-chosen id of one submission (any string; empty when the caller
/// does not need answers matched).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OpId(pub String);

impl OpId {
    /// An id from `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }
}

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One operation with the id its answers will carry. For
/// [`Op::Approval`] the id is the id of the request it answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    /// Echoed by every answer.
    #[serde(default)]
    pub id: OpId,
    /// What to do.
    #[serde(flatten)]
    pub op: Op,
}

impl Submission {
    /// `op` with the id `id`.
    pub fn new(id: impl Into<String>, op: Op) -> Self {
        Self {
            id: OpId(id.into()),
            op,
        }
    }
}

/// What a front end asks of the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Op {
    /// Send a prompt (text, and any images and file references); while a
    /// job runs, the host queues it. Answered by job updates carrying the
    /// submission's id, or by [`HostEvent::PromptRejected`].
    Prompt {
        /// The prompt's text.
        #[serde(default)]
        text: String,
        /// Images and file references sent with it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<PromptPart>,
    },
    /// Cancel whatever runs (a turn, a compaction, a session load, the
    /// user's commands); queued prompts come back as a `withdrawn` update.
    Interrupt,
    /// Take a queued prompt back (answered by a `withdrawn` update).
    Withdraw {
        /// The job the prompt's `queued` update named.
        job: JobId,
    },
    /// The user's answer to the approval request whose id the submission
    /// carries.
    Approval {
        /// The answer.
        #[serde(flatten)]
        decision: ApprovalDecision,
    },
    /// The user's answers to the question request whose id the submission
    /// carries: one per question, in order ("" for one left open); none at
    /// all when the user declined to answer.
    Answer {
        /// The answers.
        #[serde(default)]
        answers: Vec<String>,
    },
    /// Use this permission mode from the next gated call on.
    SetPermissionMode {
        /// The mode.
        mode: PermissionMode,
    },
    /// Use this model from now on.
    SetModel {
        /// Which one.
        #[serde(flatten)]
        choice: ModelChoice,
    },
    /// Use this reasoning effort from the next request on (`None`: send
    /// none, the model's own default).
    SetEffort {
        /// The level.
        #[serde(default)]
        effort: Option<Effort>,
    },
    /// Summarise the context window now.
    Compact,
    /// Start a fresh session in this directory.
    NewSession,
    /// Switch to the session with this id (or unique short-id prefix).
    Resume {
        /// The id or prefix.
        session: String,
    },
    /// Offer this directory's sessions (answered by [`HostEvent::Sessions`]).
    PickSession,
    /// Offer the models to switch to (answered by [`HostEvent::Models`]).
    ListModels,
    /// Rename the current session.
    SetTitle {
        /// The new title.
        title: String,
    },
    /// Write the session as a markdown transcript (to this file, or a
    /// default file in the state directory).
    Export {
        /// The file.
        #[serde(default)]
        path: Option<String>,
    },
    /// Ask for a typed report (answered by [`HostEvent::Report`]).
    Report {
        /// Which one.
        kind: ReportKind,
    },
    /// Run the user's own command (`!CMD`): no approval, output in a pane,
    /// command and output added to the next prompt.
    UserShell {
        /// The command line.
        command: String,
    },
    /// List background jobs (answered with a notice).
    Jobs,
    /// End a background command (answered with a notice).
    KillJob {
        /// Its id (`job-1`).
        job: String,
    },
    /// Restore the files of the latest turn that changed any.
    Undo,
    /// Show the session's file changes as one diff.
    Diff,
    /// List the permission mode and the rules in force.
    Permissions,
    /// Start this MCP server again (answered with a notice).
    RestartMcp {
        /// The server's name.
        server: String,
    },
    /// Start (and remember starting) the MCP servers of the project's
    /// `.mcp.json`, or keep them off.
    DecideProjectMcp {
        /// Whether they are accepted.
        accept: bool,
    },
    /// List the hooks in force and a project's that do not run (answered
    /// with a notice).
    Hooks,
    /// Run (and remember running) the hooks the project brings
    /// (`.claude/settings.json`, `.agents/hooks.toml`), or keep them off.
    DecideProjectHooks {
        /// Whether they are accepted.
        accept: bool,
    },
    /// List the agents `task` offers and a project's that it does not
    /// (answered with a notice).
    Agents,
    /// Offer (and remember offering) the agents the project brings
    /// (`.agents/agents/`, `.claude/agents/`) to `task`, or keep them off.
    DecideProjectAgents {
        /// Whether they are accepted.
        accept: bool,
    },
    /// List the working directory's files (the `@` picker's source):
    /// answered by [`HostEvent::Files`], walked off the host's loop.
    ListFiles,
    /// Say what each path (relative to the working directory) is, without
    /// reading one that leads outside it: answered by
    /// [`HostEvent::MentionsChecked`].
    CheckMentions {
        /// The paths, as typed after `@` (no line range).
        paths: Vec<String>,
    },
    /// List the prompt-file commands of the project and the user
    /// (answered by [`HostEvent::Commands`]).
    ListCommands,
    /// Run a command: the built-in `init` or `review`, or a prompt file's,
    /// with its arguments. Answered like a prompt (job updates carrying the
    /// submission's id, or [`HostEvent::PromptRejected`] with the command
    /// line), or by [`HostEvent::CommandAnswered`] when there is nothing to
    /// send.
    RunCommand {
        /// Its name, without the slash.
        name: String,
        /// What followed the name.
        #[serde(default)]
        args: String,
    },
    /// Let the project's prompt files run their shell lines (and remember
    /// it for their current content), or keep them from running.
    DecideProjectCommands {
        /// Whether they are accepted.
        accept: bool,
    },
    /// List the open session's prompts a rewind can go back to before:
    /// answered by [`HostEvent::Prompts`].
    ListPrompts,
    /// Go back to before `to_turn`'s prompt: the conversation (those turns
    /// leave the model's context; the log keeps them), the code (the files
    /// those turns changed, as they were), or both. Only while idle;
    /// answered by [`HostEvent::Rewound`] or a notice saying why not.
    Rewind {
        /// The turn whose prompt to go back to before.
        to_turn: u64,
        /// Rewind the conversation.
        #[serde(default)]
        conversation: bool,
        /// Restore the code.
        #[serde(default)]
        code: bool,
    },
    /// Copy the open session (the turns before `before_turn`, or all) into
    /// a new session and open it; the original is not changed. Answered by
    /// [`HostEvent::SessionOpened`] of the copy.
    Fork {
        /// Copy only the turns before this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before_turn: Option<u64>,
    },
    /// The front end is closing; the host interrupts, flushes and stops.
    Quit,
}

/// What the host tells its front end, in one ordered stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostEvent {
    /// Every [`AgentEvent`], deltas included, in log order.
    Agent {
        /// The event.
        event: AgentEvent,
    },
    /// A job's life (queued, started, ended, withdrawn), in order with the
    /// events: the only source of "running", "idle" and "queued".
    Job {
        /// The submission that made the job, when it came from one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<OpId>,
        /// What happened to it.
        #[serde(flatten)]
        update: JobUpdate,
    },
    /// Something to show that is not in the session log.
    Notice {
        /// The submission it answers, when it is one's whole answer
        /// (`/undo`'s report, `/diff`'s diff, a mode change's line).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<OpId>,
        /// What.
        #[serde(flatten)]
        notice: Notice,
    },
    /// A session was opened (start, resume, new): its header and its most
    /// recent events (full events, no deltas), oldest first.
    SessionOpened {
        /// Which session.
        header: SessionHeader,
        /// Its most recent events.
        recent: Vec<AgentEvent>,
    },
    /// The status line's figures changed for another reason than a job.
    Status {
        /// The figures.
        status: StatusSnapshot,
    },
    /// The tokens the open session used before now (its stored traces);
    /// sent once after [`HostEvent::SessionOpened`], before any new trace.
    SessionTokens {
        /// The totals.
        tokens: TokenTotals,
    },
    /// A prompt could not even be queued (no model, bad configuration, an
    /// unusable part, interrupted before it reached the agent).
    PromptRejected {
        /// The submission.
        op: OpId,
        /// The prompt's text, to give back to the user.
        text: String,
        /// Why, in words.
        reason: String,
    },
    /// A gated call waits for the user's decision; answer with an
    /// [`Op::Approval`] carrying `id`.
    ApprovalRequested {
        /// The id to answer with.
        id: OpId,
        /// What it is about.
        request: ApprovalRequest,
    },
    /// The agent's plan changed (an accepted `update_plan` call), or a
    /// session with a plan was opened: the whole plan, to show pinned.
    Plan {
        /// The plan (no steps: none).
        plan: Plan,
    },
    /// The agent asks the user (`ask_user`) and waits; answer with an
    /// [`Op::Answer`] carrying `id`. Withdrawn when the turn is interrupted.
    QuestionAsked {
        /// The id to answer with.
        id: OpId,
        /// The questions, in order.
        questions: Vec<Question>,
    },
    /// The user's own command (`!CMD`) started; live output follows as
    /// [`Notice::ToolOutput`] with the same id.
    UserShellStarted {
        /// The pane's id.
        id: String,
        /// The command line.
        command: String,
    },
    /// The user's own command ended.
    UserShellDone {
        /// The pane's id.
        id: String,
        /// Status line and output, as the model will see them.
        result: String,
        /// Whether it failed.
        is_error: bool,
    },
    /// Answer to [`Op::PickSession`].
    Sessions {
        /// The sessions, newest first.
        rows: Vec<SessionRow>,
    },
    /// Answer to [`Op::ListModels`].
    Models {
        /// The models, the current one first.
        models: Vec<ModelChoice>,
    },
    /// Answer to [`Op::Report`].
    Report {
        /// The report.
        report: Report,
    },
    /// Answer to [`Op::ListFiles`]: the confined, gitignore-aware walk of
    /// the working directory (the `tree` tool's), in display order.
    Files {
        /// Files, their folders, and links leading out (refused).
        entries: Vec<WorkspaceEntry>,
        /// Whether the walk stopped at its cap before the end.
        truncated: bool,
    },
    /// Answer to [`Op::ListCommands`].
    Commands {
        /// Project commands first, then the user's; a name appears once.
        commands: Vec<PromptCommand>,
        /// Files passed over (a name taken already, a folder leading out of
        /// the project), one line each.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        skipped: Vec<String>,
    },
    /// Answer to an [`Op::RunCommand`] that had nothing to send (`/review`
    /// with no changes, or outside a repository): no job follows.
    CommandAnswered {
        /// The submission.
        op: OpId,
        /// What to tell the user.
        text: String,
    },
    /// Answer to [`Op::CheckMentions`].
    MentionsChecked {
        /// One answer per path asked about, in order.
        checks: Vec<MentionCheck>,
    },
    /// Answer to [`Op::ListPrompts`]: the prompts, newest first.
    Prompts {
        /// The submission it answers.
        #[serde(default)]
        op: OpId,
        /// The prompts.
        prompts: Vec<PromptRow>,
    },
    /// Answer to [`Op::Rewind`]; a rewound conversation is then shown
    /// again by a [`HostEvent::SessionOpened`] that follows.
    Rewound {
        /// The submission it answers.
        #[serde(default)]
        op: OpId,
        /// What it did.
        outcome: RewindOutcome,
    },
}

impl HostEvent {
    /// A [`HostEvent::Notice`] with a message at `level`.
    pub fn message(level: super::NoticeLevel, text: impl Into<String>) -> Self {
        Self::Notice {
            op: None,
            notice: Notice::message(level, text),
        }
    }

    /// A [`HostEvent::Notice`] that answers the submission `op`.
    pub fn reply(op: OpId, level: super::NoticeLevel, text: impl Into<String>) -> Self {
        Self::Notice {
            op: Some(op),
            notice: Notice::message(level, text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submissions_read_their_documented_json_forms() {
        let read = |line: &str| serde_json::from_str::<Submission>(line).unwrap();
        assert_eq!(
            read(r#"{"type":"prompt","id":"p1","text":"fix it"}"#),
            Submission::new(
                "p1",
                Op::Prompt {
                    text: "fix it".into(),
                    parts: vec![]
                }
            )
        );
        assert_eq!(
            read(r#"{"type":"interrupt"}"#),
            Submission::new("", Op::Interrupt)
        );
        assert_eq!(
            read(r#"{"type":"approval","id":"approval-3","decision":"allow"}"#),
            Submission::new(
                "approval-3",
                Op::Approval {
                    decision: ApprovalDecision::Approve
                }
            )
        );
        assert_eq!(
            read(r#"{"type":"approval","id":"a","decision":"deny","reason":"no"}"#).op,
            Op::Approval {
                decision: ApprovalDecision::Deny {
                    reason: Some("no".into())
                }
            }
        );
        assert_eq!(
            read(r#"{"type":"set_permission_mode","mode":"read-only"}"#).op,
            Op::SetPermissionMode {
                mode: PermissionMode::ReadOnly
            }
        );
        assert!(serde_json::from_str::<Submission>(r#"{"type":"fly"}"#).is_err());
    }

    #[test]
    fn a_job_update_names_the_submission_it_answers() {
        let event = HostEvent::Job {
            op: Some(OpId::new("p1")),
            update: JobUpdate::Queued {
                id: JobId(4),
                kind: super::super::JobKind::Prompt,
                text: "hi".into(),
            },
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], "job");
        assert_eq!(json["op"], "p1");
        assert_eq!(json["update"], "queued");
        assert_eq!(serde_json::from_value::<HostEvent>(json).unwrap(), event);
    }
}
