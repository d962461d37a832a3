//! All configured servers, started in parallel in the background.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{Peer, RunningService};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::watch;

use super::config::McpServerConfig;
use super::server;
use crate::protocol::{McpServerRow, McpServerState, now_millis};
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
    /// When it was last started (milliseconds since the Unix epoch); `None`
    /// for a disabled server.
    pub started_at: Option<u64>,
}

/// Why [`McpServers::restart`] did not restart a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestartError {
    /// No `[mcp_servers.NAME]` of that name.
    #[error("no MCP server named `{0}`")]
    Unknown(String),
    /// `enabled = false` in the config.
    #[error("MCP server `{0}` is disabled in the config")]
    Disabled(String),
    /// A start is under way already.
    #[error("MCP server `{0}` is still starting")]
    Starting(String),
}

impl ServerStatus {
    /// A server about to start at `now` (or disabled).
    fn at_start(name: &str, config: &McpServerConfig, now: u64) -> Self {
        ServerStatus {
            name: name.to_owned(),
            state: if config.enabled {
                ServerState::Starting
            } else {
                ServerState::Disabled
            },
            started_at: config.enabled.then_some(now),
        }
    }
}

/// A running server's client connection.
type Connection = RunningService<RoleClient, server::Handler>;

/// Called once per failed start with a line for the user.
type OnFailure = dyn Fn(String) + Send + Sync;

/// The configured servers: a cheap-clone handle. Dropping the last handle
/// closes every connection, which ends the children.
#[derive(Clone)]
pub struct McpServers {
    inner: Arc<Inner>,
}

struct Inner {
    configs: Mutex<BTreeMap<String, McpServerConfig>>,
    cwd: PathBuf,
    registry: ToolRegistry,
    read_only_only: bool,
    on_failure: Arc<OnFailure>,
    statuses: Mutex<Vec<ServerStatus>>,
    /// The connection of each running server, by name, with the number of
    /// the start that made it.
    services: Mutex<BTreeMap<String, (u64, Connection)>>,
    /// Numbers the starts, so a tool-list refresh of a connection that a
    /// restart has replaced can tell it is out of date.
    starts: AtomicU64,
    /// How many starts are under way (only `spawn_start` counts them).
    starting: watch::Sender<usize>,
    /// When [`McpServers::start`] was called.
    started: tokio::time::Instant,
}

