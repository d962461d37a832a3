//! All configured servers, started in parallel in the background.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::RunningService;
use tokio::sync::watch;

use super::config::McpServerConfig;
use super::server;
use crate::tool::ToolRegistry;

/// Where one server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Still being started.
    Starting,
    /// Running; its tools are registered under these names.
    Ready {
        /// Registry names of the offered tools.
        tools: Vec<String>,
    },
    /// Could not be started (or timed out); reported once.
    Failed {
        /// Why, in one line.
        error: String,
    },
    /// `enabled = false` in the config.
    Disabled,
}

/// One server's name and state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// The `[mcp_servers.NAME]` name.
    pub name: String,
    /// Where it is.
    pub state: ServerState,
}

/// The configured servers: a cheap-clone handle. Dropping the last handle
/// closes every connection, which ends the children.
#[derive(Clone)]
pub struct McpServers {
    inner: Arc<Inner>,
}

struct Inner {
    statuses: Mutex<Vec<ServerStatus>>,
    services: Mutex<Vec<RunningService<RoleClient, ()>>>,
    starting: watch::Sender<usize>,
}

impl McpServers {
    /// Starts every enabled server of `servers` in the background (children
    /// run in `cwd` unless their config says otherwise) and returns at once.
    /// A server's tools join `registry` as soon as it is up, so they reach
    /// the next model request. Each failure is passed once to `on_failure`
    /// as a line for the user. With `read_only_only` (the read-only
    /// permission mode) only tools a server marks read-only are offered.
    /// Must be called inside a tokio runtime.
    pub fn start(
        servers: &BTreeMap<String, McpServerConfig>,
        cwd: &Path,
        registry: &ToolRegistry,
        read_only_only: bool,
        on_failure: impl Fn(String) + Send + Sync + 'static,
    ) -> Self {
        let statuses = servers
            .iter()
            .map(|(name, config)| ServerStatus {
                name: name.clone(),
                state: if config.enabled {
                    ServerState::Starting
                } else {
                    ServerState::Disabled
                },
            })
            .collect::<Vec<_>>();
        let starting = statuses
            .iter()
            .filter(|s| s.state == ServerState::Starting)
            .count();
        let this = Self {
            inner: Arc::new(Inner {
                statuses: Mutex::new(statuses),
                services: Mutex::new(Vec::new()),
                starting: watch::Sender::new(starting),
            }),
        };
        let on_failure = Arc::new(on_failure);
        for (name, config) in servers.iter().filter(|(_, c)| c.enabled) {
            let (name, config) = (name.clone(), config.clone());
            let (cwd, registry) = (cwd.to_path_buf(), registry.clone());
            let (inner, on_failure) = (Arc::downgrade(&this.inner), Arc::clone(&on_failure));
            tokio::spawn(async move {
                let outcome = server::start(&name, &config, &cwd, &registry, read_only_only).await;
                let Some(inner) = inner.upgrade() else {
                    return;
                };
                let state = match outcome {
                    Ok(started) => {
                        lock(&inner.services).push(started.service);
                        ServerState::Ready {
                            tools: started.tools,
                        }
                    }
                    Err(error) => {
                        tracing::warn!(target: "mcp", server = %name, "{error}");
                        on_failure(format!("MCP server `{name}` is not available: {error}"));
                        ServerState::Failed { error }
                    }
                };
                if let Some(status) = lock(&inner.statuses).iter_mut().find(|s| s.name == name) {
                    status.state = state;
                }
                inner.starting.send_modify(|n| *n = n.saturating_sub(1));
            });
        }
        this
    }

    /// Each configured server with its state, in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        lock(&self.inner.statuses).clone()
    }

    /// Waits until no server is starting any more, or `grace` has passed;
    /// says whether all settled.
    pub async fn settled(&self, grace: Duration) -> bool {
        let mut rx = self.inner.starting.subscribe();
        tokio::time::timeout(grace, rx.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field("servers", &self.statuses())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // No update panics halfway, so a poisoned list is still whole.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
