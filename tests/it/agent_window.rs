#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Any window honoured: no request larger than the model's window, summaries
//! in slices that fit, paged recall, recall_search, a resume that reads only
//! the log's tail, and a prompt too large for the window refused.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use light_agent::agent::{Agent, AgentConfig, LoopConfig};
use light_agent::ai::{HttpOptions, OpenAiAdaptor, RetryPolicy};
use light_agent::protocol::{AgentEvent, InputSource, Meta, StopCause, ToolCall, ToolOutcome};
use light_agent::session::{AgentSession, SessionManager};
use light_agent::tool::{ToolContext, builtin};
use serde_json::{Value, json};
use support::agent_harness::tools_context;
use support::{MockModel, OpenAiStream, Reply};
use tokio_util::sync::CancellationToken;

/// `repo/f00.txt`… with sizes from 2 KB to 20 KB; returns the repo.
fn repo_with_files(dir: &Path, count: usize) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    for i in 0..count {
        let size = 2_000 + (i * 7_919) % 18_000;
        let line = format!("file {i:02}: \"quoted\" text\tand a tab, then more words\n");
        let text: String = line.repeat(size / line.len() + 1)[..size].to_string();
        std::fs::write(repo.join(format!("f{i:02}.txt")), text).unwrap();
    }
    repo
}

fn read(id: &str, path: &str) -> Reply {
    let args = json!({ "path": path, "_intent": format!("read {path}") }).to_string();
    OpenAiStream::new()
        .tool_call(id, "read_file", &[&args])
        .usage(100, 10)
        .into_reply()
}

fn note() -> Reply {
    Reply::json(json!({
        "id": "cmpl", "object": "chat.completion", "model": "mock-model",
        "choices": [{ "index": 0, "message": { "role": "assistant",
            "content": "<historyNote><goal>read the files</goal></historyNote>" },
            "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70 },
    }))
}

async fn agent(repo: &Path, db: &Path, mock: &MockModel, window: u64) -> (Agent, AgentSession) {
    let manager = SessionManager::open(db).unwrap();
    let session = manager.create(repo, None).await.unwrap();
    let agent = agent_on(repo, session.clone(), mock, window);
    (agent, session)
}

fn agent_on(repo: &Path, session: AgentSession, mock: &MockModel, window: u64) -> Agent {
    let adaptor = OpenAiAdaptor::new(
        mock.openai_base_url(),
        None,
        "mock-model",
        HttpOptions::default(),
    )
    .unwrap();
    let agent = Agent::new(AgentConfig {
        cwd: repo.to_path_buf(),
        session: Some(session),
        adaptor: Arc::new(adaptor),
        context: tools_context(window),
        loop_config: LoopConfig {
            max_steps: 200,
            retry: RetryPolicy {
                base_delay: Duration::from_millis(10),
                ..RetryPolicy::default()
            },
        },
    });
    builtin::register_all(agent.tool()).unwrap();
    agent
}

fn is_streamed(body: &Value) -> bool {
    body.get("stream").is_some_and(|s| s == true)
}

/// Every request the mock saw is at most `window` tokens of four bytes.
fn assert_all_fit(mock: &MockModel, window: u64) {
    let requests = mock.requests();
    assert!(!requests.is_empty());
    for (index, request) in requests.iter().enumerate() {
        let bytes = request.body.to_string().len() as u64;
        assert!(
            bytes <= window * 4,
            "request {index} ({}): {bytes} bytes is over a {window}-token window",
            if is_streamed(&request.body) {
                "step"
            } else {
                "summary"
            }
        );
    }
}

fn results(events: &[AgentEvent]) -> Vec<ToolOutcome> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } => Some(outcome.clone()),
            _ => None,
        })
        .collect()
}

/// The whole stored result of `id` through `recall_indexed`, following its
/// pages; also returns how many pages it took.
async fn recall_all(agent: &Agent, repo: &Path, id: &str) -> (String, usize) {
    let mut joined = String::new();
    let mut offset = 0u64;
    let mut pages = 0;
    loop {
        let ctx = ToolContext::new(repo, CancellationToken::new()).unwrap();
        let out = agent
            .tool()
            .execute(
                "recall_indexed",
                json!({ "id": id, "offset": offset, "_intent": "check" }),
                ctx,
            )
            .await;
        assert!(!out.is_error, "{}", out.content);
        pages += 1;
        let Some(rest) = out.content.strip_prefix("[recall page: ") else {
            assert_eq!(pages, 1, "only a first page may come without a header");
            return (out.content, 1);
        };
        let (header, body) = rest.split_once('\n').unwrap();
        joined.push_str(body);
        match header.split_once("offset: ") {
            Some((_, next)) => offset = next.split(' ').next().unwrap().parse().unwrap(),
            None => return (joined, pages),
        }
    }
}

