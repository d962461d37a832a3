#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `tree` on a fixture repository: ignore rules, layout, determinism, truncation.

use std::fs;
use std::path::Path;

use crate::support::write;
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A project with ignored, hidden and git-internal files (not a git repo).
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n*.log\n");
    write(root, ".ignore", "notes.md\n");
    write(root, ".git/config", "[core]\n");
    write(root, ".hidden/h.txt", "hidden\n");
    write(root, "target/debug/out.txt", "built\n");
    write(root, "app.log", "log\n");
    write(root, "notes.md", "private notes\n");
    write(root, "README.md", "# demo\n");
    write(root, "Cargo.toml", "[package]\n");
    write(root, "src/main.rs", "fn main() {}\n");
    write(root, "src/agent.rs", "pub struct Agent;\n");
    write(root, "src/tool/mod.rs", "pub mod grep;\n");
    write(root, "src/tool/grep.rs", "pub fn grep() {}\n");
    write(root, "src/tool/builtin/tree.rs", "pub fn tree() {}\n");
    dir
}

async fn tree(root: &Path, args: Value) -> ToolOutput {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(root, CancellationToken::new()).unwrap();
    registry.execute("tree", args, ctx).await
}

#[tokio::test]
async fn lists_sorted_files_with_sizes_honouring_ignore_rules() {
    let dir = fixture();
    let out = tree(dir.path(), json!({"_intent": "see the layout"})).await;
    assert!(!out.is_error, "{}", out.content);
    let expected = "\
## Project file tree

Path: `.`
Files: 7

- src
  - tool
    - builtin
      - tree.rs | size: 17 bytes
    - grep.rs | size: 17 bytes
    - mod.rs | size: 14 bytes
  - agent.rs | size: 18 bytes
  - main.rs | size: 13 bytes
- Cargo.toml | size: 10 bytes
- README.md | size: 7 bytes";
    assert_eq!(out.content, expected);
}

#[tokio::test]
async fn a_subdirectory_keeps_its_full_path_levels() {
    let dir = fixture();
    let out = tree(dir.path(), json!({"path": "src/tool"})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains("Path: `src/tool`\nFiles: 3\n"),
        "{}",
        out.content
    );
    assert!(
        out.content.ends_with("- src\n  - tool\n    - builtin\n      - tree.rs | size: 17 bytes\n    - grep.rs | size: 17 bytes\n    - mod.rs | size: 14 bytes"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn truncation_keeps_the_first_files_in_display_order_and_says_so() {
    let dir = fixture();
    let full = tree(dir.path(), json!({})).await.content;
    for max_files in [1, 3, 6] {
        let first = tree(dir.path(), json!({"max_files": max_files})).await;
        let again = tree(dir.path(), json!({"max_files": max_files})).await;
        assert_eq!(first, again, "deterministic");
        assert!(
            first.content.contains(&format!("Files: {max_files}\n")),
            "{}",
            first.content
        );
        assert!(
            first.content.contains(&format!(
                "> truncated: more than {max_files} files found, the first {max_files} in sorted order are shown"
            )),
            "{}",
            first.content
        );
        // Every file line shown is in the full listing, in the same order.
        let shown: Vec<&str> = first
            .content
            .lines()
            .filter(|l| l.contains("| size:"))
            .collect();
        let all: Vec<&str> = full.lines().filter(|l| l.contains("| size:")).collect();
        assert_eq!(shown, all[..max_files]);
    }
    let all = tree(dir.path(), json!({"max_files": 7})).await;
    assert!(!all.content.contains("truncated"), "{}", all.content);
}

#[tokio::test]
async fn max_files_out_of_range_is_a_validation_error() {
    let dir = fixture();
    for bad in [0, 1001] {
        let out = tree(dir.path(), json!({"max_files": bad})).await;
        assert!(out.is_error);
        assert!(out.content.contains("- max_files: "), "{}", out.content);
    }
}

#[tokio::test]
async fn refusals_and_empty_directories() {
    let dir = fixture();
    let out = tree(dir.path(), json!({"path": ".."})).await;
    assert!(out.is_error);
    assert!(out.content.contains("path_escape"), "{}", out.content);

    let out = tree(dir.path(), json!({"path": "missing"})).await;
    assert!(out.is_error);
    assert!(out.content.contains("path_not_found"), "{}", out.content);

    fs::create_dir(dir.path().join("empty")).unwrap();
    let out = tree(dir.path(), json!({"path": "empty"})).await;
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        "## Project file tree\n\nPath: `empty`\n\nno files found"
    );
}

#[tokio::test]
async fn ignore_rules_apply_inside_subdirectories_too() {
    let dir = fixture();
    write(dir.path(), "src/gen/.gitignore", "*.gen.rs\n");
    write(dir.path(), "src/gen/a.gen.rs", "x");
    write(dir.path(), "src/gen/b.rs", "x");
    let out = tree(dir.path(), json!({"path": "src"})).await;
    assert!(out.content.contains("- b.rs"), "{}", out.content);
    assert!(!out.content.contains("a.gen.rs"), "{}", out.content);
    // Like `rg --files target`: naming an ignored directory lists it.
    let out = tree(dir.path(), json!({"path": "target"})).await;
    assert!(
        out.content.contains("    - out.txt | size: 6 bytes"),
        "{}",
        out.content
    );
}
