//! The view-model: one [`App`] that every message updates and every frame
//! renders.
//!
//! `update` is the only mutator. Lines that are final go to a pending
//! scrollback queue that the run loop drains into the terminal once
//! ([`App::take_committed`]); ops for the runtime collect in an outbox
//! ([`App::take_ops`]). Committed cells are not kept as rendered lines: the
//! transcript keeps the raw events instead.

use std::time::{Duration, Instant};

use crossterm::event::Event as TermEvent;
use ratatui::text::Line;

use super::options::TuiOptions;
use super::picker::MentionPicker;
use super::stream::MarkdownStream;
use super::transcript::{TranscriptItem, TranscriptView};
use super::view::approval::ApprovalView;
use super::view::composer::Composer;
use super::view::model_picker::ModelPicker;
use super::view::question::QuestionView;
use super::view::resume_picker::ResumePicker;
use super::view::rewind_picker::RewindPicker;
use super::view::status_line::{Activity, StatusView};
use super::view::tool_pane::ToolPane;
use super::view::{
    file_picker, notice, output_cell, session_header, slash_popup, thought_cell, user_cell,
};
use crate::protocol::{
    AgentEvent, InputSource, JobId, JobKind, Meta, StopCause, ToolCall, ToolOutcome,
};
use crate::protocol::{
    ApprovalDecision, HostEvent, NoticeLevel, Op, OpId, Plan, PromptPart, SessionHeader,
    StatusSnapshot, Submission, TokenTotals,
};

/// Time within which a second Ctrl+C quits.
const DOUBLE_PRESS: Duration = Duration::from_secs(1);

/// A message for [`App::update`].
#[derive(Debug, Clone)]
pub enum AppMsg {
    /// Something from the runtime.
    Input(HostEvent),
    /// A terminal event (key, paste, resize).
    Terminal(TermEvent),
    /// Time passed (spinner, elapsed time, hint expiry).
    Tick,
    /// What the clipboard gave for Ctrl+V: PNG bytes, or why there are none.
    Clipboard(Result<Vec<u8>, String>),
}

pub(crate) struct LiveThought {
    pub(crate) text: String,
    started: Instant,
}

pub(crate) struct LiveOutput {
    pub(crate) stream: MarkdownStream,
    pub(crate) committed_any: bool,
}

pub(crate) struct LiveTool {
    pub(crate) pane: ToolPane,
    pub(crate) started: Option<Instant>,
}

pub(crate) enum Popup {
    None,
    Picker(ResumePicker),
    Models(ModelPicker),
    Rewind(RewindPicker),
}

