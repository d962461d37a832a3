//! What resolution starts from ([`Env`], [`Flags`]) and what it produces
//! ([`Settings`], [`Resolution`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::{ProviderProfile, Secret};
use crate::mcp::McpServerConfig;
use crate::permission::{Mode, RuleList};
use crate::protocol::Effort;

/// A snapshot of the process environment, taken once by `main`.
///
/// Resolution reads variables only from here, so it stays a pure function
/// and tests build an `Env` by hand. An empty variable counts as unset.
/// `Debug` lists variable names only: values may be keys.
#[derive(Clone, Default)]
pub struct Env {
    vars: HashMap<String, String>,
}

impl Env {
    /// An environment with no variables.
    pub fn new() -> Env {
        Env::default()
    }

    /// An environment holding `vars` (e.g. `std::env::vars()`).
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Env {
        Env {
            vars: vars.into_iter().collect(),
        }
    }

    /// This environment with `name` set to `value`.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Env {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// The value of `name`, or `None` if it is unset or empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.vars.keys().collect();
        names.sort();
        f.debug_struct("Env").field("names", &names).finish()
    }
}

/// The command-line flags that take part in resolution; `None` = not given.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--provider NAME`: a profile name.
    pub provider: Option<String>,
    /// `--model NAME`.
    pub model: Option<String>,
    /// `--base-url URL`: overrides the active profile's URL; alone, it makes
    /// an OpenAI-compatible profile that needs no key.
    pub base_url: Option<String>,
    /// `--context-window TOKENS`.
    pub context_window: Option<u64>,
    /// `--log-level FILTER` (`RUST_LOG` syntax).
    pub log_level: Option<String>,
    /// `--permissions MODE`.
    pub permissions: Option<String>,
    /// `--effort LEVEL`.
    pub effort: Option<Effort>,
}

/// Options for the terminal front end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuiSettings {
    /// Show the model's thoughts (dimmed) as they stream.
    pub show_thoughts: bool,
    /// How many lines of a tool's result its pane shows.
    pub tool_preview_lines: usize,
    /// How the UI calls the user back while the terminal is not focused:
    /// one of [`crate::config::NOTIFICATION_MODES`].
    pub notifications: String,
}

/// How commands are confined (`[sandbox]`, `--sandbox`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `workspace-write` (default), `read-only` or `off`.
    pub mode: String,
    /// Extra absolute directories commands may write beneath.
    pub writable_roots: Vec<PathBuf>,
    /// Extra paths nothing sandboxed and no file tool may read (`deny_read`:
    /// absolute or `~/…`), beyond the built-in list of secrets.
    pub deny_read: Vec<String>,
    /// Whether commands may use TCP.
    pub network: bool,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            mode: "workspace-write".into(),
            writable_roots: Vec::new(),
            deny_read: Vec::new(),
            network: false,
        }
    }
}

/// Claude Code's names of the events hooks run on, in the order they are
/// listed.
pub const HOOK_EVENTS: [&str; 7] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "PreCompact",
    "Notification",
];

/// The configured hooks (`[hooks]`), by event in [`HOOK_EVENTS`] order,
/// each event's in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HookSettings {
    /// Every `[[hooks.EVENT]]` entry.
    pub entries: Vec<HookSetting>,
}

/// One hook entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSetting {
    /// The event it runs on, one of [`HOOK_EVENTS`].
    pub event: String,
    /// What it runs for, separated by `|` (tool names for the tool events,
    /// the `source`, `trigger` or `notification_type` for the others);
    /// empty or `*`: every one.
    pub matcher: String,
    /// Run with `sh -c` in the working directory, the event on stdin.
    pub command: String,
    /// Seconds before it is killed (default 60).
    pub timeout_sec: u64,
}

/// What `web_fetch` may reach and who answers its `prompt` (`[web]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WebSettings {
    /// Whether private, loopback and link-local addresses may be fetched.
    pub allow_private: bool,
    /// Hosts (lower case) that may resolve to private addresses when
    /// `allow_private` is off (an intranet wiki).
    pub private_hosts: Vec<String>,
    /// A small model of the same provider that answers a fetch's `prompt`;
    /// `None`: the prompt is ignored and the page returned.
    pub small_model: Option<String>,
}

/// Whether the `task` tool runs subagents, and how many at once (`[agents]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsSettings {
    /// Whether `task` is offered. Off by default: its definition would take
    /// the base prompt past its 2 000-token budget (docs/PERFORMANCE.md).
    pub enabled: bool,
    /// Children that run at once; further `task` calls wait (default 4).
    pub max_parallel: usize,
}

impl Default for AgentsSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            max_parallel: 4,
        }
    }
}

/// How commands run (`[shell]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellSettings {
    /// Variables passed to commands although their names look secret.
    pub env_passthrough: Vec<String>,
}

