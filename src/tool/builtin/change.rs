//! What the three writing tools share: loading a file to change (confined,
//! capped, text only, stale-guarded), and applying a set of file changes —
//! diffed, approved, journalled, then staged and committed all or nothing.

use std::fmt::Write as _;

use crate::permission::{ApprovalDetail, ApprovalRequest, GateRequest};
use crate::tool::editor::Editor;
use crate::tool::fs::{FsRefusalKind, RelPath, Root};
use crate::tool::journal::{PriorContent, PriorFile};
use crate::tool::labelled::Labelled;
use crate::tool::patch::{FileDiff, MAX_EDIT_BYTES, TextFile, diff_texts};
use crate::tool::seen::content_hash;
use crate::tool::{ToolContext, ToolOutput};

use super::blocking;

/// Lines of a file shown when it is refused as stale.
const STALE_EXCERPT_LINES: usize = 120;

/// A file read for changing.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    /// Its confined path.
    pub rel: RelPath,
    /// The path as shown (relative, `/`-separated).
    pub path: String,
    /// Its bytes on disk.
    pub bytes: Vec<u8>,
    /// Its permission bits.
    pub mode: u32,
}

/// Reads `rel` for a change. `Ok(None)`: nothing by that name. Refuses
/// what is not a regular file, over the cap, or (in [`Loaded::text`])
/// binary.
pub(crate) fn load(root: &Root, rel: &RelPath) -> Result<Option<Loaded>, ToolOutput> {
    if root.stat(rel)?.is_none() {
        return Ok(None);
    }
    let mut opened = root.open_file(rel)?;
    let path = rel.to_string();
    if opened.identity.size as usize > MAX_EDIT_BYTES {
        return Err(too_large(&path, opened.identity.size as usize));
    }
    let (bytes, more) = opened
        .read_prefix(MAX_EDIT_BYTES)
        .map_err(|e| io_error(&path, &e.to_string()))?;
    if more {
        return Err(too_large(&path, MAX_EDIT_BYTES + 1));
    }
    Ok(Some(Loaded {
        rel: rel.clone(),
        path,
        bytes,
        mode: opened.identity.permissions(),
    }))
}

impl Loaded {
    /// The file as text; binary files are refused.
    pub(crate) fn text(&self) -> Result<TextFile, ToolOutput> {
        TextFile::decode(self.bytes.clone()).map_err(|refusal| {
            ToolOutput::error(
                Labelled::what(format!("{} {refusal}", self.path))
                    .line("path", &self.path)
                    .line("how", "change text files only")
                    .finish(),
            )
        })
    }
}

fn too_large(path: &str, size: usize) -> ToolOutput {
    let refusal = crate::tool::patch::TextRefusal::TooLarge { size };
    ToolOutput::error(
        Labelled::what(format!("{path} {refusal}"))
            .line("path", path)
            .line("how", "large files cannot be edited with these tools")
            .finish(),
    )
}

fn io_error(path: &str, error: &str) -> ToolOutput {
    ToolOutput::error(
        Labelled::what("the file could not be read or written")
            .line("path", path)
            .line("error", error)
            .finish(),
    )
}

/// Whether `loaded` is what the agent last saw; if not, the refusal (with
/// the file as it is now, numbered) — and the agent has now seen it.
/// `must_have_seen`: a file never seen is refused too (`write` over it).
pub(crate) fn check_fresh(
    ctx: &ToolContext,
    loaded: &Loaded,
    must_have_seen: bool,
) -> Result<(), ToolOutput> {
    let what = match ctx.seen.hash(&loaded.path) {
        Some(hash) if hash == content_hash(&loaded.bytes) => return Ok(()),
        Some(_) => format!(
            "{} changed on disk since you last read or wrote it",
            loaded.path
        ),
        None if !must_have_seen => return Ok(()),
        None => format!(
            "{} exists and you have not seen it; write would overwrite it blindly",
            loaded.path
        ),
    };
    ctx.seen.saw(&loaded.path, &loaded.bytes);
    Err(ToolOutput::error(stale_text(&what, loaded)))
}

fn stale_text(what: &str, loaded: &Loaded) -> String {
    let out = Labelled::what(what).line("path", &loaded.path).line(
        "how",
        "this is the file as it is now; base your change on it and call again",
    );
    with_content(out, loaded).finish()
}

