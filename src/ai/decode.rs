//! [`WireDecoder`]: the contract between the HTTP driver and a provider's
//! stream format; [`SseWire`]: the framing and event loop every provider's
//! decoder shares, since all of them stream Server-Sent Events.

use super::assemble::StepAssembler;
use super::http::cut_stream_error;
use super::sse::{SseDecoder, SseEvent};
use super::{AiError, AiErrorKind};
use crate::protocol::{AgentEvent, Usage};

/// What a finished stream reports besides its events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepTotals {
    /// Provider-reported tokens (zeros when the provider sent none).
    pub usage: Usage,
    /// The model the provider says served the call, when it said.
    pub model: Option<String>,
}

/// A pure stream transformer: response body bytes in, [`AgentEvent`]s out.
///
/// Feeding the same bytes split at any points yields the same events.
pub trait WireDecoder: Send + 'static {
    /// Consumes one body chunk, appending the deltas it completes to `out`.
    ///
    /// Fails when the provider reports an error inside the stream or sends
    /// something that cannot be decoded.
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), AiError>;

    /// Ends the body: appends the step's full `thought`, `output` and
    /// `tool_calls` events (each when non-empty) and returns the totals.
    ///
    /// Fails when the stream stopped before the model finished.
    fn finish(&mut self, out: &mut Vec<AgentEvent>) -> Result<StepTotals, AiError>;

    /// Whether a `thought_delta` or `output_delta` has been produced.
    fn saw_delta(&self) -> bool;
}

/// An [`SseDecoder`] and the events it has framed that are still to be
/// handled; the buffer is reused from chunk to chunk.
#[derive(Debug)]
pub(crate) struct SseFrames {
    framer: SseDecoder,
    events: Vec<SseEvent>,
}

impl Default for SseFrames {
    fn default() -> Self {
        Self {
            framer: SseDecoder::new(),
            events: Vec::new(),
        }
    }
}

/// A provider format carried as Server-Sent Events, decoded one event at a
/// time: implementors say how to [`handle`](Self::handle) an event and get
/// the framing and the event loop of their [`WireDecoder`] from here.
pub(crate) trait SseWire {
    /// The decoder's framer.
    fn frames(&mut self) -> &mut SseFrames;

    /// The decoder's step so far.
    fn step(&self) -> &StepAssembler;

    /// Decodes one event, appending the deltas it completes to `out`.
    fn handle(&mut self, event: &SseEvent, out: &mut Vec<AgentEvent>) -> Result<(), AiError>;

    /// Frames `chunk` and handles every event it completes, in order,
    /// stopping at the first error.
    fn feed_sse(&mut self, chunk: &[u8], out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let frames = self.frames();
        frames.framer.feed(chunk, &mut frames.events);
        self.drain_sse(out)
    }

    /// Ends the framing and handles the events still pending, stopping at
    /// the first error. An event completed only by the end of input that
    /// does not decode is the tail of a cut stream, not a provider bug, so
    /// it fails as [`cut_stream_error`].
    fn finish_sse(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let frames = self.frames();
        frames.framer.finish(&mut frames.events);
        self.drain_sse(out).map_err(|e| match e.kind {
            AiErrorKind::Decode => cut_stream_error(),
            _ => e,
        })
    }

    /// Handles the framed events in order and empties the buffer; the
    /// events after a failing one are dropped with it. A tool call whose
    /// arguments have become a loop fails the stream.
    fn drain_sse(&mut self, out: &mut Vec<AgentEvent>) -> Result<(), AiError> {
        let mut events = std::mem::take(&mut self.frames().events);
        let result = events.iter().try_for_each(|event| {
            self.handle(event, out)?;
            self.step().check_repetition()
        });
        events.clear();
        self.frames().events = events;
        result
    }
}
