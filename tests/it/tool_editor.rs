#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The file tools through an editor (`tool::editor`): reads see its
//! buffers, writes go to it, the journal keeps what the editor held, and
//! nothing is asked of it for a path our confinement refuses.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::tool::builtin::{self, EditFormat};
use light_agent::tool::editor::{Editor, EditorFiles};
use light_agent::tool::journal::{BlobHash, ChangeJournal, Journal, PriorContent, PriorFile};
use light_agent::tool::seen::content_hash;
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// An editor in memory: buffers by path (else the disk), every call
/// recorded, writes kept in the buffers only, optionally failing.
#[derive(Default)]
struct FakeEditor {
    buffers: Mutex<Vec<(PathBuf, String)>>,
    calls: Mutex<Vec<String>>,
    fail_writes: bool,
    /// Fails the writes of paths ending so (`fail_writes`: every write).
    fail_ending: Option<&'static str>,
    reads_only: bool,
}

impl FakeEditor {
    fn buffer(&self, path: &Path) -> Option<String> {
        let buffers = self.buffers.lock().unwrap();
        buffers
            .iter()
            .rev()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.clone())
    }
}

impl EditorFiles for FakeEditor {
    fn reads(&self) -> bool {
        true
    }

    fn writes(&self) -> bool {
        !self.reads_only
    }

    fn read_text(&self, path: PathBuf) -> BoxFuture<'static, Result<String, String>> {
        self.calls
            .lock()
            .unwrap()
            .push(format!("read {}", path.display()));
        let text = self
            .buffer(&path)
            .map_or_else(|| fs::read_to_string(&path).map_err(|e| e.to_string()), Ok);
        Box::pin(async move { text })
    }

    fn write_text(&self, path: PathBuf, content: String) -> BoxFuture<'static, Result<(), String>> {
        self.calls
            .lock()
            .unwrap()
            .push(format!("write {}", path.display()));
        let refused = self.fail_ending.is_some_and(|end| path.ends_with(end));
        let outcome = if self.fail_writes || refused {
            Err("the editor refused".to_string())
        } else {
            self.buffers.lock().unwrap().push((path, content));
            Ok(())
        };
        Box::pin(async move { outcome })
    }
}

/// A journal that keeps what it is given.
#[derive(Default)]
struct KeptJournal(Mutex<Vec<PriorFile>>);

impl ChangeJournal for KeptJournal {
    fn record(&self, files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
        self.0.lock().unwrap().extend(files);
        Box::pin(async { Ok(()) })
    }

    fn store(&self, _: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }
}

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    builtin::register_writing(&registry, EditFormat::Replace).unwrap();
    registry
}

struct Setup {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    editor: Arc<FakeEditor>,
    journal: Arc<KeptJournal>,
    ctx: ToolContext,
}

fn setup(editor: FakeEditor) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap().join("cwd");
    fs::create_dir_all(&dir).unwrap();
    let editor = Arc::new(editor);
    let journal = Arc::new(KeptJournal::default());
    let mut ctx = ToolContext::new(&dir, CancellationToken::new()).unwrap();
    ctx.permits = Permits::new(Policy::new(Mode::Auto, RuleList::default()), None);
    ctx.editor = Some(Editor::new(editor.clone()));
    ctx.journal = Some(Journal::new(journal.clone()));
    Setup {
        _tmp: tmp,
        dir,
        editor,
        journal,
        ctx,
    }
}

async fn call(ctx: &ToolContext, tool: &str, mut args: Value) -> ToolOutput {
    args["_intent"] = json!("test");
    registry().execute(tool, args, ctx.clone()).await
}

#[tokio::test]
async fn reads_and_edits_see_the_buffer_and_the_journal_keeps_it() {
    let s = setup(FakeEditor::default());
    let file = s.dir.join("a.txt");
    fs::write(&file, "on disk\n").unwrap();
    s.editor
        .buffers
        .lock()
        .unwrap()
        .push((file.clone(), "unsaved\n".into()));

    let read = call(&s.ctx, "read_file", json!({"path": "a.txt"})).await;
    assert!(
        !read.is_error && read.content.contains("unsaved"),
        "{read:?}"
    );

    let edit =
        json!({"path": "a.txt", "edits": [{"old_string": "unsaved", "new_string": "edited"}]});
    let edited = call(&s.ctx, "edit", edit).await;
    assert!(!edited.is_error, "{edited:?}");
    assert_eq!(s.editor.buffer(&file).unwrap(), "edited\n");
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "on disk\n",
        "the editor saves"
    );
    let journal = s.journal.0.lock().unwrap().clone();
    assert_eq!(journal.len(), 1);
    assert_eq!(journal[0].path, "a.txt");
    assert_eq!(
        journal[0].content,
        PriorContent::Bytes(b"unsaved\n".to_vec())
    );
    assert_eq!(journal[0].after_hash, Some(content_hash(b"edited\n")));

    // A new file: its folder made on our side, its text written by the editor.
    let written = call(
        &s.ctx,
        "write",
        json!({"path": "new/b.txt", "content": "hi\n"}),
    )
    .await;
    assert!(!written.is_error, "{written:?}");
    assert!(s.dir.join("new").is_dir());
    assert_eq!(s.editor.buffer(&s.dir.join("new/b.txt")).unwrap(), "hi\n");
}

