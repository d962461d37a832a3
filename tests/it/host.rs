#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The host as a front end sees it: submissions in, one ordered stream of
//! host events out, against the mock model. A fake front end here is just
//! the event receiver and a few waits.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use light_agent::config::{self, Env, Flags, Paths, Resolution};
use light_agent::host::{FreshHint, Host, HostConfig, McpWait, SessionChoice};
use light_agent::permission::Mode;
use light_agent::protocol::{
    ApprovalDecision, HostEvent, JobUpdate, ModelChoice, NoticeLevel, Op, OpId, StopCause,
    Submission,
};
use light_agent::session::SessionManager;
use serde_json::json;
use support::{MockModel, OpenAiStream, Reply};
use tokio::sync::mpsc::UnboundedReceiver;

/// Longest wait for an event; only a failing test waits this long.
const WAIT: Duration = Duration::from_secs(20);

struct Fixture {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    host: Host,
    events: UnboundedReceiver<HostEvent>,
    /// Everything received so far, in order.
    seen: Vec<HostEvent>,
}

/// A host on a fresh directory whose model is the mock at `url`;
/// `model_missing` starts it as if no model were configured.
async fn start(url: &str, mode: Mode, model_missing: Option<&str>) -> Fixture {
    start_configured(url, mode, model_missing, "").await
}

/// [`start`] with `config_toml` as the user's `config.toml`.
async fn start_configured(
    url: &str,
    mode: Mode,
    model_missing: Option<&str>,
    config_toml: &str,
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.toml"), config_toml).unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/main.rs"), "fn main() {}\n").unwrap();
    let repo = std::fs::canonicalize(&repo).unwrap();
    let paths = Paths::resolve(Some(&home)).unwrap();
    let flags = Flags {
        base_url: Some(url.to_string()),
        model: Some("mock-model".into()),
        ..Flags::default()
    };
    let settings = match config::load(&paths, &Env::new(), &flags, &|_| None).unwrap() {
        Resolution::Ready(settings) => settings,
        Resolution::NoModel { message, .. } => panic!("{message}"),
    };
    let manager = SessionManager::open(&paths.db_file).unwrap();
    let config = HostConfig {
        cwd: repo.clone(),
        paths,
        settings,
        model_missing: model_missing.map(str::to_string),
        choice: SessionChoice::New,
        session: None,
        offer_project_files: true,
        env: Vec::new(),
        default_mode: mode,
        approvals: true,
        fresh_hint: FreshHint::Tui,
        mcp_wait: McpWait::Grace,
        title: None,
        editor: None,
    };
    let (events_tx, events) = tokio::sync::mpsc::unbounded_channel();
    let (host, _stopped) = Host::start(config, manager, events_tx);
    Fixture {
        _dir: dir,
        repo,
        host,
        events,
        seen: Vec::new(),
    }
}

impl Fixture {
    fn submit(&self, id: &str, op: Op) {
        self.host.submit(Submission::new(id, op));
    }

    fn prompt(&self, id: &str, text: &str) {
        let op = Op::Prompt {
            text: text.into(),
            parts: Vec::new(),
        };
        self.submit(id, op);
    }

    /// Receives events until one matches; returns it.
    async fn until(&mut self, wanted: impl Fn(&HostEvent) -> bool) -> HostEvent {
        loop {
            let event = tokio::time::timeout(WAIT, self.events.recv())
                .await
                .unwrap_or_else(|_| panic!("no such event; saw {:#?}", self.seen))
                .expect("the host stopped");
            self.seen.push(event.clone());
            if wanted(&event) {
                return event;
            }
        }
    }

    /// Sends `texts` one after another as prompts `p1`, `p2`, …, each after
    /// the one before ended.
    async fn turns(&mut self, texts: &[&str]) {
        for (i, text) in texts.iter().enumerate() {
            let id = format!("p{}", i + 1);
            self.prompt(&id, text);
            self.ended(&id).await;
        }
    }

