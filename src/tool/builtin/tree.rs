//! `tree`: the project's file structure under a directory, with sizes.
//!
//! Walks beneath the session's [`Root`](crate::tool::fs::Root) through
//! directory handles ([`walk_files`]) with ripgrep's standard filters:
//! `.gitignore`, `.ignore`, `.git/info/exclude` and the global git excludes
//! are honoured, hidden entries (so `.git` too) are skipped, and symlinks
//! are not followed (nor listed). `.gitignore` applies even when the
//! directory is not inside a git repository: a copied or unpacked project
//! keeps its ignore rules. The walk goes in display order, so the first
//! `max_files` files it finds are the ones shown; only those are stat'ed
//! (relative to the folder handle they were listed in), and the walk ends
//! at the file after them.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Deserialize;

use super::blocking::{self, StopFlag};
use crate::tool::fs::walk::{Flow, WalkOrder, walk_files};
use crate::tool::fs::{FileKind, FsRefusal, RelPath, Root};
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "tree";
const DEFAULT_MAX_FILES: u32 = 300;
const MAX_MAX_FILES: u32 = 1000;

const DESCRIPTION: &str = "The project's file tree with sizes, ignored and hidden files left out.";

/// Arguments of `tree`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TreeArgs {
    /// Directory to list.
    #[serde(default = "default_path")]
    pub path: String,
    /// Most files to list.
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
        let start = match ctx.root.relative(&args.path) {
            Ok(start) => start,
            Err(refusal) => return refusal.into(),
        };
        let max_files = args.max_files.clamp(1, MAX_MAX_FILES) as usize;
        let (root, from) = (ctx.root.clone(), start.clone());
        let walked =
            blocking::run_blocking(&ctx.cancel, move |stop| walk(&root, &from, max_files, stop))
                .await;
        match walked {
            Ok(Ok(Some(listing))) => ToolOutput::ok(listing.render()),
            Ok(Ok(None)) => blocking::cancelled(NAME),
            Ok(Err(refusal)) => refusal.guided(&ctx.root, &start).into(),
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

struct Listing {
    shown_path: String,
    files: Vec<FileEntry>,
    /// Whether files beyond the shown ones exist.
    more: bool,
    unreadable: usize,
}

/// Walks `start` in display order, keeping the first `max_files` files;
/// the walk ends at the next one (the output is decided then). `None` when
/// stopped.
fn walk(
    root: &Root,
    start: &RelPath,
    max_files: usize,
    stop: &StopFlag,
) -> Result<Option<Listing>, FsRefusal> {
    let mut files = Vec::new();
    let mut more = false;
    let mut unreadable = 0;
    let summary = walk_files(root, start, WalkOrder::Display, &|| stop.is_set(), |file| {
        if files.len() >= max_files {
            more = true;
            return Flow::Stop;
        }
        match file.dir.stat_entry(&file.name) {
            // Only what is still a regular file in that folder is shown.
            Ok(identity) if identity.kind() == FileKind::Regular => {
                let parts = file
                    .rel
                    .components()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                files.push(FileEntry {
                    parts,
                    size: identity.size,
                });
            }
            Ok(_) => {}
            Err(_) => unreadable += 1,
        }
        Flow::Continue
    })?;
    if stop.is_set() {
        return Ok(None);
    }
    Ok(Some(Listing {
        shown_path: start.to_string(),
        files,
        more,
        unreadable: unreadable + summary.unreadable,
    }))
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
        if self.more {
            let _ = write!(
                out,
                "\n> truncated: more than {} files found, the first {} in sorted order are shown; narrow `path` or raise `max_files` (up to {MAX_MAX_FILES})",
                self.files.len(),
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
