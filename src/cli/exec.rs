//! `light-agent exec`: headless, for scripts — a thin front end on the
//! library's [`Host`], like the TUI.
//!
//! One prompt (the default): text mode streams the answer to stdout and one
//! line per tool call and result to stderr; `--json` prints every agent
//! event as one JSON line on stdout. With `--input-format stream-json` stdin
//! carries ops, one JSON object a line, for a long-lived session; stdout
//! then carries every host event as a JSON line (agent events as in
//! `--json`, and `job`, `notice`, `approval_requested`, `prompt_rejected` …
//! tagged by `type`), and a line that is not an op gets an `error` line.
//! Exit codes: 0 done, 1 model or runtime error, 130 interrupted.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use anyhow::Result;
use std::path::Path;

use light_agent::host::{Host, commands};
use light_agent::protocol::{
    AgentEvent, HostEvent, JobId, JobUpdate, Notice, NoticeLevel, Op, OpId, PromptPart, StopCause,
    Submission,
};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use super::output::{self, OutputError, SafeWriter};
use super::{Exit, truncate};

/// How exec prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Answer on stdout, tool lines on stderr.
    Text,
    /// Every agent event as a JSON line on stdout.
    Json,
    /// Ops from stdin, every host event as a JSON line on stdout.
    StreamJson,
}

/// The op id of the one prompt of a plain `exec`.
const PROMPT_OP: &str = "prompt";

/// Runs until the work is done: the one `prompt` (when given, with its
/// `parts`) to its end,
/// or, in stream-json mode, every op stdin sends until it closes and the
/// last turn ended. Returns the process exit code. If stdout cannot be
/// written (closed pipe, full device) the turn is interrupted and the
/// [`OutputError`] returned.
pub async fn run(
    host: Host,
    mut events: mpsc::UnboundedReceiver<HostEvent>,
    prompt: Option<Op>,
    format: Format,
) -> Result<Exit> {
    let mut pending = Pending::default();
    if let Some(op) = prompt {
        pending.ops.insert(OpId::new(PROMPT_OP));
        host.submit(Submission::new(PROMPT_OP, op));
    }
    let (ops_tx, mut ops_rx) = mpsc::unbounded_channel::<Submission>();
    let mut reading = format == Format::StreamJson;
    if reading {
        tokio::spawn(read_ops(ops_tx));
    }
    let mut stdout = output::stdout();
    let mut exit = Exit::Success;
    loop {
        if !reading && pending.is_empty() {
            break;
        }
        tokio::select! {
            op = ops_rx.recv(), if reading => match op {
                Some(submission) => {
                    if matches!(submission.op, Op::Prompt { .. } | Op::RunCommand { .. }) {
                        pending.ops.insert(submission.id.clone());
                    }
                    host.submit(submission);
                }
                None => reading = false,
            },
            signal = tokio::signal::ctrl_c() => if signal.is_ok() {
                host.submit(Submission::new("", Op::Interrupt));
            },
            event = events.recv() => {
                let Some(event) = event else { break };
                // Everything already queued is written in one go and flushed
                // once: a flush per delta would cost a write syscall per token.
                let mut next = Some(event);
                while let Some(event) = next {
                    if let Err(failed) = show(&mut stdout, &event, format) {
                        host.submit(Submission::new("", Op::Interrupt));
                        host.submit(Submission::new("", Op::Quit));
                        return Err(failed.into());
                    }
                    if let Some(ended) = pending.follow(&event) {
                        exit = ended;
                    }
                    next = events.try_recv().ok();
                }
                stdout.flush()?;
            }
        }
    }
    stdout.flush()?;
    // The caller awaits the host's end: it flushes and marks the session idle.
    host.submit(Submission::new("", Op::Quit));
    Ok(exit)
}

/// The prompts sent and not yet ended, by op id, with the job each became.
#[derive(Default)]
struct Pending {
    ops: HashSet<OpId>,
    jobs: HashMap<JobId, OpId>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Follows `event`; returns how a prompt it ends ended.
    fn follow(&mut self, event: &HostEvent) -> Option<Exit> {
        match event {
            HostEvent::Job {
                op: Some(op),
                update: JobUpdate::Queued { id, .. },
            } => {
                self.jobs.insert(*id, op.clone());
                None
            }
            HostEvent::Job {
                op: Some(op),
                update: JobUpdate::Ended { cause, .. },
            } if self.ops.remove(op) => Some(match cause {
                StopCause::Done => Exit::Success,
                StopCause::User => Exit::Interrupted,
                StopCause::Llm | StopCause::Runtime => Exit::Failure,
            }),
            HostEvent::PromptRejected { op, .. } if self.ops.remove(op) => Some(Exit::Failure),
            HostEvent::CommandAnswered { op, .. } if self.ops.remove(op) => Some(Exit::Success),
            HostEvent::Job {
                update: JobUpdate::Withdrawn { prompts },
                ..
            } => {
                // Taken back by an interrupt: they never run.
                let mut ours = false;
                for prompt in prompts {
                    if let Some(op) = self.jobs.remove(&prompt.id) {
                        ours |= self.ops.remove(&op);
                    }
                }
                ours.then_some(Exit::Interrupted)
            }
            _ => None,
        }
    }
}

