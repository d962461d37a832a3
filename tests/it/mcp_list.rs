#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent mcp list [--json]` run as a process: every configured server
//! started once and listed with its state, tool count, error and start time.

use crate::support;

use std::process::{Command, Output, Stdio};

use serde_json::Value;
use support::bounded;
use support::child_env::{Workspace, run, scrub};
use support::mcp_server::{accept_project_file, project_file, server_toml};

/// A workspace whose config has four servers: `good` (the in-repo test
/// server, seven tools, one filtered out), `quiet` (never answers
/// `initialize`, 1 s start-up time), `missing` (no such program) and `off`
/// (disabled).
fn workspace() -> Workspace {
    let f = Workspace::new("fn main() {}\n");
    let toml = format!(
        "[mcp_servers.good]\n{}\n[mcp_servers.quiet]\n{}\n[mcp_servers.missing]\ncommand = \"/nonexistent/mcp-server\"\n\n[mcp_servers.off]\n{}",
        server_toml("normal", "disabled_tools = [\"hidden\"]"),
        server_toml("silent", "startup_timeout_sec = 1"),
        server_toml("normal", "enabled = false"),
    );
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.home.join("config.toml"), toml).unwrap();
    f
}

async fn mcp_list(f: &Workspace, extra: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.args(["mcp", "list"]).args(extra).stdin(Stdio::null());
    bounded::ends("mcp list", run(cmd)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_json_gives_each_servers_state_tools_error_and_start() {
    let f = workspace();
    let out = mcp_list(&f, &["--json"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let names: Vec<_> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["good", "missing", "off", "quiet"]);
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap();

    let good = row("good");
    assert_eq!(good["state"], "ready", "{good}");
    assert_eq!(
        good["tools"], 6,
        "seven tools, `hidden` filtered out: {good}"
    );
    assert!(good["error"].is_null(), "{good}");
    assert!(good["started_at"].as_u64().unwrap() > 0, "{good}");

    let quiet = row("quiet");
    assert_eq!(quiet["state"], "failed", "{quiet}");
    assert_eq!(quiet["tools"], 0);
    let error = quiet["error"].as_str().unwrap();
    assert!(error.contains("startup_timeout_sec"), "{error}");
    assert!(quiet["started_at"].as_u64().is_some(), "{quiet}");

    let missing = row("missing");
    assert_eq!(missing["state"], "failed", "{missing}");
    let error = missing["error"].as_str().unwrap();
    assert!(error.contains("/nonexistent/mcp-server"), "{error}");

    let off = row("off");
    assert_eq!(off["state"], "disabled", "{off}");
    assert!(off["started_at"].is_null(), "{off}");
    assert!(
        !stderr.contains("not available"),
        "the list carries the errors; no notices on stderr: {stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_prints_one_line_per_server() {
    let f = workspace();
    let out = mcp_list(&f, &[]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    let line = |name: &str| {
        *lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}: {stdout}"))
    };
    let good = line("good");
    assert!(
        good.contains("ready") && good.contains("6 tools") && good.contains("started just now"),
        "{good}"
    );
    let quiet = line("quiet");
    assert!(
        quiet.contains("failed") && quiet.contains("startup_timeout_sec"),
        "{quiet}"
    );
    assert!(line("off").contains("disabled"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_without_servers_says_how_to_add_one() {
    let f = Workspace::new("fn main() {}\n");
    let out = mcp_list(&f, &[]).await;
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("[mcp_servers.NAME]"), "{stdout}");
    let out = mcp_list(&f, &["--json"]).await;
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_projects_mcp_json_is_listed_once_accepted() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let file = project_file();
    std::fs::write(f.repo.join(".mcp.json"), &file).unwrap();
    let names = |out: &Output| -> Vec<String> {
        let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = rows.as_array().unwrap().iter();
        rows.map(|r| format!("{} {}", r["name"], r["state"]))
            .collect()
    };

    // Not accepted: not started, and said so.
    let out = mcp_list(&f, &["--json"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("are not used"), "{stderr}");
    assert!(names(&out).is_empty(), "{:?}", names(&out));

    // Accepted for this content (what `/mcp accept` records): started.
    accept_project_file(&f, &file).await;
    let out = mcp_list(&f, &["--json"]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("are not used"), "{stderr}");
    assert_eq!(names(&out), [r#""proj" "ready""#], "{stderr}");
}
