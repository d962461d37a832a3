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
