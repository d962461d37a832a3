//! `[mcp_servers.NAME]` in config.toml: how to start one server and which of
//! its tools to offer.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// Start-up time allowed when the file sets none (an `npx` cold start
/// needs more than ten seconds).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed for one tool call when the file sets none.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// One `[mcp_servers.NAME]` table: a server started as a child process that
/// speaks MCP on its stdin and stdout (`command`), or one reached over
/// streamable HTTP (`url`).
///
/// `Debug` is safe to log: the values of `env` and `headers` (tokens, often)
/// are redacted.
#[derive(Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct McpServerConfig {
    /// The program to run.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set in the child's environment.
    pub env: BTreeMap<String, String>,
    /// Names of variables copied from our environment into the child's; no
    /// other variable of ours reaches it (keys stay here).
    pub env_passthrough: Vec<String>,
    /// The child's working directory; the agent's when unset.
    pub cwd: Option<PathBuf>,
    /// The streamable-HTTP endpoint (instead of `command`).
    pub url: Option<String>,
    /// Name of the variable of ours holding the bearer token sent to `url`
    /// (the token itself never sits in the config).
    pub bearer_token_env_var: Option<String>,
    /// Extra HTTP headers sent to `url` with every request.
    pub headers: BTreeMap<String, String>,
    /// Seconds allowed for start-up (spawn, `initialize`, `tools/list`).
    pub startup_timeout_sec: Option<u64>,
    /// Seconds allowed for one tool call.
    pub tool_timeout_sec: Option<u64>,
    /// Globs over the server's tool names; when set, only matching tools are offered.
    pub enabled_tools: Option<Vec<String>>,
    /// Globs over the server's tool names never offered.
    pub disabled_tools: Vec<String>,
    /// Whether the server is started at all.
    pub enabled: bool,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        Self {
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            env_passthrough: Vec::new(),
            cwd: None,
            url: None,
            bearer_token_env_var: None,
            headers: BTreeMap::new(),
            startup_timeout_sec: None,
            tool_timeout_sec: None,
            enabled_tools: None,
            disabled_tools: Vec::new(),
            enabled: true,
        }
    }
}

impl std::fmt::Debug for McpServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |map: &BTreeMap<String, String>| {
            map.keys()
                .map(|k| (k.clone(), "<redacted>"))
                .collect::<BTreeMap<_, _>>()
        };
        f.debug_struct("McpServerConfig")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &redacted(&self.env))
            .field("env_passthrough", &self.env_passthrough)
            .field("cwd", &self.cwd)
            .field("url", &self.url)
            .field("bearer_token_env_var", &self.bearer_token_env_var)
            .field("headers", &redacted(&self.headers))
            .field("startup_timeout_sec", &self.startup_timeout_sec)
            .field("tool_timeout_sec", &self.tool_timeout_sec)
            .field("enabled_tools", &self.enabled_tools)
            .field("disabled_tools", &self.disabled_tools)
            .field("enabled", &self.enabled)
            .finish()
    }
}

impl McpServerConfig {
    /// Time allowed for start-up.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout_sec
            .map_or(DEFAULT_STARTUP_TIMEOUT, Duration::from_secs)
    }

    /// Time allowed for one tool call.
    pub fn tool_timeout(&self) -> Duration {
        self.tool_timeout_sec
            .map_or(DEFAULT_TOOL_TIMEOUT, Duration::from_secs)
    }

    /// The filter built from `enabled_tools` and `disabled_tools`; fails
    /// naming the first glob that does not parse.
    pub fn tool_filter(&self) -> Result<ToolFilter, String> {
        Ok(ToolFilter {
            enabled: match &self.enabled_tools {
                Some(globs) => Some(glob_set(globs)?),
                None => None,
            },
            disabled: glob_set(&self.disabled_tools)?,
        })
    }
}

/// Which of a server's tools are offered to the model.
#[derive(Debug, Clone)]
pub struct ToolFilter {
    enabled: Option<GlobSet>,
    disabled: GlobSet,
}

impl ToolFilter {
    /// Whether the server's tool `name` is offered.
    pub fn allows(&self, name: &str) -> bool {
        self.enabled.as_ref().is_none_or(|set| set.is_match(name)) && !self.disabled.is_match(name)
    }
}

fn glob_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(Glob::new(glob).map_err(|e| format!("tool glob {glob:?}: {e}"))?);
    }
    builder.build().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_names_env_and_header_keys_but_not_their_values() {
        let config = McpServerConfig {
            env: BTreeMap::from([("GITHUB_TOKEN".to_owned(), "ghp_secret1".to_owned())]),
            headers: BTreeMap::from([("X-Api-Key".to_owned(), "key-secret2".to_owned())]),
            ..McpServerConfig::default()
        };
        let shown = format!("{config:?}");
        assert!(
            shown.contains("GITHUB_TOKEN") && shown.contains("X-Api-Key"),
            "{shown}"
        );
        assert!(
            !shown.contains("secret1") && !shown.contains("secret2"),
            "{shown}"
        );
    }
}
