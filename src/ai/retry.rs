//! When to send a failed model call again, and a backoff wait that a
//! cancellation cuts short.
//!
//! The adaptors never retry by themselves: the loop owns the attempt count
//! and knows whether a delta of this attempt has been shown (after one, it
//! must not retry, so two answers are never mixed in one step).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::AiError;

/// How often and how long to back off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3).
    pub retries: u32,
    /// Wait before the first retry; doubles each retry (default 1 s).
    pub base_delay: Duration,
    /// Upper bound on a server-requested `Retry-After` wait (default 60 s).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            retries: 3,
            base_delay: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before retrying after attempt `attempt` (0-based) failed
    /// with `err`, or `None` when the call must not be retried: the error
    /// is not retryable, or `retries` retries have been made.
    ///
    /// A `Retry-After` is honoured (capped at `max_retry_after`); otherwise
    /// the wait is `base_delay × 2^attempt` with ±20 % jitter so that
    /// clients that failed together do not retry together.
    pub fn delay_for(&self, attempt: u32, err: &AiError) -> Option<Duration> {
        if !err.retryable || attempt >= self.retries {
            return None;
        }
        if let Some(requested) = err.retry_after {
            return Some(requested.min(self.max_retry_after));
        }
        let exponential = self.base_delay.saturating_mul(1u32 << attempt.min(16));
        Some(exponential.mul_f64(jitter_factor()))
    }
}

/// A factor in [0.8, 1.2) that spreads retries of many clients apart.
fn jitter_factor() -> f64 {
    0.8 + 0.4 * fastrand::f64()
}

/// Waits `delay`, or fails with [`AiError::aborted`] as soon as `cancel`
/// fires.
pub async fn sleep_or_cancel(delay: Duration, cancel: &CancellationToken) -> Result<(), AiError> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(AiError::aborted()),
        () = tokio::time::sleep(delay) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::AiErrorKind;

    fn retryable() -> AiError {
        AiError::new(AiErrorKind::Provider, "503")
    }

    #[test]
    fn backoff_doubles_within_jitter_and_stops_after_the_retries() {
        let policy = RetryPolicy::default();
        for (attempt, base) in [(0u32, 1.0f64), (1, 2.0), (2, 4.0)] {
            let delay = policy
                .delay_for(attempt, &retryable())
                .unwrap()
                .as_secs_f64();
            assert!(
                (base * 0.8..=base * 1.2).contains(&delay),
                "attempt {attempt}: {delay}"
            );
        }
        assert_eq!(policy.delay_for(3, &retryable()), None);
    }

    #[test]
    fn jitter_varies_between_calls() {
        let policy = RetryPolicy::default();
        let delays: std::collections::HashSet<Duration> = (0..20)
            .map(|_| policy.delay_for(0, &retryable()).unwrap())
            .collect();
        assert!(delays.len() > 1);
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let policy = RetryPolicy::default();
        let asked = |secs| retryable().with_retry_after(Some(Duration::from_secs(secs)));
        assert_eq!(policy.delay_for(0, &asked(7)), Some(Duration::from_secs(7)));
        assert_eq!(
            policy.delay_for(2, &asked(600)),
            Some(Duration::from_secs(60))
        );
    }

    #[test]
    fn non_retryable_errors_are_not_retried() {
        let err = AiError::new(AiErrorKind::Request, "401");
        assert_eq!(RetryPolicy::default().delay_for(0, &err), None);
        assert_eq!(
            RetryPolicy::default().delay_for(0, &AiError::aborted()),
            None
        );
    }

    #[tokio::test]
    async fn cancelled_wait_ends_with_aborted() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let err = sleep_or_cancel(Duration::from_secs(60), &cancel)
            .await
            .unwrap_err();
        assert!(err.is_aborted());
    }
}
