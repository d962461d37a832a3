#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Landlock sandbox on this machine: writes confined to the working
//! directory and `$TMPDIR`, reads everywhere, TCP only with `network`,
//! no signals out of the sandbox, and an honest report when it is missing.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use light_agent::permission::{
    ApprovalDecision, ApprovalDetail, ApprovalRequest, Approver, Mode, Permits, Policy, RuleList,
};
use light_agent::protocol::CommandSandbox as PermitSandbox;
use light_agent::sandbox::{SandboxMode, SandboxPolicy, SandboxState};
use light_agent::tool::builtin::shell::CommandRequest;
use support::shell_harness::{ShellHarness, exists};
use tokio_util::sync::CancellationToken;

/// `Ok` when the probe found the sandbox enforced and a real command ran
/// under exactly what the probe found; else what each said, and the kernel
/// (returned, not panicked, so CI prints it without a backtrace in the way).
async fn enforced_as_probed(h: &ShellHarness) -> Result<(), String> {
    let request = CommandRequest {
        command: "true".into(),
        cwd: h.work.path().to_path_buf(),
        workspace: h.work.path().to_path_buf(),
        timeout: Some(Duration::from_secs(20)),
        unsandboxed: false,
    };
    let ran = h
        .shell
        .run(&request, CancellationToken::new(), None)
        .await
        .map_err(|e| format!("`true` could not be started: {e}"))?;
    let probed = h.shell.sandbox_state();
    if probed == &ran.sandbox && probed.is_enforced() {
        return Ok(());
    }
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    Err(format!(
        "probe found {probed:?}; a command ran under {:?}; kernel {}",
        ran.sandbox,
        kernel.trim()
    ))
}

#[tokio::test]
async fn the_sandbox_is_enforced_on_this_machine_as_the_probe_says() -> Result<(), String> {
    enforced_as_probed(&ShellHarness::sandboxed(SandboxPolicy::default())).await?;
    enforced_as_probed(&ShellHarness::sandboxed(SandboxPolicy {
        network: true,
        ..SandboxPolicy::default()
    }))
    .await
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

/// A command started in a folder of the project may still write beside it
/// (a build's lock file and target at the project's top), not above it.
#[tokio::test]
async fn a_command_in_a_subfolder_writes_anywhere_in_the_directory() {
    let h = ShellHarness::sandboxed(SandboxPolicy::default());
    std::fs::create_dir(h.work.path().join("src")).unwrap();
    let above = h.work.path().parent().unwrap().join(format!(
        "above-{}.txt",
        h.work.path().file_name().unwrap().to_string_lossy()
    ));
    let out = h
        .call(
            "shell",
            serde_json::json!({ "command": "echo lock > ../Cargo.lock", "workdir": "src" }),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(h.work.path().join("Cargo.lock")).unwrap(),
        "lock\n"
    );
    let out = h
        .call(
            "shell",
            serde_json::json!({ "command": format!("echo x > {}", above.display()), "workdir": "src" }),
        )
        .await;
    assert!(out.content.contains("Permission denied"), "{}", out.content);
    assert!(!exists(&above));
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

/// Says yes to everything and keeps what it was asked.
#[derive(Default)]
struct Recording(Mutex<Vec<ApprovalRequest>>);

impl Approver for Recording {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        self.0.lock().unwrap().push(request);
        Box::pin(async { ApprovalDecision::Approve })
    }
}

#[tokio::test]
async fn forced_unavailable_makes_auto_ask_and_says_so() {
    let mut h = ShellHarness::sandboxed(SandboxPolicy {
        simulate_unavailable: true,
        ..SandboxPolicy::default()
    });
    let state = h.shell.sandbox_state().clone();
    assert!(
        matches!(state, SandboxState::Unavailable { .. }),
        "{state:?}"
    );
    assert!(state.to_string().starts_with("NOT sandboxed"), "{state}");
    let approver = Arc::new(Recording::default());
    h.permits = Permits::new(
        Policy::new(Mode::Auto, RuleList::default()),
        Some(approver.clone()),
    );
    let out = h.sh("echo ran").await;
    assert!(out.content.contains("ran"), "{}", out.content);
    assert!(out.content.contains("NOT sandboxed"), "{}", out.content);
    let asked = approver.0.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "auto must ask when the sandbox is missing");
    assert!(matches!(
        &asked[0].detail,
        ApprovalDetail::Command {
            sandbox: PermitSandbox::Unsandboxed,
            ..
        }
    ));
}

#[tokio::test]
async fn an_enforced_sandbox_runs_auto_commands_without_asking() -> Result<(), String> {
    let mut h = ShellHarness::sandboxed(SandboxPolicy::default());
    enforced_as_probed(&h).await?;
    let approver = Arc::new(Recording::default());
    h.permits = Permits::new(
        Policy::new(Mode::Auto, RuleList::default()),
        Some(approver.clone()),
    );
    let out = h.sh("echo ran").await;
    assert!(!out.is_error, "{}", out.content);
    assert!(approver.0.lock().unwrap().is_empty());
    // A redirect out of the sandbox is asked about, even in auto.
    let _ = h.sh("echo x > /etc/light-agent-never").await;
    assert_eq!(approver.0.lock().unwrap().len(), 1);
    Ok(())
}

