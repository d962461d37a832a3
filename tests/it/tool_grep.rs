#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `grep` on fixture repositories: format, ignore rules, literal matching,
//! order, limits, refusals.

use std::fs;
use std::path::Path;

use crate::support::{grep_hits, write};
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n*.log\n");
    write(root, ".ignore", "notes.md\n");
    write(root, ".git/HEAD", "fn main in git internals\n");
    write(root, ".hidden/h.rs", "fn main() {}\n");
    write(root, "target/debug/build.rs", "fn main() {}\n");
    write(root, "run.log", "fn main() {}\n");
    write(root, "notes.md", "fn main() {}\n");
    write(
        root,
        "assets/blob.bin",
        b"fn main() {}\n\x00\x01\x02 binary tail fn main\n",
    );
    write(
        root,
        "src/main.rs",
        "use crate::app;\n\nfn main() {\n    app::run();\n}\n",
    );
    write(
        root,
        "src/app.rs",
        "pub fn run() {\n    let city = \"Oslo\";\n}\n// fn main is elsewhere\n",
    );
    write(
        root,
        "src/lib/deep.rs",
        "pub struct Tool_Calls;\r\nimpl Tool_Calls { fn call(&self) {} }\r\n",
    );
    dir
}

async fn grep(root: &Path, args: Value) -> ToolOutput {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(root, CancellationToken::new()).unwrap();
    registry.execute("grep", args, ctx).await
}

#[tokio::test]
async fn finds_literal_matches_in_the_documented_layout() {
    let dir = fixture();
    let out = grep(
        dir.path(),
        json!({"search_strs": ["fn main"], "_intent": "find the entry point"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    let expected = "\
## grep match results

Searched for:
- `fn main`

Scope: `.`

- src/app.rs:4
  // fn main is elsewhere
- src/main.rs:3
  fn main() {";
    assert_eq!(
        out.content, expected,
        "ignored, hidden, .git and binary files are skipped"
    );
}

#[tokio::test]
async fn several_strings_merge_and_a_line_matching_two_appears_once() {
    let dir = fixture();
    let out = grep(
        dir.path(),
        json!({"search_strs": ["Tool_Calls", "fn call", "run()"]}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        grep_hits(&out.content),
        [
            ("src/app.rs".to_owned(), 1),
            ("src/lib/deep.rs".into(), 1),
            ("src/lib/deep.rs".into(), 2),
            ("src/main.rs".into(), 4)
        ]
    );
    assert!(
        out.content
            .contains("  impl Tool_Calls { fn call(&self) {} }\n"),
        "CR stripped: {}",
        out.content
    );
}

#[tokio::test]
async fn matching_is_case_sensitive_and_literal() {
    let dir = fixture();
    let out = grep(dir.path(), json!({"search_strs": ["FN MAIN"]})).await;
    assert!(
        out.content.starts_with("no matches found."),
        "{}",
        out.content
    );

    let out = grep(
        dir.path(),
        json!({"search_strs": ["class .* (extends|implements|{)"]}),
    )
    .await;
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        "no matches found.\n\nSearched for:\n- `class .* (extends|implements|{)`\n\nScope: `.`\n\n\
         [how]: matching is literal and case-sensitive (ignored and hidden files are not searched); \
         try a shorter fragment such as `implements`"
    );
}

#[tokio::test]
async fn scope_restricts_the_search_and_must_be_a_directory() {
    let dir = fixture();
    let out = grep(
        dir.path(),
        json!({"search_strs": ["fn "], "scope": "src/lib"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("Scope: `src/lib`"), "{}", out.content);
    assert!(
        grep_hits(&out.content)
            .iter()
            .all(|(p, _)| p.starts_with("src/lib/")),
        "{}",
        out.content
    );

    let out = grep(
        dir.path(),
        json!({"search_strs": ["fn "], "scope": "src/main.rs"}),
    )
    .await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("[what]: scope invalid: directories only, not files"),
        "{}",
        out.content
    );
    assert!(out.content.contains("read_file"), "{}", out.content);

    let out = grep(
        dir.path(),
        json!({"search_strs": ["fn "], "scope": "nowhere"}),
    )
    .await;
    assert!(out.is_error);
    assert!(out.content.contains("path_not_found"), "{}", out.content);

    let out = grep(dir.path(), json!({"search_strs": ["fn "], "scope": ".."})).await;
    assert!(out.is_error);
    assert!(out.content.contains("path_escape"), "{}", out.content);
}

#[tokio::test]
async fn catch_all_and_path_like_strings_are_refused() {
    let dir = fixture();
    let out = grep(dir.path(), json!({"search_strs": [".", "src/app", "*"]})).await;
    assert!(out.is_error);
    assert!(
        out.content
            .starts_with("[what]: all search_strs are invalid"),
        "{}",
        out.content
    );
    assert!(
        out.content
            .contains("[invalid_search_strs]:\n- .\n- src/app\n- *\n"),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("- [good]: ") && out.content.contains("- [bad]: "),
        "{}",
        out.content
    );

    let out = grep(dir.path(), json!({"search_strs": [".*", "Oslo"]})).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.contains("Searched for:\n- `Oslo`\n"),
        "{}",
        out.content
    );
    assert!(
        out.content
            .contains("[skipped_invalid_search_strs]:\n- .*\n[why]: "),
        "{}",
        out.content
    );
    assert_eq!(grep_hits(&out.content), [("src/app.rs".to_owned(), 2)]);
}

#[tokio::test]
async fn argument_limits_are_validated() {
    let dir = fixture();
    let out = grep(dir.path(), json!({"search_strs": []})).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("- search_strs: expected at least 1 items"),
        "{}",
        out.content
    );
    let eleven: Vec<String> = (0..11).map(|i| format!("s{i}")).collect();
    let out = grep(dir.path(), json!({"search_strs": eleven})).await;
    assert!(
        out.content
            .contains("- search_strs: expected at most 10 items"),
        "{}",
        out.content
    );
    let out = grep(dir.path(), json!({"search_strs": ["ok", ""]})).await;
    assert!(
        out.content
            .contains("- search_strs.1: expected at least 1 characters"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn output_is_sorted_capped_at_100_and_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    // 40 files × 5 matching lines = 200 matches, spread over directories so the
    // parallel walker visits them in varying order.
    for i in 0..40 {
        let body: String = (0..10)
            .map(|l| {
                if l % 2 == 0 {
                    format!("needle {i} {l}\n")
                } else {
                    "hay\n".to_owned()
                }
            })
            .collect();
        write(dir.path(), &format!("d{}/f{i:02}.txt", i % 7), body);
    }
    let first = grep(dir.path(), json!({"search_strs": ["needle"]})).await;
    assert!(!first.is_error);
    let found = grep_hits(&first.content);
    assert_eq!(found.len(), 100);
    let mut sorted = found.clone();
    sorted.sort();
    assert_eq!(found, sorted, "sorted by path, then line");

    // They are the first 100 of all 200 by (path, line).
    let mut all: Vec<(String, u64)> = (0..40)
        .flat_map(|i| {
            (0..10)
                .step_by(2)
                .map(move |l| (format!("d{}/f{i:02}.txt", i % 7), l + 1))
        })
        .collect();
    all.sort();
    assert_eq!(found, all[..100]);
    assert!(
        first
            .content
            .contains("> truncated: only the first 100 matches"),
        "{}",
        first.content
    );

    for _ in 0..3 {
        assert_eq!(
            grep(dir.path(), json!({"search_strs": ["needle"]})).await,
            first
        );
    }
}

#[tokio::test]
async fn one_file_with_many_matches_is_capped_too() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=250).map(|l| format!("needle {l}\n")).collect();
    write(dir.path(), "big.txt", body);
    let out = grep(dir.path(), json!({"search_strs": ["needle"]})).await;
    let found = grep_hits(&out.content);
    assert_eq!(found.len(), 100);
    assert_eq!(found.last().unwrap(), &("big.txt".to_owned(), 100));
    assert!(out.content.contains("> truncated"), "{}", out.content);
}

#[tokio::test]
async fn long_lines_are_cut_at_500_characters() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "long.txt",
        format!("needle{}\n", "x".repeat(1000)),
    );
    let out = grep(dir.path(), json!({"search_strs": ["needle"]})).await;
    let line = out
        .content
        .lines()
        .find(|l| l.starts_with("  needle"))
        .unwrap();
    assert_eq!(line, format!("  needle{}...[truncated]", "x".repeat(494)));
}

#[tokio::test]
async fn an_unreadable_file_is_noted_not_fatal() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "needle\n");
    write(dir.path(), "locked.txt", "needle\n");
    let locked = dir.path().join("locked.txt");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let really_locked = fs::File::open(&locked).is_err(); // root reads anyway
    let out = grep(dir.path(), json!({"search_strs": ["needle"]})).await;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o644)).unwrap();
    assert!(!out.is_error, "{}", out.content);
    assert!(
        grep_hits(&out.content).contains(&("a.txt".to_owned(), 1)),
        "{}",
        out.content
    );
    if really_locked {
        assert!(
            out.content
                .contains("> 1 files or directories could not be read"),
            "{}",
            out.content
        );
    } else {
        println!("running as a user who can read mode-000 files; note not checked");
    }
}

