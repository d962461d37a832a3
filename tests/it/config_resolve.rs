#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Resolution: precedence per field, defaults with no config, file errors,
//! and keys never appearing in shown or debug-printed settings.

use std::cell::RefCell;
use std::path::Path;

use light_agent::config::{
    BUILTIN_PROFILES, ConfigError, Env, Flags, ProviderKind, Resolution, Settings, resolve, show,
};

const FILE: &str = "/home/u/.config/light-agent/config.toml";

fn no_probe(_: &str) -> Option<String> {
    None
}

fn run(file: Option<&str>, env: &Env, flags: &Flags) -> Result<Resolution, ConfigError> {
    resolve(
        file.map(|text| (Path::new(FILE), text)),
        env,
        flags,
        &no_probe,
    )
}

fn ready(file: Option<&str>, env: &Env, flags: &Flags) -> Settings {
    match run(file, env, flags).unwrap() {
        Resolution::Ready(settings) => settings,
        Resolution::NoModel { message, .. } => panic!("expected a model, got: {message}"),
    }
}

fn no_model(file: Option<&str>, env: &Env, flags: &Flags) -> String {
    match run(file, env, flags).unwrap() {
        Resolution::Ready(settings) => panic!("expected no model, got {settings:?}"),
        Resolution::NoModel { message, .. } => message,
    }
}

fn all_keys() -> Env {
    Env::new()
        .with("OPENAI_API_KEY", "sk-openai")
        .with("ANTHROPIC_API_KEY", "sk-anthropic")
        .with("DEEPSEEK_API_KEY", "sk-deepseek")
        .with("GEMINI_API_KEY", "sk-gemini")
}

// ---- precedence: each layer beats the one below it, field by field ----

#[test]
fn provider_flag_beats_env_beats_file_beats_default() {
    let file = Some("provider = \"anthropic\"\n");
    let env = all_keys().with("LIGHT_AGENT_PROVIDER", "deepseek");
    let flags = Flags {
        provider: Some("gemini".into()),
        ..Flags::default()
    };
    assert_eq!(ready(file, &env, &flags).provider.name, "gemini");
    assert_eq!(
        ready(file, &env, &Flags::default()).provider.name,
        "deepseek"
    );
    assert_eq!(
        ready(file, &all_keys(), &Flags::default()).provider.name,
        "anthropic"
    );
    assert_eq!(
        ready(None, &all_keys(), &Flags::default()).provider.name,
        "openai"
    );
}

#[test]
fn model_flag_beats_env_beats_file_beats_default() {
    let probe = |_: &str| Some("m-probed".to_string());
    let resolve_with = |file: &str, env: &Env, flags: &Flags| {
        let resolution = resolve(Some((Path::new(FILE), file)), env, flags, &probe).unwrap();
        match resolution {
            Resolution::Ready(settings) => settings.model,
            Resolution::NoModel { message, .. } => panic!("{message}"),
        }
    };
    let with_model = "provider = \"ollama\"\nmodel = \"m-file\"\n";
    let without_model = "provider = \"ollama\"\n";
    let env = Env::new().with("LIGHT_AGENT_MODEL", "m-env");
    let flags = Flags {
        model: Some("m-flag".into()),
        ..Flags::default()
    };
    assert_eq!(resolve_with(with_model, &env, &flags), "m-flag");
    assert_eq!(resolve_with(with_model, &env, &Flags::default()), "m-env");
    assert_eq!(
        resolve_with(with_model, &Env::new(), &Flags::default()),
        "m-file"
    );
    assert_eq!(
        resolve_with(without_model, &Env::new(), &Flags::default()),
        "m-probed"
    );
}

#[test]
fn base_url_flag_beats_env_beats_vendor_env_beats_file_beats_builtin() {
    let file = Some("provider = \"openai\"\n[providers.openai]\nbase_url = \"http://file/v1\"\n");
    let keyed = Env::new().with("OPENAI_API_KEY", "sk-openai");
    let vendor = keyed
        .clone()
        .with("OPENAI_BASE_URL", "http://vendor-env/v1");
    let general = vendor.clone().with("LIGHT_AGENT_BASE_URL", "http://env/v1");
    let flags = Flags {
        base_url: Some("http://flag/v1".into()),
        ..Flags::default()
    };
    let url = |file, env: &Env, flags: &Flags| ready(file, env, flags).provider.base_url;
    assert_eq!(url(file, &general, &flags), "http://flag/v1");
    assert_eq!(url(file, &general, &Flags::default()), "http://env/v1");
    assert_eq!(
        url(file, &vendor, &Flags::default()),
        "http://vendor-env/v1"
    );
    assert_eq!(url(file, &keyed, &Flags::default()), "http://file/v1");
    assert_eq!(
        url(None, &keyed, &Flags::default()),
        "https://api.openai.com/v1"
    );
}

