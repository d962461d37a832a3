#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The writing tools: golden fixtures (`tests/fixtures/writing/<case>/`:
//! `before/` files, `call.json`, then `after/` files and/or `result.txt`, or
//! `error.txt` with the tree left as it was), the size cap, the stale guard
//! and confinement (nothing written outside the directory, whatever is
//! swapped in meanwhile).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::tool::builtin::{self, EditFormat};
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    builtin::register_writing(&registry, EditFormat::Patch).unwrap();
    builtin::register_writing(&registry, EditFormat::Replace).unwrap();
    registry
}

fn context(dir: &Path) -> ToolContext {
    let mut ctx = ToolContext::new(dir, CancellationToken::new()).unwrap();
    ctx.permits = Permits::new(Policy::new(Mode::Auto, RuleList::default()), None);
    ctx
}

/// Every file beneath `dir` (relative path → bytes).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        if !dir.exists() {
            return;
        }
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let target = to.join(rel);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, bytes).unwrap();
    }
}

async fn call(registry: &ToolRegistry, ctx: &ToolContext, tool: &str, args: Value) -> ToolOutput {
    let mut args = args;
    args["_intent"] = json!("test");
    registry.execute(tool, args, ctx.clone()).await
}

#[tokio::test]
async fn golden_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/writing");
    let mut cases: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "fixtures missing");
    let registry = registry();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&case.join("before"), dir.path());
        let before = tree(dir.path());
        let call_json: Value =
            serde_json::from_str(&fs::read_to_string(case.join("call.json")).unwrap()).unwrap();
        let tool = call_json["tool"].as_str().unwrap();
        let ctx = context(dir.path());
        let output = call(&registry, &ctx, tool, call_json["args"].clone()).await;
        let root_text = dir.path().to_string_lossy().into_owned();
        let content = output.content.replace(&root_text, "<ROOT>");
        let after = tree(dir.path());
        if let Ok(expected) = fs::read_to_string(case.join("error.txt")) {
            if !output.is_error || content != expected {
                failures.push(format!(
                    "{name}: expected error\n{expected}\n--- got (is_error {}) ---\n{content}",
                    output.is_error
                ));
            }
            if after != before {
                failures.push(format!("{name}: a failed call changed files"));
            }
            continue;
        }
        if output.is_error {
            failures.push(format!("{name}: unexpected error\n{content}"));
            continue;
        }
        if let Ok(expected) = fs::read_to_string(case.join("result.txt"))
            && content != expected
        {
            failures.push(format!(
                "{name}: result\n{expected}\n--- got ---\n{content}"
            ));
        }
        let expected = tree(&case.join("after"));
        if after != expected {
            let show = |t: &BTreeMap<String, Vec<u8>>| {
                t.iter()
                    .map(|(k, v)| format!("{k}: {:?}", String::from_utf8_lossy(v)))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            failures.push(format!(
                "{name}: files\nexpected:\n{}\ngot:\n{}",
                show(&expected),
                show(&after)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn files_over_the_size_cap_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![b'a'; light_agent::tool::patch::MAX_EDIT_BYTES + 1];
    fs::write(dir.path().join("big.txt"), &big).unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    let out = call(
        &registry,
        &ctx,
        "edit",
        json!({"path": "big.txt", "edits": [{"old_string": "a", "new_string": "b"}]}),
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.content.contains("over the 32 MiB limit"),
        "{}",
        out.content
    );
    let patch = "*** Begin Patch\n*** Update File: big.txt\n@@\n-a\n+b\n*** End Patch";
    let out = call(&registry, &ctx, "apply_patch", json!({"patch": patch})).await;
    assert!(
        out.content.contains("over the 32 MiB limit"),
        "{}",
        out.content
    );
    assert_eq!(
        fs::metadata(dir.path().join("big.txt")).unwrap().len(),
        big.len() as u64
    );
}

#[tokio::test]
async fn a_file_changed_since_it_was_read_is_refused_once() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    let read = call(&registry, &ctx, "read_file", json!({"path": "a.txt"})).await;
    assert!(!read.is_error, "{}", read.content);
    // Someone else edits the file.
    fs::write(dir.path().join("a.txt"), "one\nTWO\n").unwrap();
    let edit = json!({"path": "a.txt", "edits": [{"old_string": "one", "new_string": "1"}]});
    let out = call(&registry, &ctx, "edit", edit.clone()).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("a.txt changed on disk since you last read or wrote it"),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("2 | TWO"),
        "the refusal shows the file as it is now: {}",
        out.content
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
    // The model has now seen it; its retry applies.
    let out = call(&registry, &ctx, "edit", edit).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "1\nTWO\n"
    );
}

#[tokio::test]
async fn the_agents_own_successive_edits_never_trip_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "v0\n").unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    for i in 0..5 {
        let edit = json!({"path": "a.txt", "edits": [{"old_string": format!("v{i}"), "new_string": format!("v{}", i + 1)}]});
        let out = call(&registry, &ctx, "edit", edit).await;
        assert!(!out.is_error, "edit {i}: {}", out.content);
    }
    let out = call(
        &registry,
        &ctx,
        "write",
        json!({"path": "a.txt", "content": "written\n"}),
    )
    .await;
    assert!(!out.is_error, "write after own edits: {}", out.content);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-written\n+patched\n*** End Patch";
    let out = call(&registry, &ctx, "apply_patch", json!({"patch": patch})).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "patched\n"
    );
    // The user is shown the whole diff; the model gets none of it.
    let shown = out.display.unwrap_or_default();
    assert!(shown.contains("--- a/a.txt\n+++ b/a.txt\n"), "{shown}");
    assert!(shown.contains("-written\n+patched\n"), "{shown}");
    assert!(!out.content.contains("-written"), "{}", out.content);
}

