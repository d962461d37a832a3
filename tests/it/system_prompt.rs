#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The system prompt as `exec` sends it to the mock model: built from the
//! tools offered, with the environment of the real working directory, a
//! bounded project map, the same bytes at every step, and within the budget.

use crate::support;

use std::process::{Command, Stdio};

use light_agent::context::environment::{MAP_CHARS, project_map};
use light_agent::tool::fs::Root;
use serde_json::json;
use support::child_env::{Workspace, git, run, scrub};
use support::{MockModel, OpenAiStream, Reply};

/// The tokens system prompt and tool definitions may take with every
/// built-in tool offered (issue 22), `update_plan`, `ask_user` and
/// `web_fetch` included. Measured in docs/PERFORMANCE.md.
const BUDGET: u64 = 2_000;

fn command(f: &Workspace, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    cmd.env_remove("LIGHT_AGENT_PERMISSIONS");
    cmd.args(args).stdin(Stdio::null());
    cmd
}

fn exec(f: &Workspace, url: &str, args: &[&str]) -> Command {
    let mut cmd = command(f, &["exec", "--base-url", url, "--model", "mock-model"]);
    cmd.args(args);
    cmd
}

/// A repository on branch `feature-x` with one commit, then one file
/// changed and two untracked: three dirty files.
fn dirty_repo(f: &Workspace) {
    std::fs::write(f.repo.join("README.md"), "# demo\n").unwrap();
    std::fs::create_dir_all(f.repo.join("relay")).unwrap();
    std::fs::write(f.repo.join("relay/settings.py"), "PORT = 8080\n").unwrap();
    std::fs::write(f.repo.join("test_settings.py"), "import unittest\n").unwrap();
    git(&f.repo, &["init", "-q", "-b", "feature-x"]);
    git(&f.repo, &["add", "."]);
    git(&f.repo, &["commit", "-q", "-m", "init"]);
    std::fs::write(f.repo.join("README.md"), "# demo, changed\n").unwrap();
    std::fs::write(f.repo.join("notes.txt"), "new\n").unwrap();
    std::fs::write(f.repo.join("relay/extra.py"), "new\n").unwrap();
}

fn system_prompt(body: &serde_json::Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_prompt_names_only_offered_tools_and_holds_the_real_environment() {
    let f = Workspace::new("fn main() {}\n");
    dirty_repo(&f);
    let mock = MockModel::start([Reply::openai_text("ok"), Reply::openai_text("ok")]).await;
    let url = mock.openai_base_url();

    // exec's default, read-only: exploration only.
    let out = run(exec(&f, &url, &["look around"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let system = system_prompt(&mock.requests()[0].body);
    assert!(
        system.starts_with("<identity>\nYou are light-agent, a coding agent"),
        "{system}"
    );
    assert!(system.contains("<builtin_tools>"), "{system}");
    for absent in [
        "apply_patch",
        "<writing_tools>",
        "<shell_tools>",
        "shell_output",
        "three file tools",
    ] {
        assert!(
            !system.contains(absent),
            "{absent} named without being offered:\n{system}"
        );
    }

    let cwd = std::fs::canonicalize(&f.repo).unwrap();
    assert!(
        system.contains(&format!("Working directory: {}\n", cwd.display())),
        "{system}"
    );
    assert!(
        system.contains(&format!("Platform: {} ", std::env::consts::OS)),
        "{system}"
    );
    assert!(
        system.contains("Git branch: feature-x; 3 changed or untracked files"),
        "{system}"
    );
    assert!(
        system.contains("relay/\n  extra.py\n  settings.py\n"),
        "the map: {system}"
    );
    assert!(
        system.contains("\nTests: `python3 -m unittest`\n"),
        "the test command: {system}"
    );
    let date = system.split("Date: ").nth(1).unwrap();
    assert!(
        date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-',
        "{date}"
    );

    // With writing and commands allowed, their sections come with them.
    let out = run(exec(&f, &url, &["--permissions", "auto", "fix it"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let system = system_prompt(&mock.requests()[1].body);
    assert!(
        system.contains("<writing_tools>") && system.contains("<shell_tools>"),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_prompt_is_the_same_bytes_at_every_step_of_a_session() {
    let f = Workspace::new("fn main() {}\n");
    dirty_repo(&f);
    let args = json!({"path": "README.md", "_intent": "read the readme"}).to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("c1", "read_file", &[&args])
            .into_reply(),
        OpenAiStream::new()
            .tool_call("c2", "read_file", &[&args])
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    let out = run(exec(&f, &mock.openai_base_url(), &["read it twice"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    let first = system_prompt(&requests[0].body);
    for later in &requests[1..] {
        assert_eq!(system_prompt(&later.body), first);
    }
}

#[test]
fn a_100_000_file_tree_keeps_the_project_map_within_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..100 {
        let sub = dir.path().join(format!("pkg{d:03}/src/deep"));
        std::fs::create_dir_all(&sub).unwrap();
        for i in 0..1000 {
            std::fs::File::create(sub.join(format!("f{i:04}.rs"))).unwrap();
        }
    }
    std::fs::write(dir.path().join("README.md"), "top").unwrap();
    let root = Root::open(dir.path()).unwrap();
    let map = project_map(&root, MAP_CHARS);
    assert!(
        map.chars().count() <= MAP_CHARS,
        "{} chars:\n{map}",
        map.chars().count()
    );
    assert!(map.starts_with("pkg000/"), "{map}");
    assert!(
        map.contains("files)") || map.contains("more entries"),
        "elided with counts: {map}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_every_built_in_tool_the_prompt_and_schemas_fit_the_budget() {
    let f = Workspace::new("fn main() {}\n");
    dirty_repo(&f);
    for model in ["mock-model", "gpt-5"] {
        let out = run(command(
            &f,
            &["--model", model, "--permissions", "auto", "config", "show"],
        ))
        .await;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let shown = text(&out.stdout);
        let tokens: u64 = shown
            .lines()
            .find_map(|l| l.strip_prefix("base_tokens = "))
            .unwrap_or_else(|| panic!("no base_tokens in {shown}"))
            .parse()
            .unwrap();
        let dense = shown
            .lines()
            .find_map(|l| l.strip_prefix("base_tokens_dense = "))
            .unwrap_or("?");
        println!(
            "system prompt + every built-in tool's schema ({model}): {tokens} tokens \
             at four bytes a token, {dense} by the dense count"
        );
        assert!(tokens <= BUDGET, "{model}: {tokens} tokens over {BUDGET}");
    }
}