/// A failed change of `loaded`, followed by the file as it is now, numbered,
/// when the agent had not seen it in this session (it now has). Small
/// models edit before reading, and their next try is only as good as the
/// text they are shown.
pub(crate) fn with_unseen_content(
    ctx: &ToolContext,
    loaded: &Loaded,
    mut failed: ToolOutput,
) -> ToolOutput {
    if ctx.seen.hash(&loaded.path).is_some() {
        return failed;
    }
    ctx.seen.saw(&loaded.path, &loaded.bytes);
    let out = Labelled::what(format!(
        "you had not read {}; this is the file as it is now: copy the text to change from it",
        loaded.path
    ));
    failed.content = format!("{}\n{}", failed.content, with_content(out, loaded).finish());
    failed
}

/// `out` with the total line count and the file's first lines, numbered.
fn with_content(out: Labelled, loaded: &Loaded) -> Labelled {
    let text = String::from_utf8_lossy(&loaded.bytes);
    let total = text.lines().count();
    let mut out = out.line("total_lines", total).raw("[content]:");
    for (i, line) in text.lines().take(STALE_EXCERPT_LINES).enumerate() {
        out = out.raw(format!("{} | {}", i + 1, line.trim_end_matches('\r')));
    }
    if total > STALE_EXCERPT_LINES {
        out = out.line(
            "next",
            format!(
                "read_file with start_line {} for the rest",
                STALE_EXCERPT_LINES + 1
            ),
        );
    }
    out
}

/// One file a call changes.
#[derive(Debug, Clone)]
pub(crate) struct FileChange {
    /// Where the new content goes (for a deletion: the file removed).
    pub rel: RelPath,
    /// The file as it was, `None` when new. For a move: the source.
    pub before: Option<Loaded>,
    /// The new bytes; `None` deletes.
    pub after: Option<Vec<u8>>,
    /// Text of before and after, for the diff.
    pub before_text: String,
    /// See `before_text`.
    pub after_text: String,
}

impl FileChange {
    fn moved_from(&self) -> Option<&Loaded> {
        self.before
            .as_ref()
            .filter(|b| b.rel != self.rel && self.after.is_some())
    }

    fn diff(&self) -> FileDiff {
        let target = self.rel.to_string();
        let old_label = self.before.as_ref().map(|b| b.path.as_str());
        let new_label = self.after.as_ref().map(|_| target.as_str());
        diff_texts(old_label, new_label, &self.before_text, &self.after_text)
    }

    /// `Edited a.rs (+5 −2)`, `Created b.rs (+3)`, `Deleted c.rs`,
    /// `Moved d.rs → e.rs (+1 −1)`.
    fn summary(&self, diff: &FileDiff) -> String {
        let target = self.rel.to_string();
        let counts = format!("(+{} −{})", diff.added, diff.removed);
        match (&self.before, &self.after) {
            (None, _) => format!("Created {target} (+{})", diff.added),
            (Some(before), None) => format!("Deleted {}", before.path),
            (Some(before), Some(_)) if before.rel != self.rel => {
                format!("Moved {} → {target} {counts}", before.path)
            }
            (Some(_), Some(_)) => format!("Edited {target} {counts}"),
        }
    }
}