#[tokio::test]
async fn write_over_a_file_read_in_its_current_form_applies_and_keeps_its_format() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("w.txt"), b"\xEF\xBB\xBFold\r\n").unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    let read = call(&registry, &ctx, "read_file", json!({"path": "w.txt"})).await;
    assert!(!read.is_error);
    let out = call(
        &registry,
        &ctx,
        "write",
        json!({"path": "w.txt", "content": "new\nlines\n"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        fs::read(dir.path().join("w.txt")).unwrap(),
        b"\xEF\xBB\xBFnew\r\nlines\r\n"
    );
}

#[tokio::test]
async fn an_edit_padded_with_no_op_edits_applies_its_real_one() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("g.py"),
        "def greet():\r\n    return 'Hello'\r\nprint(greet())\r\n",
    )
    .unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    let edit = json!({"path": "g.py", "edits": [
        {"old_string": "greet", "new_string": "greet"},
        {"old_string": "Hello", "new_string": "Welcome"},
        {"old_string": "g.py", "new_string": "g.py"}
    ]});
    let out = call(&registry, &ctx, "edit", edit).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.ends_with(
            "\n[skipped]: edits 1, 3 changed nothing (old_string and new_string are the same)"
        ),
        "{}",
        out.content
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("g.py")).unwrap(),
        "def greet():\r\n    return 'Welcome'\r\nprint(greet())\r\n"
    );
    // Only no-ops: refused, nothing written.
    let edit = json!({"path": "g.py", "edits": [{"old_string": "greet", "new_string": "greet"}]});
    let out = call(&registry, &ctx, "edit", edit).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("edit 1: old_string and new_string are the same; nothing was changed"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn a_write_dropping_most_of_a_file_after_an_edit_is_held_until_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let original = "# Greetings.\n\ndef greet(name):\n    return \"Hello, \" + name\n\n\ndef farewell(name):\n    return \"Bye, \" + name\n\n\nif __name__ == \"__main__\":\n    print(greet(\"Ana\"))\n";
    fs::write(dir.path().join("greet.py"), original).unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    let edit =
        json!({"path": "greet.py", "edits": [{"old_string": "Hello", "new_string": "Welcome"}]});
    let out = call(&registry, &ctx, "edit", edit).await;
    assert!(!out.is_error, "{}", out.content);
    let edited = fs::read_to_string(dir.path().join("greet.py")).unwrap();

    // The model "saves" its edit by rewriting the file from memory.
    let rewrite =
        json!({"path": "greet.py", "content": "def greet(name):\n    return 'Welcome, ' + name\n"});
    let out = call(&registry, &ctx, "write", rewrite.clone()).await;
    assert!(out.is_error);
    assert!(
        out.content.starts_with("[what]: this write would drop 6 of the 7 non-blank lines of greet.py and keep 1; nothing was written\n[how]: to change part of the file, use edit (what edit changed is already saved)"),
        "{}",
        out.content
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("greet.py")).unwrap(),
        edited
    );

    // Another write first: the held one no longer counts as confirmed.
    let other = json!({"path": "greet.py", "content": "x = 1\n"});
    assert!(call(&registry, &ctx, "write", other).await.is_error);
    assert!(
        call(&registry, &ctx, "write", rewrite.clone())
            .await
            .is_error
    );
    // Sent again unchanged, it is what the model means.
    let out = call(&registry, &ctx, "write", rewrite).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        fs::read_to_string(dir.path().join("greet.py")).unwrap(),
        "def greet(name):\n    return 'Welcome, ' + name\n"
    );

    // Growing or keeping most of a file is never held.
    let out = call(
        &registry,
        &ctx,
        "write",
        json!({"path": "greet.py", "content": "a\nb\nc\nd\ne\nf\ng\n"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    let out = call(
        &registry,
        &ctx,
        "write",
        json!({"path": "greet.py", "content": "a\nb\nc\nd\nX\n"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
}

#[cfg(unix)]
#[tokio::test]
async fn file_modes_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("run.sh");
    fs::write(&script, "echo 1\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let registry = registry();
    let ctx = context(dir.path());
    let out = call(
        &registry,
        &ctx,
        "edit",
        json!({"path": "run.sh", "edits": [{"old_string": "1", "new_string": "2"}]}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        fs::metadata(&script).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

/// `<tmp>/outside/canary.txt` and `<tmp>/cwd/` with a link leading out.
struct Confined {
    _tmp: tempfile::TempDir,
    cwd: PathBuf,
    outside: PathBuf,
}

const CANARY: &str = "CANARY-UNTOUCHED\n";

fn confined() -> Confined {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("cwd");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(&cwd).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("canary.txt"), CANARY).unwrap();
    fs::write(cwd.join("inside.txt"), "inside\n").unwrap();
    std::os::unix::fs::symlink(&outside, cwd.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("canary.txt"), cwd.join("canary_link")).unwrap();
    Confined {
        _tmp: tmp,
        cwd,
        outside,
    }
}

impl Confined {
    /// The outside folder holds exactly the canary, unchanged.
    fn assert_outside_untouched(&self) {
        let outside = tree(&self.outside);
        assert_eq!(
            outside.len(),
            1,
            "files appeared outside: {:?}",
            outside.keys().collect::<Vec<_>>()
        );
        assert_eq!(
            outside.get("canary.txt").map(Vec::as_slice),
            Some(CANARY.as_bytes())
        );
    }
}

#[tokio::test]
async fn no_write_leaves_the_directory() {
    let fx = confined();
    let registry = registry();
    let ctx = context(&fx.cwd);
    let outside_abs = fx.outside.join("canary.txt").to_string_lossy().into_owned();
    let attempts = [
        (
            "write",
            json!({"path": "../outside/new.txt", "content": "x"}),
        ),
        (
            "write",
            json!({"path": "../outside/canary.txt", "content": "x"}),
        ),
        ("write", json!({"path": outside_abs, "content": "x"})),
        ("write", json!({"path": "out/new.txt", "content": "x"})),
        ("write", json!({"path": "out/canary.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "out/canary.txt", "edits": [{"old_string": "CANARY", "new_string": "x"}]}),
        ),
        (
            "edit",
            json!({"path": outside_abs, "edits": [{"old_string": "CANARY", "new_string": "x"}]}),
        ),
        (
            "edit",
            json!({"path": "canary_link", "edits": [{"old_string": "CANARY", "new_string": "x"}]}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: ../outside/p.txt\n+x\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: out/p.txt\n+x\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: inside.txt\n*** Move to: out/moved.txt\n@@\n-inside\n+x\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Delete File: out/canary.txt\n*** End Patch"}),
        ),
    ];
    for (tool, args) in attempts {
        let out = call(&registry, &ctx, tool, args.clone()).await;
        assert!(
            out.is_error,
            "{tool} {args} was not refused: {}",
            out.content
        );
        assert!(!out.content.is_empty());
        fx.assert_outside_untouched();
    }
    assert_eq!(
        fs::read_to_string(fx.cwd.join("inside.txt")).unwrap(),
        "inside\n"
    );
}

#[tokio::test]
async fn a_symlink_swapped_in_during_200_writes_never_leads_out() {
    let fx = confined();
    fs::create_dir_all(fx.cwd.join("sub")).unwrap();
    let registry = registry();
    let ctx = context(&fx.cwd);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Swaps `sub` between a real folder and a link to the outside folder.
    let swapper = {
        let (cwd, outside, stop) = (fx.cwd.clone(), fx.outside.clone(), stop.clone());
        std::thread::spawn(move || {
            let (sub, real, link) = (cwd.join("sub"), cwd.join("sub_real"), cwd.join("sub_link"));
            fs::create_dir_all(&real).unwrap();
            let _ = std::os::unix::fs::symlink(&outside, &link);
            let mut flips = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = fs::remove_dir_all(&sub).or_else(|_| fs::remove_file(&sub));
                let from = if flips.is_multiple_of(2) {
                    &link
                } else {
                    &real
                };
                let _ = std::os::unix::fs::symlink(from, &sub);
                flips += 1;
            }
            flips
        })
    };
    let mut refused = 0;
    for i in 0..200 {
        let out = call(
            &registry,
            &ctx,
            "write",
            json!({"path": format!("sub/f{i}.txt"), "content": "x\n"}),
        )
        .await;
        if out.is_error {
            refused += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let flips = swapper.join().unwrap();
    assert!(flips > 0);
    fx.assert_outside_untouched();
    // Writes that were not refused landed inside. (Not counted: a write
    // that found `sub` missing created it as a real folder, which the
    // swapper then removes with what was written in it.)
    assert!(refused < 200, "every write was refused");
}
