//! Typical conversation histories, built event by event, for the tests of
//! what each wire format is sent (`ai_request_shape.rs`,
//! `ai_vendor_request_shape.rs`).

use light_agent::ai::StreamRequest;
use light_agent::protocol::{
    AgentEvent, InputSource, Meta, StopCause, ToolCall, ToolOutcome, ToolSpec, Usage,
};
use serde_json::{Value, json};

/// A user prompt opening `turn`.
pub fn input(turn: u64, text: &str) -> AgentEvent {
    AgentEvent::Input {
        text: text.into(),
        source: InputSource::User,
        meta: Meta::new(turn, 1),
    }
}

/// The full thought of a step.
pub fn thought(turn: u64, step: u32, text: &str) -> AgentEvent {
    AgentEvent::Thought {
        text: text.into(),
        meta: Meta::new(turn, step),
    }
}

/// The full output of a step.
pub fn output(turn: u64, step: u32, text: &str) -> AgentEvent {
    AgentEvent::Output {
        text: text.into(),
        meta: Meta::new(turn, step),
    }
}

/// One tool call.
pub fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        args,
    }
}

/// The tool calls of a step.
pub fn calls(turn: u64, step: u32, calls: Vec<ToolCall>) -> AgentEvent {
    AgentEvent::ToolCalls {
        calls,
        meta: Meta::new(turn, step),
    }
}

/// The result of call `id`.
pub fn result(
    turn: u64,
    step: u32,
    id: &str,
    name: &str,
    text: &str,
    is_error: bool,
) -> AgentEvent {
    AgentEvent::ToolResult {
        outcome: ToolOutcome {
            id: id.into(),
            name: name.into(),
            result: text.into(),
            is_error,
        },
        meta: Meta::new(turn, step),
    }
}

/// The trace that ends a step (100 tokens in, 10 out).
pub fn trace(turn: u64, step: u32) -> AgentEvent {
    AgentEvent::AgentTrace {
        usage: Usage {
            input: 100,
            output: 10,
            total: 110,
            cached: None,
        },
        model: "m".into(),
        started_at: 1,
        ended_at: 2,
        meta: Meta::new(turn, step),
    }
}

/// The stop that ends a turn.
pub fn stop(turn: u64, step: u32, cause: StopCause) -> AgentEvent {
    AgentEvent::AgentStop {
        cause,
        message: String::new(),
        meta: Meta::new(turn, step),
    }
}

/// A request over `events` with one `grep` tool.
pub fn request(events: Vec<AgentEvent>) -> StreamRequest {
    StreamRequest {
        system_prompt: "You are light-agent.".into(),
        events,
        tools: vec![ToolSpec {
            name: "grep".into(),
            description: "Search file contents.".into(),
            schema: json!({
                "type": "object",
                "properties": {"search_strs": {"type": "array", "items": {"type": "string"}}, "_intent": {"type": "string"}},
                "required": ["search_strs"],
            }),
        }],
    }
}

/// A tool step whose two calls ran in parallel and whose results were
/// stored in reverse order, then the final answer.
pub fn parallel_calls_with_reversed_results() -> Vec<AgentEvent> {
    vec![
        input(1, "Where is main?"),
        thought(1, 1, "Search and read in parallel."),
        output(1, 1, "Looking."),
        calls(
            1,
            1,
            vec![
                call(
                    "call_a",
                    "grep",
                    json!({"search_strs": ["fn main"], "_intent": "find main"}),
                ),
                call(
                    "call_b",
                    "read_file",
                    json!({"path": "Cargo.toml", "_intent": "crate name"}),
                ),
            ],
        ),
        trace(1, 1),
        result(
            1,
            1,
            "call_b",
            "read_file",
            "[package]\nname = \"x\"",
            false,
        ),
        result(1, 1, "call_a", "grep", "src/main.rs:1: fn main() {", false),
        output(1, 2, "It is in src/main.rs."),
        trace(1, 2),
        stop(1, 2, StopCause::Done),
    ]
}