/// Applies `changes` for `tool`: asks the permits with the whole diff,
/// records prior states in the journal, then stages every new file and
/// commits them (removals last). Returns the text for the model: one
/// summary line per file, then numbered excerpts; and the unified diff of
/// every file as what the user is shown.
pub(crate) async fn apply(ctx: &ToolContext, tool: &str, changes: Vec<FileChange>) -> ToolOutput {
    let diffs: Vec<FileDiff> = changes.iter().map(FileChange::diff).collect();
    let summaries: Vec<String> = changes
        .iter()
        .zip(&diffs)
        .map(|(c, d)| c.summary(d))
        .collect();
    let mut paths: Vec<String> = Vec::new();
    for change in &changes {
        paths.push(change.rel.to_string());
        if let Some(from) = change.moved_from() {
            paths.push(from.path.clone());
        }
    }
    let (added, removed) = diffs
        .iter()
        .fold((0, 0), |(a, r), d| (a + d.added, r + d.removed));
    let title = match summaries.as_slice() {
        [one] => format!("{tool}: {one}"),
        many => format!("{tool}: {} files (+{added} −{removed})", many.len()),
    };
    let approval = ApprovalRequest {
        call_id: ctx.call_id.clone(),
        tool: tool.to_string(),
        title,
        detail: ApprovalDetail::Diff {
            unified: diffs.iter().map(|d| d.unified.as_str()).collect(),
        },
    };
    if let Err(denied) = ctx
        .permits
        .request(GateRequest::Edit { paths }, approval)
        .await
    {
        return ToolOutput::error(denied.message);
    }
    if ctx.cancel.is_cancelled() {
        return blocking::cancelled(tool);
    }
    if let Some(journal) = &ctx.journal {
        let mut prior = Vec::new();
        for change in &changes {
            let after_hash = change.after.as_deref().map(content_hash);
            prior.push(PriorFile {
                path: change.rel.to_string(),
                content: change
                    .before
                    .as_ref()
                    .filter(|b| b.rel == change.rel)
                    .map_or(PriorContent::Absent, |b| {
                        PriorContent::Bytes(b.bytes.clone())
                    }),
                mode: change
                    .before
                    .as_ref()
                    .filter(|b| b.rel == change.rel)
                    .map(|b| b.mode),
                after_hash,
            });
            if let Some(from) = change.moved_from() {
                prior.push(PriorFile {
                    path: from.path.clone(),
                    content: PriorContent::Bytes(from.bytes.clone()),
                    mode: Some(from.mode),
                    after_hash: None,
                });
            }
        }
        if let Err(why) = journal.record(prior).await {
            return ToolOutput::error(format!(
                "{tool} did not change anything: the undo information could not be saved ({why})"
            ));
        }
    }
    let changes = std::sync::Arc::new(changes);
    let written = match ctx.editor.as_ref().filter(|e| e.writes()) {
        Some(editor) => write_through_editor(ctx, editor, tool, &changes).await,
        None => {
            let (root, writing) = (ctx.root.clone(), changes.clone());
            blocking::run_blocking(&ctx.cancel, move |_| write_all(&root, &writing))
                .await
                .unwrap_or_else(|interrupted| Err(interrupted.into_output(tool)))
        }
    };
    if let Err(output) = written {
        return output;
    }
    for change in changes.iter() {
        if let Some(from) = change.moved_from() {
            ctx.seen.forget(&from.path);
        }
        match &change.after {
            Some(bytes) => ctx.seen.saw(&change.rel.to_string(), bytes),
            None => ctx.seen.forget(&change.rel.to_string()),
        }
    }
    let mut text = summaries.join("\n");
    for diff in diffs.iter().filter(|d| !d.excerpt.is_empty()) {
        let _ = write!(text, "\n\n{}", diff.excerpt);
    }
    // The user sees the whole change (Ctrl+T); the model its excerpts.
    let unified: String = diffs.iter().map(|d| d.unified.as_str()).collect();
    ToolOutput::ok(text).with_display(unified)
}

/// Writes every change: first checks no file changed since it was read,
/// then stages all new contents (any failure drops them all, leaving the
/// tree untouched), then commits, then removes.
fn write_all(root: &Root, changes: &[FileChange]) -> Result<(), ToolOutput> {
    for change in changes {
        let current = load(root, change.source())?.map(|l| l.bytes);
        check_current(root, change, current)?;
    }
    let mut staged = Vec::new();
    for change in changes {
        let Some(bytes) = &change.after else { continue };
        if let Some(parent) = change.rel.parent().filter(|p| !p.is_root()) {
            root.create_dir_all(&parent)?;
        }
        let mode = change.before.as_ref().map(|b| b.mode);
        staged.push(root.stage(&change.rel, bytes, mode)?);
    }
    for file in staged {
        file.commit()?;
    }
    remove_sources(root, changes)
}

impl FileChange {
    /// The file the change was prepared from (the target when new).
    fn source(&self) -> &RelPath {
        self.before.as_ref().map_or(&self.rel, |b| &b.rel)
    }
}

/// Refuses the change when its file is no longer what it was prepared
/// from (`current`: its bytes now), or a move's destination appeared.
fn check_current(
    root: &Root,
    change: &FileChange,
    current: Option<Vec<u8>>,
) -> Result<(), ToolOutput> {
    let expected = change.before.as_ref().map(|b| &b.bytes);
    if current.as_ref() != expected {
        let path = change
            .before
            .as_ref()
            .map_or(change.rel.to_string(), |b| b.path.clone());
        return Err(ToolOutput::error(
            Labelled::what(format!(
                "{path} changed on disk while the change was prepared; nothing was written"
            ))
            .line("how", "read the file again and retry")
            .finish(),
        ));
    }
    if change.moved_from().is_some() && root.stat(&change.rel)?.is_some() {
        return Err(ToolOutput::error(format!(
            "{} already exists; nothing was written",
            change.rel
        )));
    }
    Ok(())
}

