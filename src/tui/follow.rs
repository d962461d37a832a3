//! How the [`App`] follows the host: every [`HostEvent`], and above all
//! the job updates that are its only source of running / idle / queued.

use super::app::{App, LiveTool, Popup};
use super::transcript::TranscriptItem;
use super::view::model_picker::ModelPicker;
use super::view::question::QuestionView;
use super::view::resume_picker::ResumePicker;
use super::view::rewind_picker::RewindPicker;
use super::view::status_line::Activity;
use super::view::tool_pane::ToolPane;
use super::view::{mcp_report, sessions_report, skills_report, status_report, tools_report};
use crate::protocol::{
    HostEvent, JobId, JobKind, JobUpdate, Notice, NoticeLevel, Report, StopCause, ToolCall,
    ToolOutcome,
};

impl App {
    pub(crate) fn on_input(&mut self, input: HostEvent) {
        match input {
            HostEvent::Agent { event } => self.on_event(event, false),
            HostEvent::Job { op, update } => {
                self.answered(op.as_ref());
                self.on_job(update);
            }
            HostEvent::SessionOpened { header, recent } => self.on_session(header, recent),
            HostEvent::Status { status } => self.status = status,
            HostEvent::Plan { plan } => self.plan = plan,
            HostEvent::SessionTokens { tokens } => self.tokens = tokens,
            HostEvent::Notice { notice, .. } => self.on_notice(notice),
            HostEvent::UserShellStarted { id, command } => {
                let call = ToolCall {
                    id,
                    name: "!".into(),
                    args: serde_json::json!({ "command": command }),
                };
                self.tools.push(LiveTool {
                    pane: ToolPane::new(call),
                    started: Some(self.now),
                });
            }
            HostEvent::UserShellDone {
                id,
                result,
                is_error,
            } => {
                let now = self.now;
                if let Some(tool) = self
                    .tools
                    .iter_mut()
                    .find(|t| t.pane.call.id == id && t.pane.outcome.is_none())
                {
                    tool.pane.took = tool.started.map(|s| now.saturating_duration_since(s));
                    tool.pane.outcome = Some(ToolOutcome {
                        id,
                        name: "!".into(),
                        result,
                        is_error,
                        display: None,
                    });
                }
                self.commit_finished_tools();
            }
            HostEvent::PromptRejected { op, text, reason } => {
                let chips = self
                    .sent_images
                    .iter()
                    .find(|(id, _)| *id == op)
                    .map(|(_, chips)| chips.clone())
                    .unwrap_or_default();
                self.answered(Some(&op));
                self.notice(NoticeLevel::Error, &reason);
                self.restore_prompts(vec![text]);
                self.composer.restore_images(chips);
            }
            HostEvent::Files { entries, truncated } => self.on_files(entries, truncated),
            HostEvent::MentionsChecked { checks } => self.on_mentions_checked(checks),
            HostEvent::Commands { commands, skipped } => self.on_commands(commands, skipped),
            HostEvent::CommandAnswered { op, text } => {
                self.answered(Some(&op));
                self.notice(NoticeLevel::Info, &text);
            }
            HostEvent::Prompts { prompts, .. } => {
                self.popup = Popup::Rewind(RewindPicker::new(prompts));
            }
            HostEvent::Rewound { outcome, .. } => {
                self.notice(NoticeLevel::Info, &outcome.describe());
                if outcome.conversation {
                    self.restore_prompts(vec![outcome.prompt]);
                }
            }
            HostEvent::Sessions { rows } => self.popup = Popup::Picker(ResumePicker::new(rows)),
            HostEvent::ApprovalRequested { id, request } => {
                self.call_back(format!("approval needed: {}", request.title));
                self.queue_approval(id, request);
            }
            HostEvent::QuestionAsked { id, questions } => {
                if let Some(first) = questions.first() {
                    self.call_back(format!("question: {}", first.question));
                }
                self.question = Some(QuestionView::new(id, questions));
            }
            HostEvent::Models { models } => {
                let current = self.status.model.clone();
                self.popup = Popup::Models(ModelPicker::new(models, &current));
            }
            HostEvent::Report { report } => {
                let lines = match &report {
                    Report::Status(r) => status_report::lines(r, self.width),
                    Report::Tools(r) => tools_report::lines(r, self.width),
                    Report::Skills(r) => skills_report::lines(r, self.width),
                    Report::Sessions(r) => sessions_report::lines(r, self.now_ms, self.width),
                    Report::Mcp(r) => mcp_report::lines(r, self.now_ms, self.width),
                };
                self.commit_cell(lines);
            }
        }
    }

