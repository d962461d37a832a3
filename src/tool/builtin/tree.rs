//! `tree`: the project's file structure under a directory, with sizes.
//!
//! Walks with `ignore` using ripgrep's standard filters: `.gitignore`,
//! `.ignore`, `.git/info/exclude` and the global git excludes are honoured,
//! hidden entries (so `.git` too) are skipped, and symlinks are not followed
//! (nor listed). Unlike ripgrep's default, `.gitignore` applies even when
//! the directory is not inside a git repository (`require_git(false)`): a
//! copied or unpacked project keeps its ignore rules. All matching files are
//! ordered as they are displayed before the first `max_files` are kept, so
//! the output is deterministic however the parallel walker's threads
//! interleave; only those `max_files` are held in memory.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt::Write;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;

use super::blocking::{self, StopFlag};
use crate::tool::sandbox::{SafePath, resolve_in_cwd};
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "tree";
const DEFAULT_MAX_FILES: u32 = 300;
const MAX_MAX_FILES: u32 = 1000;

const DESCRIPTION: &str = "Show the project's file tree inside the working directory, with file sizes, \
to explore structure, layering, packages and where key files live. Use it first when you need the \
architecture or do not know what to search for. Files ignored by .gitignore/.ignore and hidden files \
are left out. Do not use grep to browse; use tree.";

/// Arguments of `tree`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TreeArgs {
    /// Directory to list, relative to the working directory (default ".").
    #[serde(default = "default_path")]
    pub path: String,
    /// Most files to list, 1 to 1000 (default 300). Files are sorted first, so the
    /// same call always lists the same files.
    #[serde(default = "default_max_files")]
    #[schemars(range(min = 1, max = 1000))]
    pub max_files: u32,
}

fn default_path() -> String {
    ".".to_owned()
}

fn default_max_files() -> u32 {
    DEFAULT_MAX_FILES
}

/// The `tree` tool.
#[derive(Debug, Clone, Default)]
pub struct TreeTool;

impl Tool for TreeTool {
    type Args = TreeArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn execute(&self, args: TreeArgs, ctx: ToolContext) -> ToolOutput {
        if ctx.cancel.is_cancelled() {
            return blocking::cancelled(NAME);
        }
        let root = match resolve_in_cwd(&ctx.cwd, &args.path) {
            Ok(root) => root,
            Err(refusal) => return refusal.into(),
        };
        let max_files = args.max_files.clamp(1, MAX_MAX_FILES) as usize;
        let cwd = ctx.cwd.clone();
        let walked =
            blocking::run_blocking(&ctx.cancel, move |stop| walk(&cwd, &root, max_files, stop))
                .await;
        match walked {
            Ok(Some(listing)) => ToolOutput::ok(listing.render()),
            Ok(None) => blocking::cancelled(NAME),
            Err(interrupted) => interrupted.into_output(NAME),
        }
    }
}

/// One listed file: path components relative to the cwd, and its size.
#[derive(Debug, PartialEq, Eq)]
struct FileEntry {
    parts: Vec<String>,
    size: u64,
}

impl Ord for FileEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        display_order(&self.parts, &other.parts)
    }
}

impl PartialOrd for FileEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The order files appear in the tree: at each level directories before
/// files, then by name (case-insensitive, ties by bytes).
fn display_order(a: &[String], b: &[String]) -> Ordering {
    for (depth, (x, y)) in a.iter().zip(b).enumerate() {
        if x == y {
            continue;
        }
        let x_is_dir = depth + 1 < a.len();
        let y_is_dir = depth + 1 < b.len();
        return y_is_dir.cmp(&x_is_dir).then_with(|| name_order(x, y));
    }
    a.len().cmp(&b.len())
}

fn name_order(x: &str, y: &str) -> Ordering {
    let folded_x = x.chars().flat_map(char::to_lowercase);
    let folded_y = y.chars().flat_map(char::to_lowercase);
    folded_x.cmp(folded_y).then_with(|| x.cmp(y))
}