/// Permission mode and rules, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionSettings {
    /// `--permissions`, `LIGHT_AGENT_PERMISSIONS` or `[permissions] mode`;
    /// `None` leaves it to the host (`ask` in the TUI, `read-only` in
    /// `exec`).
    pub mode: Option<Mode>,
    /// The `[permissions]` rules, tagged with the config file.
    pub rules: RuleList,
}

/// Everything the program needs, resolved once from flags, environment,
/// config file and built-in defaults (in that order of precedence).
///
/// `Debug` is safe to log: keys are [`Secret`]s.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The active profile, with its effective base URL.
    pub provider: ProviderProfile,
    /// The model to call. Empty only inside [`Resolution::NoModel`].
    pub model: String,
    /// The active profile's key; `None` for servers that need none.
    pub api_key: Option<Secret>,
    /// The model's context window in tokens.
    pub context_window: u64,
    /// Fraction of the window at which older steps are summarised, in (0, 1].
    pub compact_at: f64,
    /// Whether the context strategy (cold-result index, summaries) is on.
    pub context_strategy: bool,
    /// Time allowed to open a connection to the provider.
    pub connect_timeout: Duration,
    /// Longest silence allowed between bytes of a streamed reply.
    pub idle_timeout: Duration,
    /// `[http] first_byte_timeout_secs`: the longest wait for the first
    /// byte of an answer; `None`: see [`Settings::first_byte_timeout`].
    pub first_byte_timeout_secs: Option<u64>,
    /// Most steps one turn may take.
    pub max_steps: u32,
    /// Retries of a failed model call before the turn gives up.
    pub retries: u32,
    /// Front-end options.
    pub tui: TuiSettings,
    /// The command sandbox.
    pub sandbox: SandboxSettings,
    /// Command environment.
    pub shell: ShellSettings,
    /// `web_fetch`.
    pub web: WebSettings,
    /// Commands run on the agent's events (`[[hooks.PreToolUse]]`, …).
    pub hooks: HookSettings,
    /// Subagents (`[agents]`).
    pub agents: AgentsSettings,
    /// The permission mode and rules.
    pub permissions: PermissionSettings,
    /// `[models.NAME] edit_format` of the model: `"patch"` or `"replace"`;
    /// `None` leaves the choice to the model's name.
    pub edit_format: Option<String>,
    /// Reasoning effort: `--effort`, else `[models.NAME] effort`; `None`
    /// sends none (the provider's default).
    pub effort: Option<Effort>,
    /// Whether the model takes image input: `[models.NAME] images`, else the
    /// built-in guess by provider kind and model name.
    pub image_input: bool,
    /// Every known profile (built-in and from the file), keys resolved.
    pub providers: Vec<ProviderProfile>,
    /// Log filter in `RUST_LOG` syntax.
    pub log_level: String,
    /// `[mcp_servers.NAME]` tables, by name.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Problems worth telling the user that did not stop resolution
    /// (unknown keys with their line, a missing key that was tolerated).
    pub warnings: Vec<String>,
}

/// How long a local server may take to send the first byte of an answer
/// unless `[http] first_byte_timeout_secs` says otherwise.
pub const LOCAL_FIRST_BYTE_SECS: u64 = 600;

impl Settings {
    /// The longest wait for the first byte of an answer (the model reading
    /// the prompt): `[http] first_byte_timeout_secs`, else
    /// [`LOCAL_FIRST_BYTE_SECS`] for a local provider and the idle timeout
    /// for a remote one.
    pub fn first_byte_timeout(&self) -> Duration {
        match self.first_byte_timeout_secs {
            Some(secs) => Duration::from_secs(secs),
            None if self.provider.is_local() => Duration::from_secs(LOCAL_FIRST_BYTE_SECS),
            None => self.idle_timeout,
        }
    }
}

/// The outcome of resolution.
#[derive(Debug, Clone)]
pub enum Resolution {
    /// A provider and model are known; the agent can start.
    Ready(Settings),
    /// Nothing usable is configured. The UI should still open and show
    /// `message`, which says exactly what to set. `settings` holds everything
    /// else that resolved; its `model` may be empty and its key absent.
    NoModel {
        /// What is missing and how to supply it.
        message: String,
        /// The rest of the resolved settings.
        settings: Settings,
    },
}

impl Resolution {
    /// The settings, whether or not a model was found.
    pub fn settings(&self) -> &Settings {
        match self {
            Resolution::Ready(settings) | Resolution::NoModel { settings, .. } => settings,
        }
    }

    /// The settings, for a flag applied after resolution (`--sandbox`).
    pub fn settings_mut(&mut self) -> &mut Settings {
        match self {
            Resolution::Ready(settings) | Resolution::NoModel { settings, .. } => settings,
        }
    }
}
