//! One server: spawned as a child process or reached over streamable HTTP, initialised, its tools listed and
//! registered; each call sent with the protocol's cancellation.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use http::{HeaderName, HeaderValue};
use rmcp::model::CallToolRequestParams;
use rmcp::service::NotificationContext;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, Command};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::config::{McpServerConfig, ToolFilter};
use super::names::tool_name;
use super::result::to_output;
use crate::permission::{ApprovalDetail, ApprovalRequest, GateRequest};
use crate::tool::{JsonTool, ToolContext, ToolOutput, ToolRegistry};

/// Variables of ours every server gets, so that `npx`, `uvx` and friends
/// find their caches; anything else only through `env_passthrough`.
const BASE_ENV: &[&str] = &[
    "HOME", "PATH", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ",
];

/// A running server: the connection (dropping it ends the child) and the
/// registry names of its tools.
pub(crate) struct Started {
    pub(crate) service: RunningService<RoleClient, Handler>,
    pub(crate) tools: Vec<String>,
    /// One message per `notifications/tools/list_changed` from the server.
    pub(crate) list_changed: UnboundedReceiver<()>,
}

/// Our side of the connection: passes tool-list changes on.
pub(crate) struct Handler {
    list_changed: UnboundedSender<()>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        // The receiver is gone only once the server is being dropped.
        let _ = self.list_changed.send(());
        std::future::ready(())
    }
}

/// Spawns the server `name`, initialises it and registers its offered tools
/// in `registry` (only those it marks read-only when `read_only_only`), all
/// within the configured start-up time. Its stderr goes to the log. The
/// error is one line for the user.
pub(crate) async fn start(
    name: &str,
    config: &McpServerConfig,
    cwd: &Path,
    registry: &ToolRegistry,
    read_only_only: bool,
) -> Result<Started, String> {
    let filter = config.tool_filter()?;
    let timeout = config.startup_timeout();
    let (changed, list_changed) = unbounded_channel();
    let handler = Handler {
        list_changed: changed,
    };
    let connect = async {
        let service = match config.url.as_deref() {
            Some(url) => {
                let http = StreamableHttpClientTransport::from_config(http_config(url, config)?);
                handler.serve(http).await
            }
            None => handler.serve(child_transport(name, config, cwd)?).await,
        }
        .map_err(|e| format!("start-up failed: {e}"))?;
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("start-up failed: {e}"))?;
        Ok::<_, String>((service, tools))
    };
    let (service, tools) = tokio::time::timeout(timeout, connect).await.map_err(|_| {
        format!(
            "no answer within {} s (startup_timeout_sec)",
            timeout.as_secs()
        )
    })??;

    let registered = register(
        name,
        config,
        &filter,
        service.peer(),
        &tools,
        registry,
        read_only_only,
    );
    Ok(Started {
        service,
        tools: registered,
        list_changed,
    })
}

/// Lists the server's tools again after it said they changed (within
/// `startup_timeout_sec`).
pub(crate) async fn list_tools(
    config: &McpServerConfig,
    peer: &Peer<RoleClient>,
) -> Result<Vec<rmcp::model::Tool>, String> {
    tokio::time::timeout(config.startup_timeout(), peer.list_all_tools())
        .await
        .map_err(|_| "no tool list within startup_timeout_sec".to_owned())?
        .map_err(|e| e.to_string())
}

/// Swaps a server's tools in `registry`: the registry names `old` leave,
/// the offered ones of `tools` join. Returns the new names.
pub(crate) fn replace_tools(
    name: &str,
    config: &McpServerConfig,
    peer: &Peer<RoleClient>,
    tools: &[rmcp::model::Tool],
    registry: &ToolRegistry,
    read_only_only: bool,
    old: &[String],
) -> Result<Vec<String>, String> {
    let filter = config.tool_filter()?;
    for tool in old {
        registry.remove(tool);
    }
    Ok(register(
        name,
        config,
        &filter,
        peer,
        tools,
        registry,
        read_only_only,
    ))
}

/// Registers the offered ones of `tools` (only those the server marks
/// read-only when `read_only_only`); returns their registry names.
fn register(
    name: &str,
    config: &McpServerConfig,
    filter: &ToolFilter,
    peer: &Peer<RoleClient>,
    tools: &[rmcp::model::Tool],
    registry: &ToolRegistry,
    read_only_only: bool,
) -> Vec<String> {
    let mut registered = Vec::new();
    let read_only = |tool: &rmcp::model::Tool| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false)
    };
    let offered = tools
        .iter()
        .filter(|t| filter.allows(&t.name) && (!read_only_only || read_only(t)));
    for tool in offered {
        let full_name = tool_name(name, &tool.name);
        let description = tool
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or(&tool.name);
        let description = format!("{description} (MCP server `{name}`)");
        let schema = Value::Object((*tool.input_schema).clone());
        let call = McpTool {
            server: name.to_owned(),
            tool: tool.name.to_string(),
            peer: peer.clone(),
            timeout: config.tool_timeout(),
            read_only: read_only(tool),
        };
        match registry.register_json(&full_name, &description, schema, Arc::new(call)) {
            Ok(()) => registered.push(full_name),
            Err(e) => tracing::warn!(target: "mcp", server = name, "tool not offered: {e}"),
        }
    }
    registered
}

