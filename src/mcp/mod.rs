//! The MCP client: tools from Model Context Protocol servers, through the
//! official Rust SDK (`rmcp`).
//!
//! - [`config`]: `[mcp_servers.NAME]` — how to start a server, which tools to offer.
//! - [`McpServers`] starts every server in parallel in the background; a
//!   server's tools join the [`ToolRegistry`](crate::tool::ToolRegistry) as
//!   `mcp__SERVER__TOOL` ([`tool_name`]) once it is up.
//! - [`project`]: a project's own `.mcp.json`, used only once the user
//!   accepted it.
//! - [`result`] turns a `tools/call` result into the text the model reads.
//!
//! A server's stderr goes to the log, never the terminal; a failing server
//! is reported once.

pub mod config;
mod names;
pub mod project;
pub mod result;
mod server;
mod servers;

pub use config::McpServerConfig;
pub use names::{PROMPT, TOOL_PREFIX, tool_name};
pub use servers::{McpServers, RestartError, ServerState, ServerStatus};