/// Each built-in profile, chosen by name with its key set: its base-URL
/// variable moves it (and only it, or the profiles sharing its key), and
/// `config show` prints where the key will go.
#[test]
fn every_builtin_profile_honours_its_base_url_variable() {
    for profile in BUILTIN_PROFILES {
        let proxy = format!("http://gateway.internal:8080/{}", profile.name);
        let mut env = Env::new().with(profile.base_url_env, &proxy);
        if let Some(key_env) = profile.key_env {
            env = env.with(key_env, "sk-proxy-only");
        }
        let flags = Flags {
            provider: Some(profile.name.into()),
            model: Some("some-model".into()),
            ..Flags::default()
        };
        let settings = ready(None, &env, &flags);
        assert_eq!(settings.provider.base_url, proxy, "{}", profile.name);
        assert_eq!(
            settings.api_key.is_some(),
            profile.key_env.is_some(),
            "{}",
            profile.name
        );
        let shown = show(&settings);
        assert!(
            shown.starts_with(&format!(
                "# Resolved settings: flags > environment > config file > defaults. Keys redacted.\nprovider = \"{}\"\nmodel = \"some-model\"\nkind = \"{}\"\nbase_url = \"{proxy}\"\n",
                profile.name, profile.kind
            )),
            "{shown}"
        );
        assert!(!shown.contains("sk-proxy-only"), "{shown}");
        // Every profile whose URL the variable did not name keeps its own.
        for other in &settings.providers {
            let Some(row) = BUILTIN_PROFILES.iter().find(|p| p.name == other.name) else {
                continue;
            };
            let expected = if row.base_url_env == profile.base_url_env {
                proxy.as_str()
            } else {
                row.default_url
            };
            assert_eq!(
                other.base_url, expected,
                "{} with {}",
                other.name, profile.base_url_env
            );
        }
    }
}

#[test]
fn the_responses_profile_follows_openai_base_url() {
    let env = Env::new()
        .with("OPENAI_API_KEY", "sk-openai")
        .with("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    let flags = Flags {
        provider: Some("openai-responses".into()),
        ..Flags::default()
    };
    let settings = ready(None, &env, &flags);
    assert_eq!(settings.provider.base_url, "http://127.0.0.1:9/v1");
    assert!(show(&settings).contains("\nbase_url = \"http://127.0.0.1:9/v1\"\n"));
}

#[test]
fn config_show_prints_every_profile_s_environment_rules() {
    let settings = ready(None, &all_keys(), &Flags::default());
    let shown = show(&settings);
    for profile in BUILTIN_PROFILES {
        let row: Vec<&str> = vec![
            profile.name,
            profile.key_env.unwrap_or("(none)"),
            profile.base_url_env,
            profile.default_url,
        ];
        assert!(
            shown.lines().any(|l| l
                .strip_prefix("# ")
                .is_some_and(|rest| rest.split_whitespace().eq(row.iter().copied()))),
            "{} missing from:\n{shown}",
            profile.name
        );
    }
}

#[test]
fn api_key_env_beats_file() {
    let file = Some("[providers.openai]\napi_key = \"sk-from-file\"\n");
    let from_env = ready(
        file,
        &Env::new().with("OPENAI_API_KEY", "sk-from-env"),
        &Flags::default(),
    );
    assert_eq!(from_env.api_key.unwrap().expose(), "sk-from-env");
    let from_file = ready(file, &Env::new(), &Flags::default());
    assert_eq!(from_file.provider.name, "openai");
    assert_eq!(from_file.api_key.unwrap().expose(), "sk-from-file");
}

