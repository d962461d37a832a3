#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A real third-party server: `@modelcontextprotocol/server-everything`,
//! pinned (its tools carry read-only annotations from this version on),
//! installed once with npm from the registry into `target/` and reused. Its
//! `echo` and `get-sum` tools are called through `exec --permissions auto`
//! against the mock model: read-only, so nothing is asked; a tool it does
//! not mark read-only is refused (exec has nobody to ask).
//!
//! Without npm the test is skipped, unless `LIGHT_AGENT_REQUIRE_NPM=1`
//! (`support::npm`).

use crate::support;

use std::process::{Command, Stdio};

use serde_json::json;
use support::child_env::{Workspace, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

const PACKAGE: &str = "@modelcontextprotocol/server-everything";
const VERSION: &str = "2026.8.31";

#[tokio::test(flavor = "multi_thread")]
async fn exec_calls_server_everything_echo_and_get_sum_in_auto_mode() {
    let Some(folder) = support::npm::package("npm-mcp", PACKAGE, VERSION).await else {
        return;
    };
    let entry = folder.join("dist").join("index.js");
    let f = Workspace::new("fn main() {}\n");
    let toml = format!(
        "[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\nenabled_tools = [\"echo\", \"get-sum\", \"toggle-simulated-logging\"]\n",
        entry.display().to_string()
    );
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.home.join("config.toml"), toml).unwrap();
    let echo = json!({"_intent": "try the server", "message": "hello from light-agent"});
    let sum = json!({"_intent": "add", "a": 19, "b": 23});
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "mcp__everything__echo", &[&echo.to_string()])
            .into_reply(),
        OpenAiStream::new()
            .tool_call("call_2", "mcp__everything__get-sum", &[&sum.to_string()])
            .into_reply(),
        OpenAiStream::new()
            .tool_call(
                "call_3",
                "mcp__everything__toggle-simulated-logging",
                &[&json!({"_intent": "log"}).to_string()],
            )
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    let url = mock.openai_base_url();
    cmd.args(["exec", "--permissions", "auto", "--base-url", &url])
        .args(["--model", "mock-model", "use the server"])
        .stdin(Stdio::null());
    let out = run(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("done"));

    let requests = mock.requests();
    assert_eq!(requests.len(), 4, "{stderr}");
    let tools = requests[0].body["tools"].as_array().unwrap();
    let names: Vec<_> = tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    assert!(names.contains(&"mcp__everything__echo"), "{names:?}");
    assert!(names.contains(&"mcp__everything__get-sum"), "{names:?}");
    let get_sum = tools
        .iter()
        .find(|t| t["function"]["name"] == "mcp__everything__get-sum")
        .unwrap();
    let properties = &get_sum["function"]["parameters"]["properties"];
    assert_eq!(properties["a"]["type"], "number", "{get_sum}");
    assert!(properties["_intent"].is_object(), "{get_sum}");

    let after_echo = requests[1].body["messages"].to_string();
    assert!(
        after_echo.contains("Echo: hello from light-agent"),
        "{after_echo}"
    );
    let after_sum = requests[2].body["messages"].to_string();
    assert!(
        after_sum.contains("The sum of 19 and 23 is 42."),
        "{after_sum}"
    );
    // Not marked read-only: auto asks, and exec has nobody to ask.
    let after_toggle = requests[3].body["messages"].to_string();
    assert!(
        after_toggle.contains("nobody is here to approve"),
        "{after_toggle}"
    );
    assert!(
        after_toggle.contains("--permissions full"),
        "already in auto, the way out is full or a rule: {after_toggle}"
    );
    assert!(!stderr.contains("not available"), "{stderr}");
}
