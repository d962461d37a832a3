#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 27, from outside: `exec --permissions auto` against the mock model
//! does not run destructive commands (and tells the model why), runs the
//! harmless ones unasked, and `light-agent undo` puts back what an allowed
//! command did — in a git repository and outside one, byte for byte with
//! modes, leaving alone (and naming) what the user changed since.

use crate::exec_permissions::{command, config, text};
use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;
use support::child_env::{Workspace, git, run};
use support::{MockModel, OpenAiStream, Reply};

const MAIN: &str = "fn main() {\n    println!(\"committed\");\n}\n";

/// Every file beneath `dir` but `.git/`: path → (bytes, permission bits).
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                let mode = meta.permissions().mode() & 0o7777;
                out.insert(rel, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    out
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A project with committed files (one executable), an uncommitted change
/// to `src/main.rs` and an untracked `notes/new.txt`; a git repository
/// when `in_git`.
fn project(in_git: bool) -> Workspace {
    let f = Workspace::new(MAIN);
    let repo = &f.repo;
    std::fs::write(repo.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    std::fs::write(repo.join("src/deep/run.sh"), "#!/bin/sh\necho run\n").unwrap();
    chmod(&repo.join("src/deep/run.sh"), 0o755);
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    if in_git {
        git(repo, &["init", "-q"]);
        git(repo, &["add", "."]);
        git(repo, &["commit", "-qm", "first"]);
    }
    std::fs::write(
        repo.join("src/main.rs"),
        MAIN.replace("committed", "uncommitted work"),
    )
    .unwrap();
    std::fs::create_dir_all(repo.join("notes")).unwrap();
    std::fs::write(repo.join("notes/new.txt"), "weeks of notes\n").unwrap();
    chmod(&repo.join("notes/new.txt"), 0o600);
    f
}

/// One step calling `shell` with each of `commands`, then "done".
fn shell_calls(commands: &[&str]) -> [Reply; 2] {
    let mut step = OpenAiStream::new();
    for (i, cmd) in commands.iter().enumerate() {
        let args = json!({ "_intent": "do it", "command": cmd }).to_string();
        step = step.tool_call(&format!("call_{i}"), "shell", &[&args]);
    }
    [step.into_reply(), Reply::openai_text("done")]
}

/// The tool results the second request carried back, by call id.
fn results(mock: &MockModel) -> BTreeMap<String, String> {
    let requests = mock.requests();
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let id = m["tool_call_id"].as_str().unwrap_or_default().to_string();
            (id, m["content"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

async fn exec(f: &Workspace, commands: &[&str], args: &[&str]) -> MockModel {
    let mock = MockModel::start(shell_calls(commands)).await;
    let mut all = args.to_vec();
    all.push("go");
    let mut cmd = command(f, &mock.openai_base_url(), &all);
    // The test's light-agent home lies under /tmp, and the sandbox denies
    // reads of it: /tmp is then granted entry by entry, and a file a
    // command creates at its top level (a linker's) cannot be read back.
    // A real home is not under the temporary directory; give the commands
    // one of their own, as a user's $TMPDIR would be.
    let tmp = f.dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    cmd.env("TMPDIR", &tmp);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    mock
}

async fn undo(f: &Workspace) -> String {
    let out = crate::exec_permissions::undo(f).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_auto_runs_no_destructive_command_and_tells_the_model_why() {
    let f = project(true);
    let before = tree(&f.repo);
    let destructive: Vec<&str> = crate::permission_shell_rules::ISSUE_CASES
        .into_iter()
        .chain([
            "echo x > Cargo.toml",
            "bash -c \"git reset --hard && git clean -fd\"",
            "ls && rm -rf src",
            "git status && git checkout -- .",
        ])
        .collect();
    let mock = exec(&f, &destructive, &["--permissions", "auto"]).await;
    assert_eq!(tree(&f.repo), before, "every file intact");
    let results = results(&mock);
    assert_eq!(results.len(), destructive.len());
    for (i, cmd) in destructive.iter().enumerate() {
        let result = &results[&format!("call_{i}")];
        assert!(result.contains("denied in exec"), "{cmd}: {result}");
        assert!(result.contains("nothing was run"), "{cmd}: {result}");
        assert!(result.contains("--permissions full"), "{cmd}: {result}");
    }
    assert!(
        results["call_0"].contains("`rm -rf src` removes files recursively"),
        "{}",
        results["call_0"]
    );
    assert!(
        results["call_6"].contains("overwrites the existing file Cargo.toml"),
        "{}",
        results["call_6"]
    );
    assert!(
        results["call_5"].contains("run with --permissions full"),
        "{}",
        results["call_5"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_auto_still_runs_harmless_commands_unasked() {
    let f = project(true);
    let harmless = [
        "ls",
        "cargo test --offline -q",
        "git status",
        "echo x > new.txt",
    ];
    let mock = exec(&f, &harmless, &["--permissions", "auto"]).await;
    let results = results(&mock);
    for (i, cmd) in harmless.iter().enumerate() {
        let result = &results[&format!("call_{i}")];
        assert!(!result.contains("denied"), "{cmd}: {result}");
    }
    assert!(
        results["call_0"].contains("Cargo.toml"),
        "{}",
        results["call_0"]
    );
    assert_eq!(
        std::fs::read_to_string(f.repo.join("new.txt")).unwrap(),
        "x\n"
    );
}

const WIPE: &str = "git reset --hard -q && git clean -fdq && rm -rf src";
const RULES: &str = "[permissions]\nmode = \"auto\"\nallow = [\"shell(git reset *)\", \"shell(git clean *)\", \"shell(rm *)\", \"shell(python3 *)\", \"shell(echo *)\"]\n";

#[tokio::test(flavor = "multi_thread")]
async fn undo_puts_back_what_an_allowed_wipe_destroyed_in_git() {
    let f = project(true);
    let before = tree(&f.repo);
    config(&f, RULES);
    let mock = exec(&f, &[WIPE], &[]).await;
    let result = &results(&mock)["call_0"];
    assert!(result.starts_with("exit 0"), "{result}");
    assert!(!f.repo.join("src").exists(), "the wipe ran");
    assert!(!f.repo.join("notes/new.txt").exists(), "the clean ran");

    let said = undo(&f).await;
    assert!(said.contains("restored src/main.rs"), "{said}");
    assert!(said.contains("restored notes/new.txt"), "{said}");
    assert_eq!(tree(&f.repo), before, "byte for byte, with modes");
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_puts_back_what_an_unclassified_command_destroyed() {
    for in_git in [true, false] {
        let f = project(in_git);
        let before = tree(&f.repo);
        config(&f, RULES);
        let rmtree = "python3 -c \"import shutil; shutil.rmtree('src'); shutil.rmtree('notes')\"";
        let mock = exec(&f, &[rmtree], &[]).await;
        let result = &results(&mock)["call_0"];
        assert!(result.starts_with("exit 0"), "{result}");
        assert!(!f.repo.join("src").exists());
        let said = undo(&f).await;
        assert!(said.contains("restored src/deep/run.sh"), "{said}");
        assert_eq!(tree(&f.repo), before, "in git: {in_git}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_outside_git_puts_back_deleted_changed_and_removes_created_files() {
    let f = project(false);
    let before = tree(&f.repo);
    config(&f, RULES);
    let mock = exec(
        &f,
        &["rm -rf src notes && echo changed >> Cargo.toml && echo new > made.txt"],
        &[],
    )
    .await;
    let result = &results(&mock)["call_0"];
    assert!(result.starts_with("exit 0"), "{result}");
    assert!(f.repo.join("made.txt").exists());
    let said = undo(&f).await;
    assert!(said.contains("restored made.txt"), "{said}");
    assert_eq!(tree(&f.repo), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_leaves_a_file_the_user_changed_since_and_names_it() {
    for in_git in [true, false] {
        let f = project(in_git);
        let before = tree(&f.repo);
        config(&f, RULES);
        let mock = exec(
            &f,
            &["rm -rf src && python3 -c \"open('Cargo.toml','a').write('x')\""],
            &[],
        )
        .await;
        assert!(results(&mock)["call_0"].starts_with("exit 0"));
        std::fs::write(f.repo.join("Cargo.toml"), "the user's own edit\n").unwrap();
        let said = undo(&f).await;
        assert!(
            said.contains("left alone Cargo.toml: changed since by someone else"),
            "{said}"
        );
        assert_eq!(
            std::fs::read_to_string(f.repo.join("Cargo.toml")).unwrap(),
            "the user's own edit\n"
        );
        let now = tree(&f.repo);
        assert_eq!(
            now["src/main.rs"], before["src/main.rs"],
            "in git: {in_git}"
        );
        assert_eq!(now["src/deep/run.sh"], before["src/deep/run.sh"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_reaches_files_a_command_changed_and_committed_or_named_with_spaces() {
    let f = project(true);
    std::fs::write(f.repo.join("src/with space.txt"), "spaced\n").unwrap();
    let before = tree(&f.repo);
    config(
        &f,
        "[permissions]\nmode = \"auto\"\nallow = [\"shell(python3 *)\", \"shell(git *)\"]\n",
    );
    let script = "python3 -c \"open('Cargo.toml','w').write('rewritten'); open('src/with space.txt','w').write('gone')\" && git -c user.name=a -c user.email=a@a commit -qam wip";
    let mock = exec(&f, &[script], &[]).await;
    let result = &results(&mock)["call_0"];
    assert!(result.starts_with("exit 0"), "{result}");
    let said = undo(&f).await;
    assert!(said.contains("restored Cargo.toml"), "{said}");
    assert!(said.contains("restored src/with space.txt"), "{said}");
    assert_eq!(tree(&f.repo), before);
}
