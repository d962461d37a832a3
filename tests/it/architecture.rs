#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The layer table of ARCHITECTURE.md, enforced: which module may name which
//! other module, and which external crates stay inside one layer.
//!
//! Every source file is parsed (syn), so grouped imports (`use crate::{a::B}`),
//! relative paths (`super::super::x`), paths in expressions, types and
//! patterns, and `crate::x` inside macro invocations all count.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// (module, modules it may use besides itself).
const LAYERS: &[(&str, &[&str])] = &[
    ("protocol", &[]),
    ("ai", &["protocol"]),
    ("permission", &["protocol"]),
    ("sandbox", &["protocol"]),
    ("tool", &["protocol", "permission", "sandbox"]),
    // `tool` here means `tool::fs` only (checked below): AGENTS.md and
    // skills are read through the confined-open API.
    ("context", &["protocol", "ai", "tool"]),
    ("session", &["protocol"]),
    ("mcp", &["protocol", "tool", "permission"]),
    ("config", &["protocol", "permission", "mcp"]),
    (
        "agent",
        &["protocol", "ai", "tool", "context", "session", "permission"],
    ),
    (
        "host",
        &[
            "protocol",
            "ai",
            "tool",
            "context",
            "session",
            "permission",
            "sandbox",
            "mcp",
            "config",
            "agent",
        ],
    ),
    ("tui", &["protocol"]),
];

/// (external crate, the only modules that may use it).
const CONFINED: &[(&str, &[&str])] = &[
    ("schemars", &["tool", "agent"]),
    ("rusqlite", &["session"]),
    ("reqwest", &["ai"]),
    ("htmd", &["agent"]),
    ("ratatui", &["tui"]),
    ("crossterm", &["tui"]),
    ("ratatui_textarea", &["tui"]),
    ("syntect", &["tui"]),
    ("pulldown_cmark", &["tui"]),
    ("nucleo_matcher", &["tui"]),
    ("grep_searcher", &["tool"]),
    ("landlock", &["sandbox"]),
    ("tree_sitter", &["permission"]),
    ("tree_sitter_bash", &["permission"]),
    // host: gemini-cli prompt files (`.gemini/commands/*.toml`).
    ("toml", &["config", "host"]),
    ("tracing_subscriber", &["config"]),
    ("rmcp", &["mcp"]),
    ("rustls", &["mcp"]),
];

/// Every `.rs` file under `dir`, with the module path its location gives
/// (`src/agent/tools.rs` → `["agent", "tools"]`).
fn sources(src: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<String>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            out.push((path, module));
        }
    }
}

/// What one file names: top-level crate modules and external crates.
#[derive(Default, Debug, PartialEq)]
struct Names {
    /// Top-level modules of this crate (`crate::x`, `super::…::x` resolved).
    modules: BTreeSet<String>,
    /// The same paths in full (`["tool", "fs", "Root"]`).
    paths: BTreeSet<Vec<String>>,
    /// First segments of other paths: external crates (and local names).
    roots: BTreeSet<String>,
}

/// Parses `text` as the file of module `module` and collects what it names.
fn names_in(text: &str, module: &[String]) -> Names {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{module:?}: {e}"));
    let mut visitor = Collector {
        module: module.to_vec(),
        names: Names::default(),
    };
    visitor.visit_file(&file);
    visitor.names
}

struct Collector {
    /// The module the visitor is in (inline `mod` blocks push onto it).
    module: Vec<String>,
    names: Names,
}

