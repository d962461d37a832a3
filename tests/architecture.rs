#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The layer table of ARCHITECTURE.md, enforced: which module may name which
//! other module, and which external crates stay inside one layer.

use std::collections::BTreeSet;
use std::path::Path;

/// (module, modules it may use besides itself).
const LAYERS: &[(&str, &[&str])] = &[
    ("protocol", &[]),
    ("ai", &["protocol"]),
    ("permission", &["protocol"]),
    ("sandbox", &[]),
    ("tool", &["protocol", "permission", "sandbox"]),
    ("context", &["protocol", "ai"]),
    ("session", &["protocol"]),
    ("config", &["protocol", "permission"]),
    (
        "agent",
        &["protocol", "ai", "tool", "context", "session", "permission"],
    ),
    ("tui", &["protocol"]),
];

/// (external crate, the only modules that may use it).
const CONFINED: &[(&str, &[&str])] = &[
    ("schemars", &["tool", "agent"]),
    ("rusqlite", &["session"]),
    ("reqwest", &["ai"]),
    ("ratatui", &["tui"]),
    ("crossterm", &["tui"]),
    ("ratatui_textarea", &["tui"]),
    ("syntect", &["tui"]),
    ("pulldown_cmark", &["tui"]),
    ("grep_searcher", &["tool"]),
    ("toml", &["config"]),
    ("tracing_subscriber", &["config"]),
    ("landlock", &["sandbox"]),
    ("tree_sitter", &["permission"]),
    ("tree_sitter_bash", &["permission"]),
];

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

/// Names following `prefix` in code lines (comments skipped).
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find(prefix) {
            let before_ok =
                at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            let tail = &rest[at + prefix.len()..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if before_ok && !name.is_empty() {
                names.insert(name);
            }
            rest = tail;
        }
    }
    names
}

#[test]
fn modules_use_only_the_layers_below_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut violations = Vec::new();
    for (module, allowed) in LAYERS {
        let mut files = Vec::new();
        sources(&root.join(module), &mut files);
        assert!(!files.is_empty(), "src/{module} has no files");
        for (path, text) in &files {
            for used in names_after(text, "crate::") {
                if used != *module && !allowed.contains(&used.as_str()) {
                    violations.push(format!("{path}: {module} uses crate::{used}"));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn external_crates_stay_in_their_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut violations = Vec::new();
    for (module, _) in LAYERS {
        let mut files = Vec::new();
        sources(&root.join(module), &mut files);
        for (path, text) in &files {
            for (krate, owners) in CONFINED {
                if !names_after(text, &format!("{krate}::")).is_empty() && !owners.contains(module)
                {
                    violations.push(format!("{path}: {module} uses {krate}"));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_scanner_sees_a_violation() {
    let text = "use crate::tool::ToolRegistry;\n// crate::agent in a comment\nlet x = crate::session::SessionManager::open(p);";
    assert_eq!(
        names_after(text, "crate::"),
        BTreeSet::from(["tool".to_string(), "session".to_string()])
    );
}
