//! `light-agent undo [ID]`: the `/undo` of the TUI, from the shell.

use std::path::Path;

use anyhow::{Context as _, Result};
use light_agent::agent::undo::undo_last_turn;
use light_agent::session::SessionManager;
use light_agent::tool::fs::Root;

use super::Exit;
use super::build::{FreshHint, SessionChoice, open_session};
use super::output;

/// Undoes the latest turn with file changes of `id` (or of `cwd`'s latest
/// session) and prints what was restored and what was left alone.
pub async fn run(manager: &SessionManager, cwd: &Path, id: Option<&str>) -> Result<Exit> {
    let choice = match id {
        Some(id) => SessionChoice::Id(id.to_string()),
        None => SessionChoice::Latest,
    };
    if id.is_none() && manager.open_latest(cwd).await?.is_none() {
        output::println(&format!("nothing to undo: no session in {}", cwd.display()))?;
        return Ok(Exit::Success);
    }
    let (session, _) = open_session(manager, cwd, &choice, None, FreshHint::Interactive).await?;
    let root = Root::open(cwd).with_context(|| format!("opening {}", cwd.display()))?;
    let report = undo_last_turn(&session, &root).await?;
    output::println(&report.describe())?;
    Ok(Exit::Success)
}
