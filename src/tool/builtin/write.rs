//! `write`: create a file, or replace one the agent has seen as it is.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::edit::rename;
use super::{blocking, change};
use crate::tool::labelled::Labelled;
use crate::tool::patch::{MAX_EDIT_BYTES, TextFile};
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "write";

const DESCRIPTION: &str = "Write a whole file: create it (and its folders), or replace a file you have read as it is now. Prefer edit for existing files.";

/// Arguments of `write`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// File to write.
    #[schemars(transform = crate::tool::unexplained)]
    pub path: String,
    /// The whole new content.
    #[schemars(transform = crate::tool::unexplained)]
    pub content: String,
}

/// The `write` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteTool;

impl Tool for WriteTool {
    type Args = WriteArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    /// Accepts `file_path`/`filePath` and `text`/`contents`.
    fn normalize_args(&self, args: &mut Map<String, Value>) {
        rename(args, "path", &["file_path", "filePath", "file"]);
        rename(args, "content", &["contents", "text", "file_text"]);
    }

    async fn execute(&self, args: WriteArgs, ctx: ToolContext) -> ToolOutput {
        let rel = match ctx.root.relative(&args.path) {
            Ok(rel) => rel,
            Err(refusal) => return refusal.into(),
        };
        if args.content.len() > MAX_EDIT_BYTES {
            return ToolOutput::error(format!(
                "write: the content is over the {} MiB limit",
                MAX_EDIT_BYTES / (1024 * 1024)
            ));
        }
        let root = ctx.root.clone();
        let target = rel.clone();
        let loaded = match blocking::run_blocking(&ctx.cancel, move |_| {
            change::load(&root, &target)
        })
        .await
        {
            Ok(Ok(Some(loaded))) => match change::as_edited(&ctx, loaded).await {
                Ok(loaded) => Some(loaded),
                Err(output) => return output,
            },
            Ok(Ok(None)) => None,
            Ok(Err(output)) => return output,
            Err(interrupted) => return interrupted.into_output(NAME),
        };
        let (before_text, after_text, after) = match &loaded {
            Some(existing) => {
                if let Err(stale) = change::check_fresh(&ctx, existing, true) {
                    return stale;
                }
                // Keep the file's BOM and line endings.
                let file = match existing.text() {
                    Ok(file) => file,
                    Err(output) => return output,
                };
                let content = file.with_file_eol(&args.content);
                let bytes = file.bytes_of(&content);
                (file.text, content, bytes)
            }
            None => {
                let bytes = TextFile::new_file(&args.content).encode();
                (String::new(), args.content, bytes)
            }
        };
        if loaded.as_ref().is_some_and(|l| l.bytes == after) {
            return ToolOutput::ok(format!(
                "{} already has this content; nothing was written",
                rel
            ));
        }
        if let Some(existing) = &loaded
            && let Some(held) = held_back(&ctx, &existing.path, &before_text, &after_text)
        {
            return held;
        }
        let change = change::FileChange {
            rel,
            before: loaded,
            after_text,
            after: Some(after),
            before_text,
        };
        change::apply(&ctx, NAME, vec![change]).await
    }
}

/// Fewest non-blank lines a file has before a shrinking write is held back.
const HOLD_MIN_LINES: usize = 6;

/// The refusal of a write that would drop most of `path`'s non-blank lines
/// and shorten it (remembered, so that the same write sent again goes
/// through). Why: a weak model "saves" the edit it just made by rewriting the
/// file from memory, and the rewrite loses the rest of it.
fn held_back(ctx: &ToolContext, path: &str, before: &str, after: &str) -> Option<ToolOutput> {
    let old: Vec<&str> = before
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let new: HashSet<&str> = after.lines().map(str::trim).collect();
    let kept = old.iter().filter(|line| new.contains(*line)).count();
    let drops_most = old.len() >= HOLD_MIN_LINES
        && kept * 2 < old.len()
        && after.lines().count() < before.lines().count();
    if !drops_most || ctx.seen.confirms_held_write(path, after.as_bytes()) {
        return None;
    }
    ctx.seen.hold_write(path, after.as_bytes());
    Some(ToolOutput::error(
        Labelled::what(format!(
            "this write would drop {} of the {} non-blank lines of {path} and keep {kept}; nothing was written",
            old.len() - kept,
            old.len()
        ))
        .line(
            "how",
            "to change part of the file, use edit (what edit changed is already saved); to replace the whole file anyway, send this same write again",
        )
        .finish(),
    ))
}
