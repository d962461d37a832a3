//! `edit`: replace exact text in one file.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{blocking, change};
use crate::tool::fs::nearby;
use crate::tool::patch::{Replacement, apply_replacements};
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "edit";

const DESCRIPTION: &str = "Replace text in one file: each old_string must occur once in the file as it is now (or set replace_all); edits match the original and must not overlap. `N | ` prefixes may stay.";

/// Arguments of `edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// File to change.
    #[schemars(transform = crate::tool::unexplained)]
    pub path: String,
    /// Applied together.
    #[schemars(transform = crate::tool::unexplained)]
    pub edits: Vec<EditItem>,
}

/// One replacement.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = crate::tool::unexplained)]
pub struct EditItem {
    /// Exact text, unique in the file.
    pub old_string: String,
    /// Its replacement.
    #[schemars(transform = crate::tool::unexplained)]
    pub new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    pub replace_all: bool,
}

/// The `edit` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditTool;

/// Renames `aliases` of `canonical` in `object` (the first present wins).
pub(crate) fn rename(object: &mut Map<String, Value>, canonical: &str, aliases: &[&str]) {
    if object.contains_key(canonical) {
        return;
    }
    if let Some(value) = aliases.iter().find_map(|a| object.remove(*a)) {
        object.insert(canonical.to_string(), value);
    }
}

impl Tool for EditTool {
    type Args = EditArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    /// Accepts `file_path`/`filePath`, `oldText`/`oldString`/`old_str`,
    /// `newText`/`newString`/`new_str`, `replaceAll`, `edits` sent as a JSON
    /// string, and a single edit given at the top level.
    fn normalize_args(&self, args: &mut Map<String, Value>) {
        rename(args, "path", &["file_path", "filePath", "file"]);
        if let Some(Value::String(raw)) = args.get("edits")
            && let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(raw)
        {
            args.insert("edits".into(), parsed);
        }
        if !args.contains_key("edits") {
            let mut single = Map::new();
            for key in [
                "old_string",
                "oldString",
                "oldText",
                "old_str",
                "new_string",
                "newString",
                "newText",
                "new_str",
                "replace_all",
                "replaceAll",
            ] {
                if let Some(value) = args.remove(key) {
                    single.insert(key.to_string(), value);
                }
            }
            if !single.is_empty() {
                args.insert("edits".into(), Value::Array(vec![Value::Object(single)]));
            }
        }
        if let Some(Value::Array(items)) = args.get_mut("edits") {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                rename(
                    item,
                    "old_string",
                    &["oldString", "oldText", "old_str", "old"],
                );
                rename(
                    item,
                    "new_string",
                    &["newString", "newText", "new_str", "new"],
                );
                rename(item, "replace_all", &["replaceAll"]);
            }
        }
    }

    async fn execute(&self, args: EditArgs, ctx: ToolContext) -> ToolOutput {
        let rel = match ctx.root.relative(&args.path) {
            Ok(rel) => rel,
            Err(refusal) => return refusal.into(),
        };
        if args.edits.is_empty() {
            return ToolOutput::error(
                "edit: `edits` is empty; give at least one {old_string, new_string}",
            );
        }
        let (root, target) = (ctx.root.clone(), rel.clone());
        let loaded = match blocking::run_blocking(&ctx.cancel, move |_| {
            change::load(&root, &target)
        })
        .await
        {
            Ok(Ok(Some(loaded))) => loaded,
            Ok(Ok(None)) => {
                return ToolOutput::error(format!(
                    "{} does not exist (edit changes existing files): give the path of the file you mean, or create a new one with write{}",
                    args.path,
                    nearby(&ctx.root, &rel)
                ));
            }
            Ok(Err(output)) => return output,
            Err(interrupted) => return interrupted.into_output(NAME),
        };
        let loaded = match change::as_edited(&ctx, loaded).await {
            Ok(loaded) => loaded,
            Err(output) => return output,
        };
        if let Err(stale) = change::check_fresh(&ctx, &loaded, false) {
            return stale;
        }
        let file = match loaded.text() {
            Ok(file) => file,
            Err(output) => return output,
        };
        let replacements: Vec<Replacement> = args
            .edits
            .into_iter()
            .map(|e| Replacement {
                old: e.old_string,
                new: e.new_string,
                replace_all: e.replace_all,
            })
            .collect();
        let new_text = match apply_replacements(&file, &replacements) {
            Ok(text) => text,
            Err(error) => {
                let failed = format!("{}: {error}; nothing was changed", loaded.path);
                return change::with_unseen_content(&ctx, &loaded, ToolOutput::error(failed));
            }
        };
        let passed_over: Vec<String> = replacements
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_no_op())
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        let after = file.bytes_of(&new_text);
        let change = change::FileChange {
            rel: loaded.rel.clone(),
            before_text: file.text,
            after_text: new_text,
            after: Some(after),
            before: Some(loaded),
        };
        let mut out = change::apply(&ctx, NAME, vec![change]).await;
        if !out.is_error && !passed_over.is_empty() {
            let edits = if passed_over.len() == 1 {
                "edit"
            } else {
                "edits"
            };
            out.content.push_str(&format!(
                "\n[skipped]: {edits} {} changed nothing (old_string and new_string are the same)",
                passed_over.join(", ")
            ));
        }
        out
    }
}
