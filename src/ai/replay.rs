//! [`ReplayMemo`]: opaque provider state that must be sent back with a
//! step's tool calls but has no place in the event log.
//!
//! Gemini's `thoughtSignature` and the Responses API's encrypted reasoning
//! items belong to the step that made a tool call; the providers want them
//! echoed when that step is replayed. [`crate::protocol`] is fixed and the
//! blobs are neither user-visible nor portable across providers, so the
//! adaptor keeps them in memory keyed by tool-call id. After a restart the
//! memo is empty and each adaptor falls back to a request the API still
//! accepts (documented where the fallback is built).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{AiError, AiErrorKind};

/// Most entries kept; the oldest is forgotten first. A step only needs its
/// blobs while it is inside the context window, far fewer steps than this.
const MAX_ENTRIES: usize = 512;

#[derive(Debug, Default)]
struct Entries<T> {
    by_key: HashMap<String, T>,
    order: VecDeque<String>,
}

/// A bounded, shared map from tool-call id to a provider blob.
#[derive(Debug)]
pub(crate) struct ReplayMemo<T> {
    inner: Arc<Mutex<Entries<T>>>,
}

impl<T> Clone for ReplayMemo<T> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T> Default for ReplayMemo<T> {
    fn default() -> Self {
        Self {
            inner: Arc::new(Mutex::new(Entries {
                by_key: HashMap::new(),
                order: VecDeque::new(),
            })),
        }
    }
}

impl<T: Clone> ReplayMemo<T> {
    /// A poisoned lock only means another thread panicked mid-insert; the
    /// map is still a valid map, so it is used as is.
    fn lock(&self) -> MutexGuard<'_, Entries<T>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers `value` for `key`, replacing an older value.
    pub(crate) fn insert(&self, key: &str, value: T) {
        let mut entries = self.lock();
        if entries.by_key.insert(key.to_owned(), value).is_none() {
            entries.order.push_back(key.to_owned());
        }
        while entries.order.len() > MAX_ENTRIES {
            if let Some(oldest) = entries.order.pop_front() {
                entries.by_key.remove(&oldest);
            }
        }
    }

    /// The value remembered for `key`.
    pub(crate) fn get(&self, key: &str) -> Option<T> {
        self.lock().by_key.get(key).cloned()
    }
}

/// A short random token (8 base-36 characters): enough to keep ids of two
/// processes apart, not a secret.
pub(crate) fn random_token() -> String {
    (0..8)
        .map(|_| char::from_digit(fastrand::u32(..36), 36).unwrap_or('0'))
        .collect()
}

/// A body that is not the JSON the provider documents.
pub(crate) fn decode_error(what: &str, err: &serde_json::Error) -> AiError {
    AiError::new(
        AiErrorKind::Decode,
        format!("cannot decode {what} from the model provider: {err}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_entries_are_forgotten_past_the_bound() {
        let memo = ReplayMemo::default();
        for n in 0..MAX_ENTRIES + 3 {
            memo.insert(&format!("k{n}"), n);
        }
        assert_eq!(memo.get("k0"), None);
        assert_eq!(memo.get("k2"), None);
        assert_eq!(memo.get("k3"), Some(3));
        assert_eq!(
            memo.get(&format!("k{}", MAX_ENTRIES + 2)),
            Some(MAX_ENTRIES + 2)
        );
    }

    #[test]
    fn clones_share_entries_and_reinsert_replaces() {
        let memo = ReplayMemo::default();
        let other = memo.clone();
        memo.insert("a", 1);
        other.insert("a", 2);
        assert_eq!(memo.get("a"), Some(2));
    }

    #[test]
    fn random_tokens_differ() {
        let tokens: std::collections::HashSet<String> = (0..10).map(|_| random_token()).collect();
        assert!(tokens.len() > 1);
        assert!(tokens.iter().all(|t| t.len() == 8));
    }
}