struct Listing {
    shown_path: String,
    files: Vec<FileEntry>,
    total: usize,
    unreadable: usize,
}

/// The files kept so far while the walker's threads report in.
#[derive(Default)]
struct Collector {
    kept: BinaryHeap<FileEntry>,
    total: usize,
    unreadable: usize,
}

impl Collector {
    /// Keeps `entry` if it is among the first `max_files` in display order.
    fn offer(&mut self, entry: FileEntry, max_files: usize) {
        self.total += 1;
        if self.kept.len() >= max_files && self.kept.peek().is_some_and(|last| entry >= *last) {
            return;
        }
        self.kept.push(entry);
        if self.kept.len() > max_files {
            self.kept.pop();
        }
    }
}

/// Walks `root` with the parallel walker, keeping the first `max_files`
/// files in display order. `None` when stopped.
fn walk(cwd: &Path, root: &SafePath, max_files: usize, stop: &StopFlag) -> Option<Listing> {
    let collector = Mutex::new(Collector::default());
    let walker = WalkBuilder::new(&root.absolute)
        .standard_filters(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build_parallel();
    walker.run(|| {
        let collector = &collector;
        Box::new(move |entry| {
            if stop.is_set() {
                return WalkState::Quit;
            }
            let lock = || collector.lock().unwrap_or_else(PoisonError::into_inner);
            let Ok(entry) = entry else {
                lock().unreadable += 1;
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Ok(relative) = entry.path().strip_prefix(cwd) else {
                return WalkState::Continue;
            };
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            let parts = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            lock().offer(FileEntry { parts, size }, max_files);
            WalkState::Continue
        })
    });
    if stop.is_set() {
        return None;
    }
    let collected = collector
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    Some(Listing {
        shown_path: root.relative.clone(),
        files: collected.kept.into_sorted_vec(),
        total: collected.total,
        unreadable: collected.unreadable,
    })
}

impl Listing {
    fn render(&self) -> String {
        let mut out = format!("## Project file tree\n\nPath: `{}`\n", self.shown_path);
        if self.files.is_empty() {
            out.push_str("\nno files found");
            self.push_unreadable_note(&mut out);
            return out;
        }
        let _ = writeln!(out, "Files: {}\n", self.files.len());
        let mut open_dirs: &[String] = &[];
        for file in &self.files {
            let (name, dirs) = match file.parts.split_last() {
                Some(split) => split,
                None => continue,
            };
            let shared = open_dirs
                .iter()
                .zip(dirs)
                .take_while(|(a, b)| a == b)
                .count();
            for (depth, dir) in dirs.iter().enumerate().skip(shared) {
                let _ = writeln!(out, "{}- {dir}", "  ".repeat(depth));
            }
            let _ = writeln!(
                out,
                "{}- {name} | size: {} bytes",
                "  ".repeat(dirs.len()),
                file.size
            );
            open_dirs = dirs;
        }
        if self.total > self.files.len() {
            let _ = write!(
                out,
                "\n> truncated: {} files found, the first {} in sorted order are shown; narrow `path` or raise `max_files` (up to {MAX_MAX_FILES})",
                self.total,
                self.files.len()
            );
        }
        self.push_unreadable_note(&mut out);
        out.trim_end().to_owned()
    }

    fn push_unreadable_note(&self, out: &mut String) {
        if self.unreadable > 0 {
            let _ = write!(
                out,
                "\n\n> {} entries could not be read (e.g. permission denied) and were skipped",
                self.unreadable
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(path: &str) -> Vec<String> {
        path.split('/').map(str::to_owned).collect()
    }

    #[test]
    fn directories_come_before_files_at_each_level() {
        let mut paths = vec!["z.txt", "a/b.txt", "B.txt", "a/c/d.txt", "a.txt", "b/x"];
        paths.sort_by(|x, y| display_order(&parts(x), &parts(y)));
        assert_eq!(
            paths,
            ["a/c/d.txt", "a/b.txt", "b/x", "a.txt", "B.txt", "z.txt"]
        );
    }
}
