#![allow(clippy::unwrap_used, clippy::expect_used)]
//! AgentSession: appends, ordering, the summary window, recall, tails,
//! concurrent writers and durability across a killed process.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use light_agent::protocol::{AgentEvent, InputSource, Meta, StopCause, ToolCall, ToolOutcome};
use light_agent::session::{AgentSession, SessionError, SessionManager};

fn input(meta: Meta, text: &str) -> AgentEvent {
    AgentEvent::Input {
        images: Vec::new(),
        text: text.into(),
        source: InputSource::User,
        meta,
    }
}

fn output(meta: Meta, text: &str) -> AgentEvent {
    AgentEvent::Output {
        text: text.into(),
        meta,
    }
}

fn stop(meta: Meta) -> AgentEvent {
    AgentEvent::AgentStop {
        cause: StopCause::Done,
        message: String::new(),
        meta,
    }
}

fn calls(meta: Meta, id: &str) -> AgentEvent {
    AgentEvent::ToolCalls {
        calls: vec![ToolCall {
            id: id.into(),
            name: "grep".into(),
            args: serde_json::json!({"search_strs": ["x"], "_intent": "find x"}),
        }],
        meta,
    }
}

fn result(meta: Meta, id: &str, text: &str) -> AgentEvent {
    AgentEvent::ToolResult {
        outcome: ToolOutcome {
            id: id.into(),
            name: "grep".into(),
            result: text.into(),
            is_error: false,
            display: None,
        },
        meta,
    }
}

fn summary(meta: Meta, covers_through: Meta, text: &str) -> AgentEvent {
    AgentEvent::AgentSummary {
        text: text.into(),
        covers_through,
        meta,
    }
}

fn m(turn: u64, step: u32) -> Meta {
    Meta::new(turn, step)
}

async fn new_session(dir: &Path) -> (SessionManager, AgentSession) {
    let manager = SessionManager::open(&dir.join("sessions.sqlite3")).unwrap();
    let session = manager.create(dir, None).await.unwrap();
    (manager, session)
}

async fn append_all(session: &AgentSession, events: &[AgentEvent]) {
    for event in events {
        session.append(event).await.unwrap();
    }
}

#[tokio::test]
async fn thousand_appends_then_load_all_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, session) = new_session(dir.path()).await;
    let events: Vec<AgentEvent> = (0..1000u64)
        .map(|i| output(m(i / 10 + 1, (i % 10) as u32 + 1), &format!("event {i}")))
        .collect();

    let started = Instant::now();
    append_all(&session, &events).await;
    let elapsed = started.elapsed();
    println!(
        "1000 appends in {:.1} ms: {:.0} appends/s",
        elapsed.as_secs_f64() * 1e3,
        1000.0 / elapsed.as_secs_f64()
    );

    assert_eq!(session.load_all().await.unwrap(), events);
    let info = manager.info(session.id()).await.unwrap();
    assert_eq!((info.events, info.turns), (1000, 100));
    assert_eq!(session.last_turn().await.unwrap(), 100);
    // A fresh manager on the same file reads the same log.
    let reopened = SessionManager::open(manager.db_path())
        .unwrap()
        .open_session(session.id())
        .await
        .unwrap();
    assert_eq!(reopened.load_all().await.unwrap(), events);
}

#[tokio::test]
async fn transient_events_are_rejected_and_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, session) = new_session(dir.path()).await;
    let deltas = [
        AgentEvent::OutputDelta {
            text: "par".into(),
            meta: m(1, 1),
        },
        AgentEvent::ThoughtDelta {
            text: "hm".into(),
            meta: m(1, 1),
        },
    ];
    for delta in &deltas {
        match session.append(delta).await {
            Err(SessionError::Transient(kind)) => assert_eq!(kind, delta.kind()),
            other => panic!("expected Transient, got {other:?}"),
        }
    }
    assert!(session.load_all().await.unwrap().is_empty());
    assert_eq!(manager.info(session.id()).await.unwrap().events, 0);
}

#[tokio::test]
async fn load_without_summary_is_every_event() {
    let dir = tempfile::tempdir().unwrap();
    let (_manager, session) = new_session(dir.path()).await;
    assert!(session.load().await.unwrap().is_empty());
    assert_eq!(session.last_turn().await.unwrap(), 0);
    let events = [input(m(1, 1), "q"), output(m(1, 1), "a"), stop(m(1, 1))];
    append_all(&session, &events).await;
    assert_eq!(session.load().await.unwrap(), events);
}

