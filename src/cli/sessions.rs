//! `light-agent sessions` and `light-agent show`: reading stored sessions.

use std::path::Path;

use anyhow::Result;
use light_agent::protocol::AgentEvent;
use light_agent::protocol::now_millis;
use light_agent::session::transcript::{markdown_header, push_logged};
use light_agent::session::{ChildLink, SessionInfo, SessionManager, SessionStatus};
use light_agent::tui::view::format_age;
use light_agent::tui::view::session_header::turns;
use serde_json::json;

use super::Exit;
use super::output;

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
        let mut out = output::stdout();
        out.json_line(&serde_json::to_string_pretty(&rows)?)?;
        out.flush()?;
        return Ok(Exit::Success);
    }
    if sessions.is_empty() {
        output::println(&format!(
            "no sessions{}",
            if all { "" } else { " for this directory" }
        ))?;
        return Ok(Exit::Success);
    }
    let now = now_millis();
    let mut out = output::stdout();
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
        out.line(&format!(
            "{}  {:>9}  {:>9}{status}  {}{place}",
            s.id,
            format_age(s.updated_at, now),
            turns(s.turns),
            s.title.as_deref().unwrap_or("(untitled)")
        ))?;
    }
    out.flush()?;
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

/// Events read from the store per page while printing a session.
const SHOW_PAGE: usize = 256;
/// Stored bytes per page at most (a page of large tool results stops early).
const SHOW_PAGE_BYTES: usize = 256 * 1024;

/// Prints one session, as markdown or as JSON lines, page by page from the
/// database (pages bounded in events and bytes) and event by event to the
/// output, so memory stays bounded however long the log and its events are.
/// A subagent's steps are printed under the `task` call that ran it, before
/// its result (JSON: `{"type":"subagent", call_id, session_id, agent, event}`).
pub async fn show(manager: &SessionManager, id: &str, json: bool) -> Result<Exit> {
    let id = &manager.resolve(id).await?;
    let mut out = output::stdout();
    if !json {
        let info = manager.info(id).await?;
        out.text(&markdown_header(&info))?;
    }
    let children = manager.children(id).await?;
    print_events(manager, id, json, &mut out, None, &children).await?;
    out.flush()?;
    Ok(Exit::Success)
}

/// Prints the events of session `id`; `child` tags them as a subagent's.
async fn print_events(
    manager: &SessionManager,
    id: &str,
    json: bool,
    out: &mut output::SafeWriter<std::io::BufWriter<std::io::Stdout>>,
    child: Option<&ChildLink>,
    children: &[ChildLink],
) -> Result<()> {
    let session = manager.open_session(id).await?;
    let mut text = String::new();
    let rewinds = session.rewinds().await?;
    let mut after = 0;
    loop {
        let page = session
            .events_after(after, SHOW_PAGE, SHOW_PAGE_BYTES)
            .await?;
        let Some((last, _)) = page.last() else {
            break;
        };
        after = *last;
        for (seq, event) in &page {
            if let AgentEvent::ToolResult { outcome, .. } = event {
                for link in children.iter().filter(|c| c.parent_call_id == outcome.id) {
                    if !json {
                        out.text(&format!(
                            "\n### subagent `{}` · session `{}`\n",
                            link.agent, link.child_id
                        ))?;
                    }
                    Box::pin(print_events(
                        manager,
                        &link.child_id,
                        json,
                        out,
                        Some(link),
                        &[],
                    ))
                    .await?;
                    if !json {
                        out.text("\n### end of subagent\n")?;
                    }
                }
            }
            match (json, child) {
                (true, None) => out.json_line(&serde_json::to_string(event)?)?,
                (true, Some(link)) => out.json_line(&serde_json::to_string(&json!({
                    "type": "subagent",
                    "call_id": link.parent_call_id,
                    "session_id": link.child_id,
                    "agent": link.agent,
                    "event": event,
                }))?)?,
                (false, _) => {
                    push_logged(&mut text, *seq, event, &rewinds);
                    out.text(&text)?;
                    text.clear();
                }
            }
        }
    }
    Ok(())
}
