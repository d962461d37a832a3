#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Agent against the mock model server: queue, three-step tool turn,
//! errors fed back to the model, and interrupts.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use light_agent::agent::{AgentError, Notice};
use light_agent::ai::{HttpOptions, OpenAiAdaptor};
use light_agent::protocol::{AgentEvent, StopCause};
use light_agent::tool::{ToolDefinition, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use support::agent_harness::{Harness, drain};
use support::bounded::{ends, until};
use support::{OpenAiStream, Reply};
use tokio::sync::mpsc::UnboundedReceiver;

/// A repo with a few files and a file outside it, a session database, and
/// an agent over the mock.
async fn harness(replies: Vec<Reply>) -> Harness {
    let h = Harness::start(replies, |mock| {
        Arc::new(
            OpenAiAdaptor::new(
                mock.openai_base_url(),
                Some("sk-test".into()),
                "mock-model",
                HttpOptions::default(),
            )
            .unwrap(),
        )
    })
    .await;
    std::fs::write(h.dir.path().join("outside.txt"), "SECRET OUTSIDE").unwrap();
    h
}

async fn wait_for(
    rx: &mut UnboundedReceiver<AgentEvent>,
    pred: impl Fn(&AgentEvent) -> bool,
) -> AgentEvent {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let event = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("event in time")
            .expect("channel open");
        if pred(&event) {
            return event;
        }
    }
}

/// The `tool` messages of a recorded OpenAI request, as (id, content).
fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events
        .iter()
        .filter(|e| !e.is_transient())
        .map(AgentEvent::kind)
        .collect()
}

#[tokio::test]
async fn prompts_run_one_after_another_and_state_shows_the_queue() {
    let slow = OpenAiStream::new()
        .text("first answer")
        .usage(10, 5)
        .into_reply()
        .chunk_delay(Duration::from_millis(150));
    let h = harness(vec![slow, Reply::openai_text("second answer")]).await;
    let (a1, a2) = (h.agent.clone(), h.agent.clone());
    let first = tokio::spawn(async move { a1.prompt("one").await });
    assert!(h.mock.wait_for_requests(1, Duration::from_secs(5)).await);
    let second = tokio::spawn(async move { a2.prompt("two").await });
    until("the second prompt is queued", || {
        h.agent.state().queued_prompts == 1
    })
    .await;
    let state = h.agent.state();
    assert!(state.is_running);
    assert_eq!(state.queued_prompts, 1);
    assert_eq!(
        h.mock.request_count(),
        1,
        "the second prompt waits for the first turn"
    );

    assert_eq!(first.await.unwrap().unwrap().cause, StopCause::Done);
    assert_eq!(second.await.unwrap().unwrap().cause, StopCause::Done);
    let state = h.agent.state();
    assert!(!state.is_running);
    assert_eq!(state.queued_prompts, 0);
    let second_request = &h.mock.requests()[1].body;
    let text = second_request["messages"].to_string();
    assert!(
        text.contains("one") && text.contains("first answer"),
        "{text}"
    );
}

