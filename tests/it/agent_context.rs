#![allow(clippy::unwrap_used, clippy::expect_used)]
//! What the model sees across steps: compaction into summaries, recall of
//! folded results, context-length recovery, skills.

use crate::support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use light_agent::agent::{Agent, AgentConfig, LoopConfig};
use light_agent::ai::{HttpOptions, OpenAiAdaptor, RetryPolicy};
use light_agent::context::{ContextConfig, PromptSection, skills};
use light_agent::protocol::{AgentEvent, StopCause};
use light_agent::session::{AgentSession, SessionManager};
use light_agent::tool::builtin;
use serde_json::{Value, json};
use support::{MockModel, OpenAiStream, Reply};

fn read_call(id: &str, path: &str, intent: &str, usage_in: u64) -> Reply {
    let args = json!({ "path": path, "_intent": intent }).to_string();
    OpenAiStream::new()
        .tool_call(id, "read_file", &[&args])
        .usage(usage_in, 10)
        .into_reply()
}

fn note(text: &str) -> Reply {
    Reply::json(json!({
        "id": "cmpl", "object": "chat.completion", "model": "mock-model",
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70 },
    }))
}

async fn agent_in(
    repo: &Path,
    db: &Path,
    mock: &MockModel,
    context: ContextConfig,
) -> (Agent, AgentSession) {
    let manager = SessionManager::open(db).unwrap();
    let session = manager.create(repo, None).await.unwrap();
    let adaptor = OpenAiAdaptor::new(
        mock.openai_base_url(),
        None,
        "mock-model",
        HttpOptions::default(),
    )
    .unwrap();
    let agent = Agent::new(AgentConfig {
        cwd: repo.to_path_buf(),
        session: Some(session.clone()),
        adaptor: Arc::new(adaptor),
        context,
        loop_config: LoopConfig {
            max_steps: 20,
            retry: RetryPolicy {
                base_delay: Duration::from_millis(10),
                ..RetryPolicy::default()
            },
        },
    });
    builtin::register_all(agent.tool()).unwrap();
    (agent, session)
}

fn repo_with_big_file(dir: &Path) -> std::path::PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let big: String = (1..=500)
        .map(|i| format!("line {i:04} of the big file\n"))
        .collect();
    std::fs::write(repo.join("big.txt"), big).unwrap();
    std::fs::write(
        repo.join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    std::fs::write(repo.join("src/main.rs"), "fn main() {}\n").unwrap();
    repo
}

fn small_window() -> ContextConfig {
    ContextConfig {
        context_window: 9_000,
        compact_at: 0.5,
        ..ContextConfig::default()
    }
}

fn tool_content(body: &Value, id: &str) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .map(|m| m["content"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no tool message {id} in {body}"))
}

fn stored_result(events: &[AgentEvent], id: &str) -> String {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } if outcome.id == id => {
                Some(outcome.result.clone())
            }
            _ => None,
        })
        .unwrap()
}

/// Every streamed request of `mock` fits `window` tokens (four bytes a
/// token, the whole body counted).
fn assert_all_fit(mock: &MockModel, window: usize) {
    for (index, request) in mock.requests().iter().enumerate() {
        let bytes = request.body.to_string().len();
        assert!(
            bytes <= window * 4,
            "request {index}: {bytes} bytes is over a {window}-token window"
        );
    }
}

