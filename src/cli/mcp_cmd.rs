//! `light-agent mcp list`: the configured MCP servers (and those of an
//! accepted `.mcp.json`) started once, their state when every start has
//! settled; and the rows `/mcp` shows.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use light_agent::config::Settings;
use light_agent::mcp::{McpServerConfig, McpServers};
use light_agent::protocol::now_millis;
use light_agent::tool::ToolRegistry;
use light_agent::tui::view::started_text;
use serde_json::json;

use super::Exit;
use super::output;

/// Time beyond the longest `startup_timeout_sec` after which a start still
/// under way is listed as starting.
const SETTLE_MARGIN: Duration = Duration::from_secs(2);

/// Starts every configured server and `project_servers` (children in
/// `cwd`), waits until each is up, failed or past its start-up time, and
/// prints one line per server (or a JSON array). Exits 0 whatever the
/// servers did: the states say it.
pub async fn list(
    settings: &Settings,
    project_servers: &BTreeMap<String, McpServerConfig>,
    cwd: &Path,
    json: bool,
) -> Result<Exit> {
    // A throwaway registry: the tools are counted, never called.
    let registry = ToolRegistry::new();
    let servers = McpServers::start(&settings.mcp_servers, cwd, &registry, false, |_| {});
    servers.add(project_servers);
    servers
        .settled(servers.longest_startup() + SETTLE_MARGIN)
        .await;
    let rows = servers.rows();
    let mut out = output::stdout();
    if json {
        let rows: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({
                    "name": r.name,
                    "state": r.state.as_str(),
                    "tools": r.tools,
                    "error": r.error,
                    "started_at": r.started_at,
                })
            })
            .collect();
        out.json_line(&serde_json::to_string_pretty(&rows)?)?;
    } else if rows.is_empty() {
        out.line("no MCP servers configured ([mcp_servers.NAME] in config.toml, or an accepted .mcp.json)")?;
    } else {
        let now = now_millis();
        let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        for r in &rows {
            let tools = r.tools_text().unwrap_or_else(|| "-".to_owned());
            let started = started_text(r.started_at, now).unwrap_or_else(|| "-".to_owned());
            let error = r
                .error
                .as_deref()
                .map(|e| format!("  {e}"))
                .unwrap_or_default();
            out.line(&format!(
                "{:<width$}  {:<8}  {tools:<9}  {started}{error}",
                r.name,
                r.state.as_str()
            ))?;
        }
    }
    out.flush()?;
    // Dropping the handle closes every connection, which ends the children.
    drop(servers);
    Ok(Exit::Success)
}
