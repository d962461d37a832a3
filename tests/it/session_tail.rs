#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Reading a long log in bounded pieces: the tail a resume loads (whole
//! steps, back to the summary's boundary or a byte budget), pages of the
//! whole log, and the tool-call index.

use light_agent::protocol::{AgentEvent, InputSource, Meta, StopCause, ToolCall, ToolOutcome};
use light_agent::session::{AgentSession, CallQuery, SessionManager};
use serde_json::json;

/// A turn of five events: input and a grep call in step 1, an answer in step 2.
fn turn(turn: u64) -> Vec<AgentEvent> {
    let m = Meta::new(turn, 1);
    let id = format!("call_{turn}");
    vec![
        AgentEvent::Input {
            images: Vec::new(),
            text: format!("question {turn}"),
            source: InputSource::User,
            meta: m,
        },
        AgentEvent::ToolCalls {
            calls: vec![ToolCall {
                id: id.clone(),
                name: if turn.is_multiple_of(2) {
                    "grep"
                } else {
                    "read_file"
                }
                .into(),
                args: json!({ "path": format!("src/m{}.rs", turn % 5), "_intent": format!("look at part {turn}") }),
            }],
            meta: m,
        },
        AgentEvent::ToolResult {
            outcome: ToolOutcome {
                id,
                name: "grep".into(),
                result: "r".repeat(100),
                is_error: turn.is_multiple_of(7),
                display: None,
            },
            meta: m,
        },
        AgentEvent::Output {
            text: format!("answer {turn}"),
            meta: Meta::new(turn, 2),
        },
        AgentEvent::AgentStop {
            cause: StopCause::Done,
            message: String::new(),
            meta: Meta::new(turn, 2),
        },
    ]
}

async fn session_with(turns: u64) -> (tempfile::TempDir, AgentSession) {
    let dir = tempfile::tempdir().unwrap();
    let manager = SessionManager::open(&dir.path().join("s.db")).unwrap();
    let session = manager.create(dir.path(), None).await.unwrap();
    for t in 1..=turns {
        for event in turn(t) {
            session.append(&event).await.unwrap();
        }
    }
    (dir, session)
}

#[tokio::test]
async fn the_tail_is_whole_steps_within_the_budget_and_names_what_it_left_out() {
    let (_dir, session) = session_with(40).await;
    let all = session.load_all().await.unwrap();
    let recent = session.load_recent(3_000).await.unwrap();
    assert_eq!(recent.summary, None);
    let skipped = recent
        .skipped_through
        .expect("40 turns are more than 3 000 bytes");
    let first = recent.events[0].meta();
    assert!(skipped < first, "{skipped:?} < {first:?}");
    assert!(
        matches!(recent.events[0], AgentEvent::Input { .. }),
        "a step starts the tail, not a result: {:?}",
        recent.events[0]
    );
    assert_eq!(
        recent.events[..],
        all[all.len() - recent.events.len()..],
        "the tail is the end of the log, in order"
    );
    let bytes: usize = recent
        .events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap().len())
        .sum();
    assert!(bytes <= 3_000, "{bytes}");

    // A budget larger than the log returns all of it, with nothing skipped.
    let everything = session.load_recent(10_000_000).await.unwrap();
    assert_eq!(everything.events, all);
    assert_eq!(everything.skipped_through, None);
}

#[tokio::test]
async fn the_tail_stops_at_the_latest_summary_boundary() {
    let (_dir, session) = session_with(10).await;
    let summary = AgentEvent::AgentSummary {
        text: "note".into(),
        covers_through: Meta::new(8, 2),
        meta: Meta::new(10, 3),
    };
    session.append(&summary).await.unwrap();
    for event in turn(11) {
        session.append(&event).await.unwrap();
    }
    let recent = session.load_recent(10_000_000).await.unwrap();
    assert_eq!(recent.summary, Some(summary));
    assert_eq!(recent.skipped_through, None);
    let turns: Vec<u64> = recent.events.iter().map(|e| e.meta().turn).collect();
    assert_eq!(
        turns,
        [9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11]
    );
}

