//! `light-agent exec`: one turn, headless, for scripts.
//!
//! Text mode streams the answer to stdout and one line per tool call and
//! result to stderr; `--json` prints every event as one JSON line on stdout.
//! Exit codes: 0 done, 1 model or runtime error, 130 interrupted.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Result;
use light_agent::agent::{Agent, Notice};
use light_agent::config::Settings;
use light_agent::mcp::McpServerConfig;
use light_agent::protocol::{AgentEvent, NoticeLevel, StopCause};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::output::{self, OutputError, SafeWriter};
use super::{Exit, build, truncate};

/// How exec prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Answer on stdout, tool lines on stderr.
    Text,
    /// Every event as a JSON line on stdout.
    Json,
}

/// Runs one prompt to its end; returns the process exit code. If stdout
/// cannot be written (closed pipe, full device) the turn is interrupted and
/// the [`OutputError`] returned.
///
/// MCP servers of `settings` (and `project_servers`, a `.mcp.json` the user
/// accepted) start once the notices are subscribed; the
/// prompt waits until each is up or failed (at most its
/// `startup_timeout_sec`): a script gets every tool or a notice, never a
/// race with a slow start.
pub async fn run(
    agent: Agent,
    prompt: String,
    format: Format,
    cwd: &Path,
    settings: &Settings,
    project_servers: &BTreeMap<String, McpServerConfig>,
) -> Result<Exit> {
    let events = agent.subscribe();
    let notices = agent.subscribe_notices();
    let mcp = build::mcp_servers(&agent, cwd, settings);
    mcp.add(project_servers);
    mcp.settled(mcp.longest_startup() + build::MCP_GRACE).await;
    let output_failed = CancellationToken::new();
    let printer = tokio::spawn(print(events, notices, format, output_failed.clone()));
    let interrupter = {
        let agent = agent.clone();
        tokio::spawn(async move {
            tokio::select! {
                signal = tokio::signal::ctrl_c() => if signal.is_ok() {
                    agent.interrupt("interrupted (SIGINT)");
                },
                () = output_failed.cancelled() => agent.interrupt("interrupted: the output cannot be written"),
            }
        })
    };
    let outcome = agent.prompt(prompt).await;
    interrupter.abort();
    drop(agent);
    drop(mcp);
    if let Ok(Err(failed)) = printer.await {
        return Err(failed.into());
    }
    let outcome = outcome?;
    Ok(match outcome.cause {
        StopCause::Done => Exit::Success,
        StopCause::User => Exit::Interrupted,
        StopCause::Llm | StopCause::Runtime => {
            if format == Format::Text {
                output::eprintln(&format!("error: {}", outcome.message));
            }
            Exit::Failure
        }
    })
}

/// Prints events until the turn's `agent_stop`; on a failed write it fires
/// `output_failed` and returns the failure.
async fn print(
    mut events: mpsc::UnboundedReceiver<AgentEvent>,
    mut notices: mpsc::UnboundedReceiver<Notice>,
    format: Format,
    output_failed: CancellationToken,
) -> Result<(), OutputError> {
    let printed = print_until_stop(&mut events, &mut notices, format).await;
    if printed.is_err() {
        output_failed.cancel();
    }
    printed
}

async fn print_until_stop(
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
    notices: &mut mpsc::UnboundedReceiver<Notice>,
    format: Format,
) -> Result<(), OutputError> {
    // Everything already queued is written in one go and flushed once: a
    // flush per delta would cost a write syscall per token.
    let mut stdout = output::stdout();
    let mut notices_open = true;
    loop {
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else { break };
                if print_queued(&mut stdout, Some(event), events, format)? {
                    return Ok(());
                }
            }
            notice = notices.recv(), if notices_open => match notice {
                // Headless runs print results, not live progress.
                Some(Notice::ToolOutput { .. }) => {}
                Some(notice) => {
                    // Events the agent sent before this notice come first.
                    if print_queued(&mut stdout, None, events, format)? {
                        return Ok(());
                    }
                    if notice == Notice::PartialDropped && format == Format::Text {
                        // The dropped part stays on its own line.
                        stdout.text("\n")?;
                        stdout.flush()?;
                    }
                    print_notice(&notice);
                }
                None => notices_open = false,
            },
        }
    }
    stdout.flush()
}

/// Prints `first` and every event already queued, then flushes; true once
/// the turn's `agent_stop` was printed.
fn print_queued(
    stdout: &mut SafeWriter<impl Write>,
    first: Option<AgentEvent>,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
    format: Format,
) -> Result<bool, OutputError> {
    let mut next = first.or_else(|| events.try_recv().ok());
    while let Some(event) = next {
        let stop = matches!(event, AgentEvent::AgentStop { .. });
        match format {
            Format::Json => print_json(stdout, &event)?,
            Format::Text => print_text(stdout, &event)?,
        }
        tell_how_to_allow(&event);
        if stop {
            stdout.flush()?;
            return Ok(true);
        }
        next = events.try_recv().ok();
    }
    stdout.flush()?;
    Ok(false)
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
        Notice::ToolOutput { .. } => {}
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
