//! Resolution: raw file + environment + flags → [`Settings`], once.
//!
//! Precedence is per field: flags > environment > config file > built-in
//! defaults. One deliberate exception: a model named in a layer that also
//! named a provider is dropped when a higher layer picks a different
//! provider (`provider = "openai"`, `model = "gpt-4.1"` in the file and
//! `--provider anthropic` means Anthropic's default model, not `gpt-4.1`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::models::{DEFAULT_CONTEXT_WINDOW, builtin_context_window, builtin_image_input};
use super::providers::{
    CUSTOM, KEYED_DEFAULT_ORDER, OLLAMA, base_url_env, builtin_profiles, provider_for_model,
};
use super::raw::{self, RawConfig};
use super::{
    AgentsSettings, ConfigError, Env, Flags, HookSetting, HookSettings, PermissionSettings,
    ProviderKind, ProviderProfile, Resolution, SandboxSettings, Settings, ShellSettings,
    TuiSettings, WebSettings,
};
use crate::permission::{Mode, RuleList, RuleSource};

/// Seconds a hook may run when its entry names none (Claude Code's default).
pub(crate) const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 60;

/// `[[hooks.EVENT]]` entries as settings: no matcher matches everything.
pub(crate) fn hook_settings(raw: &raw::RawHooks) -> Vec<HookSetting> {
    raw.by_event()
        .into_iter()
        .flat_map(|(event, hooks)| {
            hooks.iter().map(move |h| HookSetting {
                event: event.to_owned(),
                matcher: h.matcher.clone().unwrap_or_default(),
                command: h.command.clone(),
                timeout_sec: h.timeout_sec.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS),
            })
        })
        .collect()
}

/// Environment variable naming the active profile.
pub const PROVIDER_ENV: &str = "LIGHT_AGENT_PROVIDER";
/// Environment variable naming the model.
pub const MODEL_ENV: &str = "LIGHT_AGENT_MODEL";
/// Environment variable overriding the active profile's base URL.
pub const BASE_URL_ENV: &str = "LIGHT_AGENT_BASE_URL";
/// Environment variable holding the log filter.
pub const LOG_ENV: &str = "RUST_LOG";
/// Environment variable holding the permission mode.
pub const PERMISSIONS_ENV: &str = "LIGHT_AGENT_PERMISSIONS";

const DEFAULT_COMPACT_AT: f64 = 0.8;
const DEFAULT_CONNECT_TIMEOUT_SECS: u64 = 10;
const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 120;
const DEFAULT_MAX_STEPS: u32 = 100;
const DEFAULT_RETRIES: u32 = 3;
const DEFAULT_TOOL_PREVIEW_LINES: usize = 5;
const DEFAULT_LOG_LEVEL: &str = "info";

