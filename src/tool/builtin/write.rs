//! `write`: create a file, or replace one the agent has seen as it is.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::edit::rename;
use super::{blocking, change};
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