#[test]
fn log_level_flag_beats_rust_log_beats_file_beats_default() {
    let file = Some("log_level = \"warn\"\n");
    let env = all_keys().with("RUST_LOG", "debug");
    let flags = Flags {
        log_level: Some("trace".into()),
        ..Flags::default()
    };
    assert_eq!(ready(file, &env, &flags).log_level, "trace");
    assert_eq!(ready(file, &env, &Flags::default()).log_level, "debug");
    assert_eq!(
        ready(file, &all_keys(), &Flags::default()).log_level,
        "warn"
    );
    assert_eq!(
        ready(None, &all_keys(), &Flags::default()).log_level,
        "info"
    );
}

#[test]
fn context_window_flag_beats_file_beats_builtin_beats_default() {
    let file = Some("model = \"gpt-4o\"\n[models.\"gpt-4o\"]\ncontext_window = 64000\n");
    let flags = Flags {
        context_window: Some(5000),
        ..Flags::default()
    };
    let env = all_keys();
    assert_eq!(ready(file, &env, &flags).context_window, 5000);
    assert_eq!(ready(file, &env, &Flags::default()).context_window, 64000);
    assert_eq!(
        ready(Some("model = \"gpt-4o\"\n"), &env, &Flags::default()).context_window,
        128_000
    );
    assert_eq!(
        ready(Some("model = \"gpt-4.1\"\n"), &env, &Flags::default()).context_window,
        1_047_576
    );
    let unknown = Some("provider = \"openai\"\nmodel = \"mystery-model\"\n");
    assert_eq!(
        ready(unknown, &env, &Flags::default()).context_window,
        128_000
    );
    let zero = Flags {
        context_window: Some(0),
        ..Flags::default()
    };
    assert!(matches!(
        run(file, &env, &zero),
        Err(ConfigError::Invalid(_))
    ));
}

#[test]
fn effort_comes_from_the_flag_else_the_models_table() {
    use light_agent::protocol::Effort;
    let file = "model = \"o4-mini\"\n[models.\"o4-mini\"]\neffort = \"low\"\n";
    assert_eq!(ready(None, &all_keys(), &Flags::default()).effort, None);
    assert_eq!(
        ready(Some(file), &all_keys(), &Flags::default()).effort,
        Some(Effort::Low)
    );
    let flags = Flags {
        effort: Some(Effort::High),
        ..Flags::default()
    };
    let s = ready(Some(file), &all_keys(), &flags);
    assert_eq!(s.effort, Some(Effort::High));
    assert!(show(&s).contains("effort = \"high\""), "{}", show(&s));
    let bad = "[models.\"o4-mini\"]\neffort = \"extreme\"\n";
    assert!(run(Some(bad), &all_keys(), &Flags::default()).is_err());
}

#[test]
fn a_local_provider_waits_600_s_for_the_first_byte_and_a_remote_one_its_idle_bound() {
    let remote = ready(None, &all_keys(), &Flags::default());
    assert!(!remote.provider.is_local());
    assert_eq!(remote.first_byte_timeout(), remote.idle_timeout);

    let env = all_keys().with("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1");
    let local = ready(
        Some("[http]\nidle_timeout_secs = 5\n"),
        &env,
        &Flags::default(),
    );
    assert!(local.provider.is_local());
    assert_eq!(local.first_byte_timeout().as_secs(), 600);
    assert_eq!(
        local.idle_timeout.as_secs(),
        5,
        "the gap between chunks stays separate"
    );

    let set = ready(
        Some("[http]\nfirst_byte_timeout_secs = 900\n"),
        &env,
        &Flags::default(),
    );
    assert_eq!(set.first_byte_timeout().as_secs(), 900);
    assert!(show(&set).contains("first_byte_timeout_secs = 900  # local provider"));
}

#[test]
fn file_values_override_builtin_defaults() {
    let file = "[context]\ncompact_at = 0.5\nstrategy = false\n[agent]\nmax_steps = 7\nretries = 1\n\
                [http]\nconnect_timeout_secs = 2\nidle_timeout_secs = 9\n[tui]\nshow_thoughts = false\ntool_preview_lines = 12\n";
    let defaults = ready(None, &all_keys(), &Flags::default());
    assert_eq!(defaults.compact_at, 0.8);
    assert!(defaults.context_strategy);
    assert_eq!((defaults.max_steps, defaults.retries), (100, 3));
    assert_eq!(defaults.connect_timeout.as_secs(), 10);
    assert_eq!(defaults.idle_timeout.as_secs(), 120);
    assert_eq!(defaults.tui.tool_preview_lines, 5);

    let s = ready(Some(file), &all_keys(), &Flags::default());
    assert_eq!(s.compact_at, 0.5);
    assert!(!s.context_strategy);
    assert_eq!((s.max_steps, s.retries), (7, 1));
    assert_eq!(s.connect_timeout.as_secs(), 2);
    assert_eq!(s.idle_timeout.as_secs(), 9);
    assert!(!s.tui.show_thoughts);
    assert_eq!(s.tui.tool_preview_lines, 12);
}