#[tokio::test]
async fn crossing_compact_at_summarises_and_folded_results_stay_recallable() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_big_file(dir.path());
    // Numbered, so it is long text and not a loop the agent would stop.
    let thinking_aloud: String = (0..560)
        .map(|i| format!("I will look at main {i:03}. "))
        .collect();
    let args = json!({ "path": "src/main.rs", "_intent": "read main" }).to_string();
    let mock = MockModel::start([
        // Turn 1.
        read_call("c1", "big.txt", "read the big file", 100),
        read_call("c2", "src/lib.rs", "read lib", 200),
        // A long answer text is never indexed: with it the cold part crosses compact_at.
        OpenAiStream::new()
            .text(&thinking_aloud)
            .tool_call("c3", "read_file", &[&args])
            .usage(300, 10)
            .into_reply(),
        note("<historyNote>first note</historyNote>"),
        OpenAiStream::new()
            .text("turn one done")
            .usage(300, 5)
            .into_reply(),
        // Turn 2.
        note("<historyNote>second note</historyNote>"),
        OpenAiStream::new()
            .tool_call(
                "c_recall",
                "recall_indexed",
                &[r#"{"id":"c1","_intent":"need the first read"}"#],
            )
            .usage(400, 5)
            .into_reply(),
        OpenAiStream::new()
            .text("all done")
            .usage(500, 5)
            .into_reply(),
    ])
    .await;
    let (agent, session) =
        agent_in(&repo, &dir.path().join("db.sqlite3"), &mock, small_window()).await;

    assert_eq!(
        agent.prompt("read things").await.unwrap().cause,
        StopCause::Done
    );
    assert_eq!(
        agent.prompt("continue").await.unwrap().cause,
        StopCause::Done
    );

    let requests = mock.requests();
    assert_eq!(requests.len(), 8);
    assert_all_fit(&mock, 9_000);
    let first_summary = &requests[3].body;
    assert!(
        first_summary.get("stream").is_none_or(|s| s == false),
        "summaries are not streamed"
    );
    let first_summary = first_summary.to_string();
    assert!(
        first_summary.contains("toolCall id=\\\"c1\\\""),
        "{first_summary}"
    );
    assert!(!first_summary.contains("previousHistoryNote"));

    let second_summary = requests[5].body.to_string();
    assert!(
        second_summary.contains("<previousHistoryNote>") && second_summary.contains("first note"),
        "{second_summary}"
    );

    // After the second summary: the note first, no folded bodies, log order.
    let after = &requests[6].body;
    let messages = after["messages"].as_array().unwrap();
    let texts: Vec<String> = messages.iter().map(|m| m.to_string()).collect();
    let note_at = texts
        .iter()
        .position(|t| t.contains("second note"))
        .unwrap();
    assert!(
        note_at <= 1,
        "the summary comes right after the system prompt: {texts:?}"
    );
    assert!(
        texts[note_at].contains("id=c1") && texts[note_at].contains("id=c2"),
        "folded calls are listed: {}",
        texts[note_at]
    );
    assert!(!after.to_string().contains("first note"));
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("read lib") && t.contains("tool_call_id")),
        "folded results are gone"
    );
    let continue_at = texts.iter().position(|t| t.contains("continue")).unwrap();
    let done_at = texts
        .iter()
        .position(|t| t.contains("turn one done"))
        .unwrap();
    assert!(done_at < continue_at, "log order");
    assert!(
        !after.to_string().contains("pub fn answer"),
        "the folded read of src/lib.rs is not resent"
    );

    // Recall returns the folded result byte for byte: this one (about 16 000
    // characters) is more than a page of a 9 000-token window holds, so its
    // first page comes, headed by where the next starts.
    let stored = session.load_all().await.unwrap();
    let recalled = tool_content(&requests[7].body, "c_recall");
    let (header, body) = recalled.split_once('\n').unwrap();
    assert!(
        header.starts_with("[recall page: characters 0–"),
        "{header}"
    );
    assert!(header.contains("offset: "), "{header}");
    let original = stored_result(&stored, "c1");
    assert!(body.len() > 1_000 && original.starts_with(body));

    let summaries = stored
        .iter()
        .filter(|e| matches!(e, AgentEvent::AgentSummary { .. }))
        .count();
    assert_eq!(summaries, 2);
    let window = session.load().await.unwrap();
    assert!(
        matches!(&window[0], AgentEvent::AgentSummary { text, .. } if text.contains("second note"))
    );
}

#[tokio::test]
async fn a_context_length_error_compacts_and_retries_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_big_file(dir.path());
    let too_long = Reply::status(400).body_json(json!({ "error": {
        "message": "This model's maximum context length is 8192 tokens.",
        "type": "invalid_request_error", "code": "context_length_exceeded",
    }}));
    let mock = MockModel::start([
        read_call("c1", "big.txt", "read big", 10),
        read_call("c2", "src/lib.rs", "read lib", 10),
        read_call("c3", "src/main.rs", "read main", 10),
        too_long,
        note("<historyNote>compacted</historyNote>"),
        OpenAiStream::new()
            .text("fits now")
            .usage(100, 5)
            .into_reply(),
    ])
    .await;
    let context = ContextConfig {
        context_window: 1_000_000,
        ..ContextConfig::default()
    };
    let (agent, session) = agent_in(&repo, &dir.path().join("db.sqlite3"), &mock, context).await;
    let outcome = agent.prompt("read").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    let requests = mock.requests();
    assert_eq!(requests.len(), 6);
    assert!(requests[5].body.to_string().contains("compacted"));
    let stored = session.load_all().await.unwrap();
    assert!(
        stored
            .iter()
            .any(|e| matches!(e, AgentEvent::AgentSummary { .. }))
    );
}

