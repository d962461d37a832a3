#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Permission modes in `exec`, run as a process against the mock model:
//! which tools are offered, edits applied or denied, rules honoured.

use crate::support;

use std::process::{Command, Stdio};

use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

const MAIN: &str = "fn main() {\n    println!(\"old\");\n}\n";

pub(crate) fn command(f: &Workspace, url: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    cmd.args(["exec", "--base-url", url, "--model", "mock-model"]);
    cmd.args(args).stdin(Stdio::null());
    cmd
}

pub(crate) fn config(f: &Workspace, toml: &str) {
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.home.join("config.toml"), toml).unwrap();
}

pub(crate) fn tool_names(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A model that edits src/main.rs, then says done.
pub(crate) fn edit_then_done() -> [Reply; 2] {
    let args = json!({
        "_intent": "change the greeting",
        "path": "src/main.rs",
        "edits": [{"old_string": "println!(\"old\");", "new_string": "println!(\"new\");"}],
    })
    .to_string();
    [
        OpenAiStream::new()
            .tool_call("call_1", "edit", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ]
}

/// `light-agent undo` run in the workspace's repo, to its end.
pub(crate) async fn undo(f: &Workspace) -> std::process::Output {
    let mut undo = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    undo.current_dir(&f.repo)
        .env("LIGHT_AGENT_HOME", &f.home)
        .arg("undo");
    scrub(&mut undo);
    run(undo).await
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The tool result the second request carried back to the model.
fn sent_result(mock: &MockModel) -> String {
    let requests = mock.requests();
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    messages
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_default_mode_offers_no_writing_tool() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start([Reply::openai_text("ok"), Reply::openai_text("ok")]).await;
    let url = mock.openai_base_url();
    let out = run(command(&f, &url, &["look around"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let offered = tool_names(&mock.requests()[0].body);
    assert!(offered.contains(&"read_file".to_string()), "{offered:?}");
    for writing in ["edit", "write", "apply_patch"] {
        assert!(
            !offered.contains(&writing.to_string()),
            "{writing} offered: {offered:?}"
        );
    }
    let system = mock.requests()[0].body["messages"][0]["content"].to_string();
    assert!(
        !system.contains("writing_tools"),
        "no prompt for absent tools"
    );

    let out = run(command(&f, &url, &["--permissions", "auto", "look around"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let offered = tool_names(&mock.requests()[1].body);
    assert!(
        offered.contains(&"edit".to_string()) && offered.contains(&"write".to_string()),
        "{offered:?}"
    );
    assert!(
        !offered.contains(&"apply_patch".to_string()),
        "mock-model gets the replace tools"
    );
    let system = mock.requests()[1].body["messages"][0]["content"].to_string();
    assert!(
        system.contains("writing_tools"),
        "the prompt section comes with the tools"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn edit_format_patch_offers_apply_patch() {
    let f = Workspace::new(MAIN);
    config(&f, "[models.\"mock-model\"]\nedit_format = \"patch\"\n");
    let mock = MockModel::start([Reply::openai_text("ok")]).await;
    let mut cmd = command(&f, &mock.openai_base_url(), &["go"]);
    cmd.env("LIGHT_AGENT_PERMISSIONS", "auto");
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let offered = tool_names(&mock.requests()[0].body);
    assert!(offered.contains(&"apply_patch".to_string()), "{offered:?}");
    assert!(!offered.contains(&"edit".to_string()), "{offered:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_applies_an_edit_from_the_model() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start(edit_then_done()).await;
    let out = run(command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "auto", "change it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let now = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
    assert_eq!(now, MAIN.replace("old", "new"));
    let result = sent_result(&mock);
    assert!(result.contains("Edited src/main.rs (+1 −1)"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_in_exec_denies_and_says_how_to_allow() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start(edit_then_done()).await;
    let out = run(command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "ask", "change it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        MAIN
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("denied in exec"), "{stderr}");
    assert!(stderr.contains("--permissions auto"), "{stderr}");
    assert!(stderr.contains("edit(src/main.rs)"), "{stderr}");
    let result = sent_result(&mock);
    assert!(
        result.contains("denied in exec"),
        "the model is told too: {result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn deny_and_allow_rules_are_honoured() {
    let f = Workspace::new(MAIN);
    config(
        &f,
        "[permissions]\nmode = \"auto\"\ndeny = [\"edit(src/**)\"]\n",
    );
    let mock = MockModel::start(edit_then_done()).await;
    let out = run(command(&f, &mock.openai_base_url(), &["change it"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        MAIN
    );
    let result = sent_result(&mock);
    assert!(result.contains("denied by rule edit(src/**)"), "{result}");

    config(
        &f,
        "[permissions]\nmode = \"ask\"\nallow = [\"edit(src/main.rs)\"]\n",
    );
    let mock = MockModel::start(edit_then_done()).await;
    let out = run(command(&f, &mock.openai_base_url(), &["change it"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        MAIN.replace("old", "new"),
        "an allow rule lets the edit through without asking"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_mode_or_rule_is_a_usage_error() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start([]).await;
    let out = run(command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "yolo", "x"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown permission mode `yolo`"),
        "{}",
        text(&out.stderr)
    );
    config(&f, "[permissions]\ndeny = [\"edit(.env\"]\n");
    let out = run(command(&f, &mock.openai_base_url(), &["x"])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("config.toml:2:"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_from_the_shell_restores_the_latest_sessions_turn() {
    let f = Workspace::new(MAIN);
    let mock = MockModel::start(edit_then_done()).await;
    let out = run(command(
        &f,
        &mock.openai_base_url(),
        &["--permissions", "auto", "change it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_ne!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        MAIN
    );

    let out = undo(&f).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("undid turn 1:\n  restored src/main.rs"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        MAIN
    );

    let out = undo(&f).await;
    assert!(
        text(&out.stdout).contains("nothing to undo"),
        "{}",
        text(&out.stdout)
    );
}
