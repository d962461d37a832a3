//! `@` mentions: the tokens a prompt's text holds (`@src/main.rs`,
//! `@src/main.rs#L20-45`), the working directory's listing the host sent
//! ([`FileIndex`], matched with nucleo's fuzzy matcher), and what each
//! mentioned path turned out to be.
//!
//! The listing is asked for ([`Op::ListFiles`](crate::protocol::Op)) each
//! time the picker opens and arrives later as a host event; until then the
//! previous listing is matched, so nothing waits on the walk.

use std::collections::HashMap;

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::protocol::{EntryKind, MentionCheck, MentionState, WorkspaceEntry};
pub use crate::protocol::{Mention, mentions, parse_token};

/// Most rows the picker lists.
pub const PICKER_ROWS: usize = 8;

/// The mention being typed: the text from an `@` (at the line start or
/// after whitespace) to the cursor, without whitespace, on `line` with the
/// cursor at char column `col`. Returns the `@`'s char column and what
/// follows it up to the cursor.
pub fn token_at(line: &str, col: usize) -> Option<(usize, String)> {
    let before: Vec<char> = line.chars().take(col).collect();
    let at = before
        .iter()
        .rposition(|c| c.is_whitespace() || *c == '@')?;
    if before[at] != '@' || (at > 0 && !before[at - 1].is_whitespace()) {
        return None;
    }
    Some((at, before[at + 1..].iter().collect()))
}

/// The working directory's listing, the picker's matches over it, and the
/// states of mentioned paths.
pub struct FileIndex {
    entries: Vec<WorkspaceEntry>,
    /// Whether a listing arrived at least once.
    pub loaded: bool,
    /// Whether the host's walk stopped at its cap.
    pub truncated: bool,
    /// A listing was asked for and has not arrived.
    pub listing: bool,
    checks: HashMap<String, MentionState>,
    asked: Vec<String>,
    matcher: Matcher,
    /// The last query matched and every entry it matched: a query that
    /// only adds characters to it is matched against those alone.
    narrowed: Option<(String, Vec<u32>)>,
}

impl Default for FileIndex {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            loaded: false,
            truncated: false,
            listing: false,
            checks: HashMap::new(),
            asked: Vec::new(),
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
            narrowed: None,
        }
    }
}

impl FileIndex {
    /// Takes a new listing; the states it tells (a folder, a link leading
    /// out) are known at once.
    pub fn set_entries(&mut self, entries: Vec<WorkspaceEntry>, truncated: bool) {
        // The files may have changed since: every state is asked again.
        self.forget_checks();
        for entry in &entries {
            let state = match entry.kind {
                EntryKind::File => continue,
                EntryKind::Directory => MentionState::Directory,
                EntryKind::Refused => MentionState::Outside,
            };
            self.checks
                .insert(entry.path.trim_end_matches('/').to_string(), state);
        }
        self.entries = entries;
        self.narrowed = None;
        self.loaded = true;
        self.truncated = truncated;
        self.listing = false;
    }

    /// Records the host's answers.
    pub fn set_checks(&mut self, checks: Vec<MentionCheck>) {
        for check in checks {
            self.asked.retain(|p| *p != check.path);
            self.checks.insert(check.path, check.state);
        }
    }

    /// What `path` is, when known.
    pub fn state(&self, path: &str) -> Option<MentionState> {
        self.checks.get(path.trim_end_matches('/')).copied()
    }

    /// Of `paths`, those neither known nor asked about yet (now marked
    /// asked).
    pub fn to_ask(&mut self, paths: impl IntoIterator<Item = String>) -> Vec<String> {
        let mut out = Vec::new();
        for path in paths {
            if !self.checks.contains_key(&path) && !self.asked.contains(&path) {
                self.asked.push(path.clone());
                out.push(path);
            }
        }
        out
    }

    /// Forgets every state (the files may have changed since).
    pub fn forget_checks(&mut self) {
        self.checks.clear();
        self.asked.clear();
    }

