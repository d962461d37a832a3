//! The user's own commands (`!CMD`) and `/jobs`.
//!
//! A `!CMD` runs at once, without approval and without the sandbox (the
//! user typed it, as in their own terminal), with the same hygiene as the
//! model's commands: no terminal, its own process group, a scrubbed
//! environment, a timeout and the output budget. Its pane shows live output;
//! the command and its output go in front of the next prompt so the model
//! sees them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::protocol::{HostEvent, Notice, NoticeLevel};
use crate::tool::ToolProgress;
use crate::tool::builtin::shell::{CommandRequest, Shell};
use crate::tool::fs::Root;
use crate::tool::journal::Journal;
use tokio_util::sync::CancellationToken;

use super::actor::Actor;

/// How long a `!CMD` may run.
const USER_TIMEOUT: Duration = Duration::from_secs(600);

/// Commands the user ran since the last prompt, as notes for the model.
#[derive(Clone, Default)]
pub(super) struct UserNotes(Arc<Mutex<Vec<String>>>);

impl UserNotes {
    fn push(&self, note: String) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(note);
    }

    /// `prompt` with the notes in front (and the notes cleared).
    pub(super) fn prefix(&self, prompt: String) -> String {
        let notes = std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
        if notes.is_empty() {
            return prompt;
        }
        format!("{}\n\n{prompt}", notes.join("\n\n"))
    }
}

impl Actor {
    /// Starts the user's command `command`; its pane opens now and closes
    /// when it ends (or Esc stops it).
    pub(super) fn user_shell(&mut self, command: String) {
        let Some(shell) = self.shell.clone() else {
            self.notice(NoticeLevel::Warn, "no session is open to run commands in");
            return;
        };
        self.user_runs += 1;
        let id = format!("user-shell-{}", self.user_runs);
        self.send(HostEvent::UserShellStarted {
            id: id.clone(),
            command: command.clone(),
        });
        let ui = self.shared.events.clone();
        let live_ui = ui.clone();
        let live = ToolProgress::new(
            &id,
            Arc::new(move |call_id: &str, text: String| {
                let _ = live_ui.send(HostEvent::Notice {
                    op: None,
                    notice: Notice::ToolOutput {
                        call_id: call_id.to_string(),
                        text,
                    },
                });
            }),
        );
        let request = CommandRequest {
            command: command.clone(),
            cwd: self.config.cwd.clone(),
            workspace: self.config.cwd.clone(),
            timeout: Some(USER_TIMEOUT),
            unsandboxed: true,
        };
        let cancel = self.shared.user_cancel();
        let notes = self.user_notes.clone();
        let agent = self.agent().cloned();
        tokio::spawn(async move {
            // Recorded for /undo like the model's commands (issue 27).
            let journal = match &agent {
                Some(agent) => agent.command_journal().await,
                None => None,
            };
            run(shell, request, journal, cancel, live, ui, notes, id).await
        });
    }

    /// Lists this session's background jobs.
    pub(super) fn jobs(&self) {
        let jobs = self.shell.as_ref().map(Shell::jobs).unwrap_or_default();
        if jobs.is_empty() {
            self.notice(NoticeLevel::Info, "no background jobs");
            return;
        }
        let mut text = String::from("background jobs:");
        for job in jobs {
            text.push_str(&format!(
                "\n  {}  {}  {} s  {} bytes  {}",
                job.id,
                job.state,
                job.age.as_secs(),
                job.output_bytes,
                job.command
            ));
        }
        self.notice(NoticeLevel::Info, text);
    }

    /// Ends background job `id`.
    pub(super) async fn kill_job(&self, id: &str) {
        let Some(shell) = &self.shell else {
            self.notice(NoticeLevel::Warn, "no background jobs");
            return;
        };
        match shell.kill_job(id).await {
            Ok(info) => self.notice(NoticeLevel::Info, format!("{}: {}", info.id, info.state)),
            Err(message) => self.notice(NoticeLevel::Warn, message),
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn run(
    shell: Shell,
    request: CommandRequest,
    journal: Option<(Root, Journal)>,
    cancel: CancellationToken,
    live: ToolProgress,
    ui: tokio::sync::mpsc::UnboundedSender<HostEvent>,
    notes: UserNotes,
    id: String,
) {
    let ran = match &journal {
        Some((root, journal)) => {
            shell
                .run_recorded(&request, root, Some(journal), cancel, Some(live))
                .await
        }
        None => shell
            .run(&request, cancel, Some(live))
            .await
            .map(|report| (report, None)),
    };
    let (result, is_error) = match ran {
        Ok((report, None)) => (report.model_text(), !report.success),
        Ok((report, Some(note))) => (
            format!("{}[{note}]\n", report.model_text()),
            !report.success,
        ),
        Err(e) => (format!("the command could not be started: {e}"), true),
    };
    notes.push(format!(
        "[I ran this command myself: `{}`]\n```\n{}```",
        request.command,
        result.replace("```", "`\u{200b}``")
    ));
    let _ = ui.send(HostEvent::UserShellDone {
        id,
        result,
        is_error,
    });
}
