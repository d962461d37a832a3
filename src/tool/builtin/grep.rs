//! `grep`: where known plain strings occur, as `path:line` plus the line.
//!
//! The walk goes beneath the session's [`Root`](crate::tool::fs::Root)
//! through directory handles ([`walk_files`], the same filters as `tree`),
//! in path order; each file is opened relative to the folder handle it was
//! listed in (no symlink followed, never blocking) and searched by
//! `grep-searcher` with a literal, case-sensitive matcher on a few worker
//! threads. Binary files are skipped whole. At most [`MAX_MATCHES`] lines
//! are reported, always the first ones by (path, line), so the same call
//! gives the same output however the workers interleave; since files come
//! in path order, the walk ends once no later file can change them. A file
//! that cannot be read is noted and skipped; it never fails the call.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Mutex, PoisonError};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use schemars::JsonSchema;
use serde::Deserialize;

use super::blocking::{self, Interrupted, StopFlag};
use crate::tool::fs::walk::{Flow, WalkOrder, WalkedFile, walk_files};
use crate::tool::fs::{FsRefusal, FsRefusalKind, RelPath, Root};
use crate::tool::labelled::{Labelled, echo};
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "grep";
/// Most matching lines reported.
const MAX_MATCHES: usize = 100;
/// Longest line shown, in characters.
const MAX_LINE_CHARS: usize = 500;
/// Search strings that would match (nearly) every line.
const CATCH_ALLS: [&str; 6] = [".", ".*", ".+", "^.*$", "^.+$", "*"];

const DESCRIPTION: &str = "Find where literal, case-sensitive strings occur, e.g. \"fn parse\" \
or an error text. No regex, globs, paths or flags; not for listing files.";

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepArgs {
    /// 1 to 10 literal strings, e.g. ["fn execute", "ToolOutput"].
    #[schemars(length(min = 1, max = 10), inner(length(min = 1)))]
    pub search_strs: Vec<String>,
    /// Directory to search (default: all).
    #[serde(default)]
    pub scope: Option<String>,
}

/// The `grep` tool.
#[derive(Debug, Clone, Default)]
pub struct GrepTool;

impl Tool for GrepTool {
    type Args = GrepArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn execute(&self, args: GrepArgs, ctx: ToolContext) -> ToolOutput {
        if ctx.cancel.is_cancelled() {
            return blocking::cancelled(NAME);
        }
        let (valid, skipped) = split_search_strs(&args.search_strs);
        if valid.is_empty() {
            return all_invalid(&skipped);
        }
        let scope_input = args.scope.as_deref().unwrap_or(".");
        let scope = match ctx.root.relative(scope_input) {
            Ok(scope) => scope,
            Err(refusal) => return refusal.into(),
        };
        let found = match search_for(&ctx, &scope, &valid, false).await {
            Ok(found) => found,
            Err(Failed::Refused(refusal)) if refusal.kind == FsRefusalKind::NotDirectory => {
                return scope_not_directory(scope_input);
            }
            Err(Failed::Refused(refusal)) => return refusal.guided(&ctx.root, &scope).into(),
            Err(failed) => return failed.into_output(),
        };
        let mut text = render(&valid, &skipped, &scope.to_string(), &found);
        if found.matches.is_empty() && found.searched <= MAX_FILES_FOR_WORDS {
            let terms = word_terms(&valid);
            if !terms.is_empty() {
                match search_for(&ctx, &scope, &terms, true).await {
                    Ok(near) => text.push_str(&render_words(&terms, &near)),
                    Err(Failed::Interrupted(interrupted)) => {
                        return interrupted.into_output(NAME);
                    }
                    // The answer as it is stands: the words are only a hint
                    // (the scope swapped since, too many words).
                    Err(_) => {}
                }
            }
        }
        ToolOutput::ok(text)
    }
}

/// Why a search gave no result.
enum Failed {
    /// The turn was interrupted, or the search crashed.
    Interrupted(Interrupted),
    /// The scope was refused.
    Refused(FsRefusal),
    /// The strings make no matcher (too large).
    Matcher(String),
}

impl Failed {
    fn into_output(self) -> ToolOutput {
        match self {
            Failed::Interrupted(interrupted) => interrupted.into_output(NAME),
            Failed::Refused(refusal) => refusal.into(),
            Failed::Matcher(e) => {
                ToolOutput::error(format!("grep could not build its matcher: {e}"))
            }
        }
    }
}

