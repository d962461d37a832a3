//! The commented starter file written by `light-agent config init`.

/// The text of a starter `config.toml`: every setting present, commented
/// out, showing its default, with a line or two on what it does.
pub fn starter_file() -> &'static str {
    include_str!("starter.toml")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::raw;
    use std::path::Path;

    /// The starter file with every commented-out setting and table header
    /// switched on.
    fn uncommented() -> String {
        starter_file()
            .lines()
            .map(|line| match line.strip_prefix("# ") {
                Some(rest)
                    if rest.starts_with('[')
                        || rest.split_once(" = ").is_some_and(|(key, _)| {
                            key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                        }) =>
                {
                    rest
                }
                _ => line,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn starter_file_parses_as_is_to_nothing() {
        let raw = raw::parse(Path::new("config.toml"), starter_file()).unwrap();
        assert!(raw.model.is_none() && raw.providers.is_empty() && raw.warnings.is_empty());
    }

    #[test]
    fn every_starter_setting_is_a_known_key() {
        let text = uncommented();
        let raw = raw::parse(Path::new("config.toml"), &text).unwrap();
        assert!(raw.warnings.is_empty(), "{:?}", raw.warnings);
        assert_eq!(raw.model.as_deref(), Some("gpt-4.1"));
        assert_eq!(raw.providers.len(), 7);
        assert_eq!(raw.models["qwen2.5-coder"].context_window, Some(32768));
        assert_eq!(raw.context.compact_at, Some(0.8));
        assert_eq!(raw.agent.max_steps, Some(100));
        assert_eq!(raw.http.idle_timeout_secs, Some(120));
        assert_eq!(raw.tui.tool_preview_lines, Some(5));
        assert!(raw.log_level.is_some() && raw.provider.is_some());
    }

    #[test]
    fn starter_values_are_the_builtin_defaults() {
        use crate::config::{Env, Flags, resolve};
        let env = Env::new().with("OPENAI_API_KEY", "k");
        let text = uncommented();
        let from_starter = resolve(
            Some((Path::new("c.toml"), &text)),
            &env,
            &Flags::default(),
            &|_| None,
        )
        .unwrap();
        let from_nothing = resolve(None, &env, &Flags::default(), &|_| None).unwrap();
        let (a, b) = (from_starter.settings(), from_nothing.settings());
        assert_eq!((&a.provider.name, &a.model), (&b.provider.name, &b.model));
        assert_eq!(
            (a.compact_at, a.context_strategy),
            (b.compact_at, b.context_strategy)
        );
        assert_eq!((a.max_steps, a.retries), (b.max_steps, b.retries));
        assert_eq!(
            (a.connect_timeout, a.idle_timeout),
            (b.connect_timeout, b.idle_timeout)
        );
        assert_eq!(
            (&a.tui, &a.log_level, a.context_window),
            (&b.tui, &b.log_level, b.context_window)
        );
        for builtin in &b.providers {
            let shown = a.providers.iter().find(|p| p.name == builtin.name).unwrap();
            assert_eq!(
                (
                    shown.kind,
                    &shown.base_url,
                    &shown.api_key_env,
                    &shown.default_model
                ),
                (
                    builtin.kind,
                    &builtin.base_url,
                    &builtin.api_key_env,
                    &builtin.default_model
                ),
                "{}",
                builtin.name
            );
        }
    }
}
