#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent exec` with MCP servers configured, run as a process against
//! the mock model: a server's tool is called, its stderr flood never reaches
//! the terminal, a silent server is reported once and the turn goes on.

use crate::support;

use std::process::{Command, Stdio};

use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::mcp_server::MODE_ENV;
use support::{MockModel, OpenAiStream, Reply};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_calls_a_server_tool_and_keeps_its_stderr_off_the_screen() {
    let f = Workspace::new("fn main() {}\n");
    let exe = std::env::current_exe().unwrap();
    let server = |mode: &str, extra: &str| {
        format!(
            "command = {exe:?}\nargs = [\"mcp::server_role\", \"--exact\", \"--ignored\"]\nenv = {{ {MODE_ENV} = \"{mode}\" }}\n{extra}\n",
            exe = exe.display().to_string(),
        )
    };
    let toml = format!(
        "[mcp_servers.good]\n{}\n[mcp_servers.quiet]\n{}",
        server("flood", ""),
        server("silent", "startup_timeout_sec = 1"),
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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    let url = mock.openai_base_url();
    cmd.args(["exec", "--base-url", &url, "--model", "mock-model", "go"]);
    cmd.stdin(Stdio::null());
    let out = run(cmd).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
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