/// Searches `scope` for `strs` as literals (in any case when `any_case`).
async fn search_for(
    ctx: &ToolContext,
    scope: &RelPath,
    strs: &[String],
    any_case: bool,
) -> Result<Found, Failed> {
    let matcher = RegexMatcherBuilder::new()
        .fixed_strings(true)
        .case_insensitive(any_case)
        .line_terminator(Some(b'\n'))
        .build_many(strs)
        .map_err(|e| Failed::Matcher(e.to_string()))?;
    let root = ctx.root.clone();
    let start = scope.clone();
    let searched = blocking::run_blocking(&ctx.cancel, move |stop| {
        search(&root, &start, &matcher, stop)
    })
    .await;
    match searched {
        Ok(Ok(Some(found))) => Ok(found),
        Ok(Ok(None)) => Err(Failed::Interrupted(Interrupted::Cancelled)),
        Ok(Err(refusal)) => Err(Failed::Refused(refusal)),
        Err(interrupted) => Err(Failed::Interrupted(interrupted)),
    }
}

/// Splits the model's strings into ones worth searching and ones refused
/// (blank, catch-all, path-like, multi-line). Duplicates are searched once.
fn split_search_strs(strs: &[String]) -> (Vec<String>, Vec<String>) {
    let mut valid: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    for s in strs {
        let trimmed = s.trim();
        let refused = trimmed.is_empty()
            || CATCH_ALLS.contains(&trimmed)
            || s.contains('/')
            || s.contains(['\n', '\r']);
        if refused {
            skipped.push(s.clone());
        } else if !valid.contains(s) {
            valid.push(s.clone());
        }
    }
    (valid, skipped)
}

fn all_invalid(skipped: &[String]) -> ToolOutput {
    let mut text = Labelled::what(
        "all search_strs are invalid: empty text, wildcards, directories or file paths were used as search text",
    )
    .raw("[invalid_search_strs]:");
    for s in skipped {
        text = text.raw(format!("- {}", echo(s)));
    }
    ToolOutput::error(
        text.line("how", "grep only locates known text; it is not for browsing, reading or structure (use tree, read_file)")
            .raw("- [good]: grep({\"search_strs\": [\"ToolCall\"]})")
            .raw("- [good]: grep({\"search_strs\": [\"tool_result\", \"ToolResult\"], \"scope\": \"src/agent\"})")
            .raw("- [bad]: grep({\"search_strs\": [\".\"]})")
            .raw("- [bad]: grep({\"search_strs\": [\"src/agent\"]})")
            .finish(),
    )
}

fn scope_not_directory(scope: &str) -> ToolOutput {
    ToolOutput::error(
        Labelled::what("scope invalid: directories only, not files")
            .line("scope", echo(scope))
            .line(
                "how",
                "use tree for structure, read_file for a known file, or change scope to a directory",
            )
            .finish(),
    )
}

/// What a search found.
#[derive(Debug, Default)]
struct Found {
    /// The first matches by (path relative to cwd, line number) → line text.
    matches: BTreeMap<(String, u64), String>,
    /// Whether matches were dropped or files left unsearched at the limit.
    truncated: bool,
    /// Files or directories that could not be read.
    unreadable: usize,
    /// Files handed to the searchers.
    searched: usize,
}

impl Found {
    /// Whether no file sorting after `path` can still contribute a match.
    fn is_full_before(&self, path: &str) -> bool {
        self.matches.len() >= MAX_MATCHES
            && self
                .matches
                .last_key_value()
                .is_some_and(|((last, _), _)| path > last.as_str())
    }

    fn merge(&mut self, path: &str, lines: Vec<(u64, String)>) {
        for (line, text) in lines {
            self.matches.insert((path.to_owned(), line), text);
            if self.matches.len() > MAX_MATCHES {
                self.matches.pop_last();
                self.truncated = true;
            }
        }
    }
}

/// Searches every file under `start` beneath `root`. `None` when stopped.
fn search(
    root: &Root,
    start: &RelPath,
    matcher: &RegexMatcher,
    stop: &StopFlag,
) -> Result<Option<Found>, FsRefusal> {
    let found = Mutex::new(Found::default());
    let lock = || found.lock().unwrap_or_else(PoisonError::into_inner);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let (files, queue) = sync_channel::<WalkedFile>(256);
    let queue = Mutex::new(queue);
    let mut searched = 0;
    let walked = std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| search_files(&queue, matcher, &found, stop));
        }
        let walked = walk_files(root, start, WalkOrder::Path, &|| stop.is_set(), |file| {
            let path = file.rel.to_string();
            if lock().is_full_before(&path) {
                // Files come in path order: none after this one can count.
                lock().truncated = true;
                return Flow::Stop;
            }
            searched += 1;
            match files.send(file) {
                Ok(()) => Flow::Continue,
                Err(_) => Flow::Stop,
            }
        });
        drop(files);
        walked
    })?;
    if stop.is_set() {
        return Ok(None);
    }
    let mut found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    found.unreadable += walked.unreadable;
    found.searched = searched;
    Ok(Some(found))
}

