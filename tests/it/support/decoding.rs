//! Recorded SSE fixtures fed through a [`WireDecoder`], whole or cut at
//! chosen byte offsets, and views of the events that come out.

use light_agent::ai::{AiError, StepTotals, WireDecoder};
use light_agent::protocol::AgentEvent;

/// The events a decoder produced and how the stream ended.
pub type Decoded = (Vec<AgentEvent>, Result<StepTotals, AiError>);

/// The bytes of `tests/fixtures/sse/{name}`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The bytes of `tests/fixtures/recorded/{name}`: a stream recorded from a
/// real provider by another project (provenance in that folder's README).
pub fn recorded(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/recorded/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Feeds `bytes` to `decoder` cut at `cuts` (sorted offsets) and finishes;
/// a feed error ends the stream there.
pub fn decode_cut(decoder: &mut dyn WireDecoder, bytes: &[u8], cuts: &[usize]) -> Decoded {
    let mut events = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        if let Err(e) = decoder.feed(&bytes[start..cut], &mut events) {
            return (events, Err(e));
        }
        start = cut;
    }
    let totals = decoder.finish(&mut events);
    (events, totals)
}

/// Asserts that `bytes` (the fixture `name`) decodes to the same events and
/// ending whole and split at every single offset.
pub fn assert_same_at_every_split(
    name: &str,
    bytes: &[u8],
    decode: impl Fn(&[u8], &[usize]) -> Decoded,
) {
    let whole = decode(bytes, &[]);
    for k in 0..=bytes.len() {
        let split = decode(bytes, &[k]);
        assert_eq!(split.0, whole.0, "{name} split at {k}");
        assert_eq!(split.1, whole.1, "{name} split at {k}");
    }
}

/// Asserts that `bytes` decodes the same whole and fed one byte at a time
/// (every offset a chunk boundary at once), and the same cut once on each
/// side of every line break (where framing state changes); a recording up
/// to `every_offset_up_to` bytes is cut once at every offset instead.
pub fn assert_same_at_split_points(
    name: &str,
    bytes: &[u8],
    every_offset_up_to: usize,
    decode: impl Fn(&[u8], &[usize]) -> Decoded,
) {
    if bytes.len() <= every_offset_up_to {
        return assert_same_at_every_split(name, bytes, decode);
    }
    let whole = decode(bytes, &[]);
    let every: Vec<usize> = (1..bytes.len()).collect();
    let fed = decode(bytes, &every);
    assert_eq!(fed.0, whole.0, "{name} fed byte by byte");
    assert_eq!(fed.1, whole.1, "{name} fed byte by byte");
    let near_breaks = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .flat_map(|(at, _)| [at, at + 1])
        .filter(|k| *k <= bytes.len());
    for k in near_breaks {
        let split = decode(bytes, &[k]);
        assert_eq!(split.0, whole.0, "{name} split at {k}");
        assert_eq!(split.1, whole.1, "{name} split at {k}");
    }
}

/// The events that are kept in the log (no deltas).
pub fn finals(events: &[AgentEvent]) -> Vec<AgentEvent> {
    events
        .iter()
        .filter(|e| !e.is_transient())
        .cloned()
        .collect()
}

/// The thought (or output) deltas joined.
pub fn deltas_concat(events: &[AgentEvent], thought: bool) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ThoughtDelta { text, .. } if thought => Some(text.as_str()),
            AgentEvent::OutputDelta { text, .. } if !thought => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The text of the full `thought` (or `output`) event, empty without one.
pub fn full_text(events: &[AgentEvent], thought: bool) -> String {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Thought { text, .. } if thought => Some(text.clone()),
            AgentEvent::Output { text, .. } if !thought => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}
