#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Prompt-file commands, `/init` and `/review` in the real binary, in a pty
//! against the mock model (issue #24 item 4): `.claude/commands/fix.md`
//! runs as `/fix issue-12` with its arguments and `@file` mentions
//! expanded; a project command's `` !`cmd` `` does not run before
//! `/commands accept` and does after; a file named `../x.md`, a commands
//! folder leading out of the project and a 10 MB prompt file each end in a
//! clear message with nothing read outside; `/review` outside a repository
//! answers without the model, and its turn cannot write.

use crate::support;
use crate::tui_e2e::child::{agent_command, fixture};
use crate::tui_e2e::pty;

use portable_pty::CommandBuilder;
use pty::{Key, Pty, WAIT};
use serde_json::json;
use support::child_env::{Workspace, git};
use support::{MockModel, OpenAiStream, Reply};

/// Every request body so far, as text.
fn bodies(mock: &MockModel) -> Vec<String> {
    mock.requests().iter().map(|r| r.body.to_string()).collect()
}

/// The text of the last user message of a Chat Completions body.
fn last_user_text(body: &serde_json::Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    match &last["content"] {
        serde_json::Value::String(text) => text.clone(),
        parts => parts
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Types `text`, waits for it in the composer, sends it.
fn submit(pty: &Pty, text: &str) {
    pty.type_text(text);
    pty.wait_for_text(text, WAIT);
    pty.press(Key::Enter);
}

/// Ctrl+E, Ctrl+U: the composer's line is cleared.
fn clear_composer(pty: &Pty) {
    pty.send(b"\x05\x15");
    pty.wait_for_text("Ask anything", WAIT);
}

/// The agent in a new session in `mode`.
fn command(f: &Workspace, mock: &MockModel, mode: &str) -> CommandBuilder {
    let mut cmd = agent_command(f, Some(&mock.openai_base_url()));
    cmd.args(["--new", "--permissions", mode]);
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_command_runs_as_fix_issue_12_with_its_arguments_and_mentions() {
    let f = fixture();
    write(
        &f.repo,
        ".claude/commands/fix.md",
        "---\ndescription: Fix a tracked issue\nargument-hint: [issue]\n---\nFix $ARGUMENTS now; first word $1. Notes: @docs/notes.md\n",
    );
    write(&f.repo, "docs/notes.md", "NOTES-BODY: the flaky test\n");
    write(
        &f.home,
        "commands/mine.md",
        "---\ndescription: my own\n---\nMine.",
    );
    let mock = MockModel::start([Reply::openai_text("Fixed it.")]).await;
    let pty = Pty::spawn(command(&f, &mock, "ask"));
    pty.wait_for_text("mock-model", WAIT);

    // Listed with their descriptions, the project's before the user's.
    pty.type_text("/");
    pty.wait_for_text("Fix a tracked issue", WAIT);
    pty.wait_until("the project's command above the user's", WAIT, |p| {
        let screen = p.screen().contents();
        match (screen.find("/fix [issue]"), screen.find("/mine")) {
            (Some(fix), Some(mine)) => fix < mine,
            _ => false,
        }
    });
    submit(&pty, "fix issue-12");
    pty.wait_for_anywhere("Fixed it.", WAIT);
    let sent = last_user_text(&mock.requests()[0].body);
    assert!(
        sent.contains("Fix issue-12 now; first word issue-12."),
        "{sent}"
    );
    assert!(sent.contains("[file docs/notes.md]"), "{sent}");
    assert!(sent.contains("NOTES-BODY: the flaky test"), "{sent}");
    assert!(!sent.contains("$ARGUMENTS"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_commands_shell_line_runs_only_after_accept() {
    let f = fixture();
    write(
        &f.repo,
        ".claude/commands/mark.md",
        "Marker says: !`touch made-by-command && echo MARKER-OUTPUT @src/main.rs`\n",
    );
    let marker = f.repo.join("made-by-command");
    let mock = MockModel::start([Reply::openai_text("Seen the marker.")]).await;
    let pty = Pty::spawn(command(&f, &mock, "ask"));
    pty.wait_for_text("mock-model", WAIT);
    // Offered once, at start.
    pty.wait_for_anywhere("run shell commands before", WAIT);

    submit(&pty, "/mark");
    pty.wait_for_anywhere("nothing ran", WAIT);
    assert!(!marker.exists(), "the shell line ran before acceptance");
    assert!(mock.requests().is_empty(), "a prompt was sent");
    // The command line comes back for editing.
    pty.wait_for_text("› /mark", WAIT);
    clear_composer(&pty);

    submit(&pty, "/commands accept");
    pty.wait_for_anywhere("may run their shell commands", WAIT);
    submit(&pty, "/mark");
    pty.wait_for_anywhere("Seen the marker.", WAIT);
    assert!(
        marker.exists(),
        "the shell line did not run after acceptance"
    );
    let sent = last_user_text(&mock.requests()[0].body);
    assert!(sent.contains("Marker says: MARKER-OUTPUT"), "{sent}");
    // What a shell line printed is text, never a mention that attaches a file.
    assert!(!sent.contains("[file src/main.rs]"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_prompt_files_each_end_in_a_clear_message_and_nothing_outside_is_read() {
    let f = fixture();
    // What `.claude/commands/../x.md` would reach, and a folder outside.
    write(&f.repo, ".claude/x.md", "DOTDOT-BYTES");
    write(&f.repo, ".claude/commands/ok.md", "fine");
    let outside = f.dir.path().join("outside");
    write(&outside, "commands/leak.md", "LEAKED-BYTES");
    std::os::unix::fs::symlink(&outside, f.repo.join(".agents")).unwrap();
    write(
        &f.repo,
        ".claude/commands/big.md",
        &"x".repeat(10 * 1024 * 1024),
    );
    let mock = MockModel::start([Reply::openai_text("Plain answer.")]).await;
    let pty = Pty::spawn(command(&f, &mock, "ask"));
    pty.wait_for_text("mock-model", WAIT);
    pty.wait_for_anywhere(".agents/commands leads outside", WAIT);

    submit(&pty, "/../x");
    pty.wait_for_anywhere("unknown command /../x", WAIT);
    submit(&pty, "/leak");
    pty.wait_for_anywhere("unknown command /leak", WAIT);
    submit(&pty, "/big");
    // (The popup shows the file's problem too: wait for the answer's words.)
    pty.wait_for_anywhere("/big cannot be used", WAIT);
    assert!(pty.all_text().contains("larger than 256 KiB"));
    clear_composer(&pty);
    assert!(mock.requests().is_empty(), "a prompt was sent");

    submit(&pty, "hello");
    pty.wait_for_anywhere("Plain answer.", WAIT);
    for body in bodies(&mock) {
        assert!(!body.contains("LEAKED-BYTES"), "{body}");
        assert!(!body.contains("DOTDOT-BYTES"), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_outside_a_repository_answers_without_the_model() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let mock = MockModel::start([Reply::openai_text("unused")]).await;
    let pty = Pty::spawn(command(&f, &mock, "ask"));
    pty.wait_for_text("mock-model", WAIT);
    submit(&pty, "/review");
    pty.wait_for_anywhere("is not inside a git work tree", WAIT);
    assert!(mock.requests().is_empty(), "the model was called");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_sends_the_diff_and_its_turn_cannot_write() {
    let f = fixture();
    git(&f.repo, &["add", "."]);
    git(&f.repo, &["commit", "-q", "-m", "first"]);
    let changed = "fn main() {\n    println!(\"REVIEW-ME\");\n}\n";
    std::fs::write(f.repo.join("src/main.rs"), changed).unwrap();
    let args = json!({
        "_intent": "fix what the review found",
        "path": "src/main.rs",
        "edits": [{"old_string": "REVIEW-ME", "new_string": "WRITTEN"}],
    })
    .to_string();
    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("call_1", "edit", &[&args])
            .into_reply(),
        Reply::openai_text("critical: none."),
    ])
    .await;
    // In `full` an edit would apply unasked: only the review's read-only
    // turn keeps it from writing.
    let pty = Pty::spawn(command(&f, &mock, "full"));
    pty.wait_for_text("mock-model", WAIT);
    submit(&pty, "/review");
    pty.wait_for_anywhere("critical: none.", WAIT);
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap(),
        changed
    );
    let requests = mock.requests();
    let first = last_user_text(&requests[0].body);
    assert!(first.contains("+    println!(\"REVIEW-ME\");"), "{first}");
    assert!(first.contains("severity"), "{first}");
    let second = requests[1].body.to_string();
    assert!(second.contains("read-only"), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_asks_for_agents_md_with_the_writing_tools_offered() {
    let f = fixture();
    let mock = MockModel::start([Reply::openai_text("Wrote AGENTS.md.")]).await;
    let pty = Pty::spawn(command(&f, &mock, "ask"));
    pty.wait_for_text("mock-model", WAIT);
    submit(&pty, "/init");
    pty.wait_for_anywhere("Wrote AGENTS.md.", WAIT);
    let body = &mock.requests()[0].body;
    let sent = last_user_text(body);
    assert!(
        sent.contains("Write or improve this project's AGENTS.md"),
        "{sent}"
    );
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"edit"), "{tools:?}");
}