/// One worker: searches files from `queue` until it is empty and closed.
fn search_files(
    queue: &Mutex<Receiver<WalkedFile>>,
    matcher: &RegexMatcher,
    found: &Mutex<Found>,
    stop: &StopFlag,
) {
    let lock = || found.lock().unwrap_or_else(PoisonError::into_inner);
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build();
    loop {
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(file) = next else { return };
        if stop.is_set() {
            continue;
        }
        let path = file.rel.to_string();
        if lock().is_full_before(&path) {
            lock().truncated = true;
            continue;
        }
        // Opened relative to the folder it was listed in, following nothing:
        // a file swapped for a symlink or a FIFO since is skipped.
        let opened = match file.dir.open_file(&file.name) {
            Ok(Some(opened)) => opened,
            Ok(None) => continue,
            Err(_) => {
                lock().unreadable += 1;
                continue;
            }
        };
        let mut sink = FileSink {
            stop,
            lines: Vec::new(),
            binary: false,
        };
        match searcher.search_file(matcher, &opened.file, &mut sink) {
            Err(_) => lock().unreadable += 1,
            Ok(()) if sink.binary => {}
            Ok(()) => {
                let mut found = lock();
                if sink.lines.len() > MAX_MATCHES {
                    found.truncated = true;
                }
                found.merge(&path, sink.lines);
            }
        }
    }
}

/// Collects one file's matching lines; gives up on binary files.
struct FileSink<'a> {
    stop: &'a StopFlag,
    lines: Vec<(u64, String)>,
    binary: bool,
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        if self.stop.is_set() {
            return Ok(false);
        }
        let first = mat.line_number().unwrap_or(0);
        for (offset, line) in mat.lines().enumerate() {
            self.lines.push((first + offset as u64, display_line(line)));
        }
        // One more than the limit tells the caller the file had more.
        Ok(self.lines.len() <= MAX_MATCHES)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, std::io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// The line without its terminator, cut to [`MAX_LINE_CHARS`].
fn display_line(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}...[truncated]", &text[..cut]),
        None => text.into_owned(),
    }
}

fn render(valid: &[String], skipped: &[String], scope: &str, found: &Found) -> String {
    let mut out = String::new();
    if found.matches.is_empty() {
        out.push_str("no matches found.\n\n");
    } else {
        out.push_str("## grep match results\n\n");
    }
    out.push_str("Searched for:\n");
    for s in valid {
        let _ = writeln!(out, "- `{s}`");
    }
    let _ = writeln!(out, "\nScope: `{scope}`");
    if !skipped.is_empty() {
        out.push_str("\n[skipped_invalid_search_strs]:\n");
        for s in skipped {
            let _ = writeln!(out, "- {}", echo(s));
        }
        out.push_str(
            "[why]: these were empty, catch-all, wildcard, multi-line, directory or file paths; not searched\n",
        );
    }
    if !found.matches.is_empty() {
        out.push('\n');
        for ((path, line), text) in &found.matches {
            let _ = writeln!(out, "- {path}:{line}\n  {text}");
        }
    }
    if found.truncated {
        let _ = writeln!(
            out,
            "\n> truncated: only the first {MAX_MATCHES} matches by path and line are shown; use more specific strings or a narrower scope; use tree for structure"
        );
    }
    if found.unreadable > 0 {
        let _ = writeln!(
            out,
            "\n> {} files or directories could not be read (e.g. permission denied) and were skipped",
            found.unreadable
        );
    }
    if found.matches.is_empty() {
        let _ = writeln!(out, "\n[how]: {}", no_match_advice(valid, scope));
    }
    out.trim_end().to_owned()
}

/// Most lines shown for a search's words after the search found nothing.
const MAX_WORD_LINES: usize = 30;
/// Most files a search that found nothing may have searched for its words
/// to be searched too: that second walk may cost as much as the first, and
/// in a tree this large the words are too common to point anywhere.
const MAX_FILES_FOR_WORDS: usize = 20_000;

/// Words too common to locate anything.
const STOP_WORDS: [&str; 20] = [
    "the", "and", "for", "with", "from", "that", "this", "which", "what", "where", "when", "how",
    "does", "into", "are", "was", "its", "not", "any", "all",
];

