//! The MCP servers a client sends with `session/new` or `session/load`,
//! added to the configured ones for that session (a client's server
//! replaces a configured one of the same name: the editor's setting is the
//! nearer one).

use agent_client_protocol_schema::v1::McpServer;
use light_agent::config::Settings;
use light_agent::mcp::McpServerConfig;

use super::rpc::{self, RpcError, code};

/// `settings` with the client's `servers` added; an SSE server (not
/// offered in our capabilities) is refused.
pub fn with_client_servers(
    settings: &Settings,
    servers: &[McpServer],
) -> Result<Settings, RpcError> {
    let mut settings = settings.clone();
    for server in servers {
        let (name, config) = match server {
            McpServer::Stdio(stdio) => (
                stdio.name.clone(),
                McpServerConfig {
                    command: stdio.command.to_string_lossy().into_owned(),
                    args: stdio.args.clone(),
                    env: stdio
                        .env
                        .iter()
                        .map(|v| (v.name.clone(), v.value.clone()))
                        .collect(),
                    ..McpServerConfig::default()
                },
            ),
            McpServer::Http(http) => (
                http.name.clone(),
                McpServerConfig {
                    url: Some(http.url.clone()),
                    headers: http
                        .headers
                        .iter()
                        .map(|h| (h.name.clone(), h.value.clone()))
                        .collect(),
                    ..McpServerConfig::default()
                },
            ),
            _ => {
                return Err(rpc::error(
                    code::INVALID_PARAMS,
                    "only stdio and HTTP MCP servers are supported",
                ));
            }
        };
        if settings.mcp_servers.contains_key(&name) {
            tracing::info!("acp: the client's MCP server `{name}` replaces the configured one");
        }
        settings.mcp_servers.insert(name, config);
    }
    Ok(settings)
}
