//! `light-agent sessions` and `light-agent show`: reading stored sessions.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use light_agent::protocol::{AgentEvent, StopCause, now_millis};
use light_agent::session::{SessionInfo, SessionManager, SessionStatus};
use light_agent::tui::view::format_age;
use light_agent::tui::view::session_header::turns;
use serde_json::json;

use super::Exit;

/// Prints this directory's (or every directory's) sessions, newest first.
pub async fn list(
    manager: &SessionManager,
    cwd: &Path,
    all: bool,
    json: bool,
    limit: usize,
) -> Result<Exit> {
    let sessions = manager.list((!all).then_some(cwd), limit).await?;
    if json {
        let rows: Vec<_> = sessions.iter().map(info_json).collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(Exit::Success);
    }
    if sessions.is_empty() {
        println!(
            "no sessions{}",
            if all { "" } else { " for this directory" }
        );
        return Ok(Exit::Success);
    }
    let now = now_millis();
    for s in &sessions {
        let status = match s.status {
            SessionStatus::Running => " running",
            SessionStatus::Idle => "",
        };
        let place = if all {
            format!("  {}", s.cwd.display())
        } else {
            String::new()
        };
        println!(
            "{}  {:>9}  {:>9}{status}  {}{place}",
            s.id,
            format_age(s.updated_at, now),
            turns(s.turns),
            s.title.as_deref().unwrap_or("(untitled)")
        );
    }
    Ok(Exit::Success)
}

fn info_json(s: &SessionInfo) -> serde_json::Value {
    json!({
        "id": s.id,
        "cwd": s.cwd,
        "title": s.title,
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "turns": s.turns,
        "events": s.events,
        "status": match s.status { SessionStatus::Running => "running", SessionStatus::Idle => "idle" },
    })
}

/// Prints one session, as markdown or as JSON lines.
pub async fn show(manager: &SessionManager, id: &str, json: bool) -> Result<Exit> {
    let id = &manager.resolve(id).await?;
    let session = manager.open_session(id).await?;
    let events = session.load_all().await?;
    if json {
        for event in &events {
            println!("{}", serde_json::to_string(event)?);
        }
    } else {
        let info = manager.info(id).await?;
        print!("{}", to_markdown(&info, &events));
    }
    Ok(Exit::Success)
}

/// A readable transcript of a session.
pub fn to_markdown(info: &SessionInfo, events: &[AgentEvent]) -> String {
    let mut out = format!(
        "# {}\n\n`{}` · {}\n",
        info.title.as_deref().unwrap_or("(untitled)"),
        info.id,
        info.cwd.display()
    );
    for event in events {
        match event {
            AgentEvent::Input { text, meta, .. } => {
                let _ = write!(
                    out,
                    "\n## Turn {}\n\n> {}\n",
                    meta.turn,
                    text.replace('\n', "\n> ")
                );
            }
            AgentEvent::Thought { text, .. } if !text.is_empty() => {
                let _ = write!(
                    out,
                    "\n<details><summary>thought</summary>\n\n{text}\n\n</details>\n"
                );
            }
            AgentEvent::Output { text, .. } => {
                let _ = write!(out, "\n{text}\n");
            }
            AgentEvent::ToolCalls { calls, .. } => {
                for call in calls {
                    let intent = call.intent().map(|i| format!(" — {i}")).unwrap_or_default();
                    let _ = write!(
                        out,
                        "\n**{}**{intent}\n\n```json\n{}\n```\n",
                        call.name, call.args
                    );
                }
            }
            AgentEvent::ToolResult { outcome, .. } => {
                let mark = if outcome.is_error { "✗" } else { "✓" };
                let _ = write!(
                    out,
                    "\n{mark} `{}` result:\n\n```\n{}\n```\n",
                    outcome.name, outcome.result
                );
            }
            AgentEvent::AgentStop { cause, message, .. } if *cause != StopCause::Done => {
                let _ = write!(out, "\n_stopped ({cause:?}): {message}_\n");
            }
            AgentEvent::AgentSummary { .. } => {
                out.push_str("\n_older steps were summarised here_\n")
            }
            _ => {}
        }
    }
    out
}
