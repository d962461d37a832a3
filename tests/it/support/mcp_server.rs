#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The in-repo MCP test server, built on rmcp's server side. It runs inside
//! the test binary itself (the ignored `mcp::server_role` test), speaking MCP
//! on stdin/stdout; `MCP_TEST_MODE` picks its behaviour. [`serve_http`]
//! serves it over streamable HTTP on loopback instead.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// Environment variable naming the behaviour: `normal`, `silent` (never
/// answers `initialize`), `flood` (a megabyte of stderr first) or `growing`
/// (its tool `grow` changes the tool list).
pub const MODE_ENV: &str = "MCP_TEST_MODE";
/// Environment variable naming a file the server writes `cancelled` to when
/// its `slow` call is cancelled (and `<file>.started` when it begins).
pub const MARKER_ENV: &str = "MCP_TEST_MARKER";

/// The body of a `[mcp_servers.NAME]` table running this test binary as
/// the test server in `mode`, followed by `extra` lines.
pub fn server_toml(mode: &str, extra: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    format!(
        "command = {exe:?}\nargs = [\"mcp::server_role\", \"--exact\", \"--ignored\"]\nenv = {{ {MODE_ENV} = \"{mode}\" }}\n{extra}\n",
        exe = exe.display().to_string(),
    )
}

/// A project's `.mcp.json` with one server, `proj`: this test binary as
/// the test server in `normal` mode.
pub fn project_file() -> String {
    let exe = std::env::current_exe().unwrap();
    json!({"mcpServers": {"proj": {
        "command": exe.display().to_string(),
        "args": ["mcp::server_role", "--exact", "--ignored"],
        "env": {MODE_ENV: "normal"},
    }}})
    .to_string()
}

/// Records what `/mcp accept` records: `file`, as `f.repo`'s `.mcp.json`,
/// accepted in this form.
pub async fn accept_project_file(f: &super::child_env::Workspace, file: &str) {
    let digest = light_agent::mcp::project::parse(file.as_bytes())
        .unwrap()
        .digest;
    let manager =
        light_agent::session::SessionManager::open(&f.home.join("sessions.sqlite3")).unwrap();
    manager
        .decide(&f.repo, ".mcp.json", &digest, true)
        .await
        .unwrap();
}

/// `growing` mode offers `grow` as well; calling it adds `grown` and tells
/// the client its tool list changed.
#[derive(Clone, Default)]
struct TestServer {
    growing: bool,
    grown: Arc<std::sync::atomic::AtomicBool>,
}

impl TestServer {
    fn new() -> Self {
        TestServer {
            growing: std::env::var(MODE_ENV).is_ok_and(|m| m == "growing"),
            ..TestServer::default()
        }
    }
}

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
        let mut tools = vec![
            tool("echo", "Echoes `text`.", true),
            tool("fail", "Always fails.", true),
            tool("image", "Returns a PNG.", true),
            tool("structured", "Returns structured content.", true),
            tool("slow", "Never finishes unless cancelled.", true),
            tool("crash", "Exits the server mid-call.", false),
            tool("hidden", "Filtered out by disabled_tools.", true),
        ];
        if self.growing {
            tools.push(tool("grow", "Adds the tool `grown`.", true));
        }
        if self.grown.load(std::sync::atomic::Ordering::SeqCst) {
            tools.push(tool("grown", "Came with the changed list.", true));
        }
        Ok(ListToolsResult::with_all_items(tools))
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
            "grow" if self.growing => {
                self.grown.store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text("grown")])
            }
            "grown" => CallToolResult::success(vec![ContentBlock::text("here")]),
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
    let Ok(service) = TestServer::new().serve(rmcp::transport::stdio()).await else {
        return;
    };
    let _ = service.waiting().await;
}

/// The same server over streamable HTTP on a loopback port, in this
/// process; dropped, it stops accepting.
pub struct HttpServer {
    /// The endpoint (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
    /// The headers of every request received, in order.
    pub seen: Arc<Mutex<Vec<hyper::HeaderMap>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Serves [`TestServer`] over streamable HTTP on 127.0.0.1 (any port).
pub async fn serve_http() -> HttpServer {
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let service = TowerToHyperService::new(StreamableHttpService::new(
        || Ok(TestServer::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let accept = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (service, log) = (service.clone(), Arc::clone(&log));
            let recorded = hyper::service::service_fn(move |request: hyper::Request<_>| {
                log.lock().unwrap().push(request.headers().clone());
                hyper::service::Service::call(&service, request)
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), recorded),
            );
        }
    });
    HttpServer { url, seen, accept }
}
