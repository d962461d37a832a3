//! The agent loop's retry rule, seen from outside a real [`Agent`] for each
//! wire format of the vendor table: how many requests the mock saw, the
//! retry notices, the turn's outcome and what the session kept. How each
//! adaptor classifies the failures is in `ai_conformance.rs`.
//!
//! [`Agent`]: light_agent::agent::Agent
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use light_agent::agent::{Notice, TurnOutcome};
use light_agent::ai::{HttpOptions, RetryPolicy};
use light_agent::protocol::{AgentEvent, StopCause};
use support::Reply;
use support::agent_harness::{Harness, drain};
use support::vendors::{
    HttpFailure, KEY, QUOTA_TEXT, SERVER_ERROR_TEXT, StreamFailure, Vendor, for_vendors,
};
use tokio::sync::mpsc::UnboundedReceiver;

/// The cap on a server-requested wait in these tests: a `Retry-After: 1`
/// becomes exactly this, which no jittered backoff of [`BASE_DELAY`] is.
const MAX_RETRY_AFTER: Duration = Duration::from_millis(30);
const BASE_DELAY: Duration = Duration::from_millis(1);

/// An agent over `vendor`'s adaptor, the mock scripted with `replies`,
/// retrying up to 3 times after short waits.
async fn harness(vendor: Vendor, replies: Vec<Reply>) -> Harness {
    let retry = RetryPolicy {
        retries: 3,
        base_delay: BASE_DELAY,
        max_retry_after: MAX_RETRY_AFTER,
    };
    Harness::start_with_retry(replies, |mock| vendor.adaptor(mock), retry).await
}

/// [`harness`] with the adaptor's network timeouts set to `http`.
async fn harness_with(vendor: Vendor, replies: Vec<Reply>, http: HttpOptions) -> Harness {
    let retry = RetryPolicy {
        retries: 3,
        base_delay: BASE_DELAY,
        max_retry_after: MAX_RETRY_AFTER,
    };
    let adaptor = |mock: &support::MockModel| vendor.adaptor_at(vendor.base_url(&mock.url()), http);
    Harness::start_with_retry(replies, adaptor, retry).await
}

/// The gap between chunks: far below how long the mock takes to start, and
/// long enough that a prompt answer is not cut off on a loaded machine.
const SHORT: Duration = Duration::from_millis(1_000);
/// How long a slow model takes to send its first byte here.
const SLOW_START: Duration = Duration::from_millis(3_000);

/// A local server's options, as the binary makes them: a long wait for the
/// first byte, never retried.
fn local(first_byte: Duration) -> HttpOptions {
    HttpOptions {
        idle_timeout: SHORT,
        first_byte_timeout: Some(first_byte),
        retry_slow_start: false,
        ..HttpOptions::default()
    }
}

fn notices(rx: &mut UnboundedReceiver<Notice>) -> Vec<Notice> {
    let mut out = Vec::new();
    while let Ok(notice) = rx.try_recv() {
        out.push(notice);
    }
    out
}