impl Collector {
    /// Records a path given as its segments' names.
    fn segments(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        match first.as_str() {
            "crate" => {
                if let Some(top) = segments.get(1) {
                    self.names.modules.insert(top.clone());
                    self.names.paths.insert(segments[1..].to_vec());
                }
            }
            "super" => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let mut resolved: Vec<String> =
                    self.module[..self.module.len().saturating_sub(ups)].to_vec();
                resolved.extend(segments[ups..].iter().cloned());
                if let Some(top) = resolved.first() {
                    self.names.modules.insert(top.clone());
                    self.names.paths.insert(resolved.clone());
                }
            }
            "self" => {}
            _ => {
                self.names.roots.insert(first.clone());
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.leaf(prefix, n.ident.to_string()),
            syn::UseTree::Rename(r) => self.leaf(prefix, r.ident.to_string()),
            syn::UseTree::Glob(_) => self.segments(&prefix.clone()),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item);
                }
            }
        }
    }

    fn leaf(&mut self, prefix: &[String], name: String) {
        let mut full = prefix.to_vec();
        full.push(name);
        self.segments(&full);
    }

    /// `crate :: x` and `super :: x` written inside macro invocations.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident) if ident == "crate" || ident == "super" => {
                    let mut segments = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
                        (trees.get(j), trees.get(j + 1))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        match trees.get(j + 2) {
                            Some(TokenTree::Ident(next)) => segments.push(next.to_string()),
                            _ => break,
                        }
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.segments(&segments);
                    }
                }
                _ => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 || path.leading_colon.is_some() {
            self.segments(&segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// Every file of every layer with what it names.
fn layer_files() -> Vec<(String, &'static str, Names)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    for (module, _) in LAYERS {
        let mut files = Vec::new();
        let dir = src.join(module);
        if dir.is_dir() {
            sources(&src, &dir, &mut files);
        }
        let single = src.join(format!("{module}.rs"));
        if single.is_file() {
            files.push((single, vec![module.to_string()]));
        }
        assert!(!files.is_empty(), "src/{module} has no files");
        for (path, module_path) in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let names = names_in(&text, &module_path);
            out.push((path.display().to_string(), *module, names));
        }
    }
    out
}

/// Violations of the layer table in what `module`'s file names.
fn layer_violations(module: &str, names: &Names) -> Vec<String> {
    let allowed = LAYERS
        .iter()
        .find(|(m, _)| *m == module)
        .map(|(_, a)| *a)
        .unwrap_or(&[]);
    let mut out = Vec::new();
    for used in &names.modules {
        if used != module && !allowed.contains(&used.as_str()) {
            out.push(format!("{module} uses crate::{used}"));
        }
    }
    for (krate, owners) in CONFINED {
        if names.roots.contains(*krate) && !owners.contains(&module) {
            out.push(format!("{module} uses {krate}"));
        }
    }
    out
}

