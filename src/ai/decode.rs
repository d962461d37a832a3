//! [`WireDecoder`]: the contract between the HTTP driver and a provider's
//! stream format.

use super::AiError;
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
