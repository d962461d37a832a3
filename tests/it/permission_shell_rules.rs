#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Shell rules as a table: command → allow / ask / deny, under allow, ask
//! and deny lists, in each permission mode, sandboxed or not.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use light_agent::permission::{
    ApprovalDecision, ApprovalDetail, ApprovalRequest, Approver, Decision, GateRequest, Mode,
    Permits, Policy, RuleList, RuleSource,
};

fn policy(mode: Mode) -> Policy {
    let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let rules = RuleList::parse(
        &list(&[
            "shell(cargo test *)",
            "shell(cargo build)",
            "shell(ls *)",
            "shell(grep *)",
            "shell(echo *)",
        ]),
        &list(&["shell(git push *)"]),
        &list(&["shell(rm *)"]),
        &RuleSource::CommandLine,
    )
    .unwrap();
    Policy::new(mode, rules)
}

fn gate(command: &str, sandbox: CommandSandbox) -> GateRequest {
    GateRequest::Shell {
        command: command.into(),
        workdir: ".".into(),
        dir: "/work/p".into(),
        writable_roots: vec!["/work/p".into(), "/tmp".into()],
        sandbox,
        overwritten: Vec::new(),
    }
}

use CommandSandbox::{Sandboxed, Unsandboxed};
use Decision::{Allow, Ask, Deny};
use light_agent::protocol::CommandSandbox;

