//! Undo for commands: a snapshot before every command that can write, and
//! the files it changed, added or deleted recorded after it as the call's
//! change set ([`crate::tool::snapshot`]); and the existing files a
//! command would replace, which make it destructive.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use super::{CommandReport, CommandRequest, Shell};
use crate::permission::{ApprovalDetail, ApprovalRequest, CommandShape, Mode};
use crate::protocol::CommandSandbox;
use crate::tool::fs::Root;
use crate::tool::journal::Journal;
use crate::tool::snapshot::Before;
use crate::tool::{ToolContext, ToolOutput, ToolProgress};

impl Shell {
    /// Whether a command in `cwd` can write: not inside an enforced
    /// read-only sandbox.
    pub fn can_write(&self, cwd: &Path, unsandboxed: bool) -> bool {
        unsandboxed || !self.sandbox_state().is_enforced() || !self.writable_roots(cwd).is_empty()
    }

    /// The absolute paths among `shape`'s overwrites that would lose work
    /// (see [`crate::tool::snapshot::Snapshots::worth_keeping`]).
    pub(super) async fn overwritten(&self, root: &Root, shape: &CommandShape) -> Vec<String> {
        let base = root.display_path();
        let candidates: Vec<(String, bool)> = shape
            .overwrites
            .iter()
            .filter_map(|o| {
                let rel = o.path.strip_prefix(base).ok()?.to_str()?.to_string();
                let redirect = o.by == crate::permission::OverwriteBy::Redirect;
                (!rel.is_empty()).then_some((rel, redirect))
            })
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        self.snapshots()
            .worth_keeping(root, candidates)
            .await
            .into_iter()
            .map(|rel| base.join(rel).display().to_string())
            .collect()
    }

    /// The snapshot before a model's command; `Err` is the call's result
    /// when the command must not run (the snapshot could not be stored, or
    /// it would be partial and the user did not agree).
    pub(super) async fn snapshot_before(
        &self,
        ctx: &ToolContext,
        command: &str,
        workdir: String,
        sandbox: CommandSandbox,
    ) -> Result<Option<Before>, ToolOutput> {
        let Some(journal) = &ctx.journal else {
            return Ok(None);
        };
        let before = self
            .snapshots()
            .take(&ctx.root, journal)
            .await
            .map_err(|why| {
                ToolOutput::error(format!(
                    "the command was not run: the snapshot undo needs could not be stored ({why})"
                ))
            })?;
        if before.partial() && ctx.permits.mode() != Mode::Full {
            let note = before.partial_note();
            let question = ApprovalRequest {
                call_id: ctx.call_id.clone(),
                tool: "shell".into(),
                title: format!("run {command}? {note}"),
                detail: ApprovalDetail::Command {
                    command: command.to_string(),
                    workdir,
                    sandbox,
                    destructive: vec![note.clone()],
                },
            };
            if let Err(denied) = ctx.permits.ask(question).await {
                return Err(ToolOutput::error(format!(
                    "the command was not run: {note} ({})",
                    denied.message
                )));
            }
        }
        Ok(Some(before))
    }

    /// Hands what the command did since `before` to the journal as this
    /// call's change set. The comparison runs after the result has gone
    /// back (the journal's later writes, and the turn's end, wait for it),
    /// so a command pays for one `git status`, not two; a change set that
    /// could not be recorded is reported when the turn ends.
    pub(super) async fn record_after(&self, ctx: &ToolContext, before: Option<Before>) {
        let (Some(before), Some(journal)) = (before, &ctx.journal) else {
            return;
        };
        let (snapshots, root) = (self.snapshots().clone(), ctx.root.clone());
        journal
            .record_later(async move { snapshots.changes(&root, before).await })
            .await;
    }

    /// Runs the user's own command (`!cmd`) in `root`'s directory with a
    /// snapshot before it and its change set recorded in `journal` after;
    /// the second value says when undo will not cover it.
    pub async fn run_recorded(
        &self,
        request: &CommandRequest,
        root: &Root,
        journal: Option<&Journal>,
        cancel: CancellationToken,
        live: Option<ToolProgress>,
    ) -> std::io::Result<(CommandReport, Option<String>)> {
        let before = match journal {
            Some(journal) if self.can_write(&request.cwd, request.unsandboxed) => {
                match self.snapshots().take(root, journal).await {
                    Ok(before) => Some(before),
                    Err(why) => {
                        let report = self.run(request, cancel, live).await?;
                        return Ok((report, Some(format!("no snapshot for undo: {why}"))));
                    }
                }
            }
            _ => None,
        };
        let partial = before
            .as_ref()
            .filter(|b| b.partial())
            .map(Before::partial_note);
        let report = self.run(request, cancel, live).await?;
        let mut note = partial;
        if let (Some(before), Some(journal)) = (before, journal)
            && let Err(why) = record(self, root, journal, before).await
        {
            note = Some(format!(
                "what it changed could not be recorded for undo: {why}"
            ));
        }
        Ok((report, note))
    }
}

async fn record(
    shell: &Shell,
    root: &Root,
    journal: &Journal,
    before: Before,
) -> Result<(), String> {
    let changes = shell.snapshots().changes(root, before).await;
    if changes.is_empty() {
        return Ok(());
    }
    tracing::debug!(files = changes.len(), "a command's change set recorded");
    journal.record(changes).await
}
