#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Draft sessions (written with their first event), short-id prefixes, the
//! one-UPDATE claim and per-turn token sums.

use light_agent::protocol::{AgentEvent, InputSource, Meta, Usage};
use light_agent::session::{SessionError, SessionManager, SessionStatus, short_id};

fn input(turn: u64, text: &str) -> AgentEvent {
    AgentEvent::Input {
        images: Vec::new(),
        text: text.into(),
        source: InputSource::User,
        meta: Meta::new(turn, 1),
    }
}

fn trace(turn: u64, input: u64, output: u64, cached: Option<u64>) -> AgentEvent {
    AgentEvent::AgentTrace {
        usage: Usage {
            input,
            output,
            total: input + output,
            cached,
        },
        model: "m".into(),
        started_at: 0,
        ended_at: 0,
        meta: Meta::new(turn, 1),
    }
}

fn store() -> (tempfile::TempDir, SessionManager, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let manager = SessionManager::open(&dir.path().join("sessions.sqlite3")).unwrap();
    let repo = repo.canonicalize().unwrap();
    (dir, manager, repo)
}

#[tokio::test]
async fn a_draft_is_written_with_its_first_event_claimed_and_titled() {
    let (_dir, manager, repo) = store();
    let draft = manager.draft(&repo, None).await.unwrap();
    draft.claim().await.unwrap();
    assert!(!draft.is_written());
    assert!(matches!(
        manager.info(draft.id()).await,
        Err(SessionError::NotFound(_))
    ));
    assert!(draft.set_draft_title("fix the parser"));
    draft.release().await.unwrap();
    assert!(
        manager.list(None, 10).await.unwrap().is_empty(),
        "a draft nobody prompted in leaves nothing behind"
    );

    draft.claim().await.unwrap();
    draft.append(&input(1, "fix the parser")).await.unwrap();
    assert!(draft.is_written());
    assert!(!draft.set_draft_title("too late"));
    let info = manager.info(draft.id()).await.unwrap();
    assert_eq!(info.title.as_deref(), Some("fix the parser"));
    assert_eq!(info.cwd, repo);
    assert_eq!(info.status, SessionStatus::Running, "written claimed");
    assert_eq!((info.events, info.turns), (1, 1));
    draft.release().await.unwrap();
    assert_eq!(
        manager.info(draft.id()).await.unwrap().status,
        SessionStatus::Idle
    );
    let latest = manager.open_latest(&repo).await.unwrap().unwrap();
    assert_eq!(latest.id(), draft.id());
}

#[tokio::test]
async fn short_id_prefixes_name_one_session_or_list_the_candidates() {
    let (_dir, manager, repo) = store();
    let mut ids = Vec::new();
    for i in 0..40 {
        let session = manager.create(&repo, Some(format!("s{i}"))).await.unwrap();
        session.append(&input(1, "hi")).await.unwrap();
        ids.push(session.id().to_string());
    }
    let id = &ids[7];
    let short = short_id(id);
    assert_eq!(short.len(), 8);
    assert_eq!(manager.resolve(id).await.unwrap(), *id, "the full id");
    assert_eq!(manager.resolve(short).await.unwrap(), *id, "the short id");
    assert_eq!(
        manager.resolve(&short.to_uppercase()).await.unwrap(),
        *id,
        "case does not matter"
    );
    // The shortest prefix of the short id that no other session shares.
    let unique = (1..=8)
        .map(|n| &short[..n])
        .find(|p| ids.iter().filter(|i| short_id(i).starts_with(p)).count() == 1)
        .unwrap();
    assert_eq!(manager.resolve(unique).await.unwrap(), *id);

    // "sess_" starts every id: ambiguous, with candidates named.
    match manager.resolve("sess_").await {
        Err(SessionError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates.len(), 10, "at most 10 candidates");
            let message = manager.resolve("sess_").await.unwrap_err().to_string();
            assert!(message.contains("give more characters"), "{message}");
            assert!(message.contains(&candidates[0].id), "{message}");
        }
        other => panic!("{other:?}"),
    }
    for missing in ["zzzzzzzz9", "a%", "", "x y"] {
        assert!(
            matches!(
                manager.resolve(missing).await,
                Err(SessionError::NotFound(_))
            ),
            "{missing:?}"
        );
    }
}

#[tokio::test]
async fn claim_is_one_conditional_update_and_its_own_owner_may_repeat_it() {
    let (_dir, manager, repo) = store();
    let session = manager.create(&repo, None).await.unwrap();
    manager.claim(session.id()).await.unwrap();
    manager.claim(session.id()).await.unwrap();
    assert_eq!(
        manager.info(session.id()).await.unwrap().status,
        SessionStatus::Running
    );
    assert!(matches!(
        manager.claim("sess_missing").await,
        Err(SessionError::NotFound(_))
    ));
}

#[tokio::test]
async fn usage_is_summed_per_turn_from_the_traces() {
    let (_dir, manager, repo) = store();
    let session = manager.create(&repo, None).await.unwrap();
    for event in [
        input(1, "a"),
        trace(1, 100, 10, Some(50)),
        trace(1, 200, 20, None),
        input(2, "b"),
        trace(2, 300, 30, Some(7)),
    ] {
        session.append(&event).await.unwrap();
    }
    let turns = session.usage_by_turn().await.unwrap();
    let rows: Vec<_> = turns
        .iter()
        .map(|t| (t.turn, t.input, t.output, t.cached, t.calls))
        .collect();
    assert_eq!(rows, [(1, 300, 30, 50, 2), (2, 300, 30, 7, 1)]);
}