/// The UI's whole state.
pub struct App {
    pub(crate) opts: TuiOptions,
    pub(crate) width: u16,
    pub(crate) height: u16,
    pub(crate) now: Instant,
    pub(crate) now_ms: u64,
    pub(crate) tick: u64,
    pub(crate) composer: Composer,
    pub(crate) status: StatusSnapshot,
    /// The session's tokens: what the runtime reported at open, plus every
    /// `agent_trace` since.
    pub(crate) tokens: TokenTotals,
    /// The job running now, from its `Started` to its `Ended`.
    pub(crate) job: Option<(JobId, JobKind)>,
    /// Prompts sent but not yet answered by `Queued` or `PromptRejected`,
    /// by op id: Esc in that window still interrupts.
    pub(crate) awaiting: Vec<OpId>,
    /// Ops submitted so far (each gets the next id).
    submitted: u64,
    /// A summary arrived during the running compaction (reported once).
    pub(crate) compact_reported: bool,
    pub(crate) activity: Activity,
    pub(crate) turn_started: Option<Instant>,
    pub(crate) thought: Option<LiveThought>,
    thought_done: Option<Meta>,
    pub(crate) output: Option<LiveOutput>,
    pub(crate) tools: Vec<LiveTool>,
    /// Queued prompts' texts, oldest first, and their ids beside them.
    pub(crate) queued: Vec<String>,
    pub(crate) queued_ids: Vec<JobId>,
    /// The agent's plan, pinned above the composer, and whether it shows
    /// every step (Ctrl+P folds it to one line).
    pub(crate) plan: Plan,
    pub(crate) plan_open: bool,
    pub(crate) popup: Popup,
    /// The slash-command popup is open (opened by typing `/`).
    pub(crate) slash_open: bool,
    pub(crate) slash_selected: usize,
    /// The `@` file picker and the listing behind it.
    pub(crate) mention: MentionPicker,
    /// Images taken from the clipboard so far (for their names).
    pub(crate) clipboard_images: u64,
    /// Ctrl+V asked for the clipboard's image (the run loop reads it).
    pub(crate) clipboard_wanted: bool,
    /// The image chips of prompts sent and not yet answered, by op id: a
    /// rejected prompt gets them back with its text.
    pub(crate) sent_images: Vec<(OpId, Vec<(String, PromptPart)>)>,
    pub(crate) overlay: Option<TranscriptView>,
    /// Changes waiting for approval, in call order (see `approvals.rs`).
    pub(crate) approvals: Vec<ApprovalView>,
    /// Questions of `ask_user` waiting for the user (see `approvals.rs`).
    pub(crate) question: Option<QuestionView>,
    pub(crate) transcript: Vec<TranscriptItem>,
    pending: Vec<Line<'static>>,
    committed_any: bool,
    pub(crate) ops: Vec<Submission>,
    pub(crate) last_ctrl_c: Option<Instant>,
    /// When Esc was last pressed on an idle, empty composer (a second press
    /// soon after opens the rewind list).
    pub(crate) last_esc: Option<Instant>,
    pub(crate) hint: Option<(String, Instant)>,
    pub(crate) quit: bool,
    /// Whether the terminal has the focus (as it last reported; focused
    /// until it says otherwise).
    pub(crate) focused: bool,
    /// What to call the user back for, while unfocused (see `notify.rs`).
    notifications: Vec<String>,
    dirty: bool,
}

impl App {
    /// A fresh view-model for a `width`×`height` terminal, with the time
    /// given (tests pass fixed clocks; the run loop passes real ones).
    pub fn new(opts: TuiOptions, width: u16, height: u16, now: Instant, now_ms: u64) -> Self {
        let composer = Composer::new(opts.history_path.clone());
        let mut app = Self {
            opts,
            width: width.max(10),
            height,
            now,
            now_ms,
            tick: 0,
            composer,
            status: StatusSnapshot::default(),
            tokens: TokenTotals::default(),
            job: None,
            awaiting: Vec::new(),
            submitted: 0,
            compact_reported: false,
            activity: Activity::Idle,
            turn_started: None,
            thought: None,
            thought_done: None,
            output: None,
            tools: Vec::new(),
            queued: Vec::new(),
            queued_ids: Vec::new(),
            plan: Plan::default(),
            plan_open: true,
            popup: Popup::None,
            slash_open: false,
            slash_selected: 0,
            mention: MentionPicker::default(),
            clipboard_images: 0,
            clipboard_wanted: false,
            sent_images: Vec::new(),
            overlay: None,
            approvals: Vec::new(),
            question: None,
            transcript: Vec::new(),
            pending: Vec::new(),
            committed_any: false,
            ops: Vec::new(),
            last_ctrl_c: None,
            last_esc: None,
            hint: None,
            quit: false,
            focused: true,
            notifications: Vec::new(),
            dirty: true,
        };
        if let Some(message) = app.opts.no_model_message.clone() {
            app.notice(NoticeLevel::Warn, &message);
        }
        for path in app.opts.images.clone() {
            app.attach_image_path(&path);
        }
        if let Some(prompt) = app
            .opts
            .initial_prompt
            .clone()
            .filter(|p| !p.trim().is_empty())
        {
            let chips = app.composer.image_chips();
            let text = if chips.is_empty() {
                prompt
            } else {
                let labels: Vec<&str> = chips.iter().map(|(l, _)| l.as_str()).collect();
                format!("{prompt}\n{}", labels.join(" "))
            };
            app.composer.clear();
            let parts = app.mention_parts(&text);
            app.send_prompt_with(text, parts, chips);
        }
        app
    }

