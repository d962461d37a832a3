#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Landlock sandbox on this machine: writes confined to the working
//! directory and `$TMPDIR`, reads everywhere, TCP only with `network`,
//! no signals out of the sandbox, and an honest report when it is missing.

mod support;

use light_agent::sandbox::{SandboxMode, SandboxPolicy, SandboxState};
use support::shell_harness::{ShellHarness, exists};

#[tokio::test]
async fn the_sandbox_is_enforced_on_this_machine() {
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    assert!(
        h.shell.sandbox_state().is_enforced(),
        "{:?}",
        h.shell.sandbox_state()
    );
}

#[tokio::test]
async fn a_write_inside_the_directory_works() {
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    let out = h
        .sh("echo hi > inside.txt && mkdir d && echo x > \"$TMPDIR/t\"")
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(h.work.path().join("inside.txt")).unwrap(),
        "hi\n"
    );
    assert!(h.tmp.path().join("t").exists());
}

#[tokio::test]
async fn a_write_outside_fails_with_eacces_and_creates_nothing() {
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");
    let out = h
        .sh(&format!(
            "echo x > {0}; touch {0}; mkdir {1}",
            target.display(),
            outside.path().join("dir").display()
        ))
        .await;
    assert!(out.is_error, "{}", out.content);
    // "Permission denied" is strerror(EACCES).
    assert!(out.content.contains("Permission denied"), "{}", out.content);
    assert!(!exists(&target));
    assert!(!exists(&outside.path().join("dir")));
}

#[tokio::test]
async fn unsandboxed_the_same_write_succeeds() {
    // Proves the test above measures the sandbox, not the file system.
    let h = ShellHarness::unsandboxed();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("written.txt");
    let out = h.sh(&format!("echo x > {}", target.display())).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(exists(&target));
}

#[tokio::test]
async fn read_only_mode_refuses_writes_inside_too() {
    let h = ShellHarness::sandboxed(SandboxPolicy {
        mode: SandboxMode::ReadOnly,
        ..SandboxPolicy::default()
    });
    let out = h.sh("echo hi > inside.txt").await;
    assert!(out.is_error, "{}", out.content);
    assert!(!exists(&h.work.path().join("inside.txt")));
    let out = h.sh("echo fine > /dev/null && echo ok").await;
    assert!(
        !out.is_error && out.content.contains("ok"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn files_everywhere_are_readable() {
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    let out = h.sh("cat /etc/hostname").await;
    assert!(!out.is_error, "{}", out.content);
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    assert!(out.content.contains(hostname.trim()), "{}", out.content);
}

fn connect_script(port: u16) -> String {
    format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
}

#[tokio::test]
async fn tcp_connect_is_refused_without_network() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    let out = h.sh(&connect_script(port)).await;
    assert!(out.is_error, "{}", out.content);
    assert!(!out.content.contains("connected\n"), "{}", out.content);
}

#[tokio::test]
async fn tcp_connect_works_with_network() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let h = ShellHarness::sandboxed(SandboxPolicy {
        network: true,
        ..SandboxPolicy::default()
    });
    let out = h.sh(&connect_script(port)).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("connected"), "{}", out.content);
}

#[tokio::test]
async fn signals_to_the_agent_are_refused_from_inside() {
    let agent = std::process::id();
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    let out = h.sh(&format!("kill -0 {agent}")).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("Operation not permitted"),
        "{}",
        out.content
    );
    // Without the sandbox the same probe succeeds: the refusal is Landlock's.
    let open = ShellHarness::unsandboxed();
    let out = open.sh(&format!("kill -0 {agent}")).await;
    assert!(!out.is_error, "{}", out.content);
}

#[tokio::test]
async fn forced_unavailable_is_reported_not_hidden() {
    let h = ShellHarness::sandboxed(SandboxPolicy {
        simulate_unavailable: true,
        ..SandboxPolicy::default()
    });
    assert!(
        matches!(h.shell.sandbox_state(), SandboxState::Unavailable { .. }),
        "{:?}",
        h.shell.sandbox_state()
    );
    let out = h.sh("echo ran").await;
    assert!(out.content.contains("NOT sandboxed"), "{}", out.content);
}
