//! Token estimates of what a request carries, conservative against the
//! bytes on the wire.
//!
//! A token is counted as four bytes of the request body. Text travels as a
//! JSON string, so each byte that JSON escapes counts twice (quotes,
//! backslashes, newlines, tabs) or six times (other control bytes); tool-call
//! arguments travel as a JSON string holding JSON, so they are escaped once
//! more. Every message, call and result adds a fixed envelope (role, ids,
//! field names). Estimates only ever round up, so a request built within a
//! budget by these numbers is within it on the wire too.
//!
//! Images are the exception to counting bytes (their base64 is not what a
//! provider bills): each counts [`IMAGE_TOKENS`], whatever its size.

use crate::protocol::{AgentEvent, ToolSpec};

/// Bytes a message, call or result adds around its text (role, ids, keys).
const ENVELOPE_BYTES: u64 = 64;
/// Bytes a request adds around everything (model, stream flags, arrays).
const REQUEST_BYTES: u64 = 128;

/// Tokens one image of a prompt is counted as. Providers bill an image by
/// its pixels, not its bytes, after scaling it down: Anthropic about
/// width × height / 750 up to ~1.15 megapixels (≈ 1 600 tokens), OpenAI at
/// most ~1 450 (high detail, 512-pixel tiles), Gemini 258 per 768-pixel
/// tile. 1 600 is the largest of the common cases.
pub const IMAGE_TOKENS: u64 = 1_600;

/// Bytes `text` takes as a JSON string's contents.
pub fn json_bytes(text: &str) -> u64 {
    text.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// Tokens of `bytes` request bytes (four to a token, rounded up).
pub fn tokens_of_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// Tokens `text` takes as a JSON string.
pub fn text_tokens(text: &str) -> u64 {
    tokens_of_bytes(json_bytes(text) + 2)
}

/// Tokens one event adds to a request, envelope included. Transient and
/// accounting events add nothing (they are never sent).
pub fn event_tokens(event: &AgentEvent) -> u64 {
    let images = match event {
        AgentEvent::Input { images, .. } => images.len() as u64 * IMAGE_TOKENS,
        _ => 0,
    };
    let bytes = match event {
        AgentEvent::Input { text, .. }
        | AgentEvent::Thought { text, .. }
        | AgentEvent::Output { text, .. }
        | AgentEvent::AgentSummary { text, .. } => json_bytes(text) + ENVELOPE_BYTES,
        AgentEvent::ToolCalls { calls, .. } => calls
            .iter()
            .map(|c| {
                let args = c.args.to_string();
                // The arguments are a JSON text inside a JSON string: escaped twice.
                json_bytes(&c.id) + json_bytes(&c.name) + 2 * json_bytes(&args) + ENVELOPE_BYTES
            })
            .sum(),
        AgentEvent::ToolResult { outcome, .. } => {
            json_bytes(&outcome.id) + json_bytes(&outcome.result) + ENVELOPE_BYTES
        }
        // A stop becomes at most a one-line note to the model.
        AgentEvent::AgentStop { .. } => ENVELOPE_BYTES * 2,
        AgentEvent::ThoughtDelta { .. }
        | AgentEvent::OutputDelta { .. }
        | AgentEvent::AgentTrace { .. } => 0,
    };
    tokens_of_bytes(bytes) + images
}

/// Tokens the tool definitions add to every request.
pub fn specs_tokens(specs: &[ToolSpec]) -> u64 {
    specs
        .iter()
        .map(|s| {
            let schema = s.schema.to_string().len() as u64;
            tokens_of_bytes(
                json_bytes(&s.name) + json_bytes(&s.description) + schema + ENVELOPE_BYTES,
            )
        })
        .sum()
}

/// Tokens of a request's fixed part: the system prompt, the tool
/// definitions and the request's own envelope.
pub fn fixed_tokens(system_prompt: &str, specs: &[ToolSpec]) -> u64 {
    text_tokens(system_prompt) + specs_tokens(specs) + tokens_of_bytes(REQUEST_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Meta;

    #[test]
    fn escaped_bytes_count_double_and_multibyte_text_counts_its_bytes() {
        assert_eq!(json_bytes("abcd"), 4);
        assert_eq!(json_bytes("a\"b\n"), 6);
        assert_eq!(json_bytes("é"), 2);
        assert_eq!(json_bytes("\u{1}"), 6);
    }

    #[test]
    fn an_event_costs_at_least_its_text_and_never_less_than_its_json() {
        let event = AgentEvent::Output {
            text: "line \"one\"\nline two\n".repeat(50),
            meta: Meta::new(1, 1),
        };
        let json = serde_json::to_string(&event).unwrap();
        assert!(event_tokens(&event) * 4 >= json.len() as u64);
    }

    #[test]
    fn each_image_of_a_prompt_costs_its_stated_tokens_whatever_its_bytes() {
        let image = |bytes| crate::protocol::ImageRef {
            hash: format!("h{bytes}"),
            media_type: "image/png".into(),
            name: "shot.png".into(),
            bytes,
        };
        let prompt = |images| AgentEvent::Input {
            text: "look".into(),
            source: crate::protocol::InputSource::User,
            meta: Meta::new(1, 1),
            images,
        };
        let bare = event_tokens(&prompt(vec![]));
        let two = event_tokens(&prompt(vec![image(100), image(15_000_000)]));
        assert_eq!(two - bare, 2 * IMAGE_TOKENS);
    }
}