#[tokio::test]
async fn no_request_exceeds_a_small_window_and_every_folded_result_comes_back() {
    for window in [4_000, 8_000] {
        let dir = tempfile::tempdir().unwrap();
        // Enough results that even their placeholders outgrow the 8 000-token window.
        let files = 50;
        let repo = repo_with_files(dir.path(), files);
        let mut replies: Vec<Reply> = (0..files)
            .map(|i| read(&format!("c{i}"), &format!("f{i:02}.txt")))
            .collect();
        replies.push(Reply::openai_text("read them all"));
        let mock = MockModel::start(replies).await;
        mock.answer_text_requests_with(note());
        let (agent, session) = agent(&repo, &dir.path().join("db"), &mock, window).await;

        let outcome = agent.prompt("read every file").await.unwrap();
        assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
        assert_all_fit(&mock, window);
        let requests = mock.requests();
        assert!(
            requests.iter().any(|r| !is_streamed(&r.body)),
            "{files} results of 2–20 KB cannot stay in a {window}-token window unsummarised"
        );

        // Every result, folded or not, comes back byte for byte, in pages when long.
        let stored = results(&session.load_all().await.unwrap());
        assert_eq!(stored.len(), files);
        let mut paged = 0;
        for outcome in &stored {
            let (recalled, pages) = recall_all(&agent, &repo, &outcome.id).await;
            assert!(
                recalled == outcome.result,
                "{} differs after {pages} pages",
                outcome.id
            );
            paged += usize::from(pages > 1);
        }
        if window == 4_000 {
            assert!(
                paged > 0,
                "a 4 000-token window cannot hold a 20 KB result whole"
            );
        }
    }
}

#[tokio::test]
async fn a_page_of_recall_reaches_the_model_whole_and_within_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_files(dir.path(), 3);
    let big = "f02.txt"; // 2 000 + 2·7 919 = 17 838 bytes
    let mock = MockModel::start([
        read("c1", big),
        read("c2", "f00.txt"),
        read("c3", "f01.txt"),
        OpenAiStream::new()
            .tool_call(
                "r1",
                "recall_indexed",
                &[r#"{"id":"c1","_intent":"need it"}"#],
            )
            .into_reply(),
        Reply::openai_text("done"),
    ])
    .await;
    mock.answer_text_requests_with(note());
    let (agent, session) = agent(&repo, &dir.path().join("db"), &mock, 8_000).await;
    assert_eq!(agent.prompt("go").await.unwrap().cause, StopCause::Done);
    assert_all_fit(&mock, 8_000);

    let last = mock.requests().last().unwrap().body.clone();
    let page = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "r1")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .unwrap();
    let (header, body) = page.split_once('\n').unwrap();
    assert!(
        header.starts_with("[recall page: characters 0–"),
        "{header}"
    );
    assert!(
        header.contains("recall_indexed({ id: \"c1\", offset: "),
        "{header}"
    );
    let original = results(&session.load_all().await.unwrap())
        .into_iter()
        .find(|o| o.id == "c1")
        .unwrap()
        .result;
    assert!(body.len() > 4_000 && original.starts_with(body));
    // Issue #23.5: the page takes the room it needs — older hot results give
    // way so that it is at least a fifth of the window.
    let tokens = light_agent::context::estimate::text_tokens(body);
    assert!(
        tokens >= 8_000 / 5,
        "a {tokens}-token page ({} chars)",
        body.len()
    );
}

#[tokio::test]
async fn summaries_are_folded_in_slices_that_each_fit_the_window() {
    // About 80 steps fill a 16 000-token window with placeholders: the
    // stretch to fold, with its newest results whole, is more than one
    // summary request can hold.
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_files(dir.path(), 12);
    let mut replies: Vec<Reply> = (0..120)
        .map(|i| read(&format!("c{i}"), &format!("f{:02}.txt", i % 12)))
        .collect();
    replies.push(Reply::openai_text("done"));
    let mock = MockModel::start(replies).await;
    mock.answer_text_requests_with(note());
    let (agent, session) = agent(&repo, &dir.path().join("db"), &mock, 16_000).await;
    assert_eq!(agent.prompt("go").await.unwrap().cause, StopCause::Done);
    assert_all_fit(&mock, 16_000);

    let summary_requests: Vec<String> = mock
        .requests()
        .iter()
        .filter(|r| !is_streamed(&r.body))
        .map(|r| r.body.to_string())
        .collect();
    let summaries = session
        .load_all()
        .await
        .unwrap()
        .iter()
        .filter(|e| matches!(e, AgentEvent::AgentSummary { .. }))
        .count();
    assert!(summaries > 0);
    assert!(
        summary_requests.len() > summaries,
        "{} requests for {summaries} summaries: some were sliced",
        summary_requests.len()
    );
    // A slice after the first reads the note the previous slice wrote.
    assert!(
        summary_requests[1..]
            .iter()
            .all(|r| r.contains("previousHistoryNote")),
    );
}

