//! The config file as written: TOML parsed into [`RawConfig`], nothing
//! resolved yet.
//!
//! The file is read through `toml`'s spanned document model so that every
//! problem can name its line: a syntax error or a wrong value type is a
//! [`ConfigError::Malformed`] with line and column; an unknown key is only a
//! warning (also with its line), so a newer file still works with an older
//! binary.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use super::{ConfigError, ProviderKind, Secret};
use crate::permission::{Mode, Rule, RuleSource};

/// The whole file. Every field is optional: absence means "not set here".
#[derive(Debug, Default)]
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
    pub sandbox: RawSandbox,
    pub shell: RawShell,
    pub permissions: RawPermissions,
    /// One line per ignored key, naming file, line and column.
    pub warnings: Vec<String>,
}

/// A `[providers.NAME]` table.
#[derive(Debug, Default)]
pub(crate) struct RawProvider {
    pub kind: Option<ProviderKind>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub api_key: Option<Secret>,
    pub model: Option<String>,
}

/// A `[models."NAME"]` table.
#[derive(Debug, Default)]
pub(crate) struct RawModel {
    pub context_window: Option<u64>,
    /// `"patch"` or `"replace"`.
    pub edit_format: Option<String>,
}

/// The `[permissions]` table; every rule was checked to parse.
#[derive(Debug, Default)]
pub(crate) struct RawPermissions {
    pub mode: Option<Mode>,
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
}

/// The `[context]` table.
#[derive(Debug, Default)]
pub(crate) struct RawContext {
    pub compact_at: Option<f64>,
    pub strategy: Option<bool>,
}

/// The `[tui]` table.
#[derive(Debug, Default)]
pub(crate) struct RawTui {
    pub show_thoughts: Option<bool>,
    pub tool_preview_lines: Option<usize>,
}

/// The `[http]` table (seconds).
#[derive(Debug, Default)]
pub(crate) struct RawHttp {
    pub connect_timeout_secs: Option<u64>,
    pub idle_timeout_secs: Option<u64>,
}

/// The `[agent]` table.
#[derive(Debug, Default)]
pub(crate) struct RawAgent {
    pub max_steps: Option<u32>,
    pub retries: Option<u32>,
}

/// The `[sandbox]` table.
#[derive(Debug, Default)]
pub(crate) struct RawSandbox {
    pub mode: Option<String>,
    pub writable_roots: Option<Vec<String>>,
    pub network: Option<bool>,
}

/// The `[shell]` table.
#[derive(Debug, Default)]
pub(crate) struct RawShell {
    pub env_passthrough: Option<Vec<String>>,
}

/// The sandbox modes `[sandbox] mode` and `--sandbox` accept.
pub const SANDBOX_MODES: &[&str] = &["workspace-write", "read-only", "off"];

type Key<'i> = Spanned<DeString<'i>>;
type Value<'i> = Spanned<DeValue<'i>>;

/// Parses the text of `file`. Fails on bad syntax, wrong value types and
/// out-of-range values; unknown keys become `warnings`.
pub(crate) fn parse(file: &Path, text: &str) -> Result<RawConfig, ConfigError> {
    let mut reader = Reader {
        file,
        text,
        warnings: Vec::new(),
    };
    // Only the message and span are used: `toml`'s Display quotes the source
    // line, which could be the line holding an `api_key`.
    let document = DeTable::parse(text)
        .map_err(|err| reader.malformed(err.span().unwrap_or(0..0), err.message().to_string()))?;
    let mut raw = RawConfig::default();
    for (key, value) in document.get_ref() {
        match key.get_ref().as_ref() {
            "model" => raw.model = Some(reader.string(value, "model")?),
            "provider" => raw.provider = Some(reader.string(value, "provider")?),
            "log_level" => raw.log_level = Some(reader.string(value, "log_level")?),
            "providers" => {
                for (name, table) in reader.table(value, "providers")? {
                    let name = name.get_ref().to_string();
                    let provider = reader.provider(table, &format!("providers.{name}"))?;
                    raw.providers.insert(name, provider);
                }
            }
            "models" => {
                for (name, table) in reader.table(value, "models")? {
                    let name = name.get_ref().to_string();
                    let model = reader.model(table, &format!("models.\"{name}\""))?;
                    raw.models.insert(name, model);
                }
            }
            "context" => raw.context = reader.context(value)?,
            "tui" => raw.tui = reader.tui(value)?,
            "http" => raw.http = reader.http(value)?,
            "agent" => raw.agent = reader.agent(value)?,
            "sandbox" => raw.sandbox = reader.sandbox(value)?,
            "shell" => raw.shell = reader.shell(value)?,
            "permissions" => raw.permissions = reader.permissions(value)?,
            _ => reader.unknown(key, ""),
        }
    }
    raw.warnings = reader.warnings;
    Ok(raw)
}

