//! One model call through an [`Adaptor`], collected to its end, or
//! cancelled while the server hangs. (Retries are the agent loop's; tests
//! of them run an `Agent`, as `agent_retries.rs` does.)

use std::time::Duration;

use futures::StreamExt;
use light_agent::ai::{Adaptor, AiError, StreamRequest};
use light_agent::protocol::{AgentEvent, InputSource, Meta, ToolSpec};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::bounded::ends;
use super::mock_model::MockModel;

/// A `grep` tool with a minimal schema.
pub fn grep_tool() -> ToolSpec {
    ToolSpec {
        name: "grep".into(),
        description: "Search files.".into(),
        schema: json!({"type": "object", "properties": {"search_strs": {"type": "array"}}}),
    }
}

/// A terse system prompt, the user prompt "hello" and [`grep_tool`].
pub fn hello_request() -> StreamRequest {
    StreamRequest {
        system_prompt: "You are terse.".into(),
        events: vec![AgentEvent::Input {
            images: Vec::new(),
            text: "hello".into(),
            source: InputSource::User,
            meta: Meta::new(1, 1),
        }],
        tools: vec![grep_tool()],
        images: Default::default(),
    }
}

/// Every item of one call: the events before the end, and how it ended.
/// Asserts that nothing follows an error.
pub async fn collect_request(
    adaptor: &dyn Adaptor,
    req: StreamRequest,
    cancel: CancellationToken,
) -> (Vec<AgentEvent>, Option<AiError>) {
    let mut stream = adaptor.stream(req, cancel);
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(err) => {
                assert!(stream.next().await.is_none(), "nothing may follow an error");
                return (events, Some(err));
            }
        }
    }
    (events, None)
}

/// Starts `req` on `adaptor`, whose `mock` hangs after the first delta,
/// cancels it and asserts that the stream ends with an aborted error and
/// nothing after it (a hang fails it, labelled `label`), and that the mock
/// sees the connection close.
pub async fn assert_cancel_while_hanging_ends_fast(
    label: &str,
    adaptor: &dyn Adaptor,
    req: StreamRequest,
    mock: &MockModel,
) {
    let cancel = CancellationToken::new();
    let mut stream = adaptor.stream(req, cancel.clone());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.kind(), "output_delta");
    let waiter = tokio::spawn(async move {
        let item = stream.next().await;
        (item, stream.next().await.is_none())
    });
    cancel.cancel();
    let (item, then_nothing) = ends(&format!("{label}: the cancelled stream"), waiter)
        .await
        .unwrap();
    assert!(item.unwrap().unwrap_err().is_aborted());
    assert!(then_nothing);
    assert!(
        mock.wait_for_disconnect(Duration::from_secs(2)).await,
        "mock did not see the disconnect"
    );
}