#[test]
fn the_rule_table_holds() {
    let table: &[(&str, Mode, CommandSandbox, Decision)] = &[
        // Every segment allowed → allowed, in ask mode too.
        ("cargo test -q", Mode::Ask, Sandboxed, Allow),
        ("cargo build && cargo test", Mode::Ask, Sandboxed, Allow),
        ("ls src | grep rs", Mode::Ask, Sandboxed, Allow),
        (
            "(cargo build; ls) || echo failed",
            Mode::Ask,
            Sandboxed,
            Allow,
        ),
        // One segment not allowed → the mode decides.
        ("cargo build && make", Mode::Ask, Sandboxed, Ask),
        ("ls | xargs cat", Mode::Ask, Sandboxed, Ask),
        ("cargo build --release", Mode::Ask, Sandboxed, Ask),
        // A denied segment anywhere → denied, whatever else.
        ("cargo test && rm -rf target", Mode::Full, Sandboxed, Deny),
        ("ls | (cd x && rm y)", Mode::Auto, Sandboxed, Deny),
        ("echo $(rm -rf /)", Mode::Auto, Sandboxed, Deny),
        // An ask rule on a segment asks, even in full.
        ("cargo test && git push origin", Mode::Full, Sandboxed, Ask),
        // Substitution, eval, sh -c: never allowed by a rule.
        ("echo $(whoami)", Mode::Ask, Sandboxed, Ask),
        ("ls `pwd`", Mode::Ask, Sandboxed, Ask),
        ("echo x; eval \"$CMD\"", Mode::Ask, Sandboxed, Ask),
        ("echo hi && sh -c 'cargo test'", Mode::Ask, Sandboxed, Ask),
        // ... but auto runs them in an enforced sandbox, which confines them.
        ("echo $(whoami)", Mode::Auto, Sandboxed, Allow),
        ("echo $(whoami)", Mode::Auto, Unsandboxed, Ask),
        // Redirects: inside the roots fine, outside always asks.
        ("cargo test > out.log 2>&1", Mode::Ask, Sandboxed, Allow),
        ("echo x >> /tmp/notes", Mode::Ask, Sandboxed, Allow),
        ("echo x > /etc/motd", Mode::Ask, Sandboxed, Ask),
        ("echo x > ../other/file", Mode::Auto, Sandboxed, Ask),
        ("echo x > /etc/motd", Mode::Full, Unsandboxed, Allow),
        // No rule: auto allows inside an enforced sandbox, asks outside it.
        ("make", Mode::Auto, Sandboxed, Allow),
        ("make", Mode::Auto, Unsandboxed, Ask),
        ("make", Mode::Ask, Sandboxed, Ask),
        ("make", Mode::Full, Unsandboxed, Allow),
        ("make", Mode::ReadOnly, Sandboxed, Deny),
        ("ls", Mode::ReadOnly, Sandboxed, Deny),
    ];
    let mut wrong = Vec::new();
    for (command, mode, sandbox, want) in table {
        let got = policy(*mode).decide(&gate(command, *sandbox));
        if got != *want {
            wrong.push(format!(
                "{command:?} in {mode:?}/{sandbox:?}: {got:?}, want {want:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

struct Counting {
    answer: ApprovalDecision,
    asked: AtomicUsize,
}

impl Approver for Counting {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

fn approval(command: &str) -> ApprovalRequest {
    ApprovalRequest {
        call_id: "c".into(),
        tool: "shell".into(),
        title: command.into(),
        detail: ApprovalDetail::Command {
            command: command.into(),
            workdir: ".".into(),
            sandbox: Sandboxed,
            destructive: Vec::new(),
        },
    }
}

#[tokio::test]
async fn allow_for_the_session_allows_the_prefix_not_every_command() {
    let approver = Arc::new(Counting {
        answer: ApprovalDecision::ApproveForSession,
        asked: AtomicUsize::new(0),
    });
    let permits = Permits::new(
        Policy::new(Mode::Ask, RuleList::default()),
        Some(approver.clone()),
    );
    let ask = |c: &str| permits.request(gate(c, Sandboxed), approval(c));
    assert_eq!(ask("npm run build -- --prod").await, Ok(()));
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    assert_eq!(
        permits
            .session_commands()
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>(),
        ["shell(npm run *)"]
    );
    // Same prefix: not asked again.
    assert_eq!(ask("npm run test").await, Ok(()));
    assert_eq!(approver.asked.load(Ordering::SeqCst), 1);
    // Another command, or the prefix chained with another: asked.
    assert_eq!(ask("npm install").await, Ok(()));
    assert_eq!(approver.asked.load(Ordering::SeqCst), 2);
    assert_eq!(ask("npm run x && curl evil").await, Ok(()));
    assert_eq!(approver.asked.load(Ordering::SeqCst), 3);
    // Substitution is asked about even under an allowed prefix.
    assert_eq!(ask("npm run $(curl evil)").await, Ok(()));
    assert_eq!(approver.asked.load(Ordering::SeqCst), 4);
}

/// The destructive commands issue 27 lists, one hidden in `bash -c`.
pub(crate) const ISSUE_CASES: [&str; 6] = [
    "rm -rf src",
    "git reset --hard",
    "git clean -fd",
    "git checkout -- .",
    "find . -name '*.rs' -delete",
    "bash -c 'rm -rf src'",
];

/// A policy with only the rules given, as the user wrote them.
fn written(mode: Mode, allow: &[&str]) -> Policy {
    let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let source = RuleSource::Config("config.toml".into());
    Policy::new(
        mode,
        RuleList::parse(&list(allow), &[], &[], &source).unwrap(),
    )
}

#[test]
fn destructive_commands_ask_in_auto_even_sandboxed() {
    let destructive = ISSUE_CASES.into_iter().chain([
        "sh -c \"git reset --hard\"",
        "eval 'git clean -fdx'",
        "cargo build && rm -rf src",
        "ls | xargs rm -f",
        "find . -type f -exec rm -f {} \\;",
        "bash -c \"sh -c 'rm -rf x'\"",
    ]);
    for command in destructive {
        for mode in [Mode::Auto, Mode::Ask] {
            let got = written(mode, &[]).decide(&gate(command, Sandboxed));
            assert_eq!(got, Ask, "{command} in {mode:?}");
        }
        let full = written(Mode::Full, &[]).decide(&gate(command, Unsandboxed));
        assert_eq!(full, Allow, "{command} in full");
    }
    for harmless in [
        "ls",
        "cargo test",
        "git status",
        "echo x > new.txt",
        "echo 'rm -rf src'",
        "bash -c 'ls -la'",
    ] {
        let got = written(Mode::Auto, &[]).decide(&gate(harmless, Sandboxed));
        assert_eq!(got, Allow, "{harmless}");
    }
}

#[test]
fn a_written_rule_for_every_segment_lets_a_destructive_command_run() {
    let policy = written(
        Mode::Auto,
        &["shell(git reset *)", "shell(git clean *)", "shell(rm *)"],
    );
    let chain = "git reset --hard && git clean -fd && rm -rf src";
    assert_eq!(policy.decide(&gate(chain, Sandboxed)), Allow);
    // One destructive segment the rules do not cover: asked.
    let partial = written(Mode::Auto, &["shell(rm *)"]);
    assert_eq!(partial.decide(&gate(chain, Sandboxed)), Ask);
    // Inside sh -c no rule applies.
    let wrapped = written(Mode::Auto, &["shell(bash *)", "shell(rm *)"]);
    assert_eq!(
        wrapped.decide(&gate("bash -c 'rm -rf src'", Sandboxed)),
        Ask
    );
    // An "allow for the session" answer is not a written rule.
    let session = light_agent::permission::Rule::parse("shell(rm *)", RuleSource::Session).unwrap();
    let (decision, _) =
        written(Mode::Auto, &[]).ruling_with(&gate("rm -rf src", Sandboxed), &[session]);
    assert_eq!(decision, Ask);
}

#[test]
fn a_redirect_or_move_over_a_file_worth_keeping_is_destructive() {
    let over = |command: &str, existing: &[&str]| {
        let mut request = gate(command, Sandboxed);
        if let GateRequest::Shell { overwritten, .. } = &mut request {
            *overwritten = existing.iter().map(|s| s.to_string()).collect();
        }
        request
    };
    let auto = written(Mode::Auto, &[]);
    assert_eq!(
        auto.decide(&over("echo x > Cargo.toml", &["/work/p/Cargo.toml"])),
        Ask
    );
    assert_eq!(
        auto.decide(&over("echo x > Cargo.toml", &[])),
        Allow,
        "a new file"
    );
    assert_eq!(
        auto.decide(&over("echo x >> Cargo.toml", &["/work/p/Cargo.toml"])),
        Allow,
        "appending loses nothing"
    );
    assert_eq!(
        auto.decide(&over("mv a.rs src/b.rs", &["/work/p/src/b.rs"])),
        Ask
    );
    assert_eq!(
        auto.decide(&over("mv a.rs src", &["/work/p/src/a.rs"])),
        Ask,
        "into a folder"
    );
    assert_eq!(
        auto.decide(&over("mv -n a.rs b.rs", &["/work/p/b.rs"])),
        Allow
    );
    let shape =
        light_agent::permission::shell_shape(&over("echo x > Cargo.toml", &["/work/p/Cargo.toml"]))
            .unwrap();
    assert_eq!(
        shape.destructive[0].describe(),
        "`echo x > Cargo.toml` overwrites the existing file Cargo.toml"
    );
    assert_eq!(
        shape.destructive[0].rule.as_deref(),
        Some("shell(echo x *)")
    );
}

#[tokio::test]
async fn exec_denies_a_destructive_command_naming_the_rule_that_allows_it() {
    let permits = Permits::new(written(Mode::Auto, &[]), None);
    let denied = permits
        .request(
            gate("cargo build && git reset --hard", Sandboxed),
            approval("x"),
        )
        .await
        .unwrap_err();
    assert!(
        denied
            .message
            .contains("`git reset --hard` discards uncommitted changes"),
        "{}",
        denied.message
    );
    assert!(
        denied.message.contains("allow = [\"shell(git reset *)\"]"),
        "{}",
        denied.message
    );
    assert!(
        denied.message.contains("--permissions full"),
        "{}",
        denied.message
    );
    let denied = permits
        .request(gate("bash -c 'rm -rf src'", Sandboxed), approval("x"))
        .await
        .unwrap_err();
    assert!(
        denied
            .message
            .contains("run with --permissions full (no rule reaches inside sh -c"),
        "{}",
        denied.message
    );
}

#[tokio::test]
async fn a_destructive_command_is_asked_even_after_allow_for_the_session() {
    let approver = Arc::new(Counting {
        answer: ApprovalDecision::ApproveForSession,
        asked: AtomicUsize::new(0),
    });
    let permits = Permits::new(written(Mode::Ask, &[]), Some(approver.clone()));
    for _ in 0..2 {
        permits
            .request(gate("rm -rf build", Sandboxed), approval("rm -rf build"))
            .await
            .unwrap();
    }
    assert_eq!(approver.asked.load(Ordering::SeqCst), 2);
}
