//! The config file as written: TOML deserialised into [`RawConfig`], nothing
//! resolved yet.
//!
//! serde does the walking (`toml`'s deserializer, with `serde_path_to_error`
//! for the key path and `serde_ignored` for unknown keys), so a new setting is
//! one field. Every problem names its line: a syntax error, a wrong value type
//! or an out-of-range value is a [`ConfigError::Malformed`] with line and
//! column of the value; an unknown key is only a warning (with the key's line),
//! so a newer file still works with an older binary.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use toml::de::{DeTable, DeValue};

use super::{ConfigError, ProviderKind, Secret};
use crate::mcp::McpServerConfig;
use crate::permission::{Mode, Rule, RuleSource};
use crate::protocol::Effort;

/// The whole file. Every field is optional: absence means "not set here".
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawConfig {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub log_level: Option<String>,
    pub providers: BTreeMap<String, RawProvider>,
    pub models: BTreeMap<String, RawModel>,
    pub context: RawContext,
    pub tui: RawTui,
    pub http: RawHttp,
    pub agent: RawAgent,
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    pub sandbox: RawSandbox,
    pub shell: RawShell,
    pub web: RawWeb,
    pub hooks: RawHooks,
    pub agents: RawAgents,
    pub permissions: RawPermissions,
    /// One line per ignored key, naming file, line and column.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// A `[providers.NAME]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawProvider {
    #[serde(deserialize_with = "provider_kind")]
    pub kind: Option<ProviderKind>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    #[serde(deserialize_with = "secret")]
    pub api_key: Option<Secret>,
    pub model: Option<String>,
}

/// A `[models."NAME"]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawModel {
    #[serde(deserialize_with = "positive")]
    pub context_window: Option<u64>,
    /// `"patch"` or `"replace"`.
    #[serde(deserialize_with = "edit_format")]
    pub edit_format: Option<String>,
    /// `"minimal"`, `"low"`, `"medium"` or `"high"`.
    pub effort: Option<Effort>,
    /// Whether the model takes image input (overrides the built-in guess).
    pub images: Option<bool>,
}

/// The `[permissions]` table; every rule was checked to parse.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawPermissions {
    #[serde(deserialize_with = "mode")]
    pub mode: Option<Mode>,
    #[serde(deserialize_with = "rules")]
    pub allow: Vec<String>,
    #[serde(deserialize_with = "rules")]
    pub ask: Vec<String>,
    #[serde(deserialize_with = "rules")]
    pub deny: Vec<String>,
}

/// The `[context]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawContext {
    #[serde(deserialize_with = "fraction")]
    pub compact_at: Option<f64>,
    pub strategy: Option<bool>,
}

/// The `[tui]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawTui {
    pub show_thoughts: Option<bool>,
    pub tool_preview_lines: Option<usize>,
    #[serde(deserialize_with = "notifications")]
    pub notifications: Option<String>,
}

/// The `[http]` table (seconds).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawHttp {
    #[serde(deserialize_with = "positive")]
    pub connect_timeout_secs: Option<u64>,
    #[serde(deserialize_with = "positive")]
    pub idle_timeout_secs: Option<u64>,
    #[serde(deserialize_with = "positive")]
    pub first_byte_timeout_secs: Option<u64>,
}

/// The `[agent]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawAgent {
    #[serde(deserialize_with = "positive")]
    pub max_steps: Option<u32>,
    pub retries: Option<u32>,
}

/// The `[sandbox]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawSandbox {
    #[serde(deserialize_with = "sandbox_mode")]
    pub mode: Option<String>,
    #[serde(deserialize_with = "absolute_paths")]
    pub writable_roots: Option<Vec<String>>,
    #[serde(deserialize_with = "home_or_absolute_paths")]
    pub deny_read: Option<Vec<String>>,
    pub network: Option<bool>,
}

