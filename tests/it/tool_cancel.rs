#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Cancellation: every built-in answers "cancelled" once the token fires,
//! also in the middle of a long walk or scan, and its blocking work stops too
//! (the runtime, which waits for blocking tasks, shuts down). A scan that went
//! on would take far longer than the hang guard (1 TiB of sparse file).

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Beyond this the call or the runtime's shutdown counts as hung.
const GUARD: Duration = Duration::from_secs(120);

/// 4 000 files in 40 directories.
fn big_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..40 {
        let sub = dir.path().join(format!("dir{d:02}"));
        fs::create_dir(&sub).unwrap();
        for f in 0..100 {
            fs::write(
                sub.join(format!("file{f:03}.txt")),
                "some text with a needle\n",
            )
            .unwrap();
        }
    }
    dir
}

/// Runs one call on a fresh runtime in its own thread, cancelling after
/// `cancel_after`, and waits (at most [`GUARD`]) until the runtime, which
/// waits for blocking work, has shut down. Returns the output and how long
/// the call took (printed only).
fn run(
    root: &Path,
    tool: &str,
    args: Value,
    cancel_after: Option<Duration>,
) -> (ToolOutput, Duration) {
    let (root, tool) = (root.to_path_buf(), tool.to_owned());
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let started = Instant::now();
        let result = runtime.block_on(async {
            let registry = ToolRegistry::new();
            builtin::register_all(&registry).unwrap();
            let cancel = CancellationToken::new();
            let ctx = ToolContext::new(&root, cancel.clone()).unwrap();
            if let Some(delay) = cancel_after {
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    cancel.cancel();
                });
            }
            let output = registry.execute(&tool, args, ctx).await;
            (output, started.elapsed())
        });
        drop(runtime);
        let _ = done_tx.send(result);
    });
    done_rx
        .recv_timeout(GUARD)
        .expect("the call and its blocking work ended")
}

/// 20 000 empty directories: `tree` stops at 1 000 files at most, so only
/// a walk through folders without files is long whatever the machine.
fn many_folders() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..200 {
        for e in 0..100 {
            fs::create_dir_all(dir.path().join(format!("d{d:03}/e{e:03}"))).unwrap();
        }
    }
    dir
}

#[test]
fn tree_and_grep_stop_mid_walk() {
    let (files, folders) = (big_tree(), many_folders());
    for (tool, args, dir) in [
        ("tree", json!({"max_files": 1000}), &folders),
        // A word no file holds: grep reads every file (it stops early at
        // its cap on matches).
        ("grep", json!({"search_strs": ["haystack"]}), &files),
    ] {
        let (full, full_time) = run(dir.path(), tool, args.clone(), None);
        assert!(!full.is_error, "{}", full.content);
        // Far shorter than a walk of 4 000 files or 20 000 folders: the
        // token fires before the walk is done, at its start or in its middle.
        let delay = Duration::from_millis(1);
        let (out, call_time) = run(dir.path(), tool, args, Some(delay));
        println!(
            "{tool}: full walk {full_time:?}; cancelled after {delay:?}, returned at {call_time:?}"
        );
        assert!(out.is_error, "{}", out.content);
        assert_eq!(out.content, format!("{tool} cancelled"));
    }
}

#[test]
fn read_file_stops_mid_scan_of_a_multi_gigabyte_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.txt");
    let mut file = fs::File::create(&path).unwrap();
    // Text beyond the 8 KiB binary sniff, then zeros.
    for n in 0..2000 {
        writeln!(file, "text line {n}").unwrap();
    }
    // Sparse: 1 TiB on paper, almost nothing on disk; a line count must read it all.
    file.set_len(1 << 40).unwrap();
    drop(file);

    let delay = Duration::from_millis(50);
    let (out, call_time) = run(
        dir.path(),
        "read_file",
        json!({"path": "huge.txt", "start_line": 3}),
        Some(delay),
    );
    println!("read_file: cancelled after {delay:?}, returned at {call_time:?}");
    assert_eq!(out, ToolOutput::error("read_file cancelled"));
}

#[test]
fn an_already_cancelled_token_stops_every_tool_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
    for (tool, args) in [
        ("tree", json!({})),
        ("grep", json!({"search_strs": ["needle"]})),
        ("read_file", json!({"path": "a.txt"})),
    ] {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let out = runtime.block_on(async {
            let registry = ToolRegistry::new();
            builtin::register_all(&registry).unwrap();
            let cancel = CancellationToken::new();
            cancel.cancel();
            registry
                .execute(tool, args, ToolContext::new(dir.path(), cancel).unwrap())
                .await
        });
        assert_eq!(out, ToolOutput::error(format!("{tool} cancelled")));
    }
}