#[tokio::test]
async fn a_three_step_turn_runs_tools_in_parallel_and_persists_everything() {
    let step1 = OpenAiStream::new()
        .text("Looking around.")
        .tool_call(
            "call_tree",
            "tree",
            &[r#"{"_intent":"see the layout","#, r#""path":"."}"#],
        )
        .usage(100, 10)
        .into_reply();
    let step2 = OpenAiStream::new()
        .tool_call(
            "call_grep",
            "grep",
            &[r#"{"search_strs":["fn main"],"_intent":"find main"}"#],
        )
        .tool_call(
            "call_read",
            "read_file",
            &[r#"{"path":"src/lib.rs","_intent":"read lib"}"#],
        )
        .usage(200, 20)
        .into_reply();
    let step3 = OpenAiStream::new()
        .reasoning("Both found.")
        .text("main is in src/main.rs; answer() returns 42.")
        .usage(300, 30)
        .into_reply();
    let mut h = harness(vec![step1, step2, step3]).await;

    let outcome = h
        .agent
        .prompt("Where is main and what does answer return?")
        .await
        .unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);

    let events = drain(&mut h.events);
    assert_eq!(
        kinds(&events),
        [
            "input",
            "output",
            "tool_calls",
            "agent_trace",
            "tool_result", //
            "tool_calls",
            "agent_trace",
            "tool_result",
            "tool_result", //
            "thought",
            "output",
            "agent_trace",
            "agent_stop",
        ]
    );
    let steps: Vec<u32> = events
        .iter()
        .filter(|e| !e.is_transient())
        .map(|e| e.meta().step)
        .collect();
    assert_eq!(steps, [1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    let deltas: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::OutputDelta { text, meta } if meta.step == 3 => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "main is in src/main.rs; answer() returns 42.");

    let stored = h.session.load_all().await.unwrap();
    let canonical: Vec<AgentEvent> = events.into_iter().filter(|e| !e.is_transient()).collect();
    assert_eq!(
        stored, canonical,
        "every canonical event is persisted in order"
    );

    let requests = h.mock.requests();
    assert_eq!(requests.len(), 3);
    let results = tool_messages(&requests[2].body);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["call_tree", "call_grep", "call_read"],
        "results in call order"
    );
    assert!(results[1].1.contains("src/main.rs:1"), "{}", results[1].1);
    assert!(results[2].1.contains("42"), "{}", results[2].1);
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "recall_indexed",
            "recall_search",
            "tree",
            "grep",
            "read_file"
        ]
    );
}

#[derive(Deserialize, JsonSchema)]
struct Nap {
    millis: u64,
}