/// The `[hooks]` table: `[[hooks.EVENT]]` entries under Claude Code's event
/// names (an unknown event is an ignored key, warned about).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawHooks {
    #[serde(rename = "SessionStart")]
    pub session_start: Vec<RawHook>,
    #[serde(rename = "UserPromptSubmit")]
    pub user_prompt_submit: Vec<RawHook>,
    #[serde(rename = "PreToolUse")]
    pub pre_tool_use: Vec<RawHook>,
    #[serde(rename = "PostToolUse")]
    pub post_tool_use: Vec<RawHook>,
    #[serde(rename = "Stop")]
    pub stop: Vec<RawHook>,
    #[serde(rename = "PreCompact")]
    pub pre_compact: Vec<RawHook>,
    #[serde(rename = "Notification")]
    pub notification: Vec<RawHook>,
}

impl RawHooks {
    /// Each event's entries, in [`HOOK_EVENTS`](super::HOOK_EVENTS) order.
    pub fn by_event(&self) -> [(&'static str, &[RawHook]); 7] {
        [
            ("SessionStart", &self.session_start),
            ("UserPromptSubmit", &self.user_prompt_submit),
            ("PreToolUse", &self.pre_tool_use),
            ("PostToolUse", &self.post_tool_use),
            ("Stop", &self.stop),
            ("PreCompact", &self.pre_compact),
            ("Notification", &self.notification),
        ]
    }
}

/// One `[[hooks.EVENT]]` entry.
#[derive(Debug, Deserialize)]
pub(crate) struct RawHook {
    #[serde(default)]
    pub matcher: Option<String>,
    pub command: String,
    #[serde(default, deserialize_with = "positive")]
    pub timeout_sec: Option<u64>,
}

/// The `[web]` table (`web_fetch`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawWeb {
    pub allow_private: Option<bool>,
    pub private_hosts: Option<Vec<String>>,
    pub small_model: Option<String>,
}

/// The `[agents]` table (the `task` tool and its subagents).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawAgents {
    pub enabled: Option<bool>,
    #[serde(deserialize_with = "positive")]
    pub max_parallel: Option<u32>,
}

/// The `[shell]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawShell {
    pub env_passthrough: Option<Vec<String>>,
}

/// What `[tui] notifications` accepts: OSC 9/777 where the terminal shows
/// them else a bell, always a bell, or nothing.
pub const NOTIFICATION_MODES: &[&str] = &["auto", "bell", "off"];

/// The sandbox modes `[sandbox] mode` and `--sandbox` accept.
pub const SANDBOX_MODES: &[&str] = &["workspace-write", "read-only", "off"];

/// Parses the text of `file`. Fails on bad syntax, wrong value types and
/// out-of-range values; unknown keys become `warnings`.
pub(crate) fn parse(file: &Path, text: &str) -> Result<RawConfig, ConfigError> {
    let malformed = |span: Option<Range<usize>>, message: String| {
        let (line, column) = line_column(text, span.map_or(0, |s| s.start));
        ConfigError::Malformed {
            file: file.to_path_buf(),
            line,
            column,
            message,
        }
    };
    // Only the message and span are used: `toml`'s Display quotes the source
    // line, which could be the line holding an `api_key`.
    let document = toml::Deserializer::parse(text)
        .map_err(|err| malformed(err.span(), err.message().to_owned()))?;
    let mut ignored = Vec::new();
    let mut on_ignored = |path: serde_ignored::Path<'_>| ignored.push(segments(&path));
    let unknown = serde_ignored::Deserializer::new(document, &mut on_ignored);
    let mut raw: RawConfig = serde_path_to_error::deserialize(unknown).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        malformed(inner.span(), format!("`{path}`: {}", inner.message()))
    })?;
    // In the order they are written, whatever order serde met them in.
    let mut located: Vec<(usize, String)> = ignored
        .iter()
        .map(|keys| (key_span(text, keys).map_or(0, |s| s.start), keys.join(".")))
        .collect();
    located.sort();
    raw.warnings = located
        .into_iter()
        .map(|(offset, key)| {
            let (line, column) = line_column(text, offset);
            format!(
                "{}:{line}:{column}: unknown key `{key}` ignored",
                file.display()
            )
        })
        .collect();
    Ok(raw)
}

/// The keys of an ignored path, outermost first.
fn segments(path: &serde_ignored::Path<'_>) -> Vec<String> {
    use serde_ignored::Path as P;
    match path {
        P::Root => Vec::new(),
        P::Seq { parent, index } => {
            let mut keys = segments(parent);
            keys.push(index.to_string());
            keys
        }
        P::Map { parent, key } => {
            let mut keys = segments(parent);
            keys.push(key.clone());
            keys
        }
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => {
            segments(parent)
        }
    }
}