#[test]
fn a_higher_layer_provider_drops_the_model_paired_with_another_provider() {
    let file = Some("provider = \"openai\"\nmodel = \"gpt-4.1\"\n");
    let flags = Flags {
        provider: Some("anthropic".into()),
        ..Flags::default()
    };
    let s = ready(file, &all_keys(), &flags);
    assert_eq!(
        (s.provider.name.as_str(), s.model.as_str()),
        ("anthropic", "claude-sonnet-4-5")
    );
    // A model named without a provider is kept.
    let s = ready(Some("model = \"claude-opus-4-1\"\n"), &all_keys(), &flags);
    assert_eq!(s.model, "claude-opus-4-1");
}

// ---- defaults with no config ----

#[test]
fn keys_pick_the_default_provider_in_order() {
    let only = |var: &str| Env::new().with(var, "k");
    let pick = |env: &Env| {
        let s = ready(None, env, &Flags::default());
        (s.provider.name, s.model, s.provider.kind)
    };
    assert_eq!(
        pick(&all_keys()),
        ("openai".into(), "gpt-4.1".into(), ProviderKind::OpenAi)
    );
    let no_openai = Env::new()
        .with("ANTHROPIC_API_KEY", "k")
        .with("DEEPSEEK_API_KEY", "k");
    assert_eq!(pick(&no_openai).0, "anthropic");
    assert_eq!(pick(&only("ANTHROPIC_API_KEY")).2, ProviderKind::Anthropic);
    assert!(
        pick(&only("ANTHROPIC_API_KEY"))
            .1
            .starts_with("claude-sonnet")
    );
    assert_eq!(
        pick(&only("DEEPSEEK_API_KEY")),
        (
            "deepseek".into(),
            "deepseek-chat".into(),
            ProviderKind::OpenAi
        )
    );
}

#[test]
fn a_local_ollama_is_used_when_no_key_is_set() {
    let asked = RefCell::new(Vec::new());
    let probe = |url: &str| {
        asked.borrow_mut().push(url.to_string());
        Some("qwen3:8b".to_string())
    };
    let resolution = resolve(None, &Env::new(), &Flags::default(), &probe).unwrap();
    let Resolution::Ready(s) = resolution else {
        panic!("{resolution:?}")
    };
    assert_eq!(
        (s.provider.name.as_str(), s.model.as_str()),
        ("ollama", "qwen3:8b")
    );
    assert!(s.api_key.is_none());
    assert_eq!(asked.borrow().as_slice(), ["http://127.0.0.1:11434/v1"]);
}

#[test]
fn the_probe_is_not_asked_when_a_key_decides() {
    let probe = |_: &str| -> Option<String> { panic!("probed") };
    let resolution = resolve(None, &all_keys(), &Flags::default(), &probe).unwrap();
    assert!(matches!(resolution, Resolution::Ready(_)));
}

#[test]
fn nothing_configured_says_exactly_what_to_set() {
    let message = no_model(None, &Env::new(), &Flags::default());
    for needed in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DEEPSEEK_API_KEY",
        "Ollama",
        "light-agent config init",
    ] {
        assert!(message.contains(needed), "missing {needed}: {message}");
    }
    let Resolution::NoModel { settings, .. } = run(None, &Env::new(), &Flags::default()).unwrap()
    else {
        unreachable!()
    };
    assert!(settings.model.is_empty());
    assert_eq!(settings.max_steps, 100);
}

#[test]
fn a_named_provider_without_its_key_names_the_variable() {
    let message = no_model(
        Some("provider = \"anthropic\"\n"),
        &all_keys_but("ANTHROPIC_API_KEY"),
        &Flags::default(),
    );
    assert!(message.contains("ANTHROPIC_API_KEY"), "{message}");
    assert!(message.contains("anthropic"), "{message}");
}