impl McpServers {
    /// Each server as a row of `/mcp` and `mcp list`, in name order.
    pub fn rows(&self) -> Vec<McpServerRow> {
        self.statuses()
            .into_iter()
            .map(|s| {
                let (state, tools, error) = match s.state {
                    ServerState::Starting => (McpServerState::Starting, 0, None),
                    ServerState::Ready { tools } => (McpServerState::Ready, tools.len(), None),
                    ServerState::Failed { error } => (McpServerState::Failed, 0, Some(error)),
                    ServerState::Disabled => (McpServerState::Disabled, 0, None),
                };
                McpServerRow {
                    name: s.name,
                    state,
                    tools,
                    error,
                    started_at: s.started_at,
                }
            })
            .collect()
    }

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
        let now = now_millis();
        let statuses = servers
            .iter()
            .map(|(name, config)| ServerStatus::at_start(name, config, now))
            .collect::<Vec<_>>();
        let this = Self {
            inner: Arc::new(Inner {
                configs: Mutex::new(servers.clone()),
                cwd: cwd.to_path_buf(),
                registry: registry.clone(),
                read_only_only,
                on_failure: Arc::new(on_failure),
                statuses: Mutex::new(statuses),
                services: Mutex::new(BTreeMap::new()),
                starts: AtomicU64::new(0),
                starting: watch::Sender::new(0),
                started: tokio::time::Instant::now(),
            }),
        };
        for (name, config) in servers.iter().filter(|(_, c)| c.enabled) {
            spawn_start(&this.inner, name, config);
        }
        this
    }

    /// Each configured server with its state, in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        lock(&self.inner.statuses).clone()
    }

    /// Starts the server `name` again in the background: a failed one is
    /// retried, a running one is closed first (its tools leave the registry
    /// until it is back). The outcome shows in [`statuses`](Self::statuses);
    /// a new failure is reported once like the first.
    pub fn restart(&self, name: &str) -> Result<(), RestartError> {
        let inner = &self.inner;
        let Some(config) = lock(&inner.configs).get(name).cloned() else {
            return Err(RestartError::Unknown(name.to_owned()));
        };
        {
            let mut statuses = lock(&inner.statuses);
            let Some(status) = statuses.iter_mut().find(|s| s.name == name) else {
                return Err(RestartError::Unknown(name.to_owned()));
            };
            match &status.state {
                ServerState::Disabled => return Err(RestartError::Disabled(name.to_owned())),
                ServerState::Starting => return Err(RestartError::Starting(name.to_owned())),
                ServerState::Ready { tools } => {
                    for tool in tools {
                        inner.registry.remove(tool);
                    }
                }
                ServerState::Failed { .. } => {}
            }
            status.state = ServerState::Starting;
            status.started_at = Some(now_millis());
        }
        // Dropping the old connection ends its child.
        drop(lock(&inner.services).remove(name));
        spawn_start(inner, name, &config);
        Ok(())
    }

    /// Adds `servers` whose names are not taken yet (a name already
    /// configured keeps its first definition) and starts the enabled ones in
    /// the background, like [`start`](Self::start). Returns the names added.
    pub fn add(&self, servers: &BTreeMap<String, McpServerConfig>) -> Vec<String> {
        let inner = &self.inner;
        let mut added = Vec::new();
        let now = now_millis();
        for (name, config) in servers {
            {
                let mut configs = lock(&inner.configs);
                if configs.contains_key(name) {
                    continue;
                }
                configs.insert(name.clone(), config.clone());
            }
            {
                let mut statuses = lock(&inner.statuses);
                statuses.push(ServerStatus::at_start(name, config, now));
                statuses.sort_by(|a, b| a.name.cmp(&b.name));
            }
            if config.enabled {
                spawn_start(inner, name, config);
            }
            added.push(name.clone());
        }
        added
    }

    /// Waits until no server is starting any more, or `grace` has passed;
    /// says whether all settled.
    pub async fn settled(&self, grace: Duration) -> bool {
        let mut rx = self.inner.starting.subscribe();
        tokio::time::timeout(grace, rx.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Waits until no server is starting any more, or until `grace` after
    /// [`start`](Self::start): a prompt sent once the grace is over never
    /// waits, however slow a server is.
    pub async fn settled_in_grace(&self, grace: Duration) {
        let mut rx = self.inner.starting.subscribe();
        let deadline = self.inner.started + grace;
        let _ = tokio::time::timeout_at(deadline, rx.wait_for(|n| *n == 0)).await;
    }

    /// The longest start-up time any enabled server is allowed: after it,
    /// every start has settled.
    pub fn longest_startup(&self) -> Duration {
        lock(&self.inner.configs)
            .values()
            .filter(|c| c.enabled)
            .map(McpServerConfig::startup_timeout)
            .max()
            .unwrap_or(Duration::ZERO)
    }
}

/// Starts `name` in the background, counted as starting until its outcome
/// lands in `inner`'s status list (unless every handle has been dropped by
/// then).
fn spawn_start(inner: &Arc<Inner>, name: &str, config: &McpServerConfig) {
    inner.starting.send_modify(|n| *n += 1);
    let (name, config) = (name.to_owned(), config.clone());
    let (cwd, registry, read_only_only) = (
        inner.cwd.clone(),
        inner.registry.clone(),
        inner.read_only_only,
    );
    let weak = Arc::downgrade(inner);
    let start = inner.starts.fetch_add(1, Ordering::Relaxed);
    tokio::spawn(async move {
        let outcome = server::start(&name, &config, &cwd, &registry, read_only_only).await;
        let Some(inner) = weak.upgrade() else {
            return;
        };
        let state = match outcome {
            Ok(started) => {
                let peer = started.service.peer().clone();
                lock(&inner.services).insert(name.clone(), (start, started.service));
                tokio::spawn(follow_tool_list(
                    Arc::downgrade(&inner),
                    (name.clone(), start),
                    config.clone(),
                    peer,
                    started.list_changed,
                ));
                ServerState::Ready {
                    tools: started.tools,
                }
            }
            Err(error) => {
                tracing::warn!(target: "mcp", server = %name, "{error}");
                (inner.on_failure)(format!("MCP server `{name}` is not available: {error}"));
                ServerState::Failed { error }
            }
        };
        if let Some(status) = lock(&inner.statuses).iter_mut().find(|s| s.name == name) {
            status.state = state;
        }
        inner.starting.send_modify(|n| *n = n.saturating_sub(1));
    });
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field("servers", &self.statuses())
            .finish()
    }
}

/// Lists a running server's tools again each time it says they changed, so
/// the next model request offers the new list. Ends with the connection
/// (the sender lives in its handler) or when every handle is gone. `start`
/// numbers the start that made this connection: once a restart has replaced
/// it, a list it sent is dropped instead of registered.
async fn follow_tool_list(
    weak: Weak<Inner>,
    (name, start): (String, u64),
    config: McpServerConfig,
    peer: Peer<RoleClient>,
    mut list_changed: UnboundedReceiver<()>,
) {
    while list_changed.recv().await.is_some() {
        // Several notices in a row need one new list.
        while list_changed.try_recv().is_ok() {}
        let listed = server::list_tools(&config, &peer).await;
        let Some(inner) = weak.upgrade() else {
            return;
        };
        let listed = match listed {
            Ok(listed) => listed,
            Err(e) => {
                tracing::warn!(target: "mcp", server = %name, "tool list not refreshed: {e}");
                continue;
            }
        };
        // Under the status lock, which a restart takes to retire the old
        // tools: either this swap happens before it, or it sees the restart.
        let mut statuses = lock(&inner.statuses);
        let current = lock(&inner.services)
            .get(&name)
            .is_some_and(|(made_by, _)| *made_by == start);
        let Some(status) = statuses.iter_mut().find(|s| s.name == name) else {
            return;
        };
        let ServerState::Ready { tools: old } = &status.state else {
            // Restarting or failed: the new start lists the tools itself.
            return;
        };
        if !current {
            return;
        }
        match server::replace_tools(
            &name,
            &config,
            &peer,
            &listed,
            &inner.registry,
            inner.read_only_only,
            old,
        ) {
            Ok(tools) => {
                tracing::info!(target: "mcp", server = %name, "tool list changed: {} tools", tools.len());
                status.state = ServerState::Ready { tools };
            }
            Err(e) => tracing::warn!(target: "mcp", server = %name, "tool list not refreshed: {e}"),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // No update panics halfway, so a poisoned list is still whole.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
