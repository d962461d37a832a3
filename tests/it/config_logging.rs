#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Logging goes to a file in the state dir and never carries a key.
//!
//! One test per file: a process has one global subscriber.

use std::path::Path;

use light_agent::config::{Env, Flags, Paths, Resolution, init_logging, resolve};

const KEY: &str = "sk-log-NEVER-WRITTEN-42";

#[test]
fn trace_logs_of_settings_contain_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::resolve(Some(dir.path())).unwrap();
    let file = format!("[providers.openai]\napi_key = \"{KEY}\"\n");
    let env = Env::new().with("ANTHROPIC_API_KEY", KEY);
    let resolution = resolve(
        Some((Path::new("config.toml"), &file)),
        &env,
        &Flags::default(),
        &|_| None,
    )
    .unwrap();
    let Resolution::Ready(settings) = resolution else {
        panic!("{resolution:?}")
    };
    assert_eq!(settings.api_key.as_ref().unwrap().expose(), KEY);

    let guard = init_logging(&paths, "trace").unwrap();
    tracing::trace!(?settings, "resolved settings");
    tracing::info!("settings: {settings:#?}");
    drop(guard);

    let mut logged = String::new();
    for entry in std::fs::read_dir(&paths.log_dir).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("light-agent"),
            "{path:?}"
        );
        logged.push_str(&std::fs::read_to_string(path).unwrap());
    }
    assert!(
        logged.contains("resolved settings") && logged.contains("TRACE"),
        "{logged}"
    );
    assert!(logged.contains("[redacted]"), "{logged}");
    assert!(!logged.contains(KEY), "{logged}");
    assert!(
        init_logging(&paths, "info").is_err(),
        "a second global subscriber must be refused"
    );
}