/// What to search, in any case, after the strings as given found nothing:
/// each single-word string itself, and the words (3 characters or more,
/// common ones left out) of each longer one. Lowercase, each once.
fn word_terms(valid: &[String]) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for s in valid {
        let words: Vec<&str> = words(s).collect();
        let candidates = if words.len() <= 1 {
            vec![s.trim()]
        } else {
            words
        };
        for word in candidates {
            let word = word.to_lowercase();
            if word.chars().count() >= 3
                && !STOP_WORDS.contains(&word.as_str())
                && !terms.contains(&word)
            {
                terms.push(word);
            }
        }
    }
    terms
}

/// The lines holding `terms`, files holding the most distinct terms first
/// (a file that names the subject several ways is likelier the answer than
/// one that repeats a common word), each file's lines in order.
fn render_words(terms: &[String], near: &Found) -> String {
    if near.matches.is_empty() {
        return String::new();
    }
    /// One file's matching lines: (line number, text).
    type Lines<'a> = Vec<(u64, &'a str)>;
    let mut files: BTreeMap<&str, Lines> = BTreeMap::new();
    for ((path, line), text) in &near.matches {
        files.entry(path).or_default().push((*line, text));
    }
    let holds = |lines: &Lines| {
        let lower: Vec<String> = lines.iter().map(|(_, text)| text.to_lowercase()).collect();
        terms
            .iter()
            .filter(|term| lower.iter().any(|text| text.contains(*term)))
            .count()
    };
    let mut ranked: Vec<(usize, &str, Lines)> = files
        .into_iter()
        .map(|(path, lines)| (holds(&lines), path, lines))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let listed: Vec<String> = terms.iter().map(|t| format!("`{t}`")).collect();
    let mut out = format!(
        "\n\n[words]: no line holds the text as given; these lines hold its words {} in any case, files holding the most of them first:",
        listed.join(", ")
    );
    let lines = ranked
        .iter()
        .flat_map(|(_, path, lines)| lines.iter().map(move |(line, text)| (path, line, text)));
    for (path, line, text) in lines.take(MAX_WORD_LINES) {
        let _ = write!(out, "\n- {path}:{line}\n  {text}");
    }
    if near.matches.len() > MAX_WORD_LINES || near.truncated {
        out.push_str(
            "\n> more lines hold these words; search for one of them, or narrow the scope",
        );
    }
    out
}

/// What to try after a search found nothing: a shorter fragment of a long
/// string, the whole project when a narrower scope was searched.
fn no_match_advice(valid: &[String], scope: &str) -> String {
    let mut advice = String::from(
        "matching is literal and case-sensitive (ignored and hidden files are not searched); try",
    );
    let shorter: Vec<String> = valid
        .iter()
        .filter_map(|s| shorter_fragment(s))
        .map(|f| format!("`{f}`"))
        .collect();
    if shorter.is_empty() {
        advice.push_str(" another spelling, case or name");
    } else {
        let _ = write!(advice, " a shorter fragment such as {}", shorter.join(", "));
    }
    if scope != "." {
        advice.push_str(", or the whole project (no scope)");
    }
    advice
}

/// The longest word of a multi-word or long string (identifiers split on
/// `_` and case changes are left whole: a word is what spaces and
/// punctuation separate); `None` when the string is already short.
fn shorter_fragment(s: &str) -> Option<String> {
    let longest = words(s).max_by_key(|w| w.chars().count())?;
    (longest.chars().count() >= 3 && longest.len() < s.trim().len()).then(|| longest.to_owned())
}

/// The words of `s`: what spaces and punctuation separate (identifiers
/// stay whole).
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_match_advice_names_a_shorter_fragment_and_the_whole_project() {
        let advice = no_match_advice(&["relay server default port".into()], "src");
        assert!(
            advice.contains("a shorter fragment such as `default`"),
            "{advice}"
        );
        assert!(
            advice.ends_with("or the whole project (no scope)"),
            "{advice}"
        );
        let advice = no_match_advice(&["Port".into()], ".");
        assert!(
            advice.ends_with("another spelling, case or name"),
            "{advice}"
        );
    }

    #[test]
    fn refuses_catch_alls_paths_and_blanks() {
        let strs: Vec<String> = [
            "fn main",
            ".*",
            " ",
            "src/lib.rs",
            "a\nb",
            "fn main",
            "..foo",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (valid, skipped) = split_search_strs(&strs);
        assert_eq!(valid, ["fn main", "..foo"]);
        assert_eq!(skipped, [".*", " ", "src/lib.rs", "a\nb"]);
    }

    #[test]
    fn long_lines_are_cut_at_500_chars() {
        let line = format!("{}\r\n", "é".repeat(600));
        let shown = display_line(line.as_bytes());
        assert_eq!(shown, format!("{}...[truncated]", "é".repeat(500)));
        assert_eq!(display_line(b"short\n"), "short");
    }
}
