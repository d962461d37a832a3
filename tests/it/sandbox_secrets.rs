#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue #23.1: a sandboxed command reads nothing on the deny list (the
//! user's keys and credentials, light-agent's own database), toolchains
//! under the home directory keep working, `[sandbox] deny_read` extends the
//! list, and the file tools refuse the same paths.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use light_agent::sandbox::{DeniedReads, SandboxPolicy};
use light_agent::tool::fs::Root;
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use serde_json::json;
use support::shell_harness::ShellHarness;
use tokio_util::sync::CancellationToken;

/// A fake home directory with secrets (each file holds a marker naming it)
/// and one ordinary file.
fn fake_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (rel, text) in [
        (".ssh/id_ed25519", "MARKER-SSH-PRIVATE-KEY"),
        (".aws/credentials", "MARKER-AWS-SECRET"),
        (
            ".local/share/light-agent/sessions.sqlite3",
            "MARKER-SESSION-DATABASE",
        ),
        (".config/light-agent/config.toml", "MARKER-CONFIG"),
        (".bash_history", "MARKER-HISTORY"),
        ("team-secrets/token", "MARKER-EXTRA-DENIED"),
        ("notes.txt", "VISIBLE-NOTES"),
        (".config/git/config", "VISIBLE-GIT-CONFIG"),
    ] {
        let path = home.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    home
}

const STEAL: &str = "cat ~/.ssh/id_ed25519 ~/.aws/credentials; \
    cat ~/.local/share/light-agent/sessions.sqlite3 ~/.config/light-agent/config.toml ~/.bash_history; \
    ls ~/.local/share/light-agent; ls ~/.ssh; \
    cat ~/notes.txt ~/.config/git/config";

fn assert_no_secret_listed(content: &str) {
    assert_no_secret(content);
    // `ls` of a denied folder lists nothing (its own error names the folder).
    assert!(!content.contains("id_ed25519\n"), "{content}");
    assert!(!content.contains("\nsessions.sqlite3"), "{content}");
}

fn assert_no_secret(content: &str) {
    for marker in [
        "MARKER-SSH",
        "MARKER-AWS",
        "MARKER-SESSION",
        "MARKER-CONFIG",
        "MARKER-HISTORY",
    ] {
        assert!(!content.contains(marker), "{marker} leaked:\n{content}");
    }
}

#[tokio::test]
async fn a_sandboxed_command_cannot_read_keys_credentials_or_the_session_database() {
    let home = fake_home();
    let h = ShellHarness::with_home(SandboxPolicy::default(), home.path());
    let out = h.sh(STEAL).await;
    assert_no_secret_listed(&out.content);
    // EACCES, not "no such file": the files are there and refused.
    assert!(out.content.contains("Permission denied"), "{}", out.content);
    // The rest of the home directory is as readable as before.
    assert!(out.content.contains("VISIBLE-NOTES"), "{}", out.content);
    assert!(
        out.content.contains("VISIBLE-GIT-CONFIG"),
        "{}",
        out.content
    );
    // Reached another way (a symlink in the project, `..` from inside).
    let link = h.work.path().join("key");
    std::os::unix::fs::symlink(home.path().join(".ssh/id_ed25519"), &link).unwrap();
    let out = h.sh("cat key; cat ~/.ssh/../.ssh/id_ed25519").await;
    assert_no_secret(&out.content);
}

#[test]
fn without_the_sandbox_the_same_command_reads_them() {
    // Proves the test above measures the sandbox, not the fixture.
    let home = fake_home();
    let plain = std::process::Command::new("bash")
        .args(["-c", STEAL])
        .env("HOME", home.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&plain.stdout);
    assert!(out.contains("MARKER-SSH-PRIVATE-KEY"), "{out}");
    assert!(out.contains("MARKER-SESSION-DATABASE"), "{out}");
}

#[tokio::test]
async fn deny_read_extends_the_list_with_home_and_absolute_paths() {
    let home = fake_home();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("vault"), "MARKER-ABSOLUTE").unwrap();
    std::fs::write(elsewhere.path().join("open"), "VISIBLE-BESIDE").unwrap();
    let policy = SandboxPolicy {
        deny_read: vec![
            "~/team-secrets".into(),
            elsewhere.path().join("vault").display().to_string(),
        ],
        ..SandboxPolicy::default()
    };
    let h = ShellHarness::with_home(policy, home.path());
    let out = h
        .sh(&format!(
            "cat ~/team-secrets/token {0}/vault {0}/open",
            elsewhere.path().display()
        ))
        .await;
    assert!(
        !out.content.contains("MARKER-EXTRA-DENIED"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("MARKER-ABSOLUTE"), "{}", out.content);
    assert!(out.content.contains("VISIBLE-BESIDE"), "{}", out.content);
    // Without the extension the same files are readable.
    let h = ShellHarness::with_home(SandboxPolicy::default(), home.path());
    let out = h.sh("cat ~/team-secrets/token").await;
    assert!(
        out.content.contains("MARKER-EXTRA-DENIED"),
        "{}",
        out.content
    );
}