/// Resolves settings from an optional config file (`(path, text)`), the
/// environment snapshot and the flags. Pure: it reads no files and no
/// process state; `probe(base_url)` is asked for a local server's first
/// model only when no model is otherwise known.
///
/// Fails on a malformed file ([`ConfigError::Malformed`], with line and
/// column) or on a name that refers to nothing ([`ConfigError::Invalid`]).
/// A missing key or model is not an error: it yields
/// [`Resolution::NoModel`] with a message saying what to set.
pub fn resolve(
    file: Option<(&Path, &str)>,
    env: &Env,
    flags: &Flags,
    probe: &dyn Fn(&str) -> Option<String>,
) -> Result<Resolution, ConfigError> {
    let raw = match file {
        Some((path, text)) => raw::parse(path, text)?,
        None => RawConfig::default(),
    };
    let mut warnings = raw.warnings.clone();
    let providers = merge_profiles(&raw, env)?;

    let base_url_override = flags.base_url.as_deref().or(env.get(BASE_URL_ENV));
    let (named_provider, provider_layer) = first_set([
        flags.provider.as_deref(),
        env.get(PROVIDER_ENV),
        raw.provider.as_deref(),
    ]);
    let (named_model, model_layer) = first_set([
        flags.model.as_deref(),
        env.get(MODEL_ENV),
        raw.model.as_deref(),
    ]);
    let model_belongs_elsewhere = match (provider_layer, model_layer, named_provider) {
        (Some(p), Some(m), Some(chosen)) => {
            p < m && layer_named_other_provider(m, flags, env, &raw, chosen)
        }
        _ => false,
    };
    let named_model = named_model.filter(|_| !model_belongs_elsewhere);

    let choice = choose(
        &providers,
        named_provider,
        named_model,
        base_url_override,
        probe,
    )?;
    let (profile, model, problem) = activate(choice, base_url_override, probe, &mut warnings);

    let context_window = match flags.context_window {
        Some(0) => {
            return Err(ConfigError::Invalid(
                "--context-window must be at least 1".into(),
            ));
        }
        Some(window) => window,
        None => raw
            .models
            .get(&model)
            .and_then(|m| m.context_window)
            .or_else(|| builtin_context_window(&model))
            .unwrap_or(DEFAULT_CONTEXT_WINDOW),
    };
    let log_level = flags
        .log_level
        .as_deref()
        .or(env.get(LOG_ENV))
        .or(raw.log_level.as_deref())
        .unwrap_or(DEFAULT_LOG_LEVEL)
        .to_string();

    let mode = match flags.permissions.as_deref() {
        Some(text) => Some(
            text.parse::<Mode>()
                .map_err(|e| ConfigError::Invalid(format!("--permissions: {e}")))?,
        ),
        None => match env.get(PERMISSIONS_ENV) {
            Some(text) => Some(
                text.parse::<Mode>()
                    .map_err(|e| ConfigError::Invalid(format!("{PERMISSIONS_ENV}: {e}")))?,
            ),
            None => raw.permissions.mode,
        },
    };
    let rules = match file {
        Some((path, _)) => RuleList::parse(
            &raw.permissions.allow,
            &raw.permissions.ask,
            &raw.permissions.deny,
            &RuleSource::Config(path.to_path_buf()),
        )
        .map_err(|errors| {
            let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
            ConfigError::Invalid(texts.join("; "))
        })?,
        None => RuleList::default(),
    };
    let edit_format = raw.models.get(&model).and_then(|m| m.edit_format.clone());
    let effort = flags
        .effort
        .or_else(|| raw.models.get(&model).and_then(|m| m.effort));
    let image_input = raw
        .models
        .get(&model)
        .and_then(|m| m.images)
        .unwrap_or_else(|| builtin_image_input(profile.kind, &model));

    let settings = Settings {
        api_key: profile.api_key.clone(),
        provider: profile,
        model,
        context_window,
        compact_at: raw.context.compact_at.unwrap_or(DEFAULT_COMPACT_AT),
        context_strategy: raw.context.strategy.unwrap_or(true),
        connect_timeout: Duration::from_secs(
            raw.http
                .connect_timeout_secs
                .unwrap_or(DEFAULT_CONNECT_TIMEOUT_SECS),
        ),
        idle_timeout: Duration::from_secs(
            raw.http
                .idle_timeout_secs
                .unwrap_or(DEFAULT_IDLE_TIMEOUT_SECS),
        ),
        first_byte_timeout_secs: raw.http.first_byte_timeout_secs,
        max_steps: raw.agent.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
        retries: raw.agent.retries.unwrap_or(DEFAULT_RETRIES),
        tui: TuiSettings {
            show_thoughts: raw.tui.show_thoughts.unwrap_or(true),
            tool_preview_lines: raw
                .tui
                .tool_preview_lines
                .unwrap_or(DEFAULT_TOOL_PREVIEW_LINES),
            notifications: raw
                .tui
                .notifications
                .clone()
                .unwrap_or_else(|| "auto".to_owned()),
        },
        sandbox: SandboxSettings {
            mode: raw
                .sandbox
                .mode
                .clone()
                .unwrap_or_else(|| SandboxSettings::default().mode),
            writable_roots: raw
                .sandbox
                .writable_roots
                .iter()
                .flatten()
                .map(PathBuf::from)
                .collect(),
            deny_read: raw.sandbox.deny_read.clone().unwrap_or_default(),
            network: raw.sandbox.network.unwrap_or(false),
        },
        shell: ShellSettings {
            env_passthrough: raw.shell.env_passthrough.clone().unwrap_or_default(),
        },
        hooks: HookSettings {
            entries: hook_settings(&raw.hooks),
        },
        agents: AgentsSettings {
            enabled: raw.agents.enabled.unwrap_or(false),
            max_parallel: raw
                .agents
                .max_parallel
                .map_or(AgentsSettings::default().max_parallel, |n| n as usize),
        },
        web: WebSettings {
            allow_private: raw.web.allow_private.unwrap_or(false),
            private_hosts: raw
                .web
                .private_hosts
                .iter()
                .flatten()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
            small_model: raw.web.small_model.clone().filter(|m| !m.trim().is_empty()),
        },
        permissions: PermissionSettings { mode, rules },
        edit_format,
        effort,
        image_input,
        providers,
        log_level,
        mcp_servers: raw.mcp_servers,
        warnings,
    };
    Ok(match problem {
        None => Resolution::Ready(settings),
        Some(message) => Resolution::NoModel { message, settings },
    })
}

