//! [`AgentEvent`] and the small types it carries.

use serde::{Deserialize, Serialize};

use super::{ImageRef, ToolCall, ToolOutcome};

/// Where an event sits in a session: which turn, which step of that turn.
///
/// `turn` is unique within a session; `step` counts model calls from 1
/// within a turn (the `input` event has step 1).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct Meta {
    /// Turn number, unique within a session.
    pub turn: u64,
    /// Step number within the turn, from 1.
    pub step: u32,
}

impl Meta {
    /// A coordinate.
    pub fn new(turn: u64, step: u32) -> Self {
        Self { turn, step }
    }
}

/// Who wrote an `input` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputSource {
    /// Typed by the user.
    #[default]
    User,
    /// Injected by the host.
    System,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopCause {
    /// The model answered without further tool calls.
    Done,
    /// The user interrupted.
    User,
    /// The model call failed (after retries).
    Llm,
    /// The runtime stopped the turn (step limit, storage or context failure).
    Runtime,
}

/// Token accounting reported by a provider for one model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
    /// Total tokens of the call (prompt + completion).
    pub total: u64,
    /// Prompt tokens served from the provider's cache, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<u64>,
}

/// Everything that happens in a session, as one closed enum.
///
/// Serialised with a `type` tag in snake_case (`{"type":"output","text":…}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A prompt entered the turn.
    Input {
        /// Prompt text.
        text: String,
        /// Who wrote it.
        #[serde(default)]
        source: InputSource,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
        /// The images the prompt carried, in order (their bytes are stored
        /// once in the session database, by hash).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageRef>,
    },
    /// A fragment of streamed reasoning (transient).
    ThoughtDelta {
        /// Fragment text.
        text: String,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// The full reasoning of one step.
    Thought {
        /// Full reasoning text.
        text: String,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// A fragment of the streamed visible answer (transient).
    OutputDelta {
        /// Fragment text.
        text: String,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// The full visible answer of one step.
    Output {
        /// Full answer text.
        text: String,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// The tool calls one step produced, in the model's order.
    ToolCalls {
        /// The calls.
        calls: Vec<ToolCall>,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// The result of one tool call, emitted when that call finishes.
    ToolResult {
        /// Which call, and what it returned.
        #[serde(flatten)]
        outcome: ToolOutcome,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// The end of a turn; exactly one per turn.
    AgentStop {
        /// Why the turn ended.
        cause: StopCause,
        /// Human-readable detail (empty on `done`).
        #[serde(default)]
        message: String,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// Accounting for one model call.
    AgentTrace {
        /// Provider-reported tokens.
        usage: Usage,
        /// Model that served the call.
        model: String,
        /// Request start, ms since the Unix epoch.
        started_at: u64,
        /// Stream end, ms since the Unix epoch.
        ended_at: u64,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
    /// A summary that replaces every step up to `covers_through` in the
    /// model's context (the log keeps them all).
    AgentSummary {
        /// The history note.
        text: String,
        /// Last step folded into this summary.
        covers_through: Meta,
        /// Coordinates.
        #[serde(default)]
        meta: Meta,
    },
}

impl AgentEvent {
    /// The `type` tag this event serialises with.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Input { .. } => "input",
            Self::ThoughtDelta { .. } => "thought_delta",
            Self::Thought { .. } => "thought",
            Self::OutputDelta { .. } => "output_delta",
            Self::Output { .. } => "output",
            Self::ToolCalls { .. } => "tool_calls",
            Self::ToolResult { .. } => "tool_result",
            Self::AgentStop { .. } => "agent_stop",
            Self::AgentTrace { .. } => "agent_trace",
            Self::AgentSummary { .. } => "agent_summary",
        }
    }

    /// True for events that live only on the stream and are never persisted.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::ThoughtDelta { .. } | Self::OutputDelta { .. })
    }

    /// The event's coordinates.
    pub fn meta(&self) -> Meta {
        match self {
            Self::Input { meta, .. }
            | Self::ThoughtDelta { meta, .. }
            | Self::Thought { meta, .. }
            | Self::OutputDelta { meta, .. }
            | Self::Output { meta, .. }
            | Self::ToolCalls { meta, .. }
            | Self::ToolResult { meta, .. }
            | Self::AgentStop { meta, .. }
            | Self::AgentTrace { meta, .. }
            | Self::AgentSummary { meta, .. } => *meta,
        }
    }

    /// Replaces the event's coordinates.
    pub fn set_meta(&mut self, new: Meta) {
        match self {
            Self::Input { meta, .. }
            | Self::ThoughtDelta { meta, .. }
            | Self::Thought { meta, .. }
            | Self::OutputDelta { meta, .. }
            | Self::Output { meta, .. }
            | Self::ToolCalls { meta, .. }
            | Self::ToolResult { meta, .. }
            | Self::AgentStop { meta, .. }
            | Self::AgentTrace { meta, .. }
            | Self::AgentSummary { meta, .. } => *meta = new,
        }
    }

    /// The event with its coordinates replaced.
    pub fn with_meta(mut self, meta: Meta) -> Self {
        self.set_meta(meta);
        self
    }

    /// The tool-call id this event is about (`tool_result` only).
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Self::ToolResult { outcome, .. } => Some(&outcome.id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn every_variant() -> Vec<AgentEvent> {
        let m = Meta::new(3, 2);
        vec![
            AgentEvent::Input {
                images: Vec::new(),
                text: "hi".into(),
                source: InputSource::User,
                meta: m,
            },
            AgentEvent::Input {
                images: Vec::new(),
                text: "note".into(),
                source: InputSource::System,
                meta: m,
            },
            AgentEvent::ThoughtDelta {
                text: "th".into(),
                meta: m,
            },
            AgentEvent::Thought {
                text: "think".into(),
                meta: m,
            },
            AgentEvent::OutputDelta {
                text: "ou".into(),
                meta: m,
            },
            AgentEvent::Output {
                text: "out".into(),
                meta: m,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "grep".into(),
                    args: json!({"search_strs": ["fn main"], "_intent": "find main"}),
                }],
                meta: m,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id: "call_1".into(),
                    name: "grep".into(),
                    result: "src/main.rs:1".into(),
                    is_error: false,
                    display: None,
                },
                meta: m,
            },
            AgentEvent::AgentStop {
                cause: StopCause::Done,
                message: String::new(),
                meta: m,
            },
            AgentEvent::AgentStop {
                cause: StopCause::User,
                message: "stop".into(),
                meta: m,
            },
            AgentEvent::AgentStop {
                cause: StopCause::Llm,
                message: "429".into(),
                meta: m,
            },
            AgentEvent::AgentStop {
                cause: StopCause::Runtime,
                message: "max".into(),
                meta: m,
            },
            AgentEvent::AgentTrace {
                usage: Usage {
                    input: 10,
                    output: 5,
                    total: 15,
                    cached: Some(4),
                },
                model: "m".into(),
                started_at: 1,
                ended_at: 2,
                meta: m,
            },
            AgentEvent::AgentTrace {
                usage: Usage {
                    input: 1,
                    output: 1,
                    total: 2,
                    cached: None,
                },
                model: "m".into(),
                started_at: 1,
                ended_at: 2,
                meta: m,
            },
            AgentEvent::AgentSummary {
                text: "sum".into(),
                covers_through: Meta::new(2, 4),
                meta: m,
            },
        ]
    }

    #[test]
    fn every_variant_round_trips_through_json() {
        for event in every_variant() {
            let text = serde_json::to_string(&event).unwrap();
            let back: AgentEvent = serde_json::from_str(&text).unwrap();
            assert_eq!(back, event, "{text}");
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["type"], event.kind(), "{text}");
        }
    }

    #[test]
    fn tool_result_fields_sit_flat_beside_the_tag() {
        let event = AgentEvent::ToolResult {
            outcome: ToolOutcome {
                id: "c".into(),
                name: "tree".into(),
                result: "r".into(),
                is_error: true,
                display: None,
            },
            meta: Meta::new(1, 1),
        };
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(
            value,
            json!({"type":"tool_result","id":"c","name":"tree","result":"r","is_error":true,"meta":{"turn":1,"step":1}})
        );
    }

    #[test]
    fn only_deltas_are_transient() {
        let transient: Vec<&str> = every_variant()
            .iter()
            .filter(|e| e.is_transient())
            .map(|e| e.kind())
            .collect();
        assert_eq!(transient, ["thought_delta", "output_delta"]);
    }

    #[test]
    fn with_meta_replaces_coordinates_on_every_variant() {
        for event in every_variant() {
            assert_eq!(event.with_meta(Meta::new(9, 8)).meta(), Meta::new(9, 8));
        }
    }

    #[test]
    fn intent_is_read_from_args_and_blank_counts_as_absent() {
        let call = |args| ToolCall {
            id: "i".into(),
            name: "n".into(),
            args,
        };
        assert_eq!(call(json!({"_intent": " why "})).intent(), Some("why"));
        assert_eq!(call(json!({"_intent": "  "})).intent(), None);
        assert_eq!(call(json!("not an object")).intent(), None);
    }
}