#[tokio::test]
async fn an_approved_redirect_outside_runs_outside_the_sandbox() {
    let mut h = ShellHarness::sandboxed(SandboxPolicy::default());
    let approver = Arc::new(Recording::default());
    h.permits = Permits::new(
        Policy::new(Mode::Auto, RuleList::default()),
        Some(approver.clone()),
    );
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("approved.txt");
    let out = h.sh(&format!("echo x > {}", target.display())).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(exists(&target));
    assert_eq!(
        approver.0.lock().unwrap().len(),
        1,
        "asked once, before it ran"
    );
}

#[tokio::test]
async fn a_sandbox_refusal_offers_to_run_again_outside() -> Result<(), String> {
    let mut h = ShellHarness::sandboxed(SandboxPolicy::default());
    enforced_as_probed(&h).await?;
    let approver = Arc::new(Recording::default());
    h.permits = Permits::new(
        Policy::new(Mode::Auto, RuleList::default()),
        Some(approver.clone()),
    );
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("touched");
    let out = h.sh(&format!("touch {}", target.display())).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains("run again outside it"),
        "{}",
        out.content
    );
    assert!(exists(&target));
    let asked = approver.0.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].title.starts_with("run again outside the sandbox?"),
        "{}",
        asked[0].title
    );

    // Nobody to ask: the refusal stands, with the hint.
    let mut h = ShellHarness::sandboxed(SandboxPolicy::default());
    h.permits = Permits::new(Policy::new(Mode::Auto, RuleList::default()), None);
    let target = outside.path().join("not-touched");
    let out = h.sh(&format!("touch {}", target.display())).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("the sandbox may have refused this"),
        "{}",
        out.content
    );
    assert!(!exists(&target));
    Ok(())
}

#[tokio::test]
async fn read_only_permissions_deny_commands() {
    let mut h = ShellHarness::sandboxed(SandboxPolicy::default());
    h.permits = Permits::new(Policy::new(Mode::ReadOnly, RuleList::default()), None);
    let out = h.sh("echo x > f").await;
    assert!(out.is_error, "{}", out.content);
    assert!(!exists(&h.work.path().join("f")));
}

#[tokio::test]
async fn loader_warnings_before_the_report_neither_hide_it_nor_are_lost() -> Result<(), String> {
    // ld.so warns on stderr, before the helper's own first line, at every exec.
    let h = ShellHarness::with_env(&[("LD_PRELOAD", "/nonexistent/light-agent-test.so")]);
    enforced_as_probed(&h).await?;
    let out = h.sh("echo fine").await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("fine"), "{}", out.content);
    assert!(out.content.contains("LD_PRELOAD"), "{}", out.content);
    assert!(
        !out.content.contains(light_agent::sandbox::STATUS_PREFIX),
        "{}",
        out.content
    );
    Ok(())
}

#[test]
fn the_helper_reports_inside_a_pid_namespace_whose_session_leader_is_outside() {
    // CI runs in such a namespace: getsid(2) there says 0, and the helper
    // once panicked on it before reporting. `unshare` puts the helper in a
    // new PID namespace; where namespaces are not allowed there is nothing
    // to reproduce.
    let can_unshare = std::process::Command::new("unshare")
        .args(["-rpf", "true"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !can_unshare {
        eprintln!("skipped: this machine does not allow `unshare -rpf`");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("unshare")
        .args(["-rpf", env!("CARGO_BIN_EXE_light-agent-sandbox")])
        .args(SandboxPolicy::default().helper_args(dir.path(), dir.path(), "echo ran"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(SandboxState::find_report(&out.stderr).is_some(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ran\n", "{stderr}");
}

#[test]
fn the_agents_own_binary_is_the_same_helper() {
    // The agent falls back to re-executing itself when the stand-alone
    // helper is not beside it: both must confine and report alike.
    let inside = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let script = format!(
        "echo in > {0}/in.txt; echo out > {1}/out.txt",
        inside.path().display(),
        outside.path().display()
    );
    let policy = SandboxPolicy::default();
    let mut reports = Vec::new();
    for helper in [
        env!("CARGO_BIN_EXE_light-agent-sandbox"),
        env!("CARGO_BIN_EXE_light-agent"),
    ] {
        let out = std::process::Command::new(helper)
            .args(policy.helper_args(inside.path(), inside.path(), &script))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let Some((state, _)) = SandboxState::find_report(&out.stderr) else {
            panic!("{helper} gave no report: {stderr}");
        };
        assert!(stderr.contains("Permission denied"), "{helper}: {stderr}");
        assert!(exists(&inside.path().join("in.txt")), "{helper}");
        assert!(!exists(&outside.path().join("out.txt")), "{helper}");
        std::fs::remove_file(inside.path().join("in.txt")).unwrap();
        reports.push(state);
    }
    assert_eq!(reports[0], reports[1]);
}