#[tokio::test]
async fn skills_are_indexed_loaded_and_their_files_readable() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_big_file(dir.path());
    let global = dir.path().join("config/skills");
    std::fs::create_dir_all(global.join("deploy/scripts")).unwrap();
    std::fs::write(global.join("deploy/SKILL.md"), "---\nname: deploy\ndescription: How to ship this project\n---\nRun scripts/check.sh first.\n").unwrap();
    std::fs::write(global.join("deploy/scripts/check.sh"), "echo checking\n").unwrap();
    let check = std::fs::canonicalize(global.join("deploy/scripts/check.sh")).unwrap();

    let mock = MockModel::start([
        OpenAiStream::new()
            .tool_call("c_skill", "load_skill", &[r#"{"name":"deploy"}"#])
            .into_reply(),
        OpenAiStream::new()
            .tool_call(
                "c_read",
                "read_file",
                &[&json!({ "path": check }).to_string()],
            )
            .into_reply(),
        Reply::openai_text("shipped"),
    ])
    .await;
    let (found, warnings) = skills::discover(&repo, Some(&global));
    assert!(warnings.is_empty(), "{warnings:?}");
    let context = ContextConfig {
        skills: found,
        prompts: vec![PromptSection::new("identity", "You help.")],
        ..ContextConfig::default()
    };
    let (agent, _session) = agent_in(&repo, &dir.path().join("db.sqlite3"), &mock, context).await;
    assert_eq!(
        agent.prompt("deploy it").await.unwrap().cause,
        StopCause::Done
    );

    let requests = mock.requests();
    let first = requests[0].body.to_string();
    assert!(first.contains("<name>deploy</name>") && first.contains("How to ship this project"));
    assert!(first.contains("load_skill"));
    let loaded = tool_content(&requests[1].body, "c_skill");
    assert!(
        loaded.contains("Run scripts/check.sh first.") && loaded.contains("- scripts/check.sh"),
        "{loaded}"
    );
    let read = tool_content(&requests[2].body, "c_read");
    assert!(read.contains("echo checking"), "{read}");
}

#[tokio::test]
async fn esc_cancels_a_running_compaction_and_nothing_is_folded() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_big_file(dir.path());
    let mock = MockModel::start([
        read_call("c1", "big.txt", "read big", 10),
        read_call("c2", "src/lib.rs", "read lib", 10),
        read_call("c3", "src/main.rs", "read main", 10),
        OpenAiStream::new().text("done").usage(100, 5).into_reply(),
        note("<historyNote>never</historyNote>").hang_after(0),
    ])
    .await;
    let context = ContextConfig {
        context_window: 1_000_000,
        ..ContextConfig::default()
    };
    let (agent, session) = agent_in(&repo, &dir.path().join("db.sqlite3"), &mock, context).await;
    agent.prompt("read").await.unwrap();
    let mut all = agent.subscribe_all();
    let id = agent.submit_compact().unwrap();
    assert!(mock.wait_for_requests(5, Duration::from_secs(5)).await);
    agent.interrupt("interrupted by user");
    crate::support::bounded::ends("the agent goes idle", agent.idle()).await;
    let mut ended = None;
    while let Ok(message) = all.try_recv() {
        if let light_agent::agent::AgentMessage::Job(light_agent::protocol::JobUpdate::Ended {
            id: done,
            cause,
            message,
            ..
        }) = message
        {
            assert_eq!(done, id);
            ended = Some((cause, message));
        }
    }
    assert_eq!(
        ended,
        Some((StopCause::User, "compaction interrupted".to_string()))
    );
    assert!(mock.wait_for_disconnect(Duration::from_secs(5)).await);
    let stored = session.load_all().await.unwrap();
    assert!(
        !stored
            .iter()
            .any(|e| matches!(e, AgentEvent::AgentSummary { .. })),
        "nothing folded"
    );
}