/// The attempt numbers of the retry notices.
fn retries(notices: &[Notice]) -> Vec<u32> {
    notices
        .iter()
        .filter_map(|n| match n {
            Notice::Retrying { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect()
}
/// The turn ended at the model (no retry left or none allowed), with a
/// message holding `says`.
fn assert_failed_at_the_model(vendor: Vendor, outcome: &TurnOutcome, says: &str) {
    assert_eq!(
        outcome.cause,
        StopCause::Llm,
        "{vendor}: {}",
        outcome.message
    );
    assert!(
        outcome.message.contains(says),
        "{vendor}: {}",
        outcome.message
    );
}

/// The answers the session kept.
async fn stored_outputs(h: &Harness) -> Vec<String> {
    h.session
        .load_all()
        .await
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Output { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

for_vendors!(a_rate_limit_is_retried_once_after_the_wait_it_asks_for);
async fn a_rate_limit_is_retried_once_after_the_wait_it_asks_for(vendor: Vendor) {
    let h = harness(
        vendor,
        vec![
            vendor.http_error(HttpFailure::RateLimited),
            vendor.text("All good."),
        ],
    )
    .await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor}: {}",
        outcome.message
    );
    let notices = notices(&mut notice_rx);
    assert!(
        matches!(notices.as_slice(), [Notice::Retrying { attempt: 1, delay, .. }]
            if *delay == MAX_RETRY_AFTER),
        "{vendor}: one retry after the requested wait (capped): {notices:?}"
    );
    assert_eq!(stored_outputs(&h).await, ["All good."], "{vendor}");
    assert_eq!(h.mock.request_count(), 2, "{vendor}");
}

for_vendors!(server_errors_are_retried_three_times_then_surface);
async fn server_errors_are_retried_three_times_then_surface(vendor: Vendor) {
    let mut replies: Vec<Reply> = (0..4)
        .map(|_| vendor.http_error(HttpFailure::ServerError))
        .collect();
    replies.push(vendor.text("never asked for"));
    let h = harness(vendor, replies).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_failed_at_the_model(vendor, &outcome, SERVER_ERROR_TEXT);
    let notices = notices(&mut notice_rx);
    assert_eq!(retries(&notices), [1, 2, 3], "{vendor}: {notices:?}");
    assert!(
        notices.iter().all(|n| !matches!(n, Notice::PartialDropped)),
        "{vendor}: nothing was shown: {notices:?}"
    );
    assert_eq!(h.mock.request_count(), 4, "{vendor}");
    assert_eq!(h.mock.remaining_replies(), 1, "{vendor}");
    assert_eq!(stored_outputs(&h).await, Vec::<String>::new(), "{vendor}");
}

for_vendors!(a_bad_key_is_not_retried_and_never_shown);
async fn a_bad_key_is_not_retried_and_never_shown(vendor: Vendor) {
    for reply in vendor.bad_key_replies() {
        let mut h = harness(vendor, vec![reply, vendor.text("unused")]).await;
        let mut notice_rx = h.agent.subscribe_notices();
        let outcome = h.agent.prompt("hello").await.unwrap();
        assert_failed_at_the_model(vendor, &outcome, "check your API key");
        assert_eq!(notices(&mut notice_rx), [], "{vendor}: no retry");
        assert_eq!(h.mock.request_count(), 1, "{vendor}");
        let emitted = format!("{:?}", drain(&mut h.events));
        let stored = format!("{:?}", h.session.load_all().await.unwrap());
        for (what, text) in [
            ("outcome", outcome.message.as_str()),
            ("events", &emitted),
            ("session", &stored),
        ] {
            assert!(
                !text.contains(KEY) && !text.contains("SECRET"),
                "{vendor}: the key shows in the {what}: {text}"
            );
        }
    }
}

for_vendors!(a_cut_before_any_delta_is_retried_with_nothing_to_drop);
async fn a_cut_before_any_delta_is_retried_with_nothing_to_drop(vendor: Vendor) {
    let cut = vendor
        .text("never seen")
        .cut_after(vendor.chunks_before_first_delta());
    let h = harness(vendor, vec![cut, vendor.text("second try")]).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor}: {}",
        outcome.message
    );
    let notices = notices(&mut notice_rx);
    assert!(
        matches!(notices.as_slice(), [Notice::Retrying { attempt: 1, .. }]),
        "{vendor}: {notices:?}"
    );
    assert_eq!(stored_outputs(&h).await, ["second try"], "{vendor}");
    assert_eq!(h.mock.request_count(), 2, "{vendor}");
}

for_vendors!(a_stream_cut_after_partial_output_is_retried_and_the_partial_dropped);
async fn a_stream_cut_after_partial_output_is_retried_and_the_partial_dropped(vendor: Vendor) {
    let cut = vendor
        .text("a partial answer that breaks off")
        .cut_after(vendor.chunks_before_first_delta() + 2);
    let h = harness(vendor, vec![cut, vendor.text("The whole answer.")]).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("answer").await.unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor}: {}",
        outcome.message
    );
    let notices = notices(&mut notice_rx);
    assert!(
        matches!(
            notices.as_slice(),
            [Notice::PartialDropped, Notice::Retrying { attempt: 1, .. }]
        ),
        "{vendor}: {notices:?}"
    );
    assert_eq!(
        stored_outputs(&h).await,
        ["The whole answer."],
        "{vendor}: the partial is not stored"
    );
    assert_eq!(h.mock.request_count(), 2, "{vendor}");
}