/// Removes deleted files and the sources of moves (an already missing one
/// is fine).
fn remove_sources(root: &Root, changes: &[FileChange]) -> Result<(), ToolOutput> {
    for change in changes {
        let removed = match (&change.before, &change.after) {
            (Some(before), None) => Some(&before.rel),
            _ => change.moved_from().map(|from| &from.rel),
        };
        if let Some(rel) = removed {
            match root.remove_file(rel) {
                Ok(()) => {}
                Err(refusal) if refusal.kind == FsRefusalKind::NotFound => {}
                Err(refusal) => return Err(refusal.into()),
            }
        }
    }
    Ok(())
}

/// `loaded` as the editor holds it (its unsaved buffer), when reads and
/// writes both go through one; else as it is on disk (a change made from
/// a buffer but written to disk would overwrite the file with text it
/// never held, and the checks before writing compare with the disk).
pub(crate) async fn as_edited(ctx: &ToolContext, mut loaded: Loaded) -> Result<Loaded, ToolOutput> {
    let Some(editor) = ctx.editor.as_ref().filter(|e| e.reads() && e.writes()) else {
        return Ok(loaded);
    };
    let text = editor.read(&ctx.root, &loaded.rel, &ctx.cancel).await?;
    if text.len() > MAX_EDIT_BYTES {
        return Err(too_large(&loaded.path, text.len()));
    }
    loaded.bytes = text.into_bytes();
    Ok(loaded)
}

/// [`write_all`] through the editor: the same checks on the files as the
/// editor holds them, every target checked and its folders made before the
/// first write, then each file written by the editor (a file that is not
/// UTF-8 atomically on disk), then removals on disk. The editor writes one
/// file at a time: when one fails, the error names those already written.
async fn write_through_editor(
    ctx: &ToolContext,
    editor: &Editor,
    tool: &str,
    changes: &[FileChange],
) -> Result<(), ToolOutput> {
    let interrupted = |i: blocking::Interrupted| i.into_output(tool);
    for change in changes {
        let (root, source) = (ctx.root.clone(), change.source().clone());
        let current = blocking::run_blocking(&ctx.cancel, move |_| load(&root, &source))
            .await
            .map_err(interrupted)??;
        let current = match current {
            Some(loaded) => Some(as_edited(ctx, loaded).await?.bytes),
            None => None,
        };
        check_current(&ctx.root, change, current)?;
    }
    let root = ctx.root.clone();
    let targets: Vec<RelPath> = changes
        .iter()
        .filter(|c| c.after.is_some())
        .map(|c| c.rel.clone())
        .collect();
    blocking::run_blocking(&ctx.cancel, move |_| {
        for rel in &targets {
            if let Some(parent) = rel.parent().filter(|p| !p.is_root()) {
                root.create_dir_all(&parent)?;
            }
            root.located(rel)?;
        }
        Ok::<(), ToolOutput>(())
    })
    .await
    .map_err(interrupted)??;
    let mut written: Vec<String> = Vec::new();
    for change in changes {
        let Some(bytes) = &change.after else { continue };
        let result = match std::str::from_utf8(bytes) {
            Ok(text) => {
                editor
                    .write(&ctx.root, &change.rel, text.to_string(), &ctx.cancel)
                    .await
            }
            Err(_) => {
                let (root, rel, bytes) = (ctx.root.clone(), change.rel.clone(), bytes.clone());
                let mode = change.before.as_ref().map(|b| b.mode);
                blocking::run_blocking(&ctx.cancel, move |_| {
                    root.stage(&rel, &bytes, mode)?.commit()?;
                    Ok::<(), ToolOutput>(())
                })
                .await
                .map_err(interrupted)
                .and_then(|r| r)
            }
        };
        if let Err(mut output) = result {
            if !written.is_empty() {
                let _ = write!(
                    output.content,
                    "\n[already written]: {}",
                    written.join(", ")
                );
            }
            return Err(output);
        }
        written.push(change.rel.to_string());
    }
    let root = ctx.root.clone();
    let changes = changes.to_vec();
    blocking::run_blocking(&ctx.cancel, move |_| remove_sources(&root, &changes))
        .await
        .map_err(interrupted)?
}
