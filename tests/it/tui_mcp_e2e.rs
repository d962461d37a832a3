#![allow(clippy::unwrap_used, clippy::expect_used)]
//! MCP in the real binary, in a pty against the mock model: `/mcp` lists
//! each server's state and tools, `/mcp restart NAME` brings a failed one
//! up; an MCP call in `ask` mode waits in the approval overlay with server,
//! tool and arguments, and `y` runs it; a project's `.mcp.json` is offered
//! once and its servers start after `/mcp accept`, remembered.

use crate::support;
use crate::tui_e2e::child::agent_command;
use crate::tui_e2e::pty;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use portable_pty::CommandBuilder;
use pty::{Key, Pty, WAIT};
use serde_json::json;
use support::child_env::Workspace;
use support::mcp_server::{MODE_ENV, project_file};
use support::{MockModel, OpenAiStream, Reply};

/// Hang guard for a server start (the test binary in its server role).
const START: Duration = Duration::from_secs(30);

/// A `[mcp_servers.NAME]` table running this test binary as the server.
fn server_table(name: &str, command: &Path) -> String {
    let exe = std::env::current_exe().unwrap();
    format!(
        "[mcp_servers.{name}]\ncommand = {command:?}\nargs = [{exe:?}, \"mcp::server_role\", \"--exact\", \"--ignored\"]\nenv = {{ {MODE_ENV} = \"normal\" }}\ndisabled_tools = [\"hidden\"]\n\n",
        command = command.display().to_string(),
        exe = exe.display().to_string(),
    )
}

/// A launcher script: `exec "$@"`, so the first argument is the program.
fn launcher(path: &Path) {
    std::fs::write(path, "#!/bin/sh\nexec \"$@\"\n").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The agent in a new session, in the TUI's own default permission mode.
pub(crate) fn command(f: &Workspace, url: &str) -> CommandBuilder {
    let mut cmd = agent_command(f, Some(url));
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    cmd.arg("--new");
    cmd
}

/// Types `text` into the composer and sends it.
pub(crate) fn submit(pty: &Pty, text: &str) {
    pty.type_text(text);
    pty.wait_for_text(text, WAIT);
    pty.press(Key::Enter);
}

/// Asks `/mcp` until its latest answer shows `name` ready; returns that
/// answer. Each round waits for the new report, not for time.
fn mcp_until_ready(pty: &Pty, name: &str) -> String {
    let deadline = Instant::now() + START;
    for round in 1.. {
        submit(pty, "/mcp");
        pty.wait_until("the /mcp report", WAIT, |screen| {
            pty::all_text(screen).matches("MCP servers").count() >= round
        });
        let text = pty.all_text();
        let latest = text.rsplit("MCP servers").next().unwrap_or("").to_owned();
        let row = latest
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or("");
        if row.contains("ready") {
            return latest;
        }
        assert!(
            Instant::now() < deadline,
            "{name} never became ready: {latest}"
        );
    }
    unreachable!("the loop returns or panics")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_view_lists_servers_and_restart_brings_a_failed_one_up() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let (ready, later) = (f.home.join("ready.sh"), f.home.join("later.sh"));
    launcher(&ready);
    // `later.sh` does not exist yet: that server fails at start.
    let config = server_table("good", &ready) + &server_table("late", &later);
    std::fs::write(f.home.join("config.toml"), config).unwrap();
    let mock = MockModel::start(Vec::<Reply>::new()).await;
    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    pty.wait_for_text("mock-model", WAIT);
    pty.wait_for_anywhere("MCP server `late` is not available", START);

    let report = mcp_until_ready(&pty, "good");
    let row = |name: &str| {
        report
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {report}"))
            .to_owned()
    };
    assert!(row("good").contains("6 tools"), "{report}");
    assert!(row("late").contains("failed"), "{report}");
    assert!(report.contains("/mcp restart NAME"), "{report}");

    launcher(&later);
    submit(&pty, "/mcp restart late");
    pty.wait_for_anywhere("MCP server `late` is ready (6 tools)", START);
    let text = pty.all_text();
    assert_eq!(
        text.matches("MCP server `late` is not available").count(),
        1,
        "{text}"
    );

    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_call_waits_in_the_approval_overlay_and_y_runs_it() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let ready = f.home.join("ready.sh");
    launcher(&ready);
    std::fs::write(f.home.join("config.toml"), server_table("good", &ready)).unwrap();
    let args = json!({"_intent": "ask the server", "text": "from the overlay"}).to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "mcp__good__echo", &[&args])
            .into_reply(),
        Reply::openai_text("The server answered."),
    ])
    .await;
    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    pty.wait_for_text("mock-model", WAIT);
    mcp_until_ready(&pty, "good");

    submit(&pty, "echo something");
    pty.wait_for_text("approve?", START);
    pty.wait_for_text("good.echo", WAIT);
    pty.wait_for_text("from the overlay", WAIT);
    assert!(mock.requests().len() == 1, "nothing runs before the answer");
    pty.type_text("y");
    pty.wait_for_anywhere("The server answered.", START);
    let sent = mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("echo: from the overlay"), "{sent}");

    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_projects_mcp_json_is_offered_once_and_starts_after_accept() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(f.repo.join(".mcp.json"), project_file()).unwrap();
    let mock = MockModel::start(Vec::<Reply>::new()).await;

    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    pty.wait_for_anywhere("defines MCP servers, not started", WAIT);
    submit(&pty, "/mcp accept");
    pty.wait_for_anywhere("accepted for this directory; starting: proj", WAIT);
    let report = mcp_until_ready(&pty, "proj");
    assert!(report.contains("proj"), "{report}");
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());

    // Remembered: the next start uses it without asking again.
    let mut pty = Pty::spawn(command(&f, &mock.openai_base_url()));
    pty.wait_for_text("mock-model", WAIT);
    mcp_until_ready(&pty, "proj");
    let text = pty.all_text();
    assert!(!text.contains("not started"), "{text}");
    pty.press(Key::CtrlD);
    assert_eq!(pty.wait_exit(WAIT), 0, "{}", pty.all_text());
}
