//! The in-repo MCP test server, built on rmcp's server side. It runs inside
//! the test binary itself (the ignored `mcp::server_role` test), speaking MCP
//! on stdin/stdout; `MCP_TEST_MODE` picks its behaviour.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// Environment variable naming the behaviour: `normal`, `silent` (never
/// answers `initialize`) or `flood` (a megabyte of stderr first).
pub const MODE_ENV: &str = "MCP_TEST_MODE";
/// Environment variable naming a file the server writes `cancelled` to when
/// its `slow` call is cancelled (and `<file>.started` when it begins).
pub const MARKER_ENV: &str = "MCP_TEST_MARKER";

struct TestServer;

fn tool(name: &'static str, description: &'static str, read_only: bool) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
    });
    let schema = match schema {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("literal object"),
    };
    Tool::new(name, description, Arc::new(schema))
        .with_annotations(rmcp::model::ToolAnnotations::new().read_only(read_only))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool("echo", "Echoes `text`.", true),
            tool("fail", "Always fails.", true),
            tool("image", "Returns a PNG.", true),
            tool("structured", "Returns structured content.", true),
            tool("slow", "Never finishes unless cancelled.", true),
            tool("crash", "Exits the server mid-call.", false),
            tool("hidden", "Filtered out by disabled_tools.", true),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .unwrap_or("")
            .to_owned();
        let result = match &*request.name {
            "echo" => CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))]),
            "fail" => CallToolResult::error(vec![ContentBlock::text("the tool failed on purpose")]),
            "image" => {
                CallToolResult::success(vec![ContentBlock::image("A".repeat(1640), "image/png")])
            }
            "structured" => CallToolResult::structured(json!({ "sum": 3, "terms": [1, 2] })),
            "slow" => {
                if let Ok(marker) = std::env::var(MARKER_ENV) {
                    let _ = std::fs::write(format!("{marker}.started"), "started");
                }
                context.ct.cancelled().await;
                if let Ok(marker) = std::env::var(MARKER_ENV) {
                    let _ = std::fs::write(marker, "cancelled");
                }
                CallToolResult::success(vec![ContentBlock::text("cancelled")])
            }
            "crash" => std::process::exit(3),
            _ => CallToolResult::error(vec![ContentBlock::text("no such tool")]),
        };
        Ok(CallToolResponse::Complete(result))
    }
}

/// Serves one client on stdin/stdout until it goes away.
pub async fn serve() {
    let mode = std::env::var(MODE_ENV).unwrap_or_default();
    if mode == "silent" {
        // Reads and never answers, until the client ends us.
        let mut sink = tokio::io::sink();
        let _ = tokio::io::copy(&mut tokio::io::stdin(), &mut sink).await;
        return;
    }
    if mode == "flood" {
        let line = format!("{}\n", "noise ".repeat(170));
        let mut stderr = std::io::stderr().lock();
        for _ in 0..1000 {
            let _ = std::io::Write::write_all(&mut stderr, line.as_bytes());
        }
    }
    let Ok(service) = TestServer.serve(rmcp::transport::stdio()).await else {
        return;
    };
    let _ = service.waiting().await;
}