/// Where the last of `keys` is written in `text`.
fn key_span(text: &str, keys: &[String]) -> Option<Range<usize>> {
    let document = DeTable::parse(text).ok()?;
    let mut table = document.get_ref();
    let (last, parents) = keys.split_last()?;
    for key in parents {
        match table.get(key.as_str())?.get_ref() {
            DeValue::Table(inner) => table = inner,
            _ => return None,
        }
    }
    let (key, _) = table.get_key_value(last.as_str())?;
    Some(key.span())
}

fn provider_kind<'de, D: Deserializer<'de>>(de: D) -> Result<Option<ProviderKind>, D::Error> {
    let text = String::deserialize(de)?;
    text.parse().map(Some).map_err(D::Error::custom)
}

fn secret<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Secret>, D::Error> {
    String::deserialize(de).map(|text| Some(Secret::new(text)))
}

fn edit_format<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    let format = String::deserialize(de)?;
    match format.as_str() {
        "patch" | "replace" => Ok(Some(format)),
        _ => Err(D::Error::custom(format!(
            "must be \"patch\" or \"replace\", found \"{format}\""
        ))),
    }
}

fn sandbox_mode<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    one_of(de, SANDBOX_MODES)
}

fn notifications<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    one_of(de, NOTIFICATION_MODES)
}

/// A string that must be one of `allowed`.
fn one_of<'de, D: Deserializer<'de>>(de: D, allowed: &[&str]) -> Result<Option<String>, D::Error> {
    let value = String::deserialize(de)?;
    if allowed.contains(&value.as_str()) {
        Ok(Some(value))
    } else {
        Err(D::Error::custom(format!(
            "must be one of {}, found {value:?}",
            allowed.join(", ")
        )))
    }
}

fn absolute_paths<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Vec<String>>, D::Error> {
    let roots = Vec::<String>::deserialize(de)?;
    if let Some(relative) = roots.iter().find(|r| !Path::new(r).is_absolute()) {
        return Err(D::Error::custom(format!(
            "must be absolute paths, found {relative:?}"
        )));
    }
    Ok(Some(roots))
}

/// Paths that are absolute or start with `~/` (the home directory).
fn home_or_absolute_paths<'de, D: Deserializer<'de>>(
    de: D,
) -> Result<Option<Vec<String>>, D::Error> {
    let paths = Vec::<String>::deserialize(de)?;
    let usable = |p: &String| p.starts_with("~/") || Path::new(p).is_absolute();
    if let Some(relative) = paths.iter().find(|p| !usable(p)) {
        return Err(D::Error::custom(format!(
            "must be absolute paths or start with ~/, found {relative:?}"
        )));
    }
    Ok(Some(paths))
}

fn mode<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Mode>, D::Error> {
    let text = String::deserialize(de)?;
    text.parse::<Mode>().map(Some).map_err(D::Error::custom)
}

/// A list of permission rules, each checked to parse (where a rule came
/// from is recorded when the rules are resolved).
fn rules<'de, D: Deserializer<'de>>(de: D) -> Result<Vec<String>, D::Error> {
    let rules = Vec::<String>::deserialize(de)?;
    for text in &rules {
        Rule::parse(text, RuleSource::Default).map_err(D::Error::custom)?;
    }
    Ok(rules)
}

/// An integer of at least 1.
fn positive<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + PartialEq + From<u8>,
{
    let n = T::deserialize(de)?;
    if n == T::from(0) {
        return Err(D::Error::custom("must be at least 1"));
    }
    Ok(Some(n))
}

