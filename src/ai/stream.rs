//! The HTTP side of one streamed model call: send, check the status, pump
//! body bytes through a [`WireDecoder`], and end with an `agent_trace`.
//!
//! Every network await races the cancellation token and the idle timeout;
//! on cancel the response is dropped at once (the server sees the
//! connection close) and the stream yields one `aborted` error.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use tokio_util::sync::CancellationToken;

use super::connection::Clients;
use super::decode::WireDecoder;
use super::http::{
    classify_status, first_byte_timeout_error, idle_timeout_error, parse_retry_after,
    transport_error,
};
use super::{AiError, EventStream};
use crate::protocol::{AgentEvent, Meta, Secret, now_millis};

/// Largest error body read to explain a failed status.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// What the driver needs besides the decoder.
pub(crate) struct CallSpec {
    /// The fully built request.
    pub(crate) request: reqwest::RequestBuilder,
    /// What sends it (and resends it on a fresh connection).
    pub(crate) clients: Clients,
    /// Key to scrub from error messages.
    pub(crate) api_key: Option<Secret>,
    /// Configured model name, used in the trace when the provider names none.
    pub(crate) model: String,
    /// Longest silence between two body chunks.
    pub(crate) idle: Duration,
    /// Longest wait from sending to the first body byte (headers included).
    pub(crate) first_byte: Duration,
    /// Whether a first-byte timeout may be retried.
    pub(crate) retry_slow_start: bool,
}

enum Phase {
    Send(Box<reqwest::RequestBuilder>),
    Body(BoxStream<'static, reqwest::Result<Bytes>>),
    Done,
}

struct Driver<D> {
    phase: Phase,
    decoder: D,
    pending: VecDeque<AgentEvent>,
    scratch: Vec<AgentEvent>,
    /// The error that ends the stream once `pending` is delivered.
    error: Option<AiError>,
    cancel: CancellationToken,
    clients: Clients,
    api_key: Option<Secret>,
    model: String,
    idle: Duration,
    /// When the first body byte must have come; `None` once it has.
    first_byte_by: Option<tokio::time::Instant>,
    first_byte: Duration,
    retry_slow_start: bool,
    started_at: u64,
}

/// Streams one call; see the module docs.
pub(crate) fn drive<D: WireDecoder>(
    spec: CallSpec,
    decoder: D,
    cancel: CancellationToken,
) -> EventStream {
    let driver = Driver {
        phase: Phase::Send(Box::new(spec.request)),
        decoder,
        pending: VecDeque::new(),
        scratch: Vec::new(),
        error: None,
        cancel,
        clients: spec.clients,
        api_key: spec.api_key,
        model: spec.model,
        idle: spec.idle,
        first_byte_by: Some(tokio::time::Instant::now() + spec.first_byte),
        first_byte: spec.first_byte,
        retry_slow_start: spec.retry_slow_start,
        started_at: now_millis(),
    };
    futures::stream::unfold(driver, |mut driver| async move {
        let item = driver.next_item().await?;
        Some((item, driver))
    })
    .boxed()
}

impl<D: WireDecoder> Driver<D> {
    async fn next_item(&mut self) -> Option<Result<AgentEvent, AiError>> {
        loop {
            if self.cancel.is_cancelled() && !matches!(self.phase, Phase::Done) {
                // Dropping the phase drops the response: the server sees
                // the connection close at once.
                self.phase = Phase::Done;
                self.pending.clear();
                return Some(Err(AiError::aborted()));
            }
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if let Some(err) = self.error.take() {
                return Some(Err(err));
            }
            let step = match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Send(request) => self.send(*request).await,
                Phase::Body(body) => self.read(body).await,
                Phase::Done => return None,
            };
            if let Err(err) = step {
                // Events decoded before the failure are still delivered;
                // the error keeps its class even after a delta: the caller
                // knows what it showed and decides whether to retry.
                self.error = Some(err);
            }
        }
    }

    /// When the next byte must have come: the first-byte deadline until
    /// the body's first chunk, then the idle gap from now.
    fn deadline(&self) -> tokio::time::Instant {
        self.first_byte_by
            .unwrap_or_else(|| tokio::time::Instant::now() + self.idle)
    }

    /// The error of a missed [`Driver::deadline`].
    fn timeout_error(&self) -> AiError {
        match self.first_byte_by {
            Some(_) => first_byte_timeout_error(self.first_byte, self.retry_slow_start),
            None => idle_timeout_error(self.idle),
        }
    }

    async fn send(&mut self, request: reqwest::RequestBuilder) -> Result<(), AiError> {
        let response = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(AiError::aborted()),
            sent = tokio::time::timeout_at(self.deadline(), self.clients.send(request)) => match sent {
                Err(_) => return Err(self.timeout_error()),
                Ok(Err(e)) => return Err(transport_error(&e)),
                Ok(Ok(response)) => response,
            },
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = parse_retry_after(response.headers());
            let body = read_error_body(response, &self.cancel, self.idle).await?;
            return Err(classify_status(
                status.as_u16(),
                retry_after,
                &body,
                self.api_key.as_ref().map(Secret::expose),
            ));
        }
        self.phase = Phase::Body(response.bytes_stream().boxed());
        Ok(())
    }

    async fn read(
        &mut self,
        mut body: BoxStream<'static, reqwest::Result<Bytes>>,
    ) -> Result<(), AiError> {
        let next = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(AiError::aborted()),
            next = tokio::time::timeout_at(self.deadline(), body.next()) => next,
        };
        if matches!(next, Ok(Some(Ok(_)))) {
            self.first_byte_by = None;
        }
        match next {
            Err(_) => Err(self.timeout_error()),
            Ok(Some(Err(e))) => Err(transport_error(&e)),
            Ok(Some(Ok(chunk))) => {
                let fed = self.decoder.feed(&chunk, &mut self.scratch);
                self.pending.extend(self.scratch.drain(..));
                fed?;
                self.phase = Phase::Body(body);
                Ok(())
            }
            Ok(None) => {
                drop(body);
                let finished = self.decoder.finish(&mut self.scratch);
                self.pending.extend(self.scratch.drain(..));
                let totals = finished?;
                self.pending.push_back(AgentEvent::AgentTrace {
                    usage: totals.usage,
                    model: totals.model.unwrap_or_else(|| self.model.clone()),
                    started_at: self.started_at,
                    ended_at: now_millis(),
                    meta: Meta::default(),
                });
                Ok(())
            }
        }
    }
}

/// Reads up to [`MAX_ERROR_BODY`] bytes of an error response.
async fn read_error_body(
    response: reqwest::Response,
    cancel: &CancellationToken,
    idle: Duration,
) -> Result<String, AiError> {
    let mut body = response.bytes_stream();
    let mut collected = Vec::new();
    while collected.len() < MAX_ERROR_BODY {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(AiError::aborted()),
            next = tokio::time::timeout(idle, body.next()) => next,
        };
        match next {
            Ok(Some(Ok(chunk))) => collected.extend_from_slice(&chunk),
            // The status already says what went wrong; a broken or slow
            // error body only loses the detail.
            Ok(Some(Err(_)) | None) | Err(_) => break,
        }
    }
    Ok(String::from_utf8_lossy(&collected).into_owned())
}