#[tokio::test]
async fn pages_of_the_log_concatenate_to_the_whole_log() {
    let (_dir, session) = session_with(130).await;
    let mut after = 0;
    let mut paged = Vec::new();
    let mut pages = 0;
    loop {
        let page = session.events_after(after, 256, usize::MAX).await.unwrap();
        let Some((last, _)) = page.last() else { break };
        assert!(page.len() <= 256);
        after = *last;
        pages += 1;
        paged.extend(page.into_iter().map(|(_, e)| e));
    }
    assert_eq!(pages, 3);
    assert_eq!(paged, session.load_all().await.unwrap());

    // A byte budget ends a page early (one event at least), and the pages
    // still make the whole log.
    let (mut after, mut paged, mut pages) = (0, Vec::new(), 0);
    loop {
        let page = session.events_after(after, 256, 1).await.unwrap();
        let Some((last, _)) = page.last() else { break };
        assert_eq!(page.len(), 1);
        after = *last;
        pages += 1;
        paged.extend(page.into_iter().map(|(_, e)| e));
    }
    assert_eq!(paged, session.load_all().await.unwrap());
    assert_eq!(pages, paged.len());
}

#[tokio::test]
async fn the_call_index_filters_by_words_tool_and_path_newest_first() {
    let (_dir, session) = session_with(30).await;
    let ids = |page: &light_agent::session::CallPage| -> Vec<String> {
        page.calls.iter().map(|c| c.id.clone()).collect()
    };
    let query = |words: &[&str], tool: Option<&str>, path: Option<&str>| CallQuery {
        words: words.iter().map(|w| w.to_string()).collect(),
        tool: tool.map(str::to_owned),
        path: path.map(str::to_owned),
        offset: 0,
        limit: 100,
    };

    let part_2 = session
        .search_calls(query(&["PART", "2"], None, None))
        .await
        .unwrap();
    assert_eq!(
        ids(&part_2),
        [
            "call_29", "call_28", "call_27", "call_26", "call_25", "call_24", "call_23", "call_22",
            "call_21", "call_20", "call_17", "call_12", "call_7", "call_2"
        ],
        "a word may match the intent, the path (src/m2.rs) or the id"
    );

    let greps_in_m3 = session
        .search_calls(query(&[], Some("grep"), Some("m3")))
        .await
        .unwrap();
    assert_eq!(ids(&greps_in_m3), ["call_28", "call_18", "call_8"]);
    let call = &greps_in_m3.calls[0];
    assert_eq!(call.path.as_deref(), Some("src/m3.rs"));
    assert_eq!(call.intent.as_deref(), Some("look at part 28"));
    assert_eq!(
        (call.turn, call.step, call.result_chars),
        (28, 1, Some(100))
    );
    assert!(call.is_error, "turn 28's result is an error");
    assert!(!greps_in_m3.calls[1].is_error);
    assert!(session_error_of(&session, 14).await);

    let mut paged = query(&[], None, None);
    paged.limit = 7;
    paged.offset = 28;
    let last_page = session.search_calls(paged).await.unwrap();
    assert_eq!(last_page.total, 30);
    assert_eq!(ids(&last_page), ["call_2", "call_1"]);

    let literal = session
        .search_calls(query(&["%"], None, None))
        .await
        .unwrap();
    assert_eq!(literal.total, 0, "LIKE wildcards are taken literally");
}

/// Whether the indexed call of `turn` reports an error result.
async fn session_error_of(session: &AgentSession, turn: u64) -> bool {
    let found = session
        .search_calls(CallQuery {
            words: vec![format!("call_{turn}")],
            limit: 10,
            ..CallQuery::default()
        })
        .await
        .unwrap();
    found
        .calls
        .iter()
        .any(|c| c.id == format!("call_{turn}") && c.is_error)
}