/// A number in (0, 1]; integers are accepted too (`compact_at = 1`).
fn fraction<'de, D: Deserializer<'de>>(de: D) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(de)?;
    if value > 0.0 && value <= 1.0 {
        Ok(Some(value))
    } else {
        Err(D::Error::custom(format!(
            "must be in (0, 1], found {value}"
        )))
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<RawConfig, ConfigError> {
        parse(Path::new("config.toml"), text)
    }

    #[test]
    fn line_column_counts_from_one_in_characters() {
        let text = "a = 1\né = \"x\" = 2";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, text.find("\" =").unwrap() + 2), (2, 9));
    }

    #[test]
    fn reads_every_section() {
        let raw = parse_text(
            r#"
model = "gpt-4.1"
provider = "openai"
log_level = "debug"
[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:8080/v1"
model = "qwen"
api_key = "sk-file"
[models."qwen"]
context_window = 32768
[context]
compact_at = 0.5
strategy = false
[tui]
show_thoughts = true
tool_preview_lines = 9
[http]
connect_timeout_secs = 3
idle_timeout_secs = 30
[agent]
max_steps = 7
retries = 0
"#,
        )
        .unwrap();
        assert_eq!(raw.model.as_deref(), Some("gpt-4.1"));
        let local = &raw.providers["local"];
        assert_eq!(local.kind, Some(ProviderKind::OpenAi));
        assert_eq!(local.api_key.as_ref().map(Secret::expose), Some("sk-file"));
        assert_eq!(raw.models["qwen"].context_window, Some(32768));
        assert_eq!(raw.context.compact_at, Some(0.5));
        assert_eq!(raw.context.strategy, Some(false));
        assert_eq!(raw.tui.tool_preview_lines, Some(9));
        assert_eq!(raw.http.idle_timeout_secs, Some(30));
        assert_eq!(raw.agent.max_steps, Some(7));
        assert_eq!(raw.agent.retries, Some(0));
        assert!(raw.warnings.is_empty(), "{:?}", raw.warnings);
    }

    #[test]
    fn wrong_type_points_at_the_value() {
        let err = parse_text("model = \"m\"\n[context]\nstrategy = \"yes\"\n").unwrap_err();
        match err {
            ConfigError::Malformed {
                line,
                column,
                message,
                ..
            } => {
                assert_eq!((line, column), (3, 12));
                assert!(message.contains("context.strategy"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn compact_at_outside_zero_to_one_is_refused() {
        for bad in ["0", "0.0", "1.5", "-0.2"] {
            let err = parse_text(&format!("[context]\ncompact_at = {bad}\n")).unwrap_err();
            assert!(
                matches!(
                    err,
                    ConfigError::Malformed {
                        line: 2,
                        column: 14,
                        ..
                    }
                ),
                "{bad}: {err}"
            );
        }
        assert_eq!(
            parse_text("[context]\ncompact_at = 1\n")
                .unwrap()
                .context
                .compact_at,
            Some(1.0)
        );
    }

    #[test]
    fn syntax_error_never_quotes_the_source_line() {
        let err = parse_text("[providers.openai]\napi_key = \"sk-secret-value\n").unwrap_err();
        let shown = err.to_string();
        assert!(
            matches!(err, ConfigError::Malformed { line: 2, .. }),
            "{shown}"
        );
        assert!(!shown.contains("sk-secret-value"), "{shown}");
    }

    #[test]
    fn unknown_kind_is_an_error_at_its_value() {
        let err = parse_text("[providers.x]\nkind = \"grok\"\n").unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Malformed {
                    line: 2,
                    column: 8,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn unknown_keys_are_warnings_at_their_line_and_column() {
        let raw = parse_text(
            "colour = \"red\"\n[providers.local]\nkind = \"openai\"\n  extra = 1\n[models.\"qwen2.5-coder\"]\nwindow = 9\n",
        )
        .unwrap();
        assert_eq!(
            raw.warnings,
            [
                "config.toml:1:1: unknown key `colour` ignored",
                "config.toml:4:3: unknown key `providers.local.extra` ignored",
                "config.toml:6:1: unknown key `models.qwen2.5-coder.window` ignored",
            ]
        );
        assert_eq!(raw.providers["local"].kind, Some(ProviderKind::OpenAi));
    }

    #[test]
    fn zero_and_negative_counts_are_refused_at_their_value() {
        for (text, column) in [
            ("[agent]\nmax_steps = 0\n", 13),
            ("[tui]\ntool_preview_lines = -1\n", 22),
        ] {
            let err = parse_text(text).unwrap_err();
            assert!(
                matches!(err, ConfigError::Malformed { line: 2, column: c, .. } if c == column),
                "{text}: {err}"
            );
        }
    }
}