/// The child process of a `command` server, its stderr copied to the log.
fn child_transport(
    name: &str,
    config: &McpServerConfig,
    cwd: &Path,
) -> Result<TokioChildProcess, String> {
    if config.command.trim().is_empty() {
        return Err("neither `command` nor `url` set".to_owned());
    }
    let mut command = Command::new(&config.command);
    command.args(&config.args).env_clear();
    for var in BASE_ENV
        .iter()
        .copied()
        .chain(config.env_passthrough.iter().map(String::as_str))
    {
        if let Some(value) = std::env::var_os(var) {
            command.env(var, value);
        }
    }
    command.envs(&config.env);
    command.current_dir(config.cwd.as_deref().unwrap_or(cwd));
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", config.command))?;
    if let Some(stderr) = stderr {
        tokio::spawn(log_stderr(name.to_owned(), stderr));
    }
    Ok(transport)
}

/// How to reach a `url` server over streamable HTTP: the bearer token read
/// from `bearer_token_env_var`, `headers` on every request.
fn http_config(
    url: &str,
    config: &McpServerConfig,
) -> Result<StreamableHttpClientTransportConfig, String> {
    // rmcp's client is rustls without a provider of its own; ring is the one
    // our model client uses already. Fails harmlessly once one is installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut headers = HashMap::new();
    for (name, value) in &config.headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|e| format!("header name {name:?}: {e}"))?;
        let mut value =
            HeaderValue::try_from(value.as_str()).map_err(|e| format!("header {name}: {e}"))?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    let mut transport = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    if let Some(var) = &config.bearer_token_env_var {
        let token =
            std::env::var(var).map_err(|_| format!("`{var}` (bearer_token_env_var) is not set"))?;
        transport = transport.auth_header(token);
    }
    Ok(transport)
}

/// Copies the child's stderr into the log in bounded chunks (a flood without
/// newlines never grows a buffer); never onto the terminal.
async fn log_stderr(server: String, mut stderr: ChildStderr) {
    let mut buffer = vec![0u8; 4096];
    loop {
        match stderr.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let text = String::from_utf8_lossy(&buffer[..n]);
                tracing::info!(target: "mcp", server = %server, "stderr: {}", text.trim_end());
            }
        }
    }
}

/// One server tool as seen by the registry.
struct McpTool {
    server: String,
    tool: String,
    peer: Peer<RoleClient>,
    timeout: Duration,
    /// Whether the server marks the tool read-only (`readOnlyHint`).
    read_only: bool,
}

impl JsonTool for McpTool {
    fn call(&self, args: Value, ctx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let arguments = match args {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let gate = GateRequest::Mcp {
            server: self.server.clone(),
            tool: self.tool.clone(),
            read_only: self.read_only,
        };
        let approval = ApprovalRequest {
            call_id: ctx.call_id.clone(),
            tool: tool_name(&self.server, &self.tool),
            title: format!("call MCP tool {}.{}", self.server, self.tool),
            detail: ApprovalDetail::Mcp {
                server: self.server.clone(),
                tool: self.tool.clone(),
                args: serde_json::to_string_pretty(&arguments).unwrap_or_default(),
            },
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let peer = self.peer.clone();
        let (server, tool, timeout) = (self.server.clone(), self.tool.clone(), self.timeout);
        async move {
            if let Err(denied) = ctx.permits.request(gate, approval).await {
                return ToolOutput::error(denied.message);
            }
            if ctx.cancel.is_cancelled() {
                return ToolOutput::error(format!(
                    "the call to MCP tool `{tool}` on server `{server}` was cancelled by the user"
                ));
            }
            // Dropping the request future sends `notifications/cancelled`.
            let call = tokio::time::timeout(timeout, peer.call_tool(params));
            tokio::select! {
                () = ctx.cancel.cancelled() => ToolOutput::error(format!(
                    "the call to MCP tool `{tool}` on server `{server}` was cancelled by the user"
                )),
                outcome = call => match outcome {
                    Err(_) => ToolOutput::error(format!(
                        "MCP tool `{tool}` on server `{server}` gave no result within {} s (tool_timeout_sec); try again or another way",
                        timeout.as_secs()
                    )),
                    Ok(Err(e)) => ToolOutput::error(format!(
                        "MCP server `{server}` failed during the call to `{tool}`: {e}; its tools may be unavailable, go on without them"
                    )),
                    Ok(Ok(result)) => {
                        let json = serde_json::to_value(&result).unwrap_or(Value::Null);
                        tracing::debug!(target: "mcp", server = %server, tool = %tool, "result: {json}");
                        to_output(&json)
                    }
                },
            }
        }
        .boxed()
    }
}