/// Turns spans into located errors and warnings while walking the document.
struct Reader<'a> {
    file: &'a Path,
    text: &'a str,
    warnings: Vec<String>,
}

impl Reader<'_> {
    fn provider(&mut self, value: &Value<'_>, path: &str) -> Result<RawProvider, ConfigError> {
        let mut provider = RawProvider::default();
        for (key, value) in self.table(value, path)? {
            let field = format!("{path}.{}", key.get_ref());
            match key.get_ref().as_ref() {
                "kind" => {
                    let text = self.string(value, &field)?;
                    let kind = text
                        .parse::<ProviderKind>()
                        .map_err(|message| self.malformed(value.span(), message))?;
                    provider.kind = Some(kind);
                }
                "base_url" => provider.base_url = Some(self.string(value, &field)?),
                "api_key_env" => provider.api_key_env = Some(self.string(value, &field)?),
                "api_key" => provider.api_key = Some(Secret::new(self.string(value, &field)?)),
                "model" => provider.model = Some(self.string(value, &field)?),
                _ => self.unknown(key, path),
            }
        }
        Ok(provider)
    }

    fn model(&mut self, value: &Value<'_>, path: &str) -> Result<RawModel, ConfigError> {
        let mut model = RawModel::default();
        for (key, value) in self.table(value, path)? {
            match key.get_ref().as_ref() {
                "context_window" => {
                    model.context_window = Some(self.positive(value, "context_window")?);
                }
                "edit_format" => {
                    let format = self.string(value, "edit_format")?;
                    if format != "patch" && format != "replace" {
                        return Err(self.malformed(
                            value.span(),
                            format!("`{path}.edit_format` must be \"patch\" or \"replace\", found \"{format}\""),
                        ));
                    }
                    model.edit_format = Some(format);
                }
                _ => self.unknown(key, path),
            }
        }
        Ok(model)
    }

    fn context(&mut self, value: &Value<'_>) -> Result<RawContext, ConfigError> {
        let mut context = RawContext::default();
        for (key, value) in self.table(value, "context")? {
            match key.get_ref().as_ref() {
                "compact_at" => {
                    let fraction = self.float(value, "context.compact_at")?;
                    if !(fraction > 0.0 && fraction <= 1.0) {
                        return Err(self.malformed(
                            value.span(),
                            format!("`context.compact_at` must be in (0, 1], found {fraction}"),
                        ));
                    }
                    context.compact_at = Some(fraction);
                }
                "strategy" => context.strategy = Some(self.boolean(value, "context.strategy")?),
                _ => self.unknown(key, "context"),
            }
        }
        Ok(context)
    }

    fn tui(&mut self, value: &Value<'_>) -> Result<RawTui, ConfigError> {
        let mut tui = RawTui::default();
        for (key, value) in self.table(value, "tui")? {
            match key.get_ref().as_ref() {
                "show_thoughts" => {
                    tui.show_thoughts = Some(self.boolean(value, "tui.show_thoughts")?)
                }
                "tool_preview_lines" => {
                    let lines = self.integer(value, "tui.tool_preview_lines")?;
                    tui.tool_preview_lines =
                        Some(self.narrow(value, lines, "tui.tool_preview_lines")?);
                }
                _ => self.unknown(key, "tui"),
            }
        }
        Ok(tui)
    }

    fn http(&mut self, value: &Value<'_>) -> Result<RawHttp, ConfigError> {
        let mut http = RawHttp::default();
        for (key, value) in self.table(value, "http")? {
            match key.get_ref().as_ref() {
                "connect_timeout_secs" => {
                    http.connect_timeout_secs =
                        Some(self.positive(value, "http.connect_timeout_secs")?);
                }
                "idle_timeout_secs" => {
                    http.idle_timeout_secs = Some(self.positive(value, "http.idle_timeout_secs")?);
                }
                _ => self.unknown(key, "http"),
            }
        }
        Ok(http)
    }

    fn agent(&mut self, value: &Value<'_>) -> Result<RawAgent, ConfigError> {
        let mut agent = RawAgent::default();
        for (key, value) in self.table(value, "agent")? {
            match key.get_ref().as_ref() {
                "max_steps" => {
                    let steps = self.positive(value, "agent.max_steps")?;
                    agent.max_steps = Some(self.narrow(value, steps, "agent.max_steps")?);
                }
                "retries" => {
                    let retries = self.integer(value, "agent.retries")?;
                    agent.retries = Some(self.narrow(value, retries, "agent.retries")?);
                }
                _ => self.unknown(key, "agent"),
            }
        }
        Ok(agent)
    }

    fn sandbox(&mut self, value: &Value<'_>) -> Result<RawSandbox, ConfigError> {
        let mut sandbox = RawSandbox::default();
        for (key, value) in self.table(value, "sandbox")? {
            match key.get_ref().as_ref() {
                "mode" => {
                    let mode = self.string(value, "sandbox.mode")?;
                    if !SANDBOX_MODES.contains(&mode.as_str()) {
                        return Err(self.malformed(
                            value.span(),
                            format!(
                                "`sandbox.mode` must be one of {}, found {mode:?}",
                                SANDBOX_MODES.join(", ")
                            ),
                        ));
                    }
                    sandbox.mode = Some(mode);
                }
                "writable_roots" => {
                    let roots = self.strings(value, "sandbox.writable_roots")?;
                    if let Some(relative) = roots.iter().find(|r| !Path::new(r).is_absolute()) {
                        return Err(self.malformed(
                            value.span(),
                            format!("`sandbox.writable_roots` must be absolute paths, found {relative:?}"),
                        ));
                    }
                    sandbox.writable_roots = Some(roots);
                }
                "network" => sandbox.network = Some(self.boolean(value, "sandbox.network")?),
                _ => self.unknown(key, "sandbox"),
            }
        }
        Ok(sandbox)
    }

    fn shell(&mut self, value: &Value<'_>) -> Result<RawShell, ConfigError> {
        let mut shell = RawShell::default();
        for (key, value) in self.table(value, "shell")? {
            match key.get_ref().as_ref() {
                "env_passthrough" => {
                    shell.env_passthrough = Some(self.strings(value, "shell.env_passthrough")?);
                }
                _ => self.unknown(key, "shell"),
            }
        }
        Ok(shell)
    }

    /// An array of strings.
    fn strings(&self, value: &Value<'_>, path: &str) -> Result<Vec<String>, ConfigError> {
        match value.get_ref() {
            DeValue::Array(items) => items.iter().map(|item| self.string(item, path)).collect(),
            other => Err(self.wrong_type(value, path, "an array of strings", other)),
        }
    }

    fn permissions(&mut self, value: &Value<'_>) -> Result<RawPermissions, ConfigError> {
        let mut permissions = RawPermissions::default();
        for (key, value) in self.table(value, "permissions")? {
            let field = format!("permissions.{}", key.get_ref());
            match key.get_ref().as_ref() {
                "mode" => {
                    let text = self.string(value, &field)?;
                    let mode = text
                        .parse::<Mode>()
                        .map_err(|e| self.malformed(value.span(), e.to_string()))?;
                    permissions.mode = Some(mode);
                }
                "allow" => permissions.allow = self.rules(value, &field)?,
                "ask" => permissions.ask = self.rules(value, &field)?,
                "deny" => permissions.deny = self.rules(value, &field)?,
                _ => self.unknown(key, "permissions"),
            }
        }
        Ok(permissions)
    }

    /// A list of permission rules, each checked to parse.
    fn rules(&self, value: &Value<'_>, path: &str) -> Result<Vec<String>, ConfigError> {
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.wrong_type(value, path, "a list of rules", value.get_ref()));
        };
        let mut rules = Vec::new();
        for item in items {
            let text = self.string(item, path)?;
            Rule::parse(&text, RuleSource::Config(self.file.to_path_buf()))
                .map_err(|e| self.malformed(item.span(), e.to_string()))?;
            rules.push(text);
        }
        Ok(rules)
    }

    fn table<'v, 'i>(
        &self,
        value: &'v Value<'i>,
        path: &str,
    ) -> Result<&'v DeTable<'i>, ConfigError> {
        match value.get_ref() {
            DeValue::Table(table) => Ok(table),
            other => Err(self.wrong_type(value, path, "a table", other)),
        }
    }

    fn string(&self, value: &Value<'_>, path: &str) -> Result<String, ConfigError> {
        match value.get_ref() {
            DeValue::String(text) => Ok(text.to_string()),
            other => Err(self.wrong_type(value, path, "a string", other)),
        }
    }

    fn boolean(&self, value: &Value<'_>, path: &str) -> Result<bool, ConfigError> {
        match value.get_ref() {
            DeValue::Boolean(flag) => Ok(*flag),
            other => Err(self.wrong_type(value, path, "true or false", other)),
        }
    }

    /// A non-negative integer.
    fn integer(&self, value: &Value<'_>, path: &str) -> Result<u64, ConfigError> {
        match value.get_ref() {
            DeValue::Integer(integer) => u64::from_str_radix(integer.as_str(), integer.radix())
                .map_err(|_| {
                    self.malformed(
                        value.span(),
                        format!("`{path}` must be a non-negative integer that fits in 64 bits"),
                    )
                }),
            other => Err(self.wrong_type(value, path, "an integer", other)),
        }
    }

    /// An integer of at least 1.
    fn positive(&self, value: &Value<'_>, path: &str) -> Result<u64, ConfigError> {
        match self.integer(value, path)? {
            0 => Err(self.malformed(value.span(), format!("`{path}` must be at least 1"))),
            n => Ok(n),
        }
    }

    fn narrow<T: TryFrom<u64>>(
        &self,
        value: &Value<'_>,
        n: u64,
        path: &str,
    ) -> Result<T, ConfigError> {
        T::try_from(n).map_err(|_| self.malformed(value.span(), format!("`{path}` is too large")))
    }

    /// A float; integers are accepted too (`compact_at = 1`).
    fn float(&self, value: &Value<'_>, path: &str) -> Result<f64, ConfigError> {
        let parsed = match value.get_ref() {
            DeValue::Float(float) => float.as_str().parse::<f64>().ok(),
            DeValue::Integer(integer) => i64::from_str_radix(integer.as_str(), integer.radix())
                .ok()
                .map(|n| n as f64),
            other => return Err(self.wrong_type(value, path, "a number", other)),
        };
        parsed
            .ok_or_else(|| self.malformed(value.span(), format!("`{path}` is not a usable number")))
    }

    fn wrong_type(
        &self,
        value: &Value<'_>,
        path: &str,
        expected: &str,
        found: &DeValue<'_>,
    ) -> ConfigError {
        self.malformed(
            value.span(),
            format!("`{path}` must be {expected}, found {}", found.type_str()),
        )
    }

    fn unknown(&mut self, key: &Key<'_>, parent: &str) {
        let (line, column) = line_column(self.text, key.span().start);
        let full = if parent.is_empty() {
            key.get_ref().to_string()
        } else {
            format!("{parent}.{}", key.get_ref())
        };
        self.warnings.push(format!(
            "{}:{line}:{column}: unknown key `{full}` ignored",
            self.file.display()
        ));
    }

    fn malformed(&self, span: Range<usize>, message: String) -> ConfigError {
        let (line, column) = line_column(self.text, span.start);
        ConfigError::Malformed {
            file: self.file.to_path_buf(),
            line,
            column,
            message,
        }
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
}