#[test]
fn modules_use_only_the_layers_below_them_and_crates_stay_in_their_layer() {
    let mut violations = Vec::new();
    for (path, module, names) in layer_files() {
        for v in layer_violations(module, &names) {
            violations.push(format!("{path}: {v}"));
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

/// The structs and enums a file declares, by name (nested modules too).
fn declared_types(text: &str) -> BTreeSet<String> {
    #[derive(Default)]
    struct Declared(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Declared {
        fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
            self.0.insert(item.ident.to_string());
        }
        fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
            self.0.insert(item.ident.to_string());
        }
        fn visit_item_type(&mut self, item: &'ast syn::ItemType) {
            self.0.insert(item.ident.to_string());
        }
    }
    let file = syn::parse_file(text).unwrap();
    let mut declared = Declared::default();
    declared.visit_file(&file);
    declared.0
}

/// Files of the front ends (`src/tui`, `src/cli`) that declare a type of
/// the same name as one of `protocol`'s: the host vocabulary is declared
/// once, in `protocol`, and front ends take it from there.
fn redeclared_protocol_types(
    protocol: &BTreeSet<String>,
    front_ends: &[(String, String)],
) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in front_ends {
        for name in declared_types(text).intersection(protocol) {
            out.push(format!("{path}: declares {name} again"));
        }
    }
    out
}

#[test]
fn front_ends_take_the_host_vocabulary_only_from_protocol() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let read = |dir: &str| {
        let mut files = Vec::new();
        sources(&src, &src.join(dir), &mut files);
        files
            .into_iter()
            .map(|(path, _)| {
                let text = std::fs::read_to_string(&path).unwrap();
                (path.display().to_string(), text)
            })
            .collect::<Vec<_>>()
    };
    let mut protocol = BTreeSet::new();
    for (_, text) in read("protocol") {
        protocol.extend(declared_types(&text));
    }
    assert!(protocol.contains("HostEvent") && protocol.contains("Op"));
    let mut front_ends = read("tui");
    front_ends.extend(read("cli"));
    let violations = redeclared_protocol_types(&protocol, &front_ends);
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_redeclaration_check_sees_structs_enums_and_nested_modules() {
    let protocol: BTreeSet<String> = ["Op", "ApprovalRequest", "StatusSnapshot"]
        .map(String::from)
        .into();
    let front_end = [(
        "src/tui/bridge.rs".to_string(),
        "pub enum Op { Quit }\nmod inner { pub struct ApprovalRequest; }\npub struct Fine;"
            .to_string(),
    )];
    assert_eq!(
        redeclared_protocol_types(&protocol, &front_end),
        [
            "src/tui/bridge.rs: declares ApprovalRequest again",
            "src/tui/bridge.rs: declares Op again",
        ]
    );
}

#[test]
fn context_uses_only_the_confined_open_api_of_tool() {
    let mut violations = Vec::new();
    for (path, module, names) in layer_files() {
        if module != "context" {
            continue;
        }
        for used in &names.paths {
            if used.first().is_some_and(|m| m == "tool") && used.get(1).is_none_or(|m| m != "fs") {
                violations.push(format!("{path}: context uses crate::{}", used.join("::")));
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn no_file_access_bypasses_the_confined_open_api_in_tools() {
    // Every tool opens files through `tool::fs`; path-based std and tokio
    // file access is only allowed inside that module itself.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src.join("tool"), &mut files);
    let mut violations = Vec::new();
    for (path, _) in &files {
        if path.components().any(|c| c.as_os_str() == "fs") {
            continue;
        }
        // The shell's full-output log is the agent's own file in its state
        // directory, never a path a model gave: not a tool file access.
        if path.ends_with("tool/builtin/shell/output.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for banned in [
            "fs::read",
            "fs::metadata",
            "fs::symlink_metadata",
            "File::open",
            "File::create",
            "OpenOptions",
            "read_dir",
            "tokio::fs",
            "WalkBuilder",
            "canonicalize",
        ] {
            if text
                .lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains(banned))
            {
                violations.push(format!("{}: uses {banned}", path.display()));
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_binary_prints_only_through_the_terminal_safe_output() {
    // Raw print macros would let hostile text reach the terminal unsanitised
    // and panic on a closed pipe; `cli/output.rs` is the one way out.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![(src.join("main.rs"), Vec::new())];
    sources(&src, &src.join("cli"), &mut files);
    let mut violations = Vec::new();
    for (path, _) in &files {
        if path.ends_with("cli/output.rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for banned in ["println!", "print!", "eprintln!", "eprint!"] {
            if text
                .lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains(banned))
            {
                violations.push(format!("{}: uses {banned}", path.display()));
            }
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn every_integration_test_file_is_a_module_of_the_one_test_binary() {
    // With `autotests = false` a file that main.rs does not name never runs.
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(tests.join("it/main.rs")).unwrap();
    let declared: BTreeSet<String> = main
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_owned)
        .collect();
    let mut stray = Vec::new();
    for dir in [tests.clone(), tests.join("it")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if path.extension().is_some_and(|e| e == "rs")
                && stem != "main"
                && (dir == tests || !declared.contains(stem))
            {
                stray.push(path.display().to_string());
            }
        }
    }
    assert!(stray.is_empty(), "not part of tests/it/main.rs: {stray:#?}");
}

fn module_path(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

#[test]
fn the_check_sees_grouped_relative_and_macro_uses() {
    let grouped = "use crate::{agent::Agent, protocol::Meta};";
    assert_eq!(
        layer_violations(
            "tool",
            &names_in(grouped, &module_path(&["tool", "registry"]))
        ),
        ["tool uses crate::agent"]
    );
    let relative = "use super::super::super::agent::Agent;\nfn f() { let _ = super::super::super::session::open(); }";
    assert_eq!(
        layer_violations(
            "tool",
            &names_in(relative, &module_path(&["tool", "builtin", "tree"]))
        ),
        ["tool uses crate::agent", "tool uses crate::session"]
    );
    let inline =
        "mod tests { use super::super::Thing; fn t() { super::super::super::agent::x(); } }";
    assert_eq!(
        names_in(inline, &module_path(&["tool", "registry"])).modules,
        BTreeSet::from(["tool".to_string(), "agent".to_string()])
    );
    let in_macro = "fn f() { println!(\"{}\", crate::session::NAME); }";
    assert_eq!(
        layer_violations("ai", &names_in(in_macro, &module_path(&["ai", "http"]))),
        ["ai uses crate::session"]
    );
    let external = "use ratatui::{text::Line};\nfn f() -> rusqlite::Result<()> { Ok(()) }";
    assert_eq!(
        layer_violations("agent", &names_in(external, &module_path(&["agent"]))),
        ["agent uses rusqlite", "agent uses ratatui"]
    );
    let fine = "use crate::protocol::Meta;\nuse super::registry::ToolRegistry;\n// crate::agent in a comment\n";
    assert!(layer_violations("tool", &names_in(fine, &module_path(&["tool", "x"]))).is_empty());
}