    /// Sets the clock used by the next updates and renders.
    pub fn set_time(&mut self, now: Instant, now_ms: u64) {
        self.now = now;
        self.now_ms = now_ms;
    }

    /// Queues a notification saying `text` when the terminal is not
    /// focused (a person in another window is called back; one looking is
    /// not disturbed).
    pub(crate) fn call_back(&mut self, text: String) {
        if !self.focused {
            self.notifications.push(text);
        }
    }

    /// The notifications to write since the last call.
    pub fn take_notifications(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notifications)
    }

    /// Ops produced since the last call, in order.
    pub fn take_ops(&mut self) -> Vec<Submission> {
        std::mem::take(&mut self.ops)
    }

    /// Lines that became final since the last call, wrapped to the width
    /// at which they were committed; the run loop writes them to scrollback.
    pub fn take_committed(&mut self) -> Vec<Line<'static>> {
        std::mem::take(&mut self.pending)
    }

    /// Whether the user asked to leave.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether anything visible changed since the last [`App::mark_drawn`].
    pub fn is_dirty(&self) -> bool {
        self.dirty || !self.pending.is_empty()
    }

    /// Records that the current state is on screen.
    pub fn mark_drawn(&mut self) {
        self.dirty = false;
    }

    /// Whether something on screen moves by itself (spinner, elapsed time,
    /// a hint that expires), so the loop must keep ticking.
    pub fn is_animating(&self) -> bool {
        self.activity != Activity::Idle || self.hint.is_some()
    }

    /// Whether the transcript overlay is open.
    pub fn overlay_open(&self) -> bool {
        self.overlay.is_some()
    }

    /// The text in the composer.
    pub fn composer_text(&self) -> String {
        self.composer.text()
    }

    /// Prompts shown as queued.
    pub fn queued(&self) -> &[String] {
        &self.queued
    }

    /// The current activity.
    pub fn activity(&self) -> Activity {
        self.activity
    }

    /// The prompts sent and not yet answered, by op id, oldest first.
    pub fn awaiting(&self) -> &[OpId] {
        &self.awaiting
    }

    /// Whether something runs that Esc or Ctrl+C would interrupt: a job
    /// not yet over on screen (a turn is over once its stop is shown, a
    /// moment before its job ends), a queued prompt, or a sent prompt not
    /// yet answered.
    pub fn is_busy(&self) -> bool {
        (self.job.is_some() && self.activity != Activity::Idle)
            || !self.queued.is_empty()
            || !self.awaiting.is_empty()
    }

    /// Whether one of the user's own commands (`!CMD`) is running (Esc
    /// stops it).
    pub fn user_command_running(&self) -> bool {
        self.tools
            .iter()
            .any(|t| t.pane.call.name == "!" && t.pane.outcome.is_none())
    }

    /// The session's tokens so far.
    pub fn tokens(&self) -> TokenTotals {
        self.tokens
    }

    /// The popup's lines (pickers, or the slash-command list while it is
    /// open), drawn above the composer.
    pub fn popup_lines(&self, width: u16) -> Vec<Line<'static>> {
        match &self.popup {
            Popup::Picker(picker) => picker.lines(self.now_ms, width),
            Popup::Models(picker) => picker.lines(width),
            Popup::Rewind(picker) => picker.lines(self.now_ms, width),
            Popup::None => {
                let mut lines = if self.mention.open {
                    self.picker_lines(width)
                } else {
                    let matching = self.slash_matches();
                    slash_popup::lines(
                        &matching,
                        self.slash_selected.min(matching.len().saturating_sub(1)),
                        width,
                    )
                };
                lines.extend(file_picker::notes(&self.refused_mentions(), width));
                lines
            }
        }
    }

    /// The commands the open slash popup lists (none when it is closed).
    pub(crate) fn slash_matches(&self) -> Vec<super::commands::SlashCommand> {
        if !self.slash_open {
            return Vec::new();
        }
        slash_popup::matches(&self.composer.text())
    }

    /// The status line as it would be drawn now.
    pub fn status_view(&self) -> StatusView<'_> {
        StatusView {
            status: &self.status,
            tokens: self.tokens,
            activity: self.activity,
            elapsed: self
                .turn_started
                .map(|t| self.now.saturating_duration_since(t)),
            queued: self.queued.len(),
            hint: self.hint.as_ref().map(|(h, _)| h.as_str()),
        }
    }

    /// Applies one message.
    pub fn update(&mut self, msg: AppMsg) {
        self.dirty = true;
        match msg {
            AppMsg::Input(input) => self.on_input(input),
            AppMsg::Terminal(event) => self.on_terminal(event),
            AppMsg::Clipboard(read) => self.on_clipboard(read),
            AppMsg::Tick => {
                self.tick = self.tick.wrapping_add(1);
                if let Some((_, at)) = &self.hint
                    && self.now.saturating_duration_since(*at) >= DOUBLE_PRESS
                {
                    self.hint = None;
                }
            }
        }
    }

    pub(crate) fn on_session(&mut self, header: SessionHeader, recent: Vec<AgentEvent>) {
        self.flush_live(false);
        self.set_idle();
        self.job = None;
        self.queued.clear();
        self.queued_ids.clear();
        self.transcript.clear();
        self.status.session_id = header.id.clone();
        self.tokens = TokenTotals::default();
        let lines = session_header::lines(&header, self.now_ms, self.width);
        self.commit_cell(lines);
        self.transcript.push(TranscriptItem::Header(header));
        for event in recent {
            self.on_event(event, true);
        }
        self.flush_live(true);
    }

    /// Handles one agent event; `replay` marks history printed on resume
    /// (no timing, no state change).
    pub(crate) fn on_event(&mut self, event: AgentEvent, replay: bool) {
        if !event.is_transient() {
            self.transcript.push(TranscriptItem::Event(event.clone()));
        }
        match event {
            AgentEvent::Input { text, source, .. } => {
                self.flush_live(replay);
                match source {
                    InputSource::User => {
                        let lines = user_cell::lines(&text, self.width);
                        self.commit_cell(lines);
                    }
                    InputSource::System => {
                        let first = text.lines().next().unwrap_or("").to_string();
                        self.notice(NoticeLevel::Info, &format!("system: {first}"));
                    }
                }
            }
            AgentEvent::ThoughtDelta { text, .. } => {
                let now = self.now;
                self.thought
                    .get_or_insert_with(|| LiveThought {
                        text: String::new(),
                        started: now,
                    })
                    .text
                    .push_str(&text);
                self.activity = Activity::Thinking;
            }
            AgentEvent::Thought { text, meta } => {
                if self.thought_done == Some(meta) {
                    return;
                }
                let took = self
                    .thought
                    .take()
                    .map(|t| self.now.saturating_duration_since(t.started));
                let lines =
                    thought_cell::done_lines(&text, took, self.opts.show_thoughts, self.width);
                self.commit_cell(lines);
                self.thought_done = Some(meta);
            }
            AgentEvent::OutputDelta { text, meta } => {
                self.collapse_thought(meta);
                let width = self.width;
                let live = self.output.get_or_insert_with(|| LiveOutput {
                    stream: MarkdownStream::for_width(width),
                    committed_any: false,
                });
                let lines = live.stream.push(&text);
                self.commit_output(lines);
                self.activity = Activity::Streaming;
            }
            AgentEvent::Output { text, meta } => {
                self.collapse_thought(meta);
                match self.output.as_mut() {
                    Some(live) => {
                        if let Some(rest) = text.strip_prefix(live.stream.received()) {
                            let lines = live.stream.push(rest);
                            self.commit_output(lines);
                        }
                        self.finish_output();
                    }
                    None => {
                        let lines = MarkdownStream::render_all_for(&text, self.width);
                        let lines = output_cell::wrap(lines, self.width);
                        self.commit_cell(lines);
                    }
                }
            }
            AgentEvent::ToolCalls { calls, meta } => {
                self.collapse_thought(meta);
                self.finish_output();
                let started = if replay { None } else { Some(self.now) };
                self.tools.extend(calls.into_iter().map(|call| LiveTool {
                    pane: ToolPane::new(call),
                    started,
                }));
                if !replay {
                    self.activity = Activity::RunningTools(self.tools.len());
                }
            }
            AgentEvent::ToolResult { outcome, .. } => {
                let now = self.now;
                match self
                    .tools
                    .iter_mut()
                    .find(|t| t.pane.call.id == outcome.id && t.pane.outcome.is_none())
                {
                    Some(tool) => {
                        tool.pane.took = tool.started.map(|s| now.saturating_duration_since(s));
                        tool.pane.outcome = Some(outcome);
                    }
                    None => {
                        let call = ToolCall {
                            id: outcome.id.clone(),
                            name: outcome.name.clone(),
                            args: serde_json::Value::Object(Default::default()),
                        };
                        let mut pane = ToolPane::new(call);
                        pane.outcome = Some(outcome);
                        self.tools.push(LiveTool {
                            pane,
                            started: None,
                        });
                    }
                }
                self.commit_finished_tools();
                if !replay {
                    let running = self
                        .tools
                        .iter()
                        .filter(|t| t.pane.outcome.is_none())
                        .count();
                    self.activity = if running > 0 {
                        Activity::RunningTools(running)
                    } else {
                        Activity::Thinking
                    };
                }
            }
            AgentEvent::AgentStop { cause, message, .. } => {
                self.drop_approvals();
                self.flush_live(replay);
                let detail = if message.is_empty() {
                    String::new()
                } else {
                    format!(": {message}")
                };
                match cause {
                    StopCause::Done => {}
                    // Who interrupted is known; the reason adds nothing.
                    StopCause::User => self.notice(NoticeLevel::Warn, "interrupted"),
                    StopCause::Llm => {
                        self.notice(NoticeLevel::Error, &format!("model call failed{detail}"))
                    }
                    StopCause::Runtime => {
                        self.notice(NoticeLevel::Error, &format!("turn stopped{detail}"))
                    }
                }
                if !replay {
                    // The turn is over on screen; the job ends right after.
                    self.activity = Activity::Idle;
                    self.call_back(match cause {
                        StopCause::Done => "turn done".to_owned(),
                        StopCause::User => "turn interrupted".to_owned(),
                        StopCause::Llm | StopCause::Runtime => format!("turn failed{detail}"),
                    });
                }
            }
            AgentEvent::AgentTrace { usage, .. } => {
                if !replay {
                    self.tokens
                        .add(usage.input, usage.output, usage.cached.unwrap_or(0));
                }
            }
            AgentEvent::AgentSummary { covers_through, .. } => {
                self.compact_reported = true;
                let text = format!(
                    "context compacted (summary through turn {} step {})",
                    covers_through.turn, covers_through.step
                );
                let lines = notice::lines(NoticeLevel::Info, &text, self.width);
                self.commit_cell(lines);
            }
        }
    }

    pub(crate) fn set_idle(&mut self) {
        self.activity = Activity::Idle;
        self.turn_started = None;
    }

    fn collapse_thought(&mut self, meta: Meta) {
        if let Some(thought) = self.thought.take() {
            let took = self.now.saturating_duration_since(thought.started);
            let lines = thought_cell::done_lines(
                &thought.text,
                Some(took),
                self.opts.show_thoughts,
                self.width,
            );
            self.commit_cell(lines);
            self.thought_done = Some(meta);
        }
    }

    fn commit_output(&mut self, lines: Vec<Line<'static>>) {
        if lines.is_empty() {
            return;
        }
        let wrapped = output_cell::wrap(lines, self.width);
        let first = self.output.as_ref().is_some_and(|o| !o.committed_any);
        if first {
            self.commit_cell(wrapped);
        } else {
            self.pending.extend(wrapped);
        }
        if let Some(live) = self.output.as_mut() {
            live.committed_any = true;
        }
    }

    fn finish_output(&mut self) {
        if let Some(mut live) = self.output.take() {
            let rest = live.stream.finish();
            self.output = Some(live);
            self.commit_output(rest);
            self.output = None;
        }
    }

    pub(crate) fn commit_finished_tools(&mut self) {
        while self.tools.first().is_some_and(|t| t.pane.outcome.is_some()) {
            let tool = self.tools.remove(0);
            let lines = tool
                .pane
                .lines(None, self.tick, self.opts.tool_preview_lines, self.width);
            self.commit_cell(lines);
        }
    }

    /// Commits everything still live; unfinished tool calls are shown as
    /// cancelled.
    pub(crate) fn flush_live(&mut self, replay: bool) {
        if let Some(thought) = self.thought.take() {
            let took = (!replay).then(|| self.now.saturating_duration_since(thought.started));
            let lines =
                thought_cell::done_lines(&thought.text, took, self.opts.show_thoughts, self.width);
            self.commit_cell(lines);
        }
        self.finish_output();
        for tool in &mut self.tools {
            if tool.pane.outcome.is_none() {
                tool.pane.outcome = Some(ToolOutcome {
                    id: tool.pane.call.id.clone(),
                    name: tool.pane.call.name.clone(),
                    result: "cancelled".to_string(),
                    is_error: true,
                    display: None,
                });
            }
        }
        self.commit_finished_tools();
    }

    pub(crate) fn notice(&mut self, level: NoticeLevel, text: &str) {
        self.transcript
            .push(TranscriptItem::Notice(level, text.to_string()));
        let lines = notice::lines(level, text, self.width);
        self.commit_cell(lines);
    }

    pub(crate) fn commit_cell(&mut self, lines: Vec<Line<'static>>) {
        if lines.is_empty() {
            return;
        }
        if self.committed_any {
            self.pending.push(Line::default());
        }
        self.committed_any = true;
        self.pending.extend(lines);
    }

    /// Submits `op` under the next op id; a prompt's id is awaited until
    /// its `queued` update or its rejection names it.
    pub(crate) fn push_op(&mut self, op: Op) {
        self.submitted += 1;
        let id = OpId(format!("op-{}", self.submitted));
        if matches!(op, Op::Prompt { .. }) {
            self.awaiting.push(id.clone());
        }
        self.ops.push(Submission { id, op });
    }

    /// The decision on approval request `id`.
    pub(crate) fn push_decision(&mut self, id: OpId, decision: ApprovalDecision) {
        self.ops.push(Submission {
            id,
            op: Op::Approval { decision },
        });
    }

    /// An answer named prompt `op`: it is no longer awaited.
    pub(crate) fn answered(&mut self, op: Option<&OpId>) {
        if let Some(op) = op {
            self.awaiting.retain(|id| id != op);
            self.sent_images.retain(|(id, _)| id != op);
        }
    }

    /// Whether Ctrl+V asked for the clipboard since the last call.
    pub fn take_clipboard_request(&mut self) -> bool {
        std::mem::take(&mut self.clipboard_wanted)
    }

    pub(crate) fn request_quit(&mut self) {
        self.quit = true;
    }
}