    fn on_notice(&mut self, notice: Notice) {
        match notice {
            Notice::Retrying {
                attempt,
                delay,
                message,
            } => {
                self.activity = Activity::Retrying { attempt };
                let text = format!(
                    "retrying in {}s (attempt {attempt}): {message}",
                    delay.as_secs().max(1)
                );
                self.notice(NoticeLevel::Warn, &text);
            }
            Notice::PartialDropped => {
                // Lines already in scrollback cannot be taken back; the
                // notice says they are void, the rest is never shown.
                let shown = self.output.take().is_some_and(|o| o.committed_any);
                self.thought = None;
                let text = if shown {
                    "the answer above was cut off and is dropped; asking the model again"
                } else {
                    "the answer was cut off and is dropped; asking the model again"
                };
                self.notice(NoticeLevel::Warn, text);
            }
            Notice::Message { level, text } => self.notice(level, &text),
            Notice::ToolOutput { call_id, text } => {
                if let Some(tool) = self
                    .tools
                    .iter_mut()
                    .find(|t| t.pane.call.id == call_id && t.pane.outcome.is_none())
                {
                    tool.pane.live = Some(text);
                }
            }
            Notice::Subagent {
                call_id,
                agent,
                event,
                ..
            } => self.transcript.push(TranscriptItem::Subagent {
                call_id,
                agent,
                event: *event,
            }),
        }
    }

    /// Job updates are the only source of running / idle / queued.
    fn on_job(&mut self, update: JobUpdate) {
        match update {
            JobUpdate::Queued { id, kind, text } => {
                if kind == JobKind::Prompt {
                    self.queued.push(text);
                    self.queued_ids.push(id);
                }
            }
            JobUpdate::Started { id, kind } => {
                self.unqueue(id);
                self.job = Some((id, kind));
                self.compact_reported = false;
                self.activity = match kind {
                    JobKind::Prompt => Activity::Thinking,
                    JobKind::Compact => Activity::Compacting,
                    JobKind::LoadSession => Activity::Loading,
                };
                self.turn_started = Some(self.now);
            }
            JobUpdate::Ended {
                id,
                kind,
                cause,
                message,
                window_tokens,
            } => {
                self.status.window_tokens = window_tokens;
                if self.job.is_some_and(|(running, _)| running == id) {
                    self.flush_live(false);
                    self.job = None;
                    self.set_idle();
                }
                match (kind, cause) {
                    // A prompt's end was shown with its agent_stop.
                    (JobKind::Prompt, _) => {}
                    (JobKind::LoadSession, StopCause::Done) => {}
                    (JobKind::Compact, StopCause::Done) if self.compact_reported => {}
                    (_, StopCause::Done) => self.notice(NoticeLevel::Info, &message),
                    (_, StopCause::User) => self.notice(NoticeLevel::Warn, &message),
                    (_, StopCause::Llm | StopCause::Runtime) => {
                        self.notice(NoticeLevel::Error, &message)
                    }
                }
            }
            JobUpdate::Withdrawn { prompts } => {
                let mut texts = Vec::with_capacity(prompts.len());
                for prompt in prompts {
                    self.unqueue(prompt.id);
                    texts.push(prompt.text);
                }
                self.restore_prompts(texts);
            }
        }
    }

    fn unqueue(&mut self, id: JobId) {
        if let Some(i) = self.queued_ids.iter().position(|q| *q == id) {
            self.queued_ids.remove(i);
            self.queued.remove(i);
        }
    }

    /// Puts prompts that did not run back into the composer, ahead of
    /// whatever is being typed.
    fn restore_prompts(&mut self, mut parts: Vec<String>) {
        let draft = self.composer.text();
        if !draft.trim().is_empty() {
            parts.push(draft);
        }
        self.composer.set_text(&parts.join("\n"));
        self.slash_open = false;
    }
}