/// Applies the base-URL override to the chosen profile, checks its key and
/// asks the server for a model if none is known. The third value is what
/// stops the agent from starting, if anything does.
fn activate(
    choice: Choice,
    base_url_override: Option<&str>,
    probe: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<String>,
) -> (ProviderProfile, String, Option<String>) {
    let (mut profile, model) = match choice {
        Choice::Chosen { profile, model } => (profile, model),
        Choice::Nothing { profile, message } => return (profile, String::new(), Some(message)),
    };
    if let Some(url) = base_url_override {
        profile.base_url = url.to_string();
    }
    if let (None, Some(var)) = (&profile.api_key, &profile.api_key_env) {
        // A user who points a profile at another URL may be talking to a
        // local server that needs no key; let the server decide.
        if base_url_override.is_none() {
            let message = missing_key_message(&profile.name, var);
            return (profile, model, Some(message));
        }
        warnings.push(format!(
            "{var} is not set; calling {} without an API key",
            crate::protocol::redact_url(&profile.base_url)
        ));
    }
    if !model.is_empty() {
        return (profile, model, None);
    }
    match probe(&profile.base_url) {
        Some(first) => (profile, first, None),
        None => {
            let message = missing_model_message(&profile);
            (profile, String::new(), Some(message))
        }
    }
}

/// The first value that is set, with its layer (0 = flags, 1 = environment,
/// 2 = file).
fn first_set(layers: [Option<&str>; 3]) -> (Option<&str>, Option<usize>) {
    layers
        .into_iter()
        .enumerate()
        .find_map(|(layer, value)| value.map(|v| (Some(v), Some(layer))))
        .unwrap_or((None, None))
}

/// Whether `layer` named a provider other than `chosen` (so a model named in
/// that layer was meant for that other provider).
fn layer_named_other_provider(
    layer: usize,
    flags: &Flags,
    env: &Env,
    raw: &RawConfig,
    chosen: &str,
) -> bool {
    let provider_there = match layer {
        0 => flags.provider.as_deref(),
        1 => env.get(PROVIDER_ENV),
        _ => raw.provider.as_deref(),
    };
    provider_there.is_some_and(|p| p != chosen)
}

/// Built-in profiles overlaid with the file's `[providers.*]` tables, then
/// with the environment's base URLs and keys.
fn merge_profiles(raw: &RawConfig, env: &Env) -> Result<Vec<ProviderProfile>, ConfigError> {
    let mut profiles = builtin_profiles();
    for (name, from_file) in &raw.providers {
        let index = match profiles.iter().position(|p| &p.name == name) {
            Some(index) => index,
            None => {
                let base_url = from_file.base_url.clone().ok_or_else(|| {
                    ConfigError::Invalid(format!(
                        "config file: [providers.{name}] needs a base_url (it is not a built-in profile)"
                    ))
                })?;
                profiles.push(ProviderProfile {
                    name: name.clone(),
                    kind: ProviderKind::OpenAi,
                    base_url,
                    api_key_env: None,
                    api_key: None,
                    default_model: None,
                });
                profiles.len() - 1
            }
        };
        let profile = &mut profiles[index];
        if let Some(kind) = from_file.kind {
            profile.kind = kind;
        }
        if let Some(url) = &from_file.base_url {
            profile.base_url.clone_from(url);
        }
        if let Some(var) = &from_file.api_key_env {
            profile.api_key_env = Some(var.clone());
        }
        if let Some(model) = &from_file.model {
            profile.default_model = Some(model.clone());
        }
        profile.api_key = from_file.api_key.clone();
    }
    for profile in &mut profiles {
        if let Some(url) = base_url_env(&profile.name).and_then(|var| env.get(var)) {
            profile.base_url = url.to_string();
        }
        if let Some(key) = profile.api_key_env.as_deref().and_then(|var| env.get(var)) {
            profile.api_key = Some(super::Secret::new(key));
        }
    }
    Ok(profiles)
}

