//! A project's `.mcp.json`: offered once per content, its servers started
//! only after the user accepted them (`/mcp accept` in the TUI; the choice
//! is remembered in the session database for this directory and content).

use std::collections::BTreeMap;
use std::path::Path;

use crate::mcp::McpServerConfig;
use crate::mcp::project::{self, PROJECT_FILE, ProjectServers};
use crate::session::{Decision, SessionManager};

/// Where a directory's `.mcp.json` stands.
#[derive(Debug)]
pub enum Standing {
    /// There is none.
    Absent,
    /// Accepted in this form: its servers are used.
    Accepted(ProjectServers),
    /// Never decided on in this form: to be offered.
    Undecided(ProjectServers),
    /// Offered in this form and not accepted.
    Declined,
    /// It cannot be used; the line says why.
    Unusable(String),
}

/// Reads `cwd`'s `.mcp.json` and what was decided about it.
pub async fn standing(manager: &SessionManager, cwd: &Path) -> Standing {
    let servers = match project::read(cwd) {
        Ok(None) => return Standing::Absent,
        Ok(Some(servers)) => servers,
        Err(why) => return Standing::Unusable(why),
    };
    match manager.decision(cwd, PROJECT_FILE, &servers.digest).await {
        Ok(Decision::Accepted) => Standing::Accepted(servers),
        Ok(Decision::Declined) => Standing::Declined,
        Ok(Decision::Undecided) => Standing::Undecided(servers),
        Err(e) => Standing::Unusable(format!(
            "what was decided about {PROJECT_FILE} cannot be read: {e}"
        )),
    }
}

/// Remembers that `servers` (this content of `cwd`'s `.mcp.json`) were
/// accepted or not.
pub async fn decide(
    manager: &SessionManager,
    cwd: &Path,
    servers: &ProjectServers,
    accepted: bool,
) -> Result<(), String> {
    manager
        .decide(cwd, PROJECT_FILE, &servers.digest, accepted)
        .await
        .map_err(|e| format!("the choice about {PROJECT_FILE} could not be saved: {e}"))
}

/// The offer shown once: what would run, and how to accept.
pub fn offer(servers: &ProjectServers) -> String {
    format!(
        "this project's {PROJECT_FILE} defines MCP servers, not started: {}. `/mcp accept` starts them and remembers it for this directory; `/mcp decline` keeps them off",
        servers.describe().join("; ")
    )
}

/// The servers `exec` and `mcp list` use from `cwd`'s `.mcp.json` (only
/// accepted ones); any other standing is reported once through `warn`.
pub async fn accepted_servers(
    manager: &SessionManager,
    cwd: &Path,
    warn: impl Fn(&str),
) -> BTreeMap<String, McpServerConfig> {
    match standing(manager, cwd).await {
        Standing::Accepted(servers) => servers.servers,
        Standing::Absent | Standing::Declined => BTreeMap::new(),
        Standing::Undecided(servers) => {
            let names: Vec<&str> = servers.servers.keys().map(String::as_str).collect();
            warn(&format!(
                "the MCP servers of this project's {PROJECT_FILE} ({}) are not used: accept them once in the TUI with /mcp accept",
                names.join(", ")
            ));
            BTreeMap::new()
        }
        Standing::Unusable(why) => {
            warn(&why);
            BTreeMap::new()
        }
    }
}