#[tokio::test]
async fn a_refused_path_is_never_sent_to_the_editor() {
    let s = setup(FakeEditor::default());
    let outside = s.dir.parent().unwrap().join("secret.txt");
    fs::write(&outside, "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, s.dir.join("out")).unwrap();
    fs::write(s.dir.join("in.txt"), "in\n").unwrap();
    std::os::unix::fs::symlink("in.txt", s.dir.join("link_in")).unwrap();
    for (tool, args) in [
        ("read_file", json!({"path": "out"})),
        ("read_file", json!({"path": outside.to_str().unwrap()})),
        ("write", json!({"path": "out", "content": "x"})),
        ("write", json!({"path": "../secret.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "out", "edits": [{"old_string": "secret", "new_string": "x"}]}),
        ),
        // A link inside, too: the editor would follow it.
        ("write", json!({"path": "link_in", "content": "x"})),
    ] {
        let output = call(&s.ctx, tool, args.clone()).await;
        assert!(output.is_error, "{tool} {args}: {output:?}");
    }
    assert!(
        s.editor.calls.lock().unwrap().is_empty(),
        "{:?}",
        s.editor.calls
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret\n");
    assert_eq!(fs::read_to_string(s.dir.join("in.txt")).unwrap(), "in\n");
}

#[tokio::test]
async fn a_failed_editor_write_is_an_error_and_the_disk_is_untouched() {
    let s = setup(FakeEditor {
        fail_writes: true,
        ..FakeEditor::default()
    });
    fs::write(s.dir.join("a.txt"), "old\n").unwrap();
    let edit = json!({"path": "a.txt", "edits": [{"old_string": "old", "new_string": "new"}]});
    let output = call(&s.ctx, "edit", edit).await;
    assert!(output.is_error, "{output:?}");
    assert!(
        output.content.contains("the editor refused"),
        "{}",
        output.content
    );
    assert_eq!(fs::read_to_string(s.dir.join("a.txt")).unwrap(), "old\n");
}

#[tokio::test]
async fn with_reads_alone_the_writing_tools_change_the_disk() {
    let s = setup(FakeEditor {
        reads_only: true,
        ..FakeEditor::default()
    });
    let file = s.dir.join("a.txt");
    fs::write(&file, "on disk\n").unwrap();
    s.editor
        .buffers
        .lock()
        .unwrap()
        .push((file.clone(), "unsaved\n".into()));
    let read = call(&s.ctx, "read_file", json!({"path": "a.txt"})).await;
    assert!(read.content.contains("unsaved"), "{read:?}");
    // The change starts from the disk: the buffer the model read is not
    // what would be written over, so it is shown the file as it is.
    let edit =
        json!({"path": "a.txt", "edits": [{"old_string": "on disk", "new_string": "edited"}]});
    let stale = call(&s.ctx, "edit", edit.clone()).await;
    assert!(
        stale.is_error && stale.content.contains("on disk"),
        "{stale:?}"
    );
    let edited = call(&s.ctx, "edit", edit).await;
    assert!(!edited.is_error, "{edited:?}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "edited\n");
    let calls = s.editor.calls.lock().unwrap().clone();
    assert!(calls.iter().all(|c| c.starts_with("read ")), "{calls:?}");
}

#[tokio::test]
async fn a_patch_whose_second_write_fails_names_the_file_already_written() {
    let s = setup(FakeEditor {
        fail_ending: Some("b.txt"),
        ..FakeEditor::default()
    });
    fs::write(s.dir.join("a.txt"), "a\n").unwrap();
    fs::write(s.dir.join("b.txt"), "b\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch";
    let registry = ToolRegistry::new();
    builtin::register_writing(&registry, EditFormat::Patch).unwrap();
    let output = registry
        .execute(
            "apply_patch",
            json!({"patch": patch, "_intent": "test"}),
            s.ctx.clone(),
        )
        .await;
    assert!(output.is_error, "{output:?}");
    assert!(
        output.content.contains("the editor refused"),
        "{}",
        output.content
    );
    assert!(
        output.content.contains("[already written]: a.txt"),
        "{}",
        output.content
    );
    assert_eq!(s.editor.buffer(&s.dir.join("a.txt")).unwrap(), "A\n");
    assert_eq!(fs::read_to_string(s.dir.join("b.txt")).unwrap(), "b\n");
}
