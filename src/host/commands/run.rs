//! The actor's side of commands: listing prompt files (and offering the
//! project's shell lines once), running a command as a prompt, and the
//! user's decision about the project's commands.

use std::time::Duration;

use super::discover::{self, Listing};
use super::parse::{self, Segment};
use super::review;
use super::trust::{self, Trust};
use crate::host::HostError;
use crate::host::actor::{Actor, Asked};
use crate::protocol::{CommandOrigin, HostEvent, MentionState, NoticeLevel, OpId, PromptPart};
use crate::tool::builtin::shell::CommandRequest;
use crate::tool::fs::Root;

/// Longest a prompt file's shell line may run.
const SHELL_TIMEOUT: Duration = Duration::from_secs(60);

const INIT_PROMPT: &str = include_str!("../../../assets/prompts/init_command.md");
const REVIEW_PROMPT: &str = include_str!("../../../assets/prompts/review_command.md");

impl Actor {
    /// The prompt files as they are now (read off the loop).
    async fn listing(&self) -> Listing {
        let cwd = self.config.cwd.clone();
        let config_dir = self.config.paths.config_dir.clone();
        tokio::task::spawn_blocking(move || discover::discover(&cwd, Some(&config_dir)))
            .await
            .unwrap_or_default()
    }

    /// `Op::ListCommands`: the listing, and the offer of the project's
    /// shell lines once per content (the offer counts as declined until
    /// `/commands accept`).
    pub(in crate::host) async fn list_commands(&self) {
        let listing = self.listing().await;
        if self.config.offer_project_files
            && trust::trust(&self.manager, &self.config.cwd, &listing).await == Trust::Undecided
        {
            self.notice(NoticeLevel::Info, trust::offer(&listing));
            if let Err(e) = trust::decide(&self.manager, &self.config.cwd, &listing, false).await {
                self.notice(NoticeLevel::Warn, e);
            }
        }
        self.send(HostEvent::Commands {
            commands: listing.found.into_iter().map(|f| f.info).collect(),
            skipped: listing.skipped,
        });
    }

    /// `/commands accept` or `/commands decline`.
    pub(in crate::host) async fn decide_project_commands(&self, accept: bool) {
        let listing = self.listing().await;
        match trust::decide(&self.manager, &self.config.cwd, &listing, accept).await {
            Ok(false) => self.notice(
                NoticeLevel::Info,
                "none of this project's prompt files runs shell commands: nothing to decide",
            ),
            Ok(true) if accept => self.notice(
                NoticeLevel::Info,
                format!(
                    "the project's prompt files may run their shell commands in this directory, as they are now: {}",
                    listing.shell_lines().join("; ")
                ),
            ),
            Ok(true) => self.notice(
                NoticeLevel::Info,
                "the project's prompt files will not run shell commands in this directory",
            ),
            Err(e) => self.notice(NoticeLevel::Error, e),
        }
    }

