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
        images: Vec::new(),
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
            display: None,
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
        images: Default::default(),
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

/// A call whose arguments are not valid JSON, and the error result it got.
pub fn call_with_bad_arguments_and_its_error_result() -> Vec<AgentEvent> {
    vec![
        input(1, "Search."),
        calls(
            1,
            1,
            vec![call("call_x", "grep", json!("{\"search_strs\": [\"a\""))],
        ),
        result(
            1,
            1,
            "call_x",
            "grep",
            "invalid arguments: EOF while parsing",
            true,
        ),
    ]
}

/// Two parallel calls, one answered, then the user interrupts and sends a
/// new prompt.
pub fn unanswered_call_then_interrupt() -> Vec<AgentEvent> {
    vec![
        input(1, "Search everything."),
        output(1, 1, "On it."),
        calls(
            1,
            1,
            vec![
                call("call_done", "grep", json!({"search_strs": ["a"]})),
                call("call_open", "grep", json!({"search_strs": ["b"]})),
            ],
        ),
        result(1, 1, "call_done", "grep", "a.rs:1", false),
        stop(1, 1, StopCause::User),
        input(2, "Never mind, stop."),
    ]
}

/// A summary of turn 1, a prompt, a system note (a loaded skill) and the
/// answer.
pub fn summary_then_system_note() -> Vec<AgentEvent> {
    vec![
        AgentEvent::AgentSummary {
            text: "Goal: find main. Done: located src/main.rs.".into(),
            covers_through: Meta::new(1, 2),
            meta: Meta::new(2, 1),
        },
        input(2, "Now add a flag."),
        AgentEvent::Input {
            images: Vec::new(),
            text: "Skill loaded: clap.".into(),
            source: InputSource::System,
            meta: Meta::new(2, 1),
        },
        output(2, 1, "Adding it."),
    ]
}