/// The op of `exec`'s prompt: `/NAME ARGS` naming `/init`, `/review` or a
/// prompt file of `cwd` or of `config_dir` (and no images) runs that
/// command; any other text is a prompt.
pub fn prompt_op(cwd: &Path, config_dir: &Path, text: String, parts: Vec<PromptPart>) -> Op {
    let command = text.trim().strip_prefix('/').filter(|_| parts.is_empty());
    if let Some(line) = command {
        let (name, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let known = ["init", "review"].contains(&name)
            || (commands::discover::valid_name(name)
                && commands::discover::discover(cwd, Some(config_dir))
                    .get(name)
                    .is_some());
        if known {
            return Op::RunCommand {
                name: name.to_string(),
                args: args.trim().to_string(),
            };
        }
    }
    Op::Prompt { text, parts }
}

/// Writes one host event as the format wants.
fn show(
    stdout: &mut SafeWriter<impl Write>,
    event: &HostEvent,
    format: Format,
) -> Result<(), OutputError> {
    match (format, event) {
        (Format::StreamJson, HostEvent::Agent { event }) => print_json(stdout, event),
        (Format::StreamJson, event) => match serde_json::to_string(event) {
            Ok(line) => stdout.json_line(&line),
            Err(_) => Ok(()),
        },
        (_, HostEvent::Agent { event }) => {
            match format {
                Format::Json => print_json(stdout, event)?,
                _ => print_text(stdout, event)?,
            }
            tell_how_to_allow(event);
            Ok(())
        }
        // A subagent's events, tagged with the parent's call (`--json`).
        (
            Format::Json,
            HostEvent::Notice {
                notice: notice @ Notice::Subagent { .. },
                ..
            },
        ) => match serde_json::to_string(notice) {
            Ok(line) => stdout.json_line(&line),
            Err(_) => Ok(()),
        },
        (_, HostEvent::Notice { notice, .. }) => {
            if *notice == Notice::PartialDropped && format == Format::Text {
                // The dropped part stays on its own line.
                stdout.text("\n")?;
            }
            stdout.flush()?;
            print_notice(notice);
            Ok(())
        }
        (_, HostEvent::CommandAnswered { text, .. }) => stdout.text(&format!("{text}\n")),
        (_, HostEvent::PromptRejected { reason, .. }) => {
            output::eprintln(&format!("error: {reason}"));
            Ok(())
        }
        (
            Format::Text,
            HostEvent::Job {
                update:
                    JobUpdate::Ended {
                        cause: StopCause::Llm | StopCause::Runtime,
                        message,
                        ..
                    },
                ..
            },
        ) => {
            stdout.flush()?;
            output::eprintln(&format!("error: {message}"));
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Reads ops from stdin, one JSON object a line, until it closes. A line
/// that is not an op gets an `error` line on stdout and is skipped.
async fn read_ops(ops: mpsc::UnboundedSender<Submission>) {
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut number = 0u64;
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => return,
            Err(e) => {
                report_bad_line(number + 1, &format!("stdin cannot be read: {e}"));
                return;
            }
        };
        number += 1;
        if line.trim().is_empty() {
            continue;
        }
        match parse_op(&line, number) {
            Ok(submission) => {
                if ops.send(submission).is_err() {
                    return;
                }
            }
            Err(why) => report_bad_line(number, &why),
        }
    }
}

fn report_bad_line(number: u64, why: &str) {
    let line = serde_json::json!({"type": "error", "line": number, "message": why});
    let mut out = output::stdout();
    let _ = out.json_line(&line.to_string());
    let _ = out.flush();
}

/// One stdin line as a submission: the protocol's own form, or Claude
/// Code's `{"type":"user","message":{"role":"user","content":…}}` as a
/// prompt. An op without an id gets `line-N`.
fn parse_op(line: &str, number: u64) -> Result<Submission, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let mut submission = if value.get("type").and_then(|t| t.as_str()) == Some("user") {
        let content = value
            .pointer("/message/content")
            .ok_or("a `user` line needs message.content")?;
        Submission::new(
            "",
            Op::Prompt {
                text: user_content_text(content)?,
                parts: Vec::new(),
            },
        )
    } else {
        serde_json::from_value::<Submission>(value).map_err(|e| format!("not an op: {e}"))?
    };
    if submission.id.0.is_empty() {
        submission.id = OpId(format!("line-{number}"));
    }
    Ok(submission)
}

/// The text of a user message's content: a string, or the text blocks of
/// an array of content blocks.
fn user_content_text(content: &serde_json::Value) -> Result<String, String> {
    if let Some(text) = content.as_str() {
        return Ok(text.to_string());
    }
    let blocks = content
        .as_array()
        .ok_or("message.content must be a string or an array of blocks")?;
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
        .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
        .collect();
    if texts.is_empty() {
        return Err("message.content has no text block".into());
    }
    Ok(texts.join("\n\n"))
}

fn print_notice(notice: &Notice) {
    match notice {
        Notice::Retrying {
            attempt,
            delay,
            message,
        } => output::eprintln(&format!(
            "retrying ({attempt}) in {:.1}s: {message}",
            delay.as_secs_f64()
        )),
        Notice::PartialDropped => output::eprintln(
            "(the answer was cut off; what was printed of it is dropped and the model is asked again)",
        ),
        Notice::Message { level, text } => {
            let label = match level {
                NoticeLevel::Info => "note",
                NoticeLevel::Warn => "warning",
                NoticeLevel::Error => "error",
            };
            output::eprintln(&format!("{label}: {text}"));
        }
        Notice::ToolOutput { .. } | Notice::Subagent { .. } => {}
    }
}

/// A call denied because nobody can approve it here: stderr gets the whole
/// message, which says how to allow such calls.
fn tell_how_to_allow(event: &AgentEvent) {
    if let AgentEvent::ToolResult { outcome, .. } = event
        && outcome.is_error
        && outcome.result.starts_with(EXEC_DENIAL)
    {
        output::eprintln(&format!("light-agent: {} {}", outcome.name, outcome.result));
    }
}

/// How [`Permits`](light_agent::permission::Permits) without an approver
/// words its denials.
const EXEC_DENIAL: &str = "denied in exec";

fn print_json(out: &mut SafeWriter<impl Write>, event: &AgentEvent) -> Result<(), OutputError> {
    match serde_json::to_string(event) {
        Ok(line) => out.json_line(&line),
        Err(_) => Ok(()),
    }
}

fn print_text(out: &mut SafeWriter<impl Write>, event: &AgentEvent) -> Result<(), OutputError> {
    // Tool lines go to stderr: what came before them on stdout must show first.
    if !matches!(
        event,
        AgentEvent::OutputDelta { .. } | AgentEvent::ThoughtDelta { .. }
    ) {
        out.flush()?;
    }
    match event {
        AgentEvent::OutputDelta { text, .. } => out.text(text)?,
        AgentEvent::Output { .. } => out.text("\n")?,
        AgentEvent::ToolCalls { calls, .. } => {
            for call in calls {
                let intent = call.intent().map(|i| format!(" — {i}")).unwrap_or_default();
                output::eprintln(&format!(
                    "→ {} {}{intent}",
                    call.name,
                    short_args(&call.args)
                ));
            }
        }
        AgentEvent::ToolResult { outcome, .. } => {
            let mark = if outcome.is_error { "✗" } else { "✓" };
            let first = outcome.result.lines().next().unwrap_or("");
            output::eprintln(&format!(
                "{mark} {} ({} lines) {}",
                outcome.name,
                outcome.result.lines().count(),
                truncate(first, 120)
            ));
        }
        AgentEvent::AgentStop {
            cause: StopCause::User,
            message,
            ..
        } => output::eprintln(&format!("interrupted: {message}")),
        AgentEvent::AgentSummary { .. } => output::eprintln("(older steps were summarised)"),
        _ => {}
    }
    Ok(())
}

/// Arguments without `_intent`, compact.
fn short_args(args: &serde_json::Value) -> String {
    let mut args = args.clone();
    if let Some(map) = args.as_object_mut() {
        map.remove(light_agent::protocol::INTENT_FIELD);
    }
    truncate(&args.to_string(), 160)
}