/// Files `d{0..6}/f{0..40}.txt` holding "needle" on every 7th line among
/// 30 lines, so far more than 100 lines match.
fn generated() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..6 {
        for f in 0..40 {
            let body: String = (1..=30)
                .map(|l| {
                    if (l + f + d) % 7 == 0 {
                        format!("x needle {l}\n")
                    } else {
                        format!("x {l}\n")
                    }
                })
                .collect();
            write(dir.path(), &format!("d{d}/f{f}.txt"), body);
        }
    }
    write(dir.path(), "d-1.txt", "needle first by bytes\n");
    write(dir.path(), "d0.txt", "needle after the d0 folder\n");
    dir
}

#[tokio::test]
async fn capped_output_is_the_first_100_matches_of_the_full_sorted_search() {
    let dir = generated();
    // The full search, by hand: every (path, line) in byte order of the path.
    let mut all: Vec<(String, u64)> = Vec::new();
    let mut stack = vec![dir.path().to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(dir.path())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            for (i, line) in fs::read_to_string(&path).unwrap().lines().enumerate() {
                if line.contains("needle") {
                    all.push((rel.clone(), i as u64 + 1));
                }
            }
        }
    }
    all.sort();
    assert!(all.len() > 300);
    let out = grep(dir.path(), json!({"search_strs": ["needle"]})).await;
    assert_eq!(grep_hits(&out.content), all[..100]);
    assert!(
        out.content.contains("> truncated: only the first 100"),
        "{}",
        out.content
    );

    let rare = grep(dir.path(), json!({"search_strs": ["after the d0"]})).await;
    assert_eq!(grep_hits(&rare.content), [("d0.txt".to_owned(), 1)]);
}
