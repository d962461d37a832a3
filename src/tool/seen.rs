//! What the agent last saw of each file: the stale guard's memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The content hash the writing tools compare against (xxh3, stable across
/// processes and versions, so it can also be stored).
pub fn content_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Per session: the hash of each file's content as the agent last read or
/// wrote it, by path relative to the working directory. A writing tool
/// refuses to change a file whose content differs from what is remembered
/// (someone else changed it); files never seen are not guarded, except that
/// `write` will not replace one. Also the writes that were held back for
/// dropping most of a file, so that sending one again confirms it. Cheap to
/// clone.
#[derive(Debug, Clone, Default)]
pub struct SeenFiles {
    hashes: Arc<Mutex<HashMap<String, u64>>>,
    held_writes: Arc<Mutex<HashMap<String, u64>>>,
}

/// A poisoned map still holds valid hashes.
fn lock(map: &Mutex<HashMap<String, u64>>) -> MutexGuard<'_, HashMap<String, u64>> {
    map.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SeenFiles {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, u64>> {
        lock(&self.hashes)
    }

    /// Remembers that a write of `content` to `path` was held back.
    pub fn hold_write(&self, path: &str, content: &[u8]) {
        lock(&self.held_writes).insert(path.to_string(), content_hash(content));
    }

    /// Whether this write of `content` to `path` is the one last held back
    /// (and forgets it: a confirmation counts once).
    pub fn confirms_held_write(&self, path: &str, content: &[u8]) -> bool {
        let mut held = lock(&self.held_writes);
        let confirms = held.get(path) == Some(&content_hash(content));
        held.remove(path);
        confirms
    }

    /// Remembers that the agent now knows `path` as `bytes`.
    pub fn saw(&self, path: &str, bytes: &[u8]) {
        self.lock().insert(path.to_string(), content_hash(bytes));
    }

    /// Forgets `path` (it was deleted or moved away).
    pub fn forget(&self, path: &str) {
        self.lock().remove(path);
    }

    /// The hash remembered for `path`.
    pub fn hash(&self, path: &str) -> Option<u64> {
        self.lock().get(path).copied()
    }

    /// Forgets everything (another session was loaded).
    pub fn clear(&self) {
        self.lock().clear();
        lock(&self.held_writes).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_latest_content_per_path() {
        let seen = SeenFiles::default();
        assert_eq!(seen.hash("a"), None);
        seen.saw("a", b"one");
        let other = seen.clone();
        other.saw("a", b"two");
        assert_eq!(seen.hash("a"), Some(content_hash(b"two")));
        seen.forget("a");
        assert_eq!(other.hash("a"), None);
    }

    #[test]
    fn a_held_write_is_confirmed_once_by_the_same_content() {
        let seen = SeenFiles::default();
        assert!(!seen.confirms_held_write("a", b"x"));
        seen.hold_write("a", b"x");
        assert!(!seen.confirms_held_write("b", b"x"));
        assert!(seen.clone().confirms_held_write("a", b"x"));
        assert!(!seen.confirms_held_write("a", b"x"));
        seen.hold_write("a", b"x");
        assert!(!seen.confirms_held_write("a", b"y"));
        assert!(
            !seen.confirms_held_write("a", b"x"),
            "another write forgets the held one"
        );
    }
}
