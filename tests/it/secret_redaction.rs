#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The API key and the credentials of a base URL (`http://user:PASS@host/v1?key=K`)
//! never reach stderr, stdout, the log files or the session database, and
//! a base URL with a query is joined correctly.

use crate::support;

use std::process::{Command, Output, Stdio};

use light_agent::ai::{
    AnthropicAdaptor, GeminiAdaptor, HttpOptions, OpenAiAdaptor, ResponsesAdaptor,
};
use light_agent::protocol::Secret;
use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, Reply};

const KEY: &str = "sk-env-key-9999";
const URL_PASSWORD: &str = "sk-url-pass-7777";
const QUERY_KEY: &str = "sk-query-key-8888";
const SECRETS: [&str; 3] = [KEY, URL_PASSWORD, QUERY_KEY];

fn base_url(host: &str) -> String {
    format!("http://user:{URL_PASSWORD}@{host}/v1?key={QUERY_KEY}")
}

fn exec(f: &Workspace, base: &str, prompt: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env("OPENAI_API_KEY", KEY)
        .args(["exec", "--provider", "openai", "--model", "mock-model"])
        .args(["--base-url", base, "--log-level", "trace", prompt])
        .stdin(Stdio::null());
    cmd
}

fn no_retries(f: &Workspace) {
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.home.join("config.toml"), "[agent]\nretries = 0\n").unwrap();
}

/// Every byte the run left behind: its output, the logs, the database.
fn everything_written(f: &Workspace, out: &Output) -> String {
    let mut all = String::from_utf8_lossy(&out.stdout).into_owned();
    all += &String::from_utf8_lossy(&out.stderr);
    for entry in std::fs::read_dir(f.home.join("logs")).unwrap() {
        all += &String::from_utf8_lossy(&std::fs::read(entry.unwrap().path()).unwrap());
    }
    for entry in std::fs::read_dir(&f.home).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().contains("sessions.sqlite3") {
            all += &String::from_utf8_lossy(&std::fs::read(path).unwrap());
        }
    }
    all
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} holds {secret}:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_error_quoting_every_secret_is_redacted_everywhere() {
    let f = Workspace::new("fn main() {}\n");
    no_retries(&f);
    let echo = format!("bad key {KEY}; url password {URL_PASSWORD}; query {QUERY_KEY}");
    let mock =
        MockModel::start([Reply::status(400).body_json(json!({"error": {"message": echo}}))]).await;
    let out = run(exec(&f, &base_url(&mock.url()[7..]), "hello")).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad key [redacted]"), "{stderr}");
    assert_no_secret("the run", &everything_written(&f, &out));

    let request = &mock.requests()[0];
    assert_eq!(
        request.path,
        format!("/v1/chat/completions?key={QUERY_KEY}")
    );
    let auth: Vec<&str> = request
        .headers
        .iter()
        .filter(|(n, _)| n == "authorization")
        .map(|(_, v)| v.as_str())
        .collect();
    assert!(auth.contains(&format!("Bearer {KEY}").as_str()), "{auth:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transport_error_quoting_the_url_is_redacted_everywhere() {
    let f = Workspace::new("fn main() {}\n");
    no_retries(&f);
    // A port nothing listens on: reqwest's error names the URL with its query.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host = closed.local_addr().unwrap().to_string();
    drop(closed);
    let out = run(exec(&f, &base_url(&host), "hello")).await;
    assert_eq!(out.status.code(), Some(1));
    let all = everything_written(&f, &out);
    assert!(all.contains("cannot connect"), "{all}");
    assert!(
        all.contains("model request"),
        "the trace log was written: {all}"
    );
    assert_no_secret("the run", &all);
}

#[tokio::test(flavor = "multi_thread")]
async fn config_show_hides_url_credentials() {
    let f = Workspace::new("fn main() {}\n");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env("OPENAI_API_KEY", KEY)
        .args(["config", "show", "--provider", "openai"])
        .args(["--base-url", &base_url("h")]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("key=[redacted]"), "{shown}");
    assert_no_secret("config show", &shown);
}

#[test]
fn adaptors_debug_without_the_key_or_url_credentials() {
    let base = base_url("h");
    let key = || Some(Secret::new(KEY));
    let http = HttpOptions::default;
    let shown = [
        format!(
            "{:?}",
            OpenAiAdaptor::new(&base, key(), "m", http()).unwrap()
        ),
        format!(
            "{:?}",
            AnthropicAdaptor::new(&base, key(), "m", http()).unwrap()
        ),
        format!(
            "{:?}",
            GeminiAdaptor::new(&base, key(), "m", http()).unwrap()
        ),
        format!(
            "{:?}",
            ResponsesAdaptor::new(&base, key(), "m", http()).unwrap()
        ),
    ];
    for debug in shown {
        assert!(debug.contains("[redacted]"), "{debug}");
        assert_no_secret("Debug", &debug);
    }
}