/// Runs `command` in the default sandbox with the real home directory when
/// `program` is installed; `None` (and a note) when it is not.
async fn with_toolchain(program: &str, command: &str) -> Option<ToolOutput> {
    let found = std::process::Command::new("bash")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: {program} is not installed here");
        return None;
    }
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    Some(h.sh(command).await)
}

#[tokio::test]
async fn git_works_in_the_sandbox() {
    let Some(out) = with_toolchain(
        "git",
        "git init -q repo && cd repo && echo x > f && git add f && \
         git -c user.name=t -c user.email=t@example.com commit -qm first && git log --oneline | wc -l",
    )
    .await
    else {
        return;
    };
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains('1'), "{}", out.content);
}

#[tokio::test]
async fn python3_works_in_the_sandbox() {
    let Some(out) = with_toolchain(
        "python3",
        "python3 -c 'import json, sys; print(json.dumps({\"major\": sys.version_info[0]}))'",
    )
    .await
    else {
        return;
    };
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("{\"major\": 3}"), "{}", out.content);
}

#[tokio::test]
async fn cargo_builds_in_the_sandbox() {
    let Some(out) = with_toolchain(
        "cargo",
        "cargo new -q --vcs none hello && cd hello && cargo build -q --offline && ./target/debug/hello",
    )
    .await
    else {
        return;
    };
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("Hello, world!"), "{}", out.content);
}

#[tokio::test]
async fn npm_works_in_the_sandbox() {
    let Some(out) = with_toolchain(
        "npm",
        "mkdir pkg && cd pkg && npm init -y >/dev/null && node -e 'console.log(require(\"./package.json\").version)' && npm --version",
    )
    .await
    else {
        return;
    };
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("1.0.0"), "{}", out.content);
}

async fn read_file(ctx: ToolContext, path: &str) -> ToolOutput {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    registry
        .execute("read_file", json!({ "path": path, "_intent": "test" }), ctx)
        .await
}

#[tokio::test]
async fn file_tools_refuse_denied_paths_reached_from_an_allowed_root() {
    let home = fake_home();
    std::os::unix::fs::symlink(".ssh/id_ed25519", home.path().join("innocent")).unwrap();
    let denied = Arc::new(DeniedReads::resolve(
        Some(home.path()),
        &["~/team-secrets".into()],
    ));
    let root = Root::open(home.path()).unwrap().denying(denied);
    let ctx = || ToolContext::with_root(root.clone(), CancellationToken::new());
    let absolute = home.path().join(".ssh/id_ed25519").display().to_string();
    for path in [
        ".ssh/id_ed25519",
        absolute.as_str(),
        "innocent",
        ".aws/credentials",
        ".local/share/light-agent/sessions.sqlite3",
    ] {
        let out = read_file(ctx(), path).await;
        assert!(out.is_error, "{path}: {}", out.content);
        assert!(
            out.content.contains("path_denied"),
            "{path}: {}",
            out.content
        );
        assert_no_secret(&out.content);
    }
    let out = read_file(ctx(), "notes.txt").await;
    assert!(out.content.contains("VISIBLE-NOTES"), "{}", out.content);
    // A search over the whole root does not look inside denied folders.
    let grep = |ctx: ToolContext| async move {
        let registry = ToolRegistry::new();
        builtin::register_all(&registry).unwrap();
        let args = json!({ "search_strs": ["MARKER", "VISIBLE"], "_intent": "test" });
        registry.execute("grep", args, ctx).await
    };
    let out = grep(ctx()).await;
    assert!(!out.content.contains("MARKER-EXTRA"), "{}", out.content);
    assert!(out.content.contains("VISIBLE-NOTES"), "{}", out.content);
    // The same root without the list reads them (the refusal is the list's).
    let open = || ToolContext::new(home.path(), CancellationToken::new()).unwrap();
    let out = read_file(open(), ".ssh/id_ed25519").await;
    assert!(out.content.contains("MARKER-SSH"), "{}", out.content);
    let out = grep(open()).await;
    assert!(out.content.contains("MARKER-EXTRA"), "{}", out.content);
}

#[test]
fn the_deny_list_is_shown_with_the_permissions() {
    use light_agent::permission::{Mode, Permits, Policy, RuleList};
    let denied = DeniedReads::resolve(Some(Path::new("/home/u")), &["/srv/keys".into()]);
    let permits = Permits::new(Policy::new(Mode::Auto, RuleList::default()), None)
        .with_read_denied(denied.paths().to_vec());
    let text = permits.describe();
    assert!(text.contains("deny  read /home/u/.ssh, "), "{text}");
    assert!(text.contains("/srv/keys"), "{text}");
}
