#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent exec` with MCP servers configured, run as a process against
//! the mock model: a server's tool is called, its stderr flood never reaches
//! the terminal, a silent server is reported once and the turn goes on; a
//! project's `.mcp.json` is used only once accepted, for its content.

use crate::support;

use std::process::{Command, Stdio};

use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::mcp_server::{accept_project_file, project_file, server_toml};
use support::{MockModel, OpenAiStream, Reply};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_calls_a_server_tool_and_keeps_its_stderr_off_the_screen() {
    let f = Workspace::new("fn main() {}\n");
    let toml = format!(
        "[mcp_servers.good]\n{}\n[mcp_servers.quiet]\n{}",
        server_toml("flood", ""),
        server_toml("silent", "startup_timeout_sec = 1"),
    );
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.home.join("config.toml"), toml).unwrap();
    let args = json!({"_intent": "try the server", "text": "hi"}).to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "mcp__good__echo", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    let (code, stdout, stderr) = exec_in(&f, &mock).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !stdout.contains("noise") && !stderr.contains("noise"),
        "{stderr}"
    );
    assert_eq!(
        stderr
            .matches("MCP server `quiet` is not available")
            .count(),
        1,
        "{stderr}"
    );
    let requests = mock.requests();
    let sent = requests[1].body["messages"].to_string();
    assert!(sent.contains("echo: hi"), "{sent}");
    assert!(stdout.contains("done"), "{stdout}");
}

async fn exec_in(f: &Workspace, mock: &MockModel) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    let url = mock.openai_base_url();
    cmd.args(["exec", "--base-url", &url, "--model", "mock-model", "go"]);
    cmd.stdin(Stdio::null());
    let out = run(cmd).await;
    let code = out.status.code().unwrap_or(-1);
    (code, text(&out.stdout), text(&out.stderr))
}

fn offered_tools(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_projects_mcp_json_is_used_by_exec_only_once_accepted_for_its_content() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let file = project_file();
    std::fs::write(f.repo.join(".mcp.json"), &file).unwrap();
    let not_used = "are not used: accept them once in the TUI";

    // Never accepted: nothing starts, and exec says why.
    let mock = MockModel::start([Reply::openai_text("done")]).await;
    let (code, _, stderr) = exec_in(&f, &mock).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(not_used), "{stderr}");
    let tools = offered_tools(&mock.requests()[0].body);
    assert!(
        !tools.iter().any(|t| t.starts_with("mcp__proj")),
        "{tools:?}"
    );

    // Accepted for this content (what `/mcp accept` records): used.
    accept_project_file(&f, &file).await;
    let args = json!({"_intent": "try the project's server", "text": "hi"}).to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "mcp__proj__echo", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    let (code, _, stderr) = exec_in(&f, &mock).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains(not_used), "{stderr}");
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("echo: hi"), "{sent}");

    // The file changed since: asked about again, not used.
    std::fs::write(f.repo.join(".mcp.json"), format!("{file}\n")).unwrap();
    let mock = MockModel::start([Reply::openai_text("done")]).await;
    let (code, _, stderr) = exec_in(&f, &mock).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(not_used), "{stderr}");
}