for_vendors!(an_in_stream_overload_is_retried);
async fn an_in_stream_overload_is_retried(vendor: Vendor) {
    let failing = vendor.stream_failing_after(0, StreamFailure::Overloaded);
    let h = harness(vendor, vec![failing, vendor.text("Back again.")]).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor}: {}",
        outcome.message
    );
    let notices = notices(&mut notice_rx);
    assert_eq!(retries(&notices), [1], "{vendor}: {notices:?}");
    assert_eq!(stored_outputs(&h).await, ["Back again."], "{vendor}");
    assert_eq!(h.mock.request_count(), 2, "{vendor}");
}

for_vendors!(an_in_stream_quota_error_is_not_retried);
async fn an_in_stream_quota_error_is_not_retried(vendor: Vendor) {
    let failing = vendor.stream_failing_after(0, StreamFailure::Quota);
    let h = harness(vendor, vec![failing, vendor.text("unused")]).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_failed_at_the_model(vendor, &outcome, QUOTA_TEXT);
    assert_eq!(notices(&mut notice_rx), [], "{vendor}: no retry");
    assert_eq!(h.mock.request_count(), 1, "{vendor}");
}

for_vendors!(a_local_model_slow_to_send_its_first_byte_is_waited_for_once);
async fn a_local_model_slow_to_send_its_first_byte_is_waited_for_once(vendor: Vendor) {
    let replies = vec![
        vendor.text("Read the prompt.").first_byte_delay(SLOW_START),
        vendor.text("never asked for"),
    ];
    let h = harness_with(vendor, replies, local(Duration::from_secs(600))).await;
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor}: {}",
        outcome.message
    );
    assert_eq!(stored_outputs(&h).await, ["Read the prompt."], "{vendor}");
    assert_eq!(h.mock.request_count(), 1, "{vendor}: one request, no retry");
}

for_vendors!(a_local_first_byte_timeout_is_not_retried);
async fn a_local_first_byte_timeout_is_not_retried(vendor: Vendor) {
    let replies = vec![
        vendor.text("too late").first_byte_delay(SLOW_START),
        vendor.text("never asked for"),
    ];
    let h = harness_with(vendor, replies, local(SHORT)).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_failed_at_the_model(vendor, &outcome, "first_byte_timeout_secs");
    assert_eq!(
        retries(&notices(&mut notice_rx)),
        Vec::<u32>::new(),
        "{vendor}"
    );
    assert_eq!(
        h.mock.request_count(),
        1,
        "{vendor}: the prefill is not started again"
    );
}

for_vendors!(a_remote_model_keeps_the_idle_bound_for_its_first_byte_and_is_retried);
async fn a_remote_model_keeps_the_idle_bound_for_its_first_byte_and_is_retried(vendor: Vendor) {
    let replies = vec![
        vendor.text("too late").first_byte_delay(SLOW_START),
        vendor.text("Second try."),
    ];
    let http = HttpOptions {
        idle_timeout: SHORT,
        ..HttpOptions::default()
    };
    let h = harness_with(vendor, replies, http).await;
    let mut notice_rx = h.agent.subscribe_notices();
    let outcome = h.agent.prompt("hello").await.unwrap();
    assert_eq!(
        outcome.cause,
        StopCause::Done,
        "{vendor}: {}",
        outcome.message
    );
    assert_eq!(retries(&notices(&mut notice_rx)), [1], "{vendor}");
    assert_eq!(stored_outputs(&h).await, ["Second try."], "{vendor}");
    assert_eq!(h.mock.request_count(), 2, "{vendor}");
}