fn all_keys_but(var: &str) -> Env {
    let mut env = Env::new();
    for name in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DEEPSEEK_API_KEY",
        "GEMINI_API_KEY",
    ] {
        if name != var {
            env = env.with(name, "k");
        }
    }
    env.with(var, "")
}

#[test]
fn base_url_alone_is_a_keyless_setup() {
    let flags = Flags {
        base_url: Some("http://127.0.0.1:8080/v1".into()),
        model: Some("local-model".into()),
        ..Flags::default()
    };
    let s = ready(None, &all_keys(), &flags);
    assert_eq!(s.provider.base_url, "http://127.0.0.1:8080/v1");
    assert_eq!(s.provider.kind, ProviderKind::OpenAi);
    assert_eq!(s.model, "local-model");
    assert!(
        s.api_key.is_none(),
        "a key must not be sent to an ad-hoc URL"
    );

    let no_model_flags = Flags {
        model: None,
        ..flags
    };
    let message = no_model(None, &Env::new(), &no_model_flags);
    assert!(message.contains("--model"), "{message}");
}

#[test]
fn an_obvious_model_name_picks_its_vendor() {
    let flags = Flags {
        model: Some("claude-opus-4-1".into()),
        ..Flags::default()
    };
    let s = ready(None, &all_keys(), &flags);
    assert_eq!(s.provider.name, "anthropic");
    assert_eq!(s.api_key.unwrap().expose(), "sk-anthropic");
}

#[test]
fn user_profiles_sit_beside_the_builtin_ones() {
    let file = "provider = \"local\"\n[providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"qwen\"\n";
    let s = ready(Some(file), &Env::new(), &Flags::default());
    assert_eq!(
        (s.provider.name.as_str(), s.model.as_str()),
        ("local", "qwen")
    );
    assert!(s.api_key.is_none());
    let names: Vec<&str> = s.providers.iter().map(|p| p.name.as_str()).collect();
    for name in [
        "openai",
        "anthropic",
        "deepseek",
        "ollama",
        "gemini",
        "local",
    ] {
        assert!(names.contains(&name), "{names:?}");
    }
}

#[test]
fn an_unknown_provider_is_an_error_listing_the_known_ones() {
    let flags = Flags {
        provider: Some("nope".into()),
        ..Flags::default()
    };
    let err = run(None, &all_keys(), &flags).unwrap_err();
    let ConfigError::Invalid(message) = err else {
        panic!("{err:?}")
    };
    assert!(
        message.contains("nope") && message.contains("deepseek"),
        "{message}"
    );
}

// ---- file errors and warnings ----

