//! `light-agent exec`: one turn, headless, for scripts.
//!
//! Text mode streams the answer to stdout and one line per tool call and
//! result to stderr; `--json` prints every event as one JSON line on stdout.
//! Exit codes: 0 done, 1 model or runtime error, 130 interrupted.

use std::io::Write as _;

use anyhow::Result;
use light_agent::agent::{Agent, Notice};
use light_agent::protocol::{AgentEvent, StopCause};
use tokio::sync::mpsc;

use super::{Exit, truncate};

/// How exec prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Answer on stdout, tool lines on stderr.
    Text,
    /// Every event as a JSON line on stdout.
    Json,
}

/// Runs one prompt to its end; returns the process exit code.
pub async fn run(agent: Agent, prompt: String, format: Format) -> Result<Exit> {
    let events = agent.subscribe();
    let notices = agent.subscribe_notices();
    let printer = tokio::spawn(print(events, notices, format));
    let interrupter = {
        let agent = agent.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                agent.interrupt("interrupted (SIGINT)");
            }
        })
    };
    let outcome = agent.prompt(prompt).await;
    interrupter.abort();
    drop(agent);
    let _ = printer.await;
    let outcome = outcome?;
    Ok(match outcome.cause {
        StopCause::Done => Exit::Success,
        StopCause::User => Exit::Interrupted,
        StopCause::Llm | StopCause::Runtime => {
            if format == Format::Text {
                eprintln!("error: {}", outcome.message);
            }
            Exit::Failure
        }
    })
}

async fn print(
    mut events: mpsc::UnboundedReceiver<AgentEvent>,
    mut notices: mpsc::UnboundedReceiver<Notice>,
    format: Format,
) {
    // Everything already queued is written in one go and flushed once: a
    // flush per delta would cost a write syscall per token.
    let mut stdout = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout());
    let mut notices_open = true;
    loop {
        tokio::select! {
            event = events.recv() => {
                let Some(mut event) = event else { break };
                loop {
                    let stop = matches!(event, AgentEvent::AgentStop { .. });
                    match format {
                        Format::Json => print_json(&mut stdout, &event),
                        Format::Text => print_text(&mut stdout, &event),
                    }
                    tell_how_to_allow(&event);
                    if stop {
                        let _ = stdout.flush();
                        return;
                    }
                    match events.try_recv() {
                        Ok(next) => event = next,
                        Err(_) => break,
                    }
                }
                let _ = stdout.flush();
            }
            notice = notices.recv(), if notices_open => match notice {
                Some(Notice::Retrying { attempt, delay, message }) => {
                    eprintln!("retrying ({attempt}) in {:.1}s: {message}", delay.as_secs_f64());
                }
                Some(Notice::Warning(text)) => eprintln!("warning: {text}"),
                // Headless runs print results, not live progress.
                Some(Notice::ToolOutput { .. }) => {}
                None => notices_open = false,
            },
        }
    }
    let _ = stdout.flush();
}

/// A call denied because nobody can approve it here: stderr gets the whole
/// message, which says how to allow such calls.
fn tell_how_to_allow(event: &AgentEvent) {
    if let AgentEvent::ToolResult { outcome, .. } = event {
        if outcome.is_error && outcome.result.starts_with(EXEC_DENIAL) {
            eprintln!("light-agent: {} {}", outcome.name, outcome.result);
        }
    }
}

/// How [`Permits`](light_agent::permission::Permits) without an approver
/// words its denials.
const EXEC_DENIAL: &str = "denied in exec";

fn print_json(out: &mut impl std::io::Write, event: &AgentEvent) {
    if let Ok(line) = serde_json::to_string(event) {
        let _ = writeln!(out, "{line}");
    }
}

fn print_text(out: &mut impl std::io::Write, event: &AgentEvent) {
    // Tool lines go to stderr: what came before them on stdout must show first.
    if !matches!(
        event,
        AgentEvent::OutputDelta { .. } | AgentEvent::ThoughtDelta { .. }
    ) {
        let _ = out.flush();
    }
    match event {
        AgentEvent::OutputDelta { text, .. } => {
            let _ = out.write_all(text.as_bytes());
        }
        AgentEvent::Output { .. } => {
            let _ = writeln!(out);
        }
        AgentEvent::ToolCalls { calls, .. } => {
            for call in calls {
                let intent = call.intent().map(|i| format!(" — {i}")).unwrap_or_default();
                eprintln!("→ {} {}{intent}", call.name, short_args(&call.args));
            }
        }
        AgentEvent::ToolResult { outcome, .. } => {
            let mark = if outcome.is_error { "✗" } else { "✓" };
            let first = outcome.result.lines().next().unwrap_or("");
            eprintln!(
                "{mark} {} ({} lines) {}",
                outcome.name,
                outcome.result.lines().count(),
                truncate(first, 120)
            );
        }
        AgentEvent::AgentStop {
            cause: StopCause::User,
            message,
            ..
        } => eprintln!("interrupted: {message}"),
        AgentEvent::AgentSummary { .. } => eprintln!("(older steps were summarised)"),
        _ => {}
    }
}

/// Arguments without `_intent`, compact.
fn short_args(args: &serde_json::Value) -> String {
    let mut args = args.clone();
    if let Some(map) = args.as_object_mut() {
        map.remove("_intent");
    }
    truncate(&args.to_string(), 160)
}