#[tokio::test]
async fn each_tool_result_is_emitted_when_its_call_finishes() {
    let step1 = OpenAiStream::new()
        .tool_call("slow", "nap", &[r#"{"millis":300}"#])
        .tool_call("fast", "nap", &[r#"{"millis":1}"#])
        .into_reply();
    let mut h = harness(vec![step1, Reply::openai_text("rested")]).await;
    h.agent
        .tool()
        .register(ToolDefinition::new(
            "nap",
            "Sleeps.",
            |args: Nap, _ctx| async move {
                tokio::time::sleep(Duration::from_millis(args.millis)).await;
                ToolOutput::ok(format!("slept {}", args.millis))
            },
        ))
        .unwrap();
    h.agent.prompt("nap twice").await.unwrap();
    let order: Vec<String> = drain(&mut h.events)
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } => Some(outcome.id),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["fast", "slow"]);
    let ids: Vec<String> = tool_messages(&h.mock.requests()[1].body)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        ids,
        ["slow", "fast"],
        "the model still gets them in call order"
    );
}

#[tokio::test]
async fn bad_calls_come_back_to_the_model_as_error_results_and_the_turn_goes_on() {
    let step1 = OpenAiStream::new()
        .tool_call("c_unknown", "frobnicate", &[r#"{"x":1}"#])
        .tool_call("c_badargs", "tree", &[r#"{"max_files":"many"}"#])
        .tool_call("c_badjson", "read_file", &[r#"{"path": "src/ma"#])
        .tool_call("c_escape", "read_file", &[r#"{"path":"../outside.txt"}"#])
        .into_reply();
    let h = harness(vec![step1, Reply::openai_text("I will fix my calls.")]).await;
    let outcome = h.agent.prompt("try things").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done);

    let results = tool_messages(&h.mock.requests()[1].body);
    let by_id = |id: &str| {
        results
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, c)| c.clone())
            .unwrap()
    };
    assert!(
        by_id("c_unknown").contains("frobnicate") && by_id("c_unknown").contains("read_file"),
        "{}",
        by_id("c_unknown")
    );
    assert!(
        by_id("c_badargs").contains("max_files"),
        "{}",
        by_id("c_badargs")
    );
    assert!(
        by_id("c_badjson").to_lowercase().contains("json"),
        "{}",
        by_id("c_badjson")
    );
    assert!(
        by_id("c_escape").contains("outside the working directory")
            || by_id("c_escape").contains("path_escape"),
        "{}",
        by_id("c_escape")
    );
    assert!(!results.iter().any(|(_, c)| c.contains("SECRET OUTSIDE")));
    let stored = h.session.load_all().await.unwrap();
    let errors = stored
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolResult { outcome, .. } if outcome.is_error))
        .count();
    assert_eq!(errors, 4);
}

/// A reply with the one tool call `name(args)`.
fn one_call(id: &str, name: &str, args: &str) -> Reply {
    OpenAiStream::new()
        .tool_call(id, name, &[args])
        .into_reply()
}

/// The result of call `cN` as the request right after step N carried it
/// (older results may be folded into placeholders later).
fn result_after(requests: &[support::RecordedRequest], id: &str) -> String {
    let step: usize = id[1..].parse().unwrap();
    tool_messages(&requests[step].body)
        .into_iter()
        .find(|(i, _)| i == id)
        .map(|(_, c)| c)
        .unwrap()
}

/// A weak model repeats its last call unchanged (the same search, the same
/// plan) until the step limit: the repeat still runs, and its result says
/// it is a repeat; a call repeated after another step in between does not.
#[tokio::test]
async fn a_call_repeated_from_the_previous_step_is_told_so() {
    let grep = r#"{"search_strs":["fn main"],"_intent":"find main"}"#;
    let grep_again = r#"{"search_strs":["fn main"],"_intent":"look again"}"#;
    let tree = r#"{"_intent":"layout"}"#;
    let h = harness(vec![
        one_call("c1", "grep", grep),
        one_call("c2", "grep", grep_again),
        one_call("c3", "tree", tree),
        one_call("c4", "grep", grep),
        Reply::openai_text("done"),
    ])
    .await;
    let outcome = h.agent.prompt("find main").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done);

    let requests = h.mock.requests();
    let result = |id: &str| result_after(&requests, id);
    assert!(result("c1").contains("src/main.rs"), "{}", result("c1"));
    assert!(!result("c1").contains("[repeat]"), "{}", result("c1"));
    assert!(
        result("c2").contains("src/main.rs"),
        "the repeat runs: {}",
        result("c2")
    );
    assert!(
        result("c2").contains("[repeat]: you made this same call in your previous step"),
        "{}",
        result("c2")
    );
    assert!(!result("c3").contains("[repeat]"), "{}", result("c3"));
    assert!(!result("c4").contains("[repeat]"), "{}", result("c4"));
}

/// A weak model told "Now do X" marks X completed with another plan and no
/// work: the plan is accepted and its result says nothing ran since; a
/// step completed after real work gets no such note.
#[tokio::test]
async fn a_plan_step_completed_without_work_in_between_is_questioned() {
    let plan = |first: &str, second: &str| {
        serde_json::json!({"plan": [
            {"step": "find main", "status": first},
            {"step": "report", "status": second},
        ]})
        .to_string()
    };
    let grep = r#"{"search_strs":["fn main"],"_intent":"find main"}"#;
    let h = harness(vec![
        one_call("c1", "update_plan", &plan("in_progress", "pending")),
        one_call("c2", "update_plan", &plan("completed", "pending")),
        one_call("c3", "grep", grep),
        one_call("c4", "update_plan", &plan("completed", "completed")),
        Reply::openai_text("done"),
    ])
    .await;
    light_agent::tool::builtin::register_conversation(h.agent.tool(), None).unwrap();
    let outcome = h.agent.prompt("find main").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    let requests = h.mock.requests();
    let result = |id: &str| result_after(&requests, id);
    assert!(!result("c1").contains("[check]"), "{}", result("c1"));
    assert!(
        result("c2").contains("[check]: no other tool ran since your previous plan or the request, yet this marks \"find main\" completed"),
        "{}",
        result("c2")
    );
    assert!(!result("c4").contains("[check]"), "{}", result("c4"));
}

/// A small model stuck in a loop streams the same line until its context
/// is full: the call is stopped once the repetition is unmistakable, what
/// came before it is kept with the repeated line once, and the turn ends
/// saying why.
#[tokio::test]
async fn a_model_repeating_itself_is_stopped_and_the_loop_is_not_kept() {
    let mut looping = OpenAiStream::new().text("I will check the file.\n");
    for _ in 0..5_000 {
        looping = looping.text("<tool_response>\n");
    }
    let h = harness(vec![looping.into_reply()]).await;
    let outcome = h.agent.prompt("fix it").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Llm);
    assert!(
        outcome
            .message
            .contains("repeated the same text over and over"),
        "{}",
        outcome.message
    );
    let stored = h.session.load_all().await.unwrap();
    let output = stored
        .iter()
        .find_map(|e| match e {
            AgentEvent::Output { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(output, "I will check the file.\n<tool_response>");
}

#[tokio::test]
async fn a_tool_call_whose_arguments_loop_is_stopped_and_not_run() {
    let mut fragments = vec![r#"{"path": "a.txt", "content": "x"#];
    fragments.extend(std::iter::repeat_n(r#"[^\u00"#, 5_000));
    fragments.push(r#""}"#);
    let looping = OpenAiStream::new()
        .tool_call("c1", "write", &fragments)
        .into_reply();
    let h = harness(vec![looping, Reply::openai_text("not asked for")]).await;
    let outcome = h.agent.prompt("write it").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Llm);
    assert!(
        outcome
            .message
            .contains("over and over in the arguments of its `write` call"),
        "{}",
        outcome.message
    );
    // Not retried, and nothing ran.
    assert_eq!(h.mock.requests().len(), 1);
    let stored = h.session.load_all().await.unwrap();
    assert!(
        !stored.iter().any(|e| matches!(
            e,
            AgentEvent::ToolCalls { .. } | AgentEvent::ToolResult { .. }
        )),
        "{stored:?}"
    );
}

#[tokio::test]
async fn interrupt_mid_stream_stops_at_once_keeps_what_was_shown_and_the_queue() {
    let hanging = OpenAiStream::new()
        .text("partial answer that never ends")
        .into_reply()
        .hang_after(3);
    let mut h = harness(vec![hanging, Reply::openai_text("fresh start")]).await;
    let agent = h.agent.clone();
    let turn = tokio::spawn(async move { agent.prompt("long question").await });
    wait_for(&mut h.events, |e| {
        matches!(e, AgentEvent::OutputDelta { .. })
    })
    .await;
    let queued = {
        let agent = h.agent.clone();
        tokio::spawn(async move { agent.prompt("queued follow-up").await })
    };
    until("the follow-up is queued", || {
        h.agent.state().queued_prompts == 1
    })
    .await;

    h.agent.interrupt("user pressed Esc");
    // The host takes the queue back at once, as the TUI does on Esc.
    assert_eq!(h.agent.take_queued(), ["queued follow-up"]);
    let outcome = ends("the interrupted turn", turn).await.unwrap().unwrap();
    assert_eq!(outcome.cause, StopCause::User);
    assert_eq!(outcome.message, "user pressed Esc");
    assert!(
        h.mock.wait_for_disconnect(Duration::from_secs(2)).await,
        "the HTTP stream was dropped"
    );

    assert_eq!(queued.await.unwrap(), Err(AgentError::Withdrawn));

    let stored = h.session.load_all().await.unwrap();
    let partial = stored.iter().find_map(|e| match e {
        AgentEvent::Output { text, .. } => Some(text.clone()),
        _ => None,
    });
    assert!(
        partial
            .as_deref()
            .is_some_and(|p| "partial answer that never ends".starts_with(p) && !p.is_empty()),
        "{partial:?}"
    );
    assert!(matches!(
        stored.last(),
        Some(AgentEvent::AgentStop {
            cause: StopCause::User,
            ..
        })
    ));

    h.agent.prompt("try again").await.unwrap();
    let next = h.mock.requests()[1].body["messages"].to_string();
    assert!(next.contains("interrupted"), "the model is told: {next}");
    assert!(next.contains(partial.as_deref().unwrap()), "{next}");
}

#[tokio::test]
async fn interrupt_mid_tool_gives_unfinished_calls_error_results() {
    let step1 = OpenAiStream::new()
        .tool_call("c_nap", "stubborn", &[r#"{"millis":10000}"#])
        .tool_call("c_tree", "tree", &[r#"{}"#])
        .into_reply();
    let mut h = harness(vec![step1]).await;
    h.agent
        .tool()
        .register(ToolDefinition::new(
            "stubborn",
            "Sleeps and ignores cancellation.",
            |args: Nap, _ctx| async move {
                tokio::time::sleep(Duration::from_millis(args.millis)).await;
                ToolOutput::ok("woke up")
            },
        ))
        .unwrap();
    let agent = h.agent.clone();
    let turn = tokio::spawn(async move { agent.prompt("nap").await });
    wait_for(
        &mut h.events,
        |e| matches!(e, AgentEvent::ToolResult { outcome, .. } if outcome.id == "c_tree"),
    )
    .await;
    h.agent.interrupt("stop");
    let outcome = ends("the turn interrupted mid-tool", turn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome.cause, StopCause::User);
    let stored = h.session.load_all().await.unwrap();
    let nap = stored
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolResult { outcome, .. } if outcome.id == "c_nap" => {
                Some(outcome.clone())
            }
            _ => None,
        })
        .unwrap();
    assert!(nap.is_error);
    assert!(nap.result.contains("interrupted by user"));
}

#[tokio::test]
async fn interrupt_during_a_retry_wait_stops_at_once() {
    let h = harness(vec![Reply::status(503).retry_after(60)]).await;
    let mut notices = h.agent.subscribe_notices();
    let agent = h.agent.clone();
    let turn = tokio::spawn(async move { agent.prompt("hello").await });
    let notice = tokio::time::timeout(Duration::from_secs(5), notices.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(notice, Notice::Retrying { attempt: 1, delay, .. } if delay == Duration::from_secs(60)),
        "{notice:?}"
    );
    h.agent.interrupt("stop waiting");
    // The wait is a minute, the guard shorter: ending means it was cut.
    let outcome = ends("the turn interrupted in its retry wait", turn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome.cause, StopCause::User);
    assert_eq!(h.mock.request_count(), 1);
}

#[tokio::test]
async fn a_failed_model_call_ends_the_turn_with_an_llm_stop_after_retries() {
    let h = harness(vec![
        Reply::status(500),
        Reply::status(500),
        Reply::status(500),
        Reply::status(500),
    ])
    .await;
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Llm);
    assert_eq!(h.mock.request_count(), 4, "one call and three retries");
    let stored = h.session.load_all().await.unwrap();
    assert!(matches!(
        stored.last(),
        Some(AgentEvent::AgentStop {
            cause: StopCause::Llm,
            ..
        })
    ));
}

#[tokio::test]
async fn the_step_limit_ends_a_turn_with_a_runtime_stop() {
    let looping = || {
        OpenAiStream::new()
            .tool_call("c", "tree", &["{}"])
            .into_reply()
    };
    let h = harness((0..10).map(|_| looping()).collect()).await;
    let outcome = h.agent.prompt("loop forever").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Runtime);
    assert!(outcome.message.contains("10 steps"), "{}", outcome.message);
    assert_eq!(h.mock.request_count(), 10);
}