#[tokio::test]
async fn recall_search_finds_calls_by_intent_tool_and_path_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_files(dir.path(), 3);
    let grep_args =
        json!({ "search_strs": ["file"], "_intent": "find the config loader" }).to_string();
    let mock = MockModel::start([
        read("c1", "f00.txt"),
        read("c2", "f01.txt"),
        OpenAiStream::new()
            .tool_call("c3", "grep", &[&grep_args])
            .into_reply(),
        read("c4", "f00.txt"),
        Reply::openai_text("done"),
    ])
    .await;
    let (agent, _session) = agent(&repo, &dir.path().join("db"), &mock, 128_000).await;
    assert_eq!(agent.prompt("go").await.unwrap().cause, StopCause::Done);

    let search = |args: Value| {
        let agent = agent.clone();
        let repo = repo.clone();
        async move {
            let ctx = ToolContext::new(&repo, CancellationToken::new()).unwrap();
            let out = agent.tool().execute("recall_search", args, ctx).await;
            assert!(!out.is_error, "{}", out.content);
            out.content
        }
    };
    let ids = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("- id="))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect()
    };

    let by_path = search(json!({ "path": "f00", "_intent": "t" })).await;
    assert_eq!(ids(&by_path), ["c4", "c1"], "{by_path}");
    assert!(by_path.contains("path=f00.txt") && by_path.contains("intent: read f00.txt"));
    assert!(
        by_path.contains(" chars"),
        "the result size is given: {by_path}"
    );

    let by_words = search(json!({ "query": "CONFIG loader", "_intent": "t" })).await;
    assert_eq!(ids(&by_words), ["c3"], "{by_words}");

    let by_tool = search(json!({ "tool": "read_file", "_intent": "t" })).await;
    assert_eq!(ids(&by_tool), ["c4", "c2", "c1"], "{by_tool}");

    let none = search(json!({ "query": "nothing like this", "_intent": "t" })).await;
    assert!(
        ids(&none).is_empty() && none.contains("no tool call"),
        "{none}"
    );
}

#[tokio::test]
async fn a_prompt_larger_than_the_window_is_refused_with_a_message_and_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_files(dir.path(), 1);
    let mock = MockModel::start([Reply::openai_text("small one answered")]).await;
    let (agent, _session) = agent(&repo, &dir.path().join("db"), &mock, 4_000).await;

    let outcome = agent.prompt("x".repeat(40_000)).await.unwrap();
    assert_eq!(outcome.cause, StopCause::Runtime);
    assert!(
        outcome.message.contains("4000-token context window")
            && outcome.message.contains("not sent"),
        "{}",
        outcome.message
    );
    assert_eq!(mock.request_count(), 0, "nothing was sent");

    // The next prompt goes through, within the window.
    let outcome = agent.prompt("a small one").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    assert_all_fit(&mock, 4_000);
}

#[tokio::test]
async fn the_status_figure_is_the_size_of_what_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_files(dir.path(), 2);
    let mock = MockModel::start([read("c1", "f01.txt"), Reply::openai_text("done")]).await;
    let (agent, _session) = agent(&repo, &dir.path().join("db"), &mock, 16_000).await;
    assert_eq!(agent.prompt("go").await.unwrap().cause, StopCause::Done);
    let sent = mock.requests().last().unwrap().body.to_string().len() as u64 / 4;
    let shown = agent.state().current_window_tokens;
    // The figure estimates the next request: the last one plus the answer, never less.
    assert!(
        shown >= sent && shown <= sent + sent / 5 + 100,
        "shown {shown}, sent {sent}"
    );
}

#[tokio::test]
async fn resuming_a_long_log_loads_its_tail_and_the_first_request_fits() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo_with_files(dir.path(), 1);
    let manager = SessionManager::open(&dir.path().join("db")).unwrap();
    let session = manager.create(&repo, None).await.unwrap();
    for turn in 1..=600u64 {
        let m = Meta::new(turn, 1);
        let id = format!("call_{turn}");
        for event in [
            AgentEvent::Input {
                images: Vec::new(),
                text: format!("question {turn}"),
                source: InputSource::User,
                meta: m,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: id.clone(),
                    name: "grep".into(),
                    args: json!({ "search_strs": ["fn main"], "_intent": format!("look {turn}") }),
                }],
                meta: m,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id,
                    name: "grep".into(),
                    result: "src/main.rs:1\n".repeat(20),
                    is_error: false,
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
        ] {
            session.append(&event).await.unwrap();
        }
    }
    let mock = MockModel::start([Reply::openai_text("resumed"), Reply::openai_text("again")]).await;
    let agent = agent_on(&repo, session.clone(), &mock, 8_000);
    agent.load_session().await.unwrap();
    let outcome = agent.prompt("where were we?").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    assert_eq!(
        agent.prompt("and now?").await.unwrap().cause,
        StopCause::Done
    );

    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "no summary was needed");
    assert_all_fit(&mock, 8_000);
    let first = requests[0].body.to_string();
    assert!(
        first.contains("were not loaded into the context"),
        "the gap is named"
    );
    assert!(first.contains("answer 600") && !first.contains("answer 1\\n"));

    // The old calls are still found and recalled.
    let ctx = ToolContext::new(&repo, CancellationToken::new()).unwrap();
    let found = agent
        .tool()
        .execute(
            "recall_search",
            json!({ "query": "call_7", "_intent": "t" }),
            ctx,
        )
        .await;
    assert!(found.content.contains("- id=call_7 "), "{}", found.content);
}
