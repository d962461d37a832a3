//! `apply_patch`: add, delete, update and move files with one
//! `*** Begin Patch` patch, all or nothing.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::edit::rename;
use super::{blocking, change};
use crate::tool::fs::{RelPath, Root, nearby};
use crate::tool::patch::{FileOp, TextFile, apply_hunks, parse_patch};
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "apply_patch";

const DESCRIPTION: &str = "Change files with one `*** Begin Patch` … `*** End Patch` patch (format in the system prompt). Every hunk must match exactly one place; if any hunk or file fails, nothing is written.";

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// The whole patch.
    pub patch: String,
}

/// The `apply_patch` tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyPatchTool;

impl Tool for ApplyPatchTool {
    type Args = ApplyPatchArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    /// Accepts `input` (Codex's name) and `patchText`/`patch_text`.
    fn normalize_args(&self, args: &mut Map<String, Value>) {
        rename(args, "patch", &["input", "patchText", "patch_text", "diff"]);
    }

    async fn execute(&self, args: ApplyPatchArgs, ctx: ToolContext) -> ToolOutput {
        let ops = match parse_patch(&args.patch) {
            Ok(ops) => ops,
            Err(error) => {
                return ToolOutput::error(format!("apply_patch: {error}; nothing was changed"));
            }
        };
        let mut targets = Vec::new();
        for op in &ops {
            let rel = match ctx.root.relative(op.path()) {
                Ok(rel) => rel,
                Err(refusal) => return refusal.into(),
            };
            let moved = match op {
                FileOp::Update {
                    move_to: Some(to), ..
                } => match ctx.root.relative(to) {
                    Ok(rel) => Some(rel),
                    Err(refusal) => return refusal.into(),
                },
                _ => None,
            };
            targets.push((rel, moved));
        }
        let mut touched = HashSet::new();
        for (rel, moved) in &targets {
            for path in std::iter::once(rel).chain(moved) {
                if !touched.insert(path.to_string()) {
                    return ToolOutput::error(format!(
                        "apply_patch: {path} appears twice in the patch; put all its changes in one `*** Update File` section"
                    ));
                }
            }
        }
        let root = ctx.root.clone();
        let load_all = targets
            .iter()
            .map(|(rel, moved)| (rel.clone(), moved.clone()))
            .collect::<Vec<_>>();
        let loaded = match blocking::run_blocking(&ctx.cancel, move |_| {
            load_targets(&root, &load_all)
        })
        .await
        {
            Ok(Ok(loaded)) => loaded,
            Ok(Err(output)) => return output,
            Err(interrupted) => return interrupted.into_output(NAME),
        };
        let mut edited = Vec::with_capacity(loaded.len());
        for (existing, target_exists) in loaded {
            let existing = match existing {
                Some(existing) => match change::as_edited(&ctx, existing).await {
                    Ok(existing) => Some(existing),
                    Err(output) => return output,
                },
                None => None,
            };
            edited.push((existing, target_exists));
        }
        let loaded = edited;
        let mut changes = Vec::new();
        for (op, ((rel, moved), (existing, target_exists))) in
            ops.into_iter().zip(targets.into_iter().zip(loaded))
        {
            match plan(&ctx, op, rel, moved, existing, target_exists) {
                Ok(change) => changes.push(change),
                Err(output) => return output,
            }
        }
        change::apply(&ctx, NAME, changes).await
    }
}

/// Each target's current file, and whether its move destination exists.
fn load_targets(
    root: &Root,
    targets: &[(RelPath, Option<RelPath>)],
) -> Result<Vec<(Option<change::Loaded>, bool)>, ToolOutput> {
    targets
        .iter()
        .map(|(rel, moved)| {
            let existing = change::load(root, rel)?;
            let target_exists = match moved {
                Some(to) => root.stat(to)?.is_some(),
                None => false,
            };
            Ok((existing, target_exists))
        })
        .collect()
}

fn plan(
    ctx: &ToolContext,
    op: FileOp,
    rel: RelPath,
    moved: Option<RelPath>,
    existing: Option<change::Loaded>,
    target_exists: bool,
) -> Result<change::FileChange, ToolOutput> {
    let failed =
        |what: String| ToolOutput::error(format!("apply_patch: {what}; nothing was changed"));
    // A missing file: what exists near it.
    let missing = |what: String| {
        ToolOutput::error(format!(
            "apply_patch: {what}; nothing was changed{}",
            nearby(&ctx.root, &rel)
        ))
    };
    match op {
        FileOp::Add { path, content } => {
            if existing.is_some() {
                return Err(failed(format!(
                    "{path} already exists (use *** Update File to change it)"
                )));
            }
            let after = TextFile::new_file(&content).encode();
            Ok(change::FileChange {
                rel,
                before: None,
                after: Some(after),
                before_text: String::new(),
                after_text: content,
            })
        }
        FileOp::Delete { path } => {
            let Some(existing) = existing else {
                return Err(missing(format!(
                    "{path} does not exist, so it cannot be deleted"
                )));
            };
            change::check_fresh(ctx, &existing, false)?;
            let before_text = String::from_utf8_lossy(&existing.bytes).into_owned();
            Ok(change::FileChange {
                rel,
                before: Some(existing),
                after: None,
                before_text,
                after_text: String::new(),
            })
        }
        FileOp::Update { path, hunks, .. } => {
            let Some(existing) = existing else {
                return Err(missing(format!(
                    "{path} does not exist (use *** Add File to create it)"
                )));
            };
            if target_exists {
                let to = moved.as_ref().map(ToString::to_string).unwrap_or_default();
                return Err(failed(format!(
                    "cannot move {path} to {to}: it already exists"
                )));
            }
            change::check_fresh(ctx, &existing, false)?;
            let file = existing.text()?;
            let new_text = if hunks.is_empty() {
                file.text.clone()
            } else {
                apply_hunks(&file, &hunks).map_err(|e| {
                    change::with_unseen_content(ctx, &existing, failed(format!("{path}: {e}")))
                })?
            };
            let after = file.bytes_of(&new_text);
            Ok(change::FileChange {
                rel: moved.unwrap_or(rel),
                before: Some(existing),
                after: Some(after),
                before_text: file.text,
                after_text: new_text,
            })
        }
    }
}
