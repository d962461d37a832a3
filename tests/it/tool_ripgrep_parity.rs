#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `grep` and `tree` list what ripgrep lists, in its order, on a generated
//! tree with ignore rules, hidden and nested-ignored files, mixed-case
//! names and caps. The reference is `rg` itself when it is installed, and
//! always an independent walk with the `ignore` crate (ripgrep's own walker),
//! which is checked against `rg` wherever `rg` exists.

use std::cmp::Ordering;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::support::{grep_hits, write};
use light_agent::tool::{ToolContext, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const COMMON: &str = "common_word";
const RARE: &str = "RARE_NEEDLE_42";
const TOP: [&str; 6] = ["Alpha", "beta", "Gamma", "delta", "eps_1", "eps-2"];
const SUB: [&str; 4] = ["Core", "io", "Util", "x"];
const FILES: [&str; 5] = ["A.rs", "b.rs", "C.txt", "d.md", "e_f.rs"];

/// 120 listed files, each with [`COMMON`] on line 3 (and on line 7 of every
/// other one), [`RARE`] in three; plus files every walker must leave out.
fn generated_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join(".git")).unwrap();
    write(root, ".git/config", format!("{COMMON} {RARE}\n"));
    write(root, ".gitignore", "*.log\nbuild/\n");
    write(root, "beta/io/.gitignore", "secret.txt\n");
    write(root, "beta/io/secret.txt", format!("{COMMON} {RARE}\n"));
    write(root, "build/out.rs", format!("{COMMON} {RARE}\n"));
    write(root, "Gamma/run.log", format!("{COMMON} {RARE}\n"));
    write(root, ".cache/c.txt", format!("{COMMON} {RARE}\n"));
    let mut n = 0;
    for top in TOP {
        for sub in SUB {
            for file in FILES {
                n += 1;
                let mut text = format!("line one\nline two {n}\nhas {COMMON} here\n");
                text.push_str("four\nfive\nsix\n");
                if n % 2 == 0 {
                    text.push_str(&format!("again {COMMON}\n"));
                }
                if n % 40 == 0 {
                    text.push_str(&format!("the {RARE}\n"));
                }
                write(root, &format!("{top}/{sub}/{file}"), &text);
            }
        }
    }
    dir
}

async fn run_tool(root: &Path, name: &str, args: Value) -> String {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(root, CancellationToken::new()).unwrap();
    let out = registry.execute(name, args, ctx).await;
    assert!(!out.is_error, "{}", out.content);
    out.content
}

/// The files of a tree listing, rebuilt from its indentation.
fn tree_files(content: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    for line in content.lines() {
        let depth = line.len() - line.trim_start_matches(' ').len();
        let Some(item) = line.trim_start_matches(' ').strip_prefix("- ") else {
            continue;
        };
        stack.truncate(depth / 2);
        match item.split_once(" | size: ") {
            Some((name, _)) => {
                let mut path = stack.clone();
                path.push(name.to_owned());
                files.push(path.join("/"));
            }
            None => stack.push(item.to_owned()),
        }
    }
    files
}

/// The files ripgrep would search, by ripgrep's own walker and defaults.
fn walked_files(root: &Path) -> Vec<String> {
    let mut files: Vec<String> = ignore::WalkBuilder::new(root)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap();
            rel.to_string_lossy().into_owned()
        })
        .collect();
    files.sort();
    files
}

/// Every `(path, line)` containing `needle` in the walked files, in path order.
fn walked_hits(root: &Path, needle: &str) -> Vec<(String, u64)> {
    let mut hits = Vec::new();
    for file in walked_files(root) {
        let text = fs::read_to_string(root.join(&file)).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.contains(needle) {
                hits.push((file.clone(), i as u64 + 1));
            }
        }
    }
    hits
}

/// `rg ARGS` in `root`, when ripgrep is installed.
fn rg(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("rg")
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    Some(String::from_utf8(out.stdout).unwrap())
}

fn rg_hits(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            Some((parts.next()?.to_owned(), parts.next()?.parse().ok()?))
        })
        .collect()
}

/// The tree's display order: at the first differing level, a folder before a
/// file, then names case-insensitively, then exactly.
fn display_order(a: &str, b: &str) -> Ordering {
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('/').collect(), b.split('/').collect());
    for (depth, (x, y)) in pa.iter().zip(&pb).enumerate() {
        if x == y {
            continue;
        }
        let (x_dir, y_dir) = (depth + 1 < pa.len(), depth + 1 < pb.len());
        if x_dir != y_dir {
            return if x_dir {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        return (x.to_lowercase(), x).cmp(&(y.to_lowercase(), y));
    }
    pa.len().cmp(&pb.len())
}

#[tokio::test]
async fn grep_lists_what_ripgrep_lists_in_its_order() {
    let dir = generated_tree();
    let root = dir.path();
    let common = walked_hits(root, COMMON);
    let rare = walked_hits(root, RARE);
    assert_eq!(rare.len(), 3, "{rare:?}");
    assert!(common.len() > 100, "the cap must bite: {}", common.len());
    if let Some(out) = rg(root, &["--sort", "path", "-n", "-F", COMMON]) {
        assert_eq!(rg_hits(&out), common, "the walk disagrees with rg");
    }
    if let Some(out) = rg(root, &["-n", "-F", RARE]) {
        let mut hits = rg_hits(&out);
        hits.sort();
        assert_eq!(hits, rare, "the walk disagrees with rg");
    }

    let capped = run_tool(
        root,
        "grep",
        json!({"search_strs": [COMMON], "_intent": "t"}),
    )
    .await;
    let hits = grep_hits(&capped);
    assert_eq!(hits.len(), 100, "{capped}");
    assert_eq!(hits, common[..100], "the first 100 matches in path order");
    let found = run_tool(root, "grep", json!({"search_strs": [RARE], "_intent": "t"})).await;
    assert_eq!(grep_hits(&found), rare, "{found}");
}

#[tokio::test]
async fn tree_lists_ripgreps_files_in_display_order() {
    let dir = generated_tree();
    let root = dir.path();
    let mut files = walked_files(root);
    assert_eq!(files.len(), TOP.len() * SUB.len() * FILES.len());
    if let Some(out) = rg(root, &["--files"]) {
        let mut listed: Vec<String> = out.lines().map(str::to_owned).collect();
        listed.sort();
        assert_eq!(listed, files, "the walk disagrees with rg --files");
    }
    files.sort_by(|a, b| display_order(a, b));
    for max_files in [30, 1000] {
        let out = run_tool(
            root,
            "tree",
            json!({"max_files": max_files, "_intent": "t"}),
        )
        .await;
        let shown = tree_files(&out);
        let expected = &files[..max_files.min(files.len())];
        assert_eq!(shown, expected, "max_files={max_files}:\n{out}");
    }
}