/// A log with two compactions. Some events sit before a summary in the log
/// but after its boundary (the hot steps kept verbatim).
fn two_summary_log() -> Vec<AgentEvent> {
    vec![
        input(m(1, 1), "turn one"),                               // 0
        calls(m(1, 1), "call_a"),                                 // 1
        result(m(1, 1), "call_a", "old result a"),                // 2
        output(m(1, 2), "answer one"),                            // 3
        stop(m(1, 2)),                                            // 4
        input(m(2, 1), "turn two"),                               // 5
        output(m(2, 1), "answer two"),                            // 6
        summary(m(2, 2), m(1, 2), "first summary"),               // 7
        stop(m(2, 2)),                                            // 8
        input(m(3, 1), "turn three"),                             // 9
        calls(m(3, 1), "call_b"),                                 // 10
        result(m(3, 1), "call_b", "result b"),                    // 11
        output(m(3, 2), "hot step kept verbatim"),                // 12
        summary(m(3, 3), m(3, 1), "second summary, folds first"), // 13
        output(m(3, 3), "after second summary"),                  // 14
        stop(m(3, 3)),                                            // 15
    ]
}

#[tokio::test]
async fn load_after_one_summary_starts_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_manager, session) = new_session(dir.path()).await;
    let log = two_summary_log();
    append_all(&session, &log[..=8]).await;
    let expected = vec![
        log[7].clone(),
        log[5].clone(),
        log[6].clone(),
        log[8].clone(),
    ];
    assert_eq!(session.load().await.unwrap(), expected);
}

#[tokio::test]
async fn load_with_two_summaries_is_latest_summary_then_events_past_its_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let (_manager, session) = new_session(dir.path()).await;
    let log = two_summary_log();
    append_all(&session, &log).await;
    let expected = vec![
        log[13].clone(),
        log[12].clone(),
        log[14].clone(),
        log[15].clone(),
    ];
    assert_eq!(session.load().await.unwrap(), expected);
    // The full log is untouched.
    assert_eq!(session.load_all().await.unwrap(), log);
    assert_eq!(session.last_turn().await.unwrap(), 3);
}

#[tokio::test]
async fn tool_result_reads_the_whole_log_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let (_manager, session) = new_session(dir.path()).await;
    append_all(&session, &two_summary_log()).await;

    // call_a was folded into both summaries; recall still finds it.
    let found = session.tool_result("call_a").await.unwrap().unwrap();
    assert_eq!(found.result, "old result a");
    assert_eq!(found.name, "grep");
    assert!(
        !session
            .load()
            .await
            .unwrap()
            .iter()
            .any(|e| e.tool_call_id() == Some("call_a"))
    );

    // The call id also appears in a tool_calls event; only results count,
    // and the newest result for an id wins.
    session
        .append(&result(m(4, 1), "call_a", "retried result a"))
        .await
        .unwrap();
    let found = session.tool_result("call_a").await.unwrap().unwrap();
    assert_eq!(found.result, "retried result a");

    assert_eq!(session.tool_result("call_missing").await.unwrap(), None);
}