#[test]
fn malformed_file_error_carries_file_line_and_column() {
    let text = "model = \"gpt-4.1\"\n\n[tui\nshow_thoughts = true\n";
    let err = run(Some(text), &all_keys(), &Flags::default()).unwrap_err();
    let ConfigError::Malformed {
        file, line, column, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(file, Path::new(FILE));
    assert_eq!((*line, *column), (3, 5));
    assert!(
        err.to_string().starts_with(&format!("{FILE}:3:5: ")),
        "{err}"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_malformed_at_the_value() {
    let text = "[agent]\nmax_steps = \"many\"\n";
    let err = run(Some(text), &all_keys(), &Flags::default()).unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::Malformed {
                line: 2,
                column: 13,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn unknown_keys_warn_with_their_line() {
    let text = "model = \"gpt-4.1\"\ncolour = \"blue\"\n[tui]\nshow_thoughts = true\n  wrap = 80\n";
    let s = ready(Some(text), &all_keys(), &Flags::default());
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    assert!(
        s.warnings[0].contains(&format!("{FILE}:2:1")) && s.warnings[0].contains("`colour`"),
        "{:?}",
        s.warnings
    );
    assert!(
        s.warnings[1].contains(":5:3") && s.warnings[1].contains("`tui.wrap`"),
        "{:?}",
        s.warnings
    );
    assert!(show(&s).contains("tui.wrap"));
}

// ---- keys never print ----

const FILE_KEY: &str = "sk-file-KEEP-OUT-1111";
const ENV_KEY: &str = "sk-env-KEEP-OUT-2222";

fn settings_with_keys() -> Settings {
    let file = format!("[providers.anthropic]\napi_key = \"{FILE_KEY}\"\n");
    let env = Env::new().with("OPENAI_API_KEY", ENV_KEY);
    let s = ready(Some(&file), &env, &Flags::default());
    assert_eq!(s.api_key.as_ref().unwrap().expose(), ENV_KEY);
    s
}

#[test]
fn show_redacts_every_key() {
    let shown = show(&settings_with_keys());
    assert!(
        !shown.contains(ENV_KEY) && !shown.contains(FILE_KEY),
        "{shown}"
    );
    assert!(shown.contains("api_key = \"[redacted]\""), "{shown}");
    assert!(
        shown.contains("provider = \"openai\"") && shown.contains("model = \"gpt-4.1\""),
        "{shown}"
    );
    assert!(shown.contains("[providers.anthropic]"), "{shown}");
    // The output is itself TOML.
    let parsed: toml::Table = shown.parse().unwrap();
    assert_eq!(parsed["context"]["window"].as_integer(), Some(1_047_576));
}

#[test]
fn debug_of_settings_and_inputs_contains_no_key() {
    let settings = settings_with_keys();
    for text in [
        format!("{settings:?}"),
        format!("{settings:#?}"),
        format!("{:?}", Resolution::Ready(settings.clone())),
    ] {
        assert!(
            !text.contains(ENV_KEY) && !text.contains(FILE_KEY),
            "{text}"
        );
        assert!(text.contains("[redacted]"));
    }
    let env = Env::new().with("OPENAI_API_KEY", ENV_KEY);
    let text = format!("{env:?}");
    assert!(
        text.contains("OPENAI_API_KEY") && !text.contains(ENV_KEY),
        "{text}"
    );
}

#[test]
fn a_malformed_key_line_is_not_quoted_in_the_error() {
    let text = format!("[providers.openai]\napi_key = \"{FILE_KEY}\" trailing\n");
    let err = run(Some(&text), &Env::new(), &Flags::default()).unwrap_err();
    assert!(
        matches!(err, ConfigError::Malformed { line: 2, .. }),
        "{err:?}"
    );
    assert!(!err.to_string().contains(FILE_KEY) && !format!("{err:?}").contains(FILE_KEY));
}

#[test]
fn a_named_provider_at_another_url_may_go_without_its_key() {
    let flags = Flags {
        provider: Some("openai".into()),
        base_url: Some("http://127.0.0.1:8000/v1".into()),
        ..Flags::default()
    };
    let s = ready(None, &Env::new(), &flags);
    assert_eq!(s.model, "gpt-4.1");
    assert!(s.api_key.is_none());
    assert_eq!(s.warnings.len(), 1);
    assert!(s.warnings[0].contains("OPENAI_API_KEY"), "{:?}", s.warnings);
}

#[test]
fn image_input_comes_from_the_model_table_unless_the_file_says_otherwise() {
    let flags = |model: &str| Flags {
        model: Some(model.into()),
        ..Flags::default()
    };
    assert!(ready(None, &all_keys(), &flags("gpt-4o")).image_input);
    assert!(!ready(None, &all_keys(), &flags("gpt-3.5-turbo")).image_input);
    let file = "[models.\"gpt-3.5-turbo\"]\nimages = true\n[models.\"gpt-4o\"]\nimages = false\n";
    assert!(ready(Some(file), &all_keys(), &flags("gpt-3.5-turbo")).image_input);
    assert!(!ready(Some(file), &all_keys(), &flags("gpt-4o")).image_input);
}

#[test]
fn sandbox_deny_read_takes_absolute_and_home_paths_and_refuses_relative_ones() {
    let file = "model = \"m\"\n[sandbox]\ndeny_read = [\"~/.work-secrets\", \"/srv/keys\"]\n";
    let settings = ready(Some(file), &all_keys(), &Flags::default());
    assert_eq!(settings.sandbox.deny_read, ["~/.work-secrets", "/srv/keys"]);
    assert!(show(&settings).contains("deny_read = [\"~/.work-secrets\", \"/srv/keys\"]"));
    let bad = "model = \"m\"\n[sandbox]\ndeny_read = [\"relative/x\"]\n";
    let error = run(Some(bad), &all_keys(), &Flags::default()).unwrap_err();
    assert!(error.to_string().contains("start with ~/"), "{error}");
}
