#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The job lifecycle: ids handed out at submission, `Queued` / `Started` /
//! `Ended` / `Withdrawn` in order with the events, a token per job (Esc
//! cancels a job that has not started yet), and `Agent::idle`.

use crate::support;
use support::bounded::ends;

use std::sync::Arc;
use std::time::Duration;

use light_agent::agent::AgentMessage;
use light_agent::ai::{HttpOptions, OpenAiAdaptor};
use light_agent::protocol::{AgentEvent, JobId, JobKind, JobUpdate, StopCause, WithdrawnPrompt};
use support::agent_harness::Harness;
use support::{OpenAiStream, Reply};
use tokio::sync::mpsc::UnboundedReceiver;

const WAIT: Duration = support::bounded::GUARD;

async fn harness(replies: Vec<Reply>) -> Harness {
    Harness::start(replies, |mock| {
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
    .await
}

fn drain(rx: &mut UnboundedReceiver<AgentMessage>) -> Vec<AgentMessage> {
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        out.push(m);
    }
    out
}

/// Waits until `pred` holds for a message, returning everything seen.
async fn until(
    rx: &mut UnboundedReceiver<AgentMessage>,
    pred: impl Fn(&AgentMessage) -> bool,
) -> Vec<AgentMessage> {
    let mut seen = Vec::new();
    loop {
        let m = ends("the next agent message", rx.recv())
            .await
            .expect("stream closed");
        let done = pred(&m);
        seen.push(m);
        if done {
            return seen;
        }
    }
}

fn started(id: JobId) -> impl Fn(&AgentMessage) -> bool {
    move |m| matches!(m, AgentMessage::Job(JobUpdate::Started { id: i, .. }) if *i == id)
}

fn ended_cause(messages: &[AgentMessage], id: JobId) -> Option<StopCause> {
    messages.iter().find_map(|m| match m {
        AgentMessage::Job(JobUpdate::Ended { id: i, cause, .. }) if *i == id => Some(*cause),
        _ => None,
    })
}

#[tokio::test]
async fn a_prompt_reports_queued_started_its_events_then_ended() {
    let h = harness(vec![Reply::openai_text("hello back")]).await;
    let mut all = h.agent.subscribe_all();
    let id = h.agent.submit("hello").unwrap();
    ends("the agent goes idle", h.agent.idle()).await;
    let messages = drain(&mut all);
    let pos = |pred: &dyn Fn(&AgentMessage) -> bool| messages.iter().position(pred).unwrap();
    let queued = pos(
        &|m| matches!(m, AgentMessage::Job(JobUpdate::Queued { id: i, kind: JobKind::Prompt, text }) if *i == id && text == "hello"),
    );
    let start = pos(&started(id));
    let input = pos(&|m| matches!(m, AgentMessage::Event(AgentEvent::Input { .. })));
    let stop = pos(&|m| matches!(m, AgentMessage::Event(AgentEvent::AgentStop { .. })));
    let end = pos(&|m| matches!(m, AgentMessage::Job(JobUpdate::Ended { .. })));
    assert!(
        queued < start && start < input && input < stop && stop < end,
        "{messages:?}"
    );
    assert_eq!(ended_cause(&messages, id), Some(StopCause::Done));
    assert!(!h.agent.state().is_running, "idle() means idle");
    let next = h.agent.submit("again").unwrap();
    assert!(next > id, "ids rise");
}

#[tokio::test]
async fn interrupt_right_after_submit_cancels_that_prompt_even_before_it_starts() {
    let h = harness(vec![Reply::openai_text("never asked for")]).await;
    let mut all = h.agent.subscribe_all();
    // Whether the worker already picked it up or not, this prompt is the one
    // cancelled.
    let id = h.agent.submit("go").unwrap();
    h.agent.interrupt("interrupted by user");
    ends("the agent goes idle", h.agent.idle()).await;
    let messages = drain(&mut all);
    assert_eq!(
        ended_cause(&messages, id),
        Some(StopCause::User),
        "{messages:?}"
    );
    assert!(messages.iter().any(|m| matches!(
        m,
        AgentMessage::Event(AgentEvent::AgentStop {
            cause: StopCause::User,
            ..
        })
    )));
    // The next prompt runs normally.
    let outcome = h.agent.prompt("now really").await.unwrap();
    assert_eq!(outcome.cause, StopCause::Done);
    assert_eq!(
        h.mock.request_count(),
        1,
        "the cancelled prompt sent nothing"
    );
}

#[tokio::test]
async fn a_queued_prompt_can_be_withdrawn_by_id_and_never_runs() {
    let hanging = OpenAiStream::new()
        .text("working on it")
        .into_reply()
        .hang_after(1);
    let h = harness(vec![hanging]).await;
    let mut all = h.agent.subscribe_all();
    let first = h.agent.submit("first").unwrap();
    until(&mut all, started(first)).await;
    assert!(h.mock.wait_for_requests(1, WAIT).await);
    let second = h.agent.submit("second").unwrap();
    let third = h.agent.submit("third").unwrap();
    assert_eq!(h.agent.state().queued_prompts, 2);
    assert_eq!(h.agent.withdraw(third).as_deref(), Some("third"));
    assert_eq!(h.agent.withdraw(third), None, "only once");
    assert_eq!(
        h.agent.withdraw(first),
        None,
        "a running prompt is not queued"
    );
    let seen = until(&mut all, |m| {
        matches!(m, AgentMessage::Job(JobUpdate::Withdrawn { .. }))
    })
    .await;
    assert!(matches!(
        seen.last(),
        Some(AgentMessage::Job(JobUpdate::Withdrawn { prompts: w })) if *w == [WithdrawnPrompt { id: third, text: "third".into() }]
    ));
    // Esc: the running turn stops, the rest comes back.
    h.agent.interrupt("interrupted by user");
    assert_eq!(h.agent.take_queued(), ["second"]);
    ends("the agent goes idle", h.agent.idle()).await;
    let messages = drain(&mut all);
    assert_eq!(ended_cause(&messages, first), Some(StopCause::User));
    assert!(
        !messages.iter().any(
            |m| matches!(m, AgentMessage::Job(JobUpdate::Started { id, .. }) if *id == second)
        ),
        "{messages:?}"
    );
    assert!(h.mock.wait_for_disconnect(WAIT).await);
    assert_eq!(h.mock.request_count(), 1);
}

#[tokio::test]
async fn a_cancelled_session_load_is_redone_before_the_next_prompt() {
    let h = harness(vec![
        Reply::openai_text("first answer"),
        Reply::openai_text("second answer"),
    ])
    .await;
    h.agent.prompt("remember me").await.unwrap();
    // A second agent on the same session, as after a restart.
    let again = light_agent::agent::Agent::new(light_agent::agent::AgentConfig {
        cwd: h.dir.path().join("repo"),
        session: Some(h.session.clone()),
        adaptor: Arc::new(
            OpenAiAdaptor::new(
                h.mock.openai_base_url(),
                Some("sk-test".into()),
                "mock-model",
                HttpOptions::default(),
            )
            .unwrap(),
        ),
        context: Default::default(),
        loop_config: Default::default(),
    });
    let mut all = again.subscribe_all();
    let load = again.submit_load().unwrap();
    again.interrupt("interrupted by user");
    ends("the agent goes idle", again.idle()).await;
    let messages = drain(&mut all);
    let cause = ended_cause(&messages, load).unwrap();
    // The load may finish before the cancel lands; either way the history
    // reaches the model.
    assert!(
        matches!(cause, StopCause::User | StopCause::Done),
        "{cause:?}"
    );
    again.prompt("what did I say?").await.unwrap();
    let sent = h.mock.requests()[1].body["messages"].to_string();
    assert!(sent.contains("remember me"), "{sent}");
}
