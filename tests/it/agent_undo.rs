#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Per-turn undo over the session's journal: every byte and mode restored,
//! created files removed, deleted files back, turn by turn; files changed
//! since by someone else left alone; `/diff`'s session diff.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use light_agent::ai::{HttpOptions, OpenAiAdaptor};
use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::tool::builtin::{self, EditFormat};
use serde_json::json;
use support::agent_harness::Harness;
use support::{OpenAiStream, Reply};

const SCRIPT: &[u8] = b"\xEF\xBB\xBF#!/bin/sh\r\necho one\r\n";

fn call(id: &str, tool: &str, args: serde_json::Value) -> Reply {
    let mut args = args;
    args["_intent"] = json!("test");
    OpenAiStream::new()
        .tool_call(id, tool, &[&args.to_string()])
        .into_reply()
}

async fn harness(replies: Vec<Reply>) -> Harness {
    let h = Harness::start(replies, |mock| {
        Arc::new(
            OpenAiAdaptor::new(
                mock.openai_base_url(),
                None,
                "mock-model",
                HttpOptions::default(),
            )
            .unwrap(),
        )
    })
    .await;
    builtin::register_writing(h.agent.tool(), EditFormat::Patch).unwrap();
    builtin::register_writing(h.agent.tool(), EditFormat::Replace).unwrap();
    h.agent.set_permits(Permits::new(
        Policy::new(Mode::Auto, RuleList::default()),
        None,
    ));
    h
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_restores_every_byte_and_mode_turn_by_turn() {
    let patch = "*** Begin Patch\n*** Update File: run.sh\n@@\n-echo one\n+echo two\n*** Add File: notes/new.txt\n+fresh\n*** Delete File: README.md\n*** End Patch";
    let replies = vec![
        call("c1", "apply_patch", json!({"patch": patch})),
        Reply::openai_text("patched"),
        call(
            "c2",
            "edit",
            json!({"path": "src/main.rs", "edits": [{"old_string": "hello", "new_string": "bye"}]}),
        ),
        Reply::openai_text("edited"),
    ];
    let h = harness(replies).await;
    let repo = h.dir.path().join("repo");
    std::fs::write(repo.join("run.sh"), SCRIPT).unwrap();
    std::fs::set_permissions(repo.join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    let main_before = std::fs::read(repo.join("src/main.rs")).unwrap();

    h.agent.prompt("turn one").await.unwrap();
    assert_eq!(
        std::fs::read(repo.join("run.sh")).unwrap(),
        b"\xEF\xBB\xBF#!/bin/sh\r\necho two\r\n"
    );
    assert!(repo.join("notes/new.txt").exists() && !repo.join("README.md").exists());
    h.agent.prompt("turn two").await.unwrap();
    assert_ne!(
        std::fs::read(repo.join("src/main.rs")).unwrap(),
        main_before
    );

    let diff = h.agent.session_diff().await.unwrap();
    for expected in [
        "+++ b/run.sh",
        "-echo one",
        "+echo two",
        "--- /dev/null",
        "+fresh",
        "+++ /dev/null",
        "-# demo",
        "+    println!(\"bye\");",
    ] {
        assert!(diff.contains(expected), "{expected} missing from\n{diff}");
    }

    let report = h.agent.undo_last_turn().await.unwrap();
    assert_eq!(report.turn, Some(2));
    assert_eq!(report.restored, vec!["src/main.rs".to_string()]);
    assert_eq!(
        std::fs::read(repo.join("src/main.rs")).unwrap(),
        main_before
    );
    assert!(
        repo.join("notes/new.txt").exists(),
        "turn one is still applied"
    );

    let report = h.agent.undo_last_turn().await.unwrap();
    assert_eq!(report.turn, Some(1));
    assert!(report.skipped.is_empty(), "{report:?}");
    assert_eq!(std::fs::read(repo.join("run.sh")).unwrap(), SCRIPT);
    assert_eq!(mode(&repo.join("run.sh")), 0o750);
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "# demo\n"
    );
    assert!(!repo.join("notes/new.txt").exists());

    let report = h.agent.undo_last_turn().await.unwrap();
    assert_eq!(report.turn, None);
    assert!(report.describe().starts_with("nothing to undo"));
    assert_eq!(h.agent.session_diff().await.unwrap(), "");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_changed_since_by_someone_else_is_left_alone() {
    let replies = vec![
        call(
            "c1",
            "write",
            json!({"path": "a.txt", "content": "by the agent\n"}),
        ),
        call(
            "c2",
            "edit",
            json!({"path": "src/lib.rs", "edits": [{"old_string": "42", "new_string": "43"}]}),
        ),
        Reply::openai_text("done"),
    ];
    let h = harness(replies).await;
    let repo = h.dir.path().join("repo");
    h.agent.prompt("go").await.unwrap();
    std::fs::write(repo.join("a.txt"), "the user's own words\n").unwrap();
    let report = h.agent.undo_last_turn().await.unwrap();
    assert_eq!(report.restored, vec!["src/lib.rs".to_string()]);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].0, "a.txt");
    assert!(
        report
            .describe()
            .contains("left alone a.txt: changed since by someone else")
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).unwrap(),
        "the user's own words\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(),
        "pub fn answer() -> u32 {\n    42\n}\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commands_changes_show_in_the_diff_and_undo_like_an_edits() {
    let command = "rm README.md && printf 'made\\n' > made.txt && sed -i s/42/43/ src/lib.rs";
    let replies = vec![
        call("c1", "shell", json!({ "command": command })),
        Reply::openai_text("done"),
    ];
    let h = harness(replies).await;
    let _logs = with_shell(&h, None);
    h.agent.set_permits(Permits::new(
        Policy::new(Mode::Full, RuleList::default()),
        None,
    ));
    let repo = h.dir.path().join("repo");
    let readme = std::fs::read(repo.join("README.md")).unwrap();
    let lib = std::fs::read(repo.join("src/lib.rs")).unwrap();
    std::fs::set_permissions(
        repo.join("README.md"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();

    h.agent.prompt("go").await.unwrap();
    assert!(!repo.join("README.md").exists(), "the command ran");
    let diff = h.agent.session_diff().await.unwrap();
    for expected in ["+++ /dev/null", "-# demo", "+made", "-    42", "+    43"] {
        assert!(diff.contains(expected), "{expected} missing from\n{diff}");
    }

    let report = h.agent.undo_last_turn().await.unwrap();
    assert_eq!(report.turn, Some(1));
    assert_eq!(report.restored, ["README.md", "made.txt", "src/lib.rs"]);
    assert_eq!(std::fs::read(repo.join("README.md")).unwrap(), readme);
    assert_eq!(mode(&repo.join("README.md")), 0o640);
    assert_eq!(std::fs::read(repo.join("src/lib.rs")).unwrap(), lib);
    assert!(!repo.join("made.txt").exists());
}

/// Registers the shell tools (no sandbox) on `h`'s agent, keeping at most
/// `budget` bytes outside git; the returned folder holds their logs.
fn with_shell(h: &Harness, budget: Option<u64>) -> tempfile::TempDir {
    use light_agent::tool::builtin::shell::{self, SecretFilter, Shell, ShellConfig};
    let logs = tempfile::tempdir().unwrap();
    let env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(n, _)| n == "PATH" || n == "HOME")
        .collect();
    let shell = Shell::new(ShellConfig {
        sandbox: Default::default(),
        helper: None,
        env,
        secrets: SecretFilter::default(),
        log_dir: logs.path().to_path_buf(),
        snapshot_budget: budget,
    });
    shell::register(h.agent.tool(), &shell).unwrap();
    logs
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_whose_undo_would_be_partial_is_asked_about_and_denied_in_exec() {
    let replies = vec![
        call("c1", "shell", json!({ "command": "printf x > made.txt" })),
        Reply::openai_text("done"),
    ];
    let h = harness(replies).await;
    let _logs = with_shell(&h, Some(8));
    let rules = RuleList::parse(
        &["shell(printf *)".to_string()],
        &[],
        &[],
        &light_agent::permission::RuleSource::CommandLine,
    )
    .unwrap();
    h.agent
        .set_permits(Permits::new(Policy::new(Mode::Auto, rules), None));
    h.agent.prompt("go").await.unwrap();
    let repo = h.dir.path().join("repo");
    assert!(!repo.join("made.txt").exists(), "not run");
    let sent = h.mock.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("undo of this command would be partial"),
        "{sent}"
    );
}

/// The code half of a rewind: every turn from the chosen one on is undone
/// at once, each file back to before the first of them changed it; a file
/// someone else changed since is left alone and named.
#[tokio::test(flavor = "multi_thread")]
async fn restoring_the_code_to_before_a_turn_spans_the_later_turns_and_skips_a_file_changed_since()
{
    let replies = vec![
        call("c1", "write", json!({"path": "a.txt", "content": "one\n"})),
        Reply::openai_text("first"),
        call("c2", "write", json!({"path": "a.txt", "content": "two\n"})),
        call("c3", "write", json!({"path": "b.txt", "content": "bee\n"})),
        Reply::openai_text("second"),
        call(
            "c4",
            "write",
            json!({"path": "a.txt", "content": "three\n"}),
        ),
        call("c5", "write", json!({"path": "c.txt", "content": "sea\n"})),
        Reply::openai_text("third"),
    ];
    let h = harness(replies).await;
    let repo = h.dir.path().join("repo");
    for prompt in ["one", "two", "three"] {
        h.agent.prompt(prompt).await.unwrap();
    }
    std::fs::write(repo.join("b.txt"), "the user's bee\n").unwrap();
    let report = h.agent.undo_from_turn(2).await.unwrap();
    assert_eq!(report.turn, Some(2));
    assert_eq!(report.restored, ["a.txt", "c.txt"]);
    assert_eq!(
        report.skipped,
        [(
            "b.txt".to_string(),
            "changed since by someone else".to_string()
        )]
    );
    assert_eq!(std::fs::read(repo.join("a.txt")).unwrap(), b"one\n");
    assert!(!repo.join("c.txt").exists());
    assert_eq!(
        std::fs::read(repo.join("b.txt")).unwrap(),
        b"the user's bee\n"
    );
    // Those turns are undone: nothing of them is restored twice.
    let again = h.agent.undo_from_turn(2).await.unwrap();
    assert_eq!(again.turn, None);
    let first = h.agent.undo_last_turn().await.unwrap();
    assert_eq!(first.restored, ["a.txt"]);
    assert!(!repo.join("a.txt").exists());
}
