//! `config show`: resolved settings as TOML-like text, keys redacted.

use std::fmt::Write as _;

use super::providers::BUILTIN_PROFILES;
use super::{ProviderProfile, Settings};
use crate::protocol::{REDACTED, redact_url};

/// Renders `settings` as TOML-like text for `light-agent config show`.
///
/// Keys appear only as `[redacted]` (or `# api_key: not set`); the text of a
/// key is never part of the output. Warnings follow as comments.
pub fn show(settings: &Settings) -> String {
    let mut out = String::from(
        "# Resolved settings: flags > environment > config file > defaults. Keys redacted.\n",
    );
    let s = settings;
    line(&mut out, "provider", &quote(&s.provider.name));
    line(&mut out, "model", &quote(&s.model));
    line(&mut out, "kind", &quote(s.provider.kind.as_str()));
    line(
        &mut out,
        "base_url",
        &quote(&redact_url(&s.provider.base_url)),
    );
    key_line(&mut out, s.api_key.is_some());
    line(&mut out, "log_level", &quote(&s.log_level));
    if let Some(effort) = s.effort {
        line(&mut out, "effort", &quote(effort.as_str()));
    }

    out.push_str("\n[context]\n");
    line(&mut out, "window", &s.context_window.to_string());
    line(&mut out, "images", &s.image_input.to_string());
    line(&mut out, "compact_at", &s.compact_at.to_string());
    line(&mut out, "strategy", &s.context_strategy.to_string());

    out.push_str("\n[agent]\n");
    line(&mut out, "max_steps", &s.max_steps.to_string());
    line(&mut out, "retries", &s.retries.to_string());

    out.push_str("\n[http]\n");
    line(
        &mut out,
        "connect_timeout_secs",
        &s.connect_timeout.as_secs().to_string(),
    );
    line(
        &mut out,
        "idle_timeout_secs",
        &s.idle_timeout.as_secs().to_string(),
    );
    let local = if s.provider.is_local() {
        "  # local provider: a slow first byte is not retried"
    } else {
        ""
    };
    line(
        &mut out,
        "first_byte_timeout_secs",
        &format!("{}{local}", s.first_byte_timeout().as_secs()),
    );

    out.push_str("\n[tui]\n");
    line(&mut out, "show_thoughts", &s.tui.show_thoughts.to_string());
    line(
        &mut out,
        "tool_preview_lines",
        &s.tui.tool_preview_lines.to_string(),
    );
    line(&mut out, "notifications", &quote(&s.tui.notifications));

    out.push_str("\n[sandbox]\n");
    line(&mut out, "mode", &quote(&s.sandbox.mode));
    let roots: Vec<String> = s
        .sandbox
        .writable_roots
        .iter()
        .map(|r| quote(&r.display().to_string()))
        .collect();
    line(
        &mut out,
        "writable_roots",
        &format!("[{}]", roots.join(", ")),
    );
    let denied: Vec<String> = s.sandbox.deny_read.iter().map(|p| quote(p)).collect();
    line(&mut out, "deny_read", &format!("[{}]", denied.join(", ")));
    line(&mut out, "network", &s.sandbox.network.to_string());

    out.push_str("\n[shell]\n");
    let names: Vec<String> = s.shell.env_passthrough.iter().map(|n| quote(n)).collect();
    line(
        &mut out,
        "env_passthrough",
        &format!("[{}]", names.join(", ")),
    );

    for hook in &s.hooks.entries {
        let _ = write!(out, "\n[[hooks.{}]]\n", hook.event);
        line(&mut out, "matcher", &quote(&hook.matcher));
        line(&mut out, "command", &quote(&hook.command));
        line(&mut out, "timeout_sec", &hook.timeout_sec.to_string());
    }

    out.push_str("\n[agents]\n");
    line(&mut out, "enabled", &s.agents.enabled.to_string());
    line(&mut out, "max_parallel", &s.agents.max_parallel.to_string());

    out.push_str("\n[web]\n");
    line(&mut out, "allow_private", &s.web.allow_private.to_string());
    let hosts: Vec<String> = s.web.private_hosts.iter().map(|h| quote(h)).collect();
    line(
        &mut out,
        "private_hosts",
        &format!("[{}]", hosts.join(", ")),
    );
    if let Some(model) = &s.web.small_model {
        line(&mut out, "small_model", &quote(model));
    }

    for profile in &s.providers {
        provider_section(&mut out, profile);
    }
    environment_table(&mut out);
    if !s.warnings.is_empty() {
        out.push_str("\n# warnings\n");
        for warning in &s.warnings {
            let _ = writeln!(out, "# {warning}");
        }
    }
    out
}

fn provider_section(out: &mut String, profile: &ProviderProfile) {
    let _ = writeln!(out, "\n[providers.{}]", bare_or_quoted(&profile.name));
    line(out, "kind", &quote(profile.kind.as_str()));
    line(out, "base_url", &quote(&redact_url(&profile.base_url)));
    if let Some(var) = &profile.api_key_env {
        line(out, "api_key_env", &quote(var));
    }
    if let Some(model) = &profile.default_model {
        line(out, "model", &quote(model));
    }
    if profile.api_key_env.is_some() || profile.api_key.is_some() {
        key_line(out, profile.api_key.is_some());
    }
}

/// The environment rules of the built-in profiles, as comments.
fn environment_table(out: &mut String) {
    out.push_str(
        "\n# Built-in profiles read the environment: key variable, base-URL variable, default URL.\n",
    );
    for p in BUILTIN_PROFILES {
        let _ = writeln!(
            out,
            "# {:<17} {:<17} {:<23} {}",
            p.name,
            p.key_env.unwrap_or("(none)"),
            p.base_url_env,
            p.default_url
        );
    }
}

fn key_line(out: &mut String, present: bool) {
    if present {
        line(out, "api_key", &quote(REDACTED));
    } else {
        out.push_str("# api_key: not set\n");
    }
}

fn line(out: &mut String, key: &str, value: &str) {
    let _ = writeln!(out, "{key} = {value}");
}

/// A TOML basic string.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn bare_or_quoted(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare { key.to_string() } else { quote(key) }
}
