//! [`CallIds`]: tool-call ids for a provider that gives none.
//!
//! Gemini's `functionCall` parts usually carry no id, but our log needs one
//! per call, unique within the session (it is the recall key and matches
//! each result to its call). The seed derived ids from the call's position
//! and name, so the same id came back every turn; here every id has a
//! counter shared by all calls of one adaptor plus a token random per
//! adaptor, so ids stay unique across turns and across restarts of a
//! resumed session.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ai::replay::random_token;

/// A shared source of unique call ids, `gemini_<n>_<token>`.
#[derive(Debug, Clone)]
pub struct CallIds {
    token: Arc<str>,
    issued: Arc<AtomicU64>,
}

impl Default for CallIds {
    fn default() -> Self {
        Self::new()
    }
}

impl CallIds {
    /// A source whose token is random, so ids differ from any earlier
    /// process's.
    pub fn new() -> Self {
        Self::with_token(&random_token())
    }

    /// A source with a fixed token (for reproducible tests).
    pub fn with_token(token: &str) -> Self {
        Self {
            token: Arc::from(token),
            issued: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The next id; clones of this source never repeat one another's ids.
    pub fn next_id(&self) -> String {
        let n = self.issued.fetch_add(1, Ordering::Relaxed) + 1;
        format!("gemini_{n}_{}", self.token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_counter_and_sources_differ_in_token() {
        let ids = CallIds::with_token("t");
        let clone = ids.clone();
        assert_eq!(ids.next_id(), "gemini_1_t");
        assert_eq!(clone.next_id(), "gemini_2_t");
        assert_ne!(CallIds::new().next_id(), CallIds::new().next_id());
    }
}