    /// The entries best matching `query`, best first, at most `limit`: by
    /// nucleo's score (path bonuses), then shorter paths, then listing
    /// order. An empty query lists the entries in listing order.
    pub fn matches(&mut self, query: &str, limit: usize) -> Vec<&WorkspaceEntry> {
        if query.is_empty() {
            self.narrowed = None;
            return self.entries.iter().take(limit).collect();
        }
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        // Typing on narrows: every entry the longer query matches, the
        // shorter one matched (fuzzy atoms only; `!` negates, `'^$` anchor).
        let candidates: Option<Vec<u32>> = self.narrowed.take().and_then(|(last, hits)| {
            let plain = |q: &str| !q.contains(['!', '\'', '^', '$', '\\']);
            (query.starts_with(&last) && plain(query) && !last.ends_with(' ')).then_some(hits)
        });
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, u32)> = Vec::new();
        let mut score = |i: u32, matcher: &mut Matcher, scored: &mut Vec<(u32, u32)>| {
            let haystack = Utf32Str::new(&self.entries[i as usize].path, &mut buf);
            if let Some(score) = pattern.score(haystack, matcher) {
                scored.push((score, i));
            }
        };
        match candidates {
            Some(hits) => hits
                .into_iter()
                .for_each(|i| score(i, &mut self.matcher, &mut scored)),
            None => (0..self.entries.len() as u32)
                .for_each(|i| score(i, &mut self.matcher, &mut scored)),
        }
        self.narrowed = Some((query.to_string(), scored.iter().map(|&(_, i)| i).collect()));
        let key = |&(score, i): &(u32, u32)| {
            (
                std::cmp::Reverse(score),
                self.entries[i as usize].path.len(),
                i,
            )
        };
        let limit = limit.min(scored.len());
        if limit < scored.len() {
            scored.select_nth_unstable_by_key(limit, key);
            scored.truncate(limit);
        }
        scored.sort_by_key(key);
        scored
            .into_iter()
            .map(|(_, i)| &self.entries[i as usize])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, kind: EntryKind) -> WorkspaceEntry {
        WorkspaceEntry {
            path: path.into(),
            kind,
        }
    }

    #[test]
    fn mentions_take_paths_and_ranges_but_not_emails() {
        let found =
            mentions("see @src/main.rs#L20-45 and @README.md, mail a@b.c @src/main.rs#L20-45");
        assert_eq!(
            found,
            [
                Mention {
                    path: "src/main.rs".into(),
                    lines: Some((20, 45))
                },
                Mention {
                    path: "README.md".into(),
                    lines: None
                },
            ]
        );
        assert_eq!(parse_token("a.rs#L7").unwrap().lines, Some((7, 7)));
        assert_eq!(parse_token("a.rs#9-3").unwrap().lines, None);
        assert_eq!(parse_token(""), None);
    }

    #[test]
    fn the_token_at_the_cursor_starts_at_an_at_sign_after_whitespace() {
        assert_eq!(token_at("look @src/ma", 12), Some((5, "src/ma".into())));
        assert_eq!(token_at("@", 1), Some((0, String::new())));
        assert_eq!(token_at("mail a@b", 8), None);
        assert_eq!(token_at("@a b", 4), None);
    }

    #[test]
    fn typing_narrows_the_matches_best_first() {
        let mut index = FileIndex::default();
        index.set_entries(
            vec![
                entry("src/main.rs", EntryKind::File),
                entry("src/tui/mention.rs", EntryKind::File),
                entry("docs/MAIN.md", EntryKind::File),
                entry("src/", EntryKind::Directory),
                entry("out.txt", EntryKind::Refused),
            ],
            false,
        );
        let paths = |index: &mut FileIndex, q: &str| -> Vec<String> {
            index
                .matches(q, 10)
                .iter()
                .map(|e| e.path.clone())
                .collect()
        };
        assert_eq!(paths(&mut index, "").len(), 5);
        assert_eq!(paths(&mut index, "main"), ["src/main.rs", "docs/MAIN.md"]);
        assert_eq!(paths(&mut index, "mainrs"), ["src/main.rs"]);
        assert_eq!(paths(&mut index, "menti"), ["src/tui/mention.rs"]);
        // Narrowing from "m" gives what matching afresh gives.
        paths(&mut index, "m");
        assert_eq!(paths(&mut index, "ma"), ["src/main.rs", "docs/MAIN.md"]);
        assert_eq!(
            paths(&mut index, "m").len(),
            3,
            "a shorter query matches afresh"
        );
        assert_eq!(index.state("out.txt"), Some(MentionState::Outside));
        assert_eq!(index.state("src/"), Some(MentionState::Directory));
        assert_eq!(index.state("src/main.rs"), None);
    }
}