#[tokio::test]
async fn load_tail_returns_the_last_events_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (_manager, session) = new_session(dir.path()).await;
    let log = two_summary_log();
    append_all(&session, &log).await;
    assert_eq!(session.load_tail(3).await.unwrap(), log[13..].to_vec());
    assert!(session.load_tail(0).await.unwrap().is_empty());
    assert_eq!(session.load_tail(10_000).await.unwrap(), log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_handles_appending_concurrently_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.sqlite3");
    // Two managers: two connections on two store threads, contending for
    // SQLite's write lock like two processes would.
    let first = SessionManager::open(&db).unwrap();
    let second = SessionManager::open(&db).unwrap();
    let session_first = first.create(dir.path(), None).await.unwrap();
    let session_second = second.open_session(session_first.id()).await.unwrap();

    const PER_WRITER: usize = 400;
    let writer = |session: AgentSession, label: &'static str| {
        tokio::spawn(async move {
            for i in 0..PER_WRITER {
                session
                    .append(&output(m(1, 1), &format!("{label} {i}")))
                    .await
                    .unwrap();
            }
        })
    };
    let a = writer(session_first.clone(), "a");
    let b = writer(session_second, "b");
    a.await.unwrap();
    b.await.unwrap();

    let third = SessionManager::open(&db).unwrap();
    let log = third
        .open_session(session_first.id())
        .await
        .unwrap()
        .load_all()
        .await
        .unwrap();
    assert_eq!(log.len(), 2 * PER_WRITER);
    let texts: Vec<String> = log
        .iter()
        .map(|e| match e {
            AgentEvent::Output { text, .. } => text.clone(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    for label in ["a", "b"] {
        let own: Vec<&String> = texts
            .iter()
            .filter(|t| t.starts_with(&format!("{label} ")))
            .collect();
        let expected: Vec<String> = (0..PER_WRITER).map(|i| format!("{label} {i}")).collect();
        assert_eq!(own, expected.iter().collect::<Vec<_>>(), "writer {label}");
    }
    let interleaved = texts
        .windows(2)
        .any(|w| w[0].as_bytes()[0] != w[1].as_bytes()[0]);
    println!("writers interleaved: {interleaved}");
    assert_eq!(
        third.info(session_first.id()).await.unwrap().events,
        2 * PER_WRITER as u64
    );
}

const KILL_CHILD_DB: &str = "LIGHT_AGENT_TEST_KILL_CHILD_DB";
const KILL_CHILD_SESSION: &str = "LIGHT_AGENT_TEST_KILL_CHILD_SESSION";

/// Child-process role for `reopen_after_kill_keeps_every_committed_event`;
/// ignored in an ordinary run, started by its parent with `--ignored`.
/// Appends numbered events forever and reports each one once `append` has
/// returned.
#[tokio::test]
#[ignore = "child-process role: run only by `reopen_after_kill_keeps_every_committed_event`"]
async fn child_role_appends_until_killed() {
    let (Ok(db), Ok(id)) = (
        std::env::var(KILL_CHILD_DB),
        std::env::var(KILL_CHILD_SESSION),
    ) else {
        panic!("child role started without its environment");
    };
    let manager = SessionManager::open(Path::new(&db)).unwrap();
    let session = manager.open_session(&id).await.unwrap();
    let mut stdout = std::io::stdout();
    for i in 1u64.. {
        let event = output(m(i, 1), &format!("event {i}"));
        session.append(&event).await.unwrap();
        writeln!(stdout, "committed {i}").unwrap();
        stdout.flush().unwrap();
    }
}

fn spawn_appender(db: &PathBuf, id: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "session_log::child_role_appends_until_killed",
            "--ignored",
            "--nocapture",
        ])
        .env(KILL_CHILD_DB, db)
        .env(KILL_CHILD_SESSION, id)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn reopen_after_kill_keeps_every_committed_event() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.sqlite3");
    let id = {
        let manager = SessionManager::open(&db).unwrap();
        manager
            .create(dir.path(), None)
            .await
            .unwrap()
            .id()
            .to_owned()
    };

    let mut child = spawn_appender(&db, &id);
    let stdout = child.stdout.take().unwrap();
    let (reports, reported) = mpsc::channel::<u64>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("committed ") {
                let _ = reports.send(n.parse().unwrap());
            }
        }
    });

    // Let it get well into its stream, then kill it mid-append.
    let mut highest = 0;
    while highest < 300 {
        highest = reported
            .recv_timeout(Duration::from_secs(60))
            .expect("child stopped reporting commits");
    }
    child.kill().unwrap(); // SIGKILL on Unix: no destructors, no clean close.
    child.wait().unwrap();
    reader.join().unwrap();
    highest = reported.try_iter().fold(highest, u64::max);
    println!("child reported {highest} committed events before SIGKILL");

    let manager = SessionManager::open(&db).unwrap();
    let log = manager
        .open_session(&id)
        .await
        .unwrap()
        .load_all()
        .await
        .unwrap();
    assert!(
        log.len() as u64 >= highest,
        "{} events stored, {highest} reported committed",
        log.len()
    );
    for (i, event) in log.iter().enumerate() {
        let n = i as u64 + 1;
        assert_eq!(event, &output(m(n, 1), &format!("event {n}")), "event {n}");
    }
    // The store still accepts writes after the crash.
    let session = manager.open_session(&id).await.unwrap();
    session.append(&stop(m(highest + 1, 1))).await.unwrap();
    assert_eq!(session.load_all().await.unwrap().len(), log.len() + 1);
}