enum Choice {
    /// A profile and possibly a model (empty = ask the server).
    Chosen {
        profile: ProviderProfile,
        model: String,
    },
    /// Nothing usable; `profile` is only a placeholder for the partial settings.
    Nothing {
        profile: ProviderProfile,
        message: String,
    },
}

fn choose(
    providers: &[ProviderProfile],
    named_provider: Option<&str>,
    named_model: Option<&str>,
    base_url_override: Option<&str>,
    probe: &dyn Fn(&str) -> Option<String>,
) -> Result<Choice, ConfigError> {
    let find = |name: &str| providers.iter().find(|p| p.name == name).cloned();
    let with_model = |profile: ProviderProfile| {
        let model = named_model
            .map(str::to_string)
            .or_else(|| profile.default_model.clone())
            .unwrap_or_default();
        Choice::Chosen { profile, model }
    };

    if let Some(name) = named_provider {
        let profile = find(name).ok_or_else(|| {
            let known: Vec<&str> = providers.iter().map(|p| p.name.as_str()).collect();
            ConfigError::Invalid(format!(
                "unknown provider `{name}`; known providers: {} (define others under [providers.NAME] in config.toml)",
                known.join(", ")
            ))
        })?;
        return Ok(with_model(profile));
    }
    if let Some(url) = base_url_override {
        return Ok(with_model(ProviderProfile {
            name: CUSTOM.to_string(),
            kind: ProviderKind::OpenAi,
            base_url: url.to_string(),
            api_key_env: None,
            api_key: None,
            default_model: None,
        }));
    }
    if let Some(profile) = named_model.and_then(provider_for_model).and_then(find) {
        return Ok(with_model(profile));
    }
    if let Some(profile) = KEYED_DEFAULT_ORDER
        .iter()
        .filter_map(|name| find(name))
        .find(|p| p.api_key.is_some())
    {
        return Ok(with_model(profile));
    }
    if let Some(ollama) = find(OLLAMA)
        && let Some(first) = probe(&ollama.base_url)
    {
        let model = named_model.map_or(first, str::to_string);
        return Ok(Choice::Chosen {
            profile: ollama,
            model,
        });
    }
    let placeholder = find(KEYED_DEFAULT_ORDER[0])
        .or_else(|| providers.first().cloned())
        .ok_or_else(|| ConfigError::Invalid("no provider profiles are defined".into()))?;
    Ok(Choice::Nothing {
        profile: placeholder,
        message: nothing_configured_message(),
    })
}

fn nothing_configured_message() -> String {
    let vars: Vec<String> = builtin_profiles()
        .into_iter()
        .filter(|p| KEYED_DEFAULT_ORDER.contains(&p.name.as_str()))
        .filter_map(|p| p.api_key_env)
        .collect();
    format!(
        "No model is configured. Set one of {} (light-agent picks the first that is set), \
         or start Ollama on 127.0.0.1:11434 with a model pulled, \
         or pass --base-url URL --model NAME for another local server. \
         To choose a provider and model for good, run `light-agent config init` and edit the file it writes.",
        vars.join(", ")
    )
}

fn missing_key_message(provider: &str, var: &str) -> String {
    format!(
        "Provider `{provider}` needs an API key: set {var}, or put `api_key` under [providers.{provider}] in config.toml."
    )
}

fn missing_model_message(profile: &ProviderProfile) -> String {
    if profile.name == OLLAMA {
        format!(
            "Provider `ollama` has no model: nothing answered at {} with a model list. \
             Start Ollama (`ollama serve`, then `ollama pull NAME`) or pass --model NAME.",
            crate::protocol::redact_url(&profile.base_url)
        )
    } else {
        format!(
            "Provider `{}` ({}) has no model: pass --model NAME, set {MODEL_ENV}, \
             or set `model` in config.toml.",
            profile.name,
            crate::protocol::redact_url(&profile.base_url)
        )
    }
}