    /// `Op::RunCommand`: `init`, `review`, or a prompt file, sent as a
    /// prompt; what cannot be sent goes back with the command line.
    pub(in crate::host) async fn run_command(
        &mut self,
        op: OpId,
        name: String,
        args: String,
        interrupts: u64,
    ) -> Result<(), HostError> {
        let args = args.trim().to_owned();
        let line = match args.is_empty() {
            true => format!("/{name}"),
            false => format!("/{name} {args}"),
        };
        let asked = |read_only| Asked {
            shown: Some(line.clone()),
            read_only,
        };
        match name.as_str() {
            "init" => {
                let mut text = INIT_PROMPT.trim_end().to_owned();
                if !args.is_empty() {
                    text.push_str(&format!("\n\nAlso: {args}"));
                }
                let text = self.user_notes.prefix(text);
                return self
                    .prompt_as(op, text, Vec::new(), interrupts, asked(false))
                    .await;
            }
            "review" => {
                let base = (!args.is_empty()).then_some(args.as_str());
                return match review::changes(&self.config.cwd, base).await {
                    Ok(changes) => {
                        let text = self
                            .user_notes
                            .prefix(review::prompt(REVIEW_PROMPT, &changes));
                        self.prompt_as(op, text, Vec::new(), interrupts, asked(true))
                            .await
                    }
                    Err(text) => {
                        self.send(HostEvent::CommandAnswered { op, text });
                        Ok(())
                    }
                };
            }
            _ => {}
        }
        let reject = |reason: String| HostEvent::PromptRejected {
            op: op.clone(),
            text: line.clone(),
            reason,
        };
        let listing = self.listing().await;
        // Looked up by name among the files found: a name is never a path.
        let Some(found) = listing.get(&name).cloned() else {
            self.send(reject(format!(
                "unknown command /{name} — /help and /commands list them"
            )));
            return Ok(());
        };
        let (Some(file), None) = (&found.file, &found.info.problem) else {
            let why = found.info.problem.clone().unwrap_or_default();
            self.send(reject(format!("/{name} cannot be used: {why}")));
            return Ok(());
        };
        let segments = parse::expand(&file.body, &args);
        let runs_shell = segments.iter().any(|s| matches!(s, Segment::Shell(_)));
        if runs_shell && found.info.origin == CommandOrigin::Project {
            let standing = trust::trust(&self.manager, &self.config.cwd, &listing).await;
            if standing != Trust::Accepted {
                self.send(reject(format!(
                    "/{name} runs shell commands from {} that were not accepted: nothing ran, nothing was sent (`/commands accept` lets the project's commands run: {})",
                    found.info.path,
                    listing.shell_lines().join("; ")
                )));
                return Ok(());
            }
        }
        // Mentions come from the file's text and the arguments, never from
        // what a shell line printed.
        let written: String = segments
            .iter()
            .filter_map(|s| match s {
                Segment::Text(text) => Some(text.as_str()),
                Segment::Shell(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let parts = self.mention_parts(&written).await;
        let text = match self.fill_shell(segments, interrupts).await {
            Some(text) => text,
            None => {
                self.send(reject(format!(
                    "/{name} was interrupted while its shell commands ran"
                )));
                return Ok(());
            }
        };
        let text = self.user_notes.prefix(text);
        self.prompt_as(op, text, parts, interrupts, asked(false))
            .await
    }

    /// The segments as one text, each shell span replaced by what its
    /// command printed (run as the user's own `!cmd` runs: unsandboxed, a
    /// scrubbed environment, its own process group, a timeout); `None`
    /// when an Esc came meanwhile.
    async fn fill_shell(&self, segments: Vec<Segment>, interrupts: u64) -> Option<String> {
        let mut text = String::new();
        for segment in segments {
            match segment {
                Segment::Text(t) => text.push_str(&t),
                Segment::Shell(command) => {
                    let Some(shell) = self.shell.clone() else {
                        text.push_str(&format!("[`{command}` not run: no session is open]"));
                        continue;
                    };
                    let request = CommandRequest {
                        command: command.clone(),
                        cwd: self.config.cwd.clone(),
                        workspace: self.config.cwd.clone(),
                        timeout: Some(SHELL_TIMEOUT),
                        unsandboxed: true,
                    };
                    let cancel = self.shared.user_cancel();
                    let ran = tokio::select! {
                        biased;
                        () = self.shared.interrupted_after(interrupts) => return None,
                        ran = shell.run(&request, cancel, None) => ran,
                    };
                    match ran {
                        Ok(report) if report.success => text.push_str(report.output.trim_end()),
                        Ok(report) => text.push_str(&format!(
                            "{}\n[`{command}`: {}]",
                            report.output.trim_end(),
                            report.status
                        )),
                        Err(e) => {
                            text.push_str(&format!("[`{command}` could not be started: {e}]"))
                        }
                    }
                }
            }
        }
        Some(text)
    }

    /// The `@` mentions of a command's text as file-reference parts, as if
    /// typed: a path that is not a readable file inside the directory
    /// (outside, missing, a folder, binary) is named in a notice and never
    /// read.
    async fn mention_parts(&self, text: &str) -> Vec<PromptPart> {
        let mentions = crate::protocol::mentions(text);
        if mentions.is_empty() {
            return Vec::new();
        }
        let cwd = self.config.cwd.clone();
        let checked = tokio::task::spawn_blocking(move || {
            let Ok(root) = Root::open(&cwd) else {
                return Vec::new();
            };
            mentions
                .into_iter()
                .map(|m| {
                    let state = crate::host::parts::mention_state(&root, &m.path);
                    (m, state)
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let mut parts = Vec::new();
        for (mention, state) in checked {
            if state.is_sent() {
                parts.push(mention.part());
            } else if state != MentionState::Missing {
                // A missing path is often not meant as a file (`@here`).
                self.notice(
                    NoticeLevel::Warn,
                    format!("@{} is {}", mention.path, state.describe()),
                );
            }
        }
        parts
    }
}
