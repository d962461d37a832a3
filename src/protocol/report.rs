//! Typed answers to the report commands (`/status`, `/tools`, `/skills`,
//! `/sessions`, `/mcp`), the model picker's rows and the session picker's:
//! plain data the host fills in and front ends render.

use serde::{Deserialize, Serialize};

/// Which report to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// Session, model, tokens per turn, database.
    Status,
    /// The registered tools.
    Tools,
    /// The discovered skills.
    Skills,
    /// Sessions of every directory.
    Sessions,
    /// The configured MCP servers.
    Mcp,
}

/// A typed report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "report", content = "data", rename_all = "snake_case")]
pub enum Report {
    /// `/status`.
    Status(StatusReport),
    /// `/tools`.
    Tools(Vec<ToolRow>),
    /// `/skills`.
    Skills(SkillsReport),
    /// `/sessions`.
    Sessions(SessionsReport),
    /// `/mcp`: each configured server, in name order.
    Mcp(Vec<McpServerRow>),
}

/// Token counts, summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenTotals {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached: u64,
}

impl TokenTotals {
    /// Adds one model call's usage.
    pub fn add(&mut self, input: u64, output: u64, cached: u64) {
        self.input = self.input.saturating_add(input);
        self.output = self.output.saturating_add(output);
        self.cached = self.cached.saturating_add(cached);
    }
}

/// Tokens of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnTokens {
    /// Turn number.
    pub turn: u64,
    /// Model calls in the turn.
    pub calls: u64,
    /// Its tokens.
    pub tokens: TokenTotals,
}

/// What `/status` shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StatusReport {
    /// Session id.
    pub session_id: String,
    /// Session title (may be empty).
    pub title: String,
    /// The session's directory.
    pub cwd: String,
    /// Model name.
    pub model: String,
    /// Provider profile name.
    pub provider: String,
    /// Provider API base URL.
    pub base_url: String,
    /// Context window of the model (0 when unknown).
    pub context_window: u64,
    /// Tokens in the context window now.
    pub window_tokens: u64,
    /// Tokens per turn, in turn order.
    pub turns: Vec<TurnTokens>,
    /// The session database file.
    pub database: String,
}

/// One registered tool.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolRow {
    /// Tool name.
    pub name: String,
    /// Its description (the first line is shown).
    pub description: String,
}

/// One discovered skill.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SkillRow {
    /// Skill name.
    pub name: String,
    /// What it is for.
    pub description: String,
}

/// What `/skills` shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SkillsReport {
    /// The skills, in index order.
    pub skills: Vec<SkillRow>,
    /// Where skills are looked for (project, then global).
    pub search_dirs: Vec<String>,
}

/// What `/sessions` shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionsReport {
    /// This UI's directory: sessions elsewhere are continued there.
    pub cwd: String,
    /// The session open now.
    pub current_id: String,
    /// Sessions of every directory, newest first.
    pub rows: Vec<SessionRow>,
}

/// Where an MCP server is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpServerState {
    /// Being started.
    #[default]
    Starting,
    /// Running, its tools offered.
    Ready,
    /// Could not be started (or timed out).
    Failed,
    /// `enabled = false` in the config.
    Disabled,
}

impl McpServerState {
    /// The word `/mcp` and `light-agent mcp list` show.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Failed => "failed",
            Self::Disabled => "disabled",
        }
    }
}

/// One MCP server as `/mcp` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct McpServerRow {
    /// The `[mcp_servers.NAME]` name.
    pub name: String,
    /// Where it is.
    pub state: McpServerState,
    /// How many of its tools are offered.
    pub tools: usize,
    /// Why it failed, in one line.
    pub error: Option<String>,
    /// When it was last started (ms since the Unix epoch).
    pub started_at: Option<u64>,
}

impl McpServerRow {
    /// `N tools` for a ready server, `None` otherwise.
    pub fn tools_text(&self) -> Option<String> {
        (self.state == McpServerState::Ready).then(|| format!("{} tools", self.tools))
    }
}

/// A model the picker offers.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModelChoice {
    /// Provider profile name (as in `--provider`).
    pub provider: String,
    /// Model name.
    pub model: String,
}

/// One row of a session picker or the `/sessions` report.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionRow {
    /// Session id.
    pub id: String,
    /// Title (may be empty).
    pub title: String,
    /// Canonical cwd the session is bound to.
    pub cwd: String,
    /// Last activity, ms since the Unix epoch.
    pub updated_at: u64,
    /// Number of turns.
    pub turns: u64,
}
