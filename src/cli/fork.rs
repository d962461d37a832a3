//! `light-agent --fork [ID]`: copies a session of this directory (by
//! default its latest) into a new session, which the TUI then opens. The
//! original is not changed.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use light_agent::session::{SessionManager, short_id};

/// Copies the session `source` names (or the latest of `cwd`) and returns
/// the copy's id. Fails when there is none, or it belongs to another
/// directory (its tools and files are there).
pub async fn copy(manager: &SessionManager, cwd: &Path, source: Option<&str>) -> Result<String> {
    let id = match source {
        Some(input) => manager.resolve(input).await?,
        None => manager
            .list(Some(cwd), 1)
            .await?
            .into_iter()
            .next()
            .map(|info| info.id)
            .ok_or_else(|| anyhow!("no session to fork in {}", cwd.display()))?,
    };
    let info = manager.info(&id).await?;
    if info.cwd != cwd {
        bail!(
            "session {} belongs to {dir}; fork it there: cd {dir} && light-agent --fork {short}",
            info.id,
            dir = info.cwd.display(),
            short = short_id(&info.id),
        );
    }
    Ok(manager.fork(&id, None).await?.id().to_string())
}