    /// Waits for the end of the job prompt `op` made; returns its cause.
    async fn ended(&mut self, op: &str) -> StopCause {
        let op = OpId::new(op);
        match self
            .until(|e| matches!(e, HostEvent::Job { op: Some(o), update: JobUpdate::Ended { .. } } if *o == op))
            .await
        {
            HostEvent::Job {
                update: JobUpdate::Ended { cause, .. },
                ..
            } => cause,
            _ => unreachable!(),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_submitted_with_an_id_is_answered_by_updates_carrying_it() {
    let mock = MockModel::start([Reply::openai_text("hello")]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    f.prompt("p7", "hi");
    let queued = f
        .until(|e| {
            matches!(
                e,
                HostEvent::Job {
                    update: JobUpdate::Queued { .. },
                    ..
                }
            )
        })
        .await;
    assert!(
        matches!(&queued, HostEvent::Job { op: Some(op), .. } if op.0 == "p7"),
        "{queued:?}"
    );
    assert_eq!(f.ended("p7").await, StopCause::Done);
    let ops: Vec<Option<&OpId>> = f
        .seen
        .iter()
        .filter_map(|e| match e {
            HostEvent::Job { op, .. } => Some(op.as_ref()),
            _ => None,
        })
        .collect();
    assert!(
        ops.iter().all(|op| op.is_some_and(|op| op.0 == "p7")),
        "every update of the prompt's job names it: {ops:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_model_prompts_come_back_and_the_first_usable_model_brings_the_agent() {
    let mock = MockModel::start([Reply::openai_text("now I answer")]).await;
    let mut f = start(
        &mock.openai_base_url(),
        Mode::Ask,
        Some("set OPENAI_API_KEY"),
    )
    .await;
    f.prompt("p1", "anyone?");
    let rejected = f
        .until(|e| matches!(e, HostEvent::PromptRejected { .. }))
        .await;
    match rejected {
        HostEvent::PromptRejected { op, text, reason } => {
            assert_eq!((op.0.as_str(), text.as_str()), ("p1", "anyone?"));
            assert!(reason.contains("set OPENAI_API_KEY"), "{reason}");
        }
        _ => unreachable!(),
    }
    assert_eq!(mock.request_count(), 0);
    let choice = ModelChoice {
        provider: String::new(),
        model: "mock-model".into(),
    };
    f.submit("m1", Op::SetModel { choice });
    f.prompt("p2", "anyone now?");
    assert_eq!(f.ended("p2").await, StopCause::Done);
    assert_eq!(mock.request_count(), 1);
}

/// A reply whose one call edits `src/main.rs` (asked about in `ask` mode).
fn edit_main() -> Reply {
    let args = json!({
        "path": "src/main.rs",
        "edits": [{"old_string": "fn main() {}", "new_string": "fn main() { changed() }"}],
    })
    .to_string();
    OpenAiStream::new()
        .tool_call("call_1", "edit", &[&args])
        .into_reply()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_while_an_approval_waits_ends_the_turn_and_changes_nothing() {
    let mock = MockModel::start([edit_main()]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    f.prompt("p1", "edit it");
    let asked = f
        .until(|e| matches!(e, HostEvent::ApprovalRequested { .. }))
        .await;
    let HostEvent::ApprovalRequested { id, request } = asked else {
        unreachable!()
    };
    assert_eq!(request.tool, "edit");
    f.submit("", Op::Interrupt);
    assert_eq!(f.ended("p1").await, StopCause::User);
    // A late answer to the withdrawn request is ignored.
    f.submit(
        &id.0,
        Op::Approval {
            decision: ApprovalDecision::Approve,
        },
    );
    let main_rs = std::fs::read_to_string(f.repo.join("src/main.rs")).unwrap();
    assert_eq!(main_rs, "fn main() {}\n");
    assert_eq!(mock.request_count(), 1, "the turn asked nothing more");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notification_hook_runs_while_an_approval_waits_and_an_interrupt_kills_its_group() {
    let mock = MockModel::start([edit_main()]).await;
    let config = r#"
[[hooks.Notification]]
matcher = "permission_prompt"
command = "cat > notified.json; sleep 600 & echo $! > notify.pid; wait"
"#;
    let mut f = start_configured(&mock.openai_base_url(), Mode::Ask, None, config).await;
    f.prompt("p1", "edit it");
    f.until(|e| matches!(e, HostEvent::ApprovalRequested { .. }))
        .await;
    let pid = support::bounded::pid_in(&f.repo.join("notify.pid")).await;
    let event: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.repo.join("notified.json")).unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "Notification");
    assert_eq!(event["notification_type"], "permission_prompt");
    assert!(
        event["message"].as_str().unwrap().contains("edit"),
        "{event}"
    );

    f.submit("", Op::Interrupt);
    assert_eq!(f.ended("p1").await, StopCause::User);
    support::bounded::process_gone(&pid).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_kills_a_user_prompt_submit_hook_with_its_group() {
    let mock = MockModel::start([Reply::openai_text("never asked")]).await;
    let config = r#"
[[hooks.UserPromptSubmit]]
command = "sleep 600 & echo $! > prompt.pid; wait"
"#;
    let mut f = start_configured(&mock.openai_base_url(), Mode::Ask, None, config).await;
    f.prompt("p1", "hello");
    let pid = support::bounded::pid_in(&f.repo.join("prompt.pid")).await;
    f.submit("", Op::Interrupt);
    assert_eq!(f.ended("p1").await, StopCause::User);
    support::bounded::process_gone(&pid).await;
    assert_eq!(
        mock.request_count(),
        0,
        "the interrupted turn asked the model"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pre_compact_hook_runs_before_a_manual_compaction() {
    let mock = MockModel::start(Vec::<Reply>::new()).await;
    let config = r#"
[[hooks.PreCompact]]
matcher = "manual"
command = "cat > compact.json"
"#;
    let mut f = start_configured(&mock.openai_base_url(), Mode::Ask, None, config).await;
    f.submit("c1", Op::Compact);
    f.ended("c1").await;
    let event: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.repo.join("compact.json")).unwrap()).unwrap();
    assert_eq!(event["hook_event_name"], "PreCompact");
    assert_eq!(event["trigger"], "manual");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_switch_mid_queue_applies_to_the_prompts_after_it() {
    let slow = OpenAiStream::new()
        .text("one two three four five six")
        .into_reply()
        .chunk_every(4)
        .chunk_delay(Duration::from_millis(100));
    let mock = MockModel::start([slow, Reply::openai_text("second")]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    f.prompt("p1", "first");
    // The first prompt streams: the second queues behind it, and the
    // switch goes ahead of what is queued.
    f.until(|e| matches!(e, HostEvent::Agent { event } if event.kind() == "output_delta"))
        .await;
    f.prompt("p2", "second");
    let choice = ModelChoice {
        provider: String::new(),
        model: "other-model".into(),
    };
    f.submit("m", Op::SetModel { choice });
    assert_eq!(f.ended("p1").await, StopCause::Done);
    assert_eq!(f.ended("p2").await, StopCause::Done);
    let requests = mock.requests();
    assert_eq!(requests[0].body["model"], "mock-model");
    assert_eq!(requests[1].body["model"], "other-model");
    assert!(f.seen.iter().any(|e| matches!(
        e,
        HostEvent::Notice { notice: light_agent::protocol::Notice::Message { level: NoticeLevel::Info, text }, .. }
            if text.contains("other-model")
    )));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_server_accepted_mid_session_joins_the_next_request() {
    let mock = MockModel::start([Reply::openai_text("before"), Reply::openai_text("after")]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    std::fs::write(
        f.repo.join(".mcp.json"),
        support::mcp_server::project_file(),
    )
    .unwrap();
    f.prompt("p1", "before");
    assert_eq!(f.ended("p1").await, StopCause::Done);
    f.submit("d", Op::DecideProjectMcp { accept: true });
    f.until(|e| {
        matches!(
            e,
            HostEvent::Notice { notice: light_agent::protocol::Notice::Message { text, .. }, .. }
                if text.contains("accepted") && text.contains("proj")
        )
    })
    .await;
    f.prompt("p2", "after");
    assert_eq!(f.ended("p2").await, StopCause::Done);
    let tools = |i: usize| mock.requests()[i].body["tools"].to_string();
    assert!(!tools(0).contains("mcp__proj__"), "{}", tools(0));
    assert!(tools(1).contains("mcp__proj__"), "{}", tools(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_name_never_spells_a_path_and_the_users_own_shell_lines_need_no_acceptance() {
    let mock = MockModel::start([Reply::openai_text("stamped")]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    // What `.claude/commands/../x.md` would reach.
    std::fs::create_dir_all(f.repo.join(".claude/commands")).unwrap();
    std::fs::write(f.repo.join(".claude/x.md"), "DOTDOT-BYTES").unwrap();
    let run = |name: &str, args: &str| Op::RunCommand {
        name: name.into(),
        args: args.into(),
    };
    f.submit("c1", run("../x", ""));
    let rejected = f
        .until(|e| matches!(e, HostEvent::PromptRejected { .. }))
        .await;
    let HostEvent::PromptRejected { op, text, reason } = rejected else {
        unreachable!()
    };
    assert_eq!((op.0.as_str(), text.as_str()), ("c1", "/../x"));
    assert!(reason.starts_with("unknown command /../x"), "{reason}");

    let user_dir = f._dir.path().join("home/commands");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::write(user_dir.join("stamp.md"), "Stamp: !`echo USER-$1`\n").unwrap();
    f.submit("c2", run("stamp", "STAMP"));
    assert_eq!(f.ended("c2").await, StopCause::Done);
    let sent = mock.requests()[0].body.to_string();
    assert!(sent.contains("Stamp: USER-STAMP"), "{sent}");
    assert!(!sent.contains("DOTDOT-BYTES"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn review_finds_nothing_to_send_outside_a_repository_without_changes_or_with_a_bad_base() {
    use light_agent::host::commands::review::changes;
    use support::child_env::git;
    let dir = tempfile::tempdir().unwrap();
    let no_repo = changes(dir.path(), None).await.unwrap_err();
    assert!(
        no_repo.contains("is not inside a git work tree"),
        "{no_repo}"
    );
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    git(dir.path(), &["add", "a.txt"]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    assert_eq!(
        changes(dir.path(), None).await.unwrap_err(),
        "no uncommitted changes to review"
    );
    assert_eq!(
        changes(dir.path(), Some("--output=/tmp/x"))
            .await
            .unwrap_err(),
        "`--output=/tmp/x` is not a revision"
    );
    assert_eq!(
        changes(dir.path(), Some("nope")).await.unwrap_err(),
        "`nope` is not a commit in this repository"
    );
    std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    std::fs::write(dir.path().join("new.txt"), "new\n").unwrap();
    let found = changes(dir.path(), None).await.unwrap();
    assert!(found.diff.contains("-one\n+two\n"), "{}", found.diff);
    assert_eq!(found.untracked, ["new.txt"]);
    assert_eq!(
        changes(dir.path(), Some("HEAD")).await.unwrap().base,
        "HEAD"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_stops_a_commands_shell_lines_and_nothing_is_sent() {
    let mock = MockModel::start([Reply::openai_text("unused")]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    let user_dir = f._dir.path().join("home/commands");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::write(user_dir.join("slow.md"), "Slow: !`sleep 600`\n").unwrap();
    f.submit(
        "c1",
        Op::RunCommand {
            name: "slow".into(),
            args: String::new(),
        },
    );
    f.submit("", Op::Interrupt);
    let rejected = f
        .until(|e| matches!(e, HostEvent::PromptRejected { .. }))
        .await;
    let HostEvent::PromptRejected { op, reason, .. } = rejected else {
        unreachable!()
    };
    assert_eq!(op.0, "c1");
    assert!(reason.contains("was interrupted"), "{reason}");
    assert!(mock.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ops_answer_in_words_carries_the_ops_id() {
    let mock = MockModel::start([Reply::openai_text("hi")]).await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    f.prompt("p1", "hi");
    assert_eq!(f.ended("p1").await, StopCause::Done);
    let answer_to = |id: &'static str| move |e: &HostEvent| matches!(e, HostEvent::Notice { op: Some(op), .. } if op.0 == id);
    f.submit("mode-1", Op::SetPermissionMode { mode: Mode::Auto });
    f.submit("diff-1", Op::Diff);
    f.submit("undo-1", Op::Undo);
    // Undo and diff answer from their own tasks, in either order.
    for id in ["mode-1", "diff-1", "undo-1"] {
        if !f.seen.iter().any(answer_to(id)) {
            f.until(answer_to(id)).await;
        }
    }
    let Some(HostEvent::Notice { notice, .. }) = f.seen.iter().find(|e| answer_to("mode-1")(e))
    else {
        unreachable!()
    };
    assert!(
        format!("{notice:?}").contains("permission mode: auto"),
        "{notice:?}"
    );
}

/// The id of the session the latest [`HostEvent::SessionOpened`] opened.
fn opened_id(event: &HostEvent) -> Option<String> {
    match event {
        HostEvent::SessionOpened { header, .. } => Some(header.id.clone()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rewound_conversation_stays_rewound_for_the_next_request_and_after_a_resume() {
    use light_agent::protocol::PromptRow;
    let mock = MockModel::start([
        Reply::openai_text("Reply-one"),
        Reply::openai_text("Reply-two"),
        Reply::openai_text("Reply-three"),
        Reply::openai_text("Reply-four"),
    ])
    .await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    f.turns(&["prompt-one", "prompt-two"]).await;
    f.submit("l1", Op::ListPrompts);
    let listed = f.until(|e| matches!(e, HostEvent::Prompts { .. })).await;
    let HostEvent::Prompts { op, prompts } = listed else {
        unreachable!()
    };
    assert_eq!(op, OpId::new("l1"));
    let turns: Vec<(u64, &str)> = prompts
        .iter()
        .map(|p: &PromptRow| (p.turn, p.text.as_str()))
        .collect();
    assert_eq!(turns, [(2, "prompt-two"), (1, "prompt-one")]);

    f.submit(
        "r1",
        Op::Rewind {
            to_turn: 2,
            conversation: true,
            code: false,
        },
    );
    let reopened = f.until(|e| opened_id(e).is_some()).await;
    let HostEvent::SessionOpened { header, recent } = &reopened else {
        unreachable!()
    };
    let id = header.id.clone();
    let shown = serde_json::to_string(recent).unwrap();
    assert!(
        shown.contains("prompt-one") && !shown.contains("prompt-two"),
        "{shown}"
    );
    let rewound = f.until(|e| matches!(e, HostEvent::Rewound { .. })).await;
    let HostEvent::Rewound { op, outcome } = rewound else {
        unreachable!()
    };
    assert_eq!(op, OpId::new("r1"));
    assert_eq!((outcome.turn, outcome.prompt.as_str()), (2, "prompt-two"));
    assert!(outcome.conversation && !outcome.code);

    let sent = |mock: &MockModel| mock.requests().last().unwrap().body.to_string();
    f.prompt("p3", "prompt-three");
    f.ended("p3").await;
    let body = sent(&mock);
    assert!(
        body.contains("Reply-one") && !body.contains("Reply-two"),
        "{body}"
    );

    // A fresh agent on the session (a resume) reads the rewound history too.
    f.submit("n", Op::NewSession);
    f.until(|e| opened_id(e).is_some_and(|o| o != id)).await;
    f.submit(
        "r",
        Op::Resume {
            session: id.clone(),
        },
    );
    f.until(|e| opened_id(e).as_deref() == Some(id.as_str()))
        .await;
    f.prompt("p4", "prompt-four");
    f.ended("p4").await;
    let body = sent(&mock);
    for kept in ["prompt-one", "Reply-one", "prompt-three", "Reply-three"] {
        assert!(body.contains(kept), "{kept} missing: {body}");
    }
    assert!(
        !body.contains("prompt-two") && !body.contains("Reply-two"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn after_a_rewind_the_pinned_plan_is_the_one_set_before_it() {
    let plan = |step: &str| {
        OpenAiStream::new()
            .tool_call(
                "call_plan",
                "update_plan",
                &[&json!({"plan": [{"step": step, "status": "in_progress"}]}).to_string()],
            )
            .into_reply()
    };
    let mock = MockModel::start([
        plan("first-step"),
        Reply::openai_text("one"),
        plan("second-step"),
        Reply::openai_text("two"),
    ])
    .await;
    let mut f = start(&mock.openai_base_url(), Mode::Ask, None).await;
    f.turns(&["prompt-one", "prompt-two"]).await;
    let steps = |e: &HostEvent| match e {
        HostEvent::Plan { plan } => Some(plan.plan.iter().map(|s| s.step.clone()).collect()),
        _ => None::<Vec<String>>,
    };
    assert_eq!(
        f.seen.iter().rev().find_map(steps).unwrap(),
        ["second-step"]
    );
    let rewind = Op::Rewind {
        to_turn: 2,
        conversation: true,
        code: false,
    };
    f.submit("r1", rewind);
    f.until(|e| matches!(e, HostEvent::Rewound { .. })).await;
    let reopened = f.seen.iter().rposition(|e| opened_id(e).is_some()).unwrap();
    let after: Vec<Vec<String>> = f.seen[reopened..].iter().filter_map(steps).collect();
    assert_eq!(after.last().unwrap(), &["first-step"], "{after:?}");
}
