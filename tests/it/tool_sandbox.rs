#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The path battery: everything outside the cwd is refused, and nothing
//! outside is read, through the confined-open API (`Root`) and through
//! every tool.

use std::fs;
use std::path::{Path, PathBuf};

use light_agent::tool::fs::{FsRefusal, FsRefusalKind as RefusalKind, Root};
use light_agent::tool::{ToolContext, ToolRegistry, builtin};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const SECRET: &str = "TOP-SECRET-OUTSIDE-CONTENT";

/// `<tmp>/outside/secret.txt` and `<tmp>/cwd/` with links that lead out.
struct Fixture {
    _root: tempfile::TempDir,
    cwd: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let outside = root.path().join("outside");
    let cwd = root.path().join("cwd");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(cwd.join("a")).unwrap();
    fs::write(outside.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    fs::write(cwd.join("file.txt"), "inside\n").unwrap();
    fs::write(cwd.join("..foo"), "dot dot foo\n").unwrap();
    fs::write(cwd.join("a").join("b.txt"), "b\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), cwd.join("link_out")).unwrap();
    std::os::unix::fs::symlink(&outside, cwd.join("dir_out")).unwrap();
    std::os::unix::fs::symlink(cwd.join("file.txt"), cwd.join("link_in")).unwrap();
    let cwd = cwd.canonicalize().unwrap();
    let outside = outside.canonicalize().unwrap();
    Fixture {
        _root: root,
        cwd,
        outside,
    }
}

fn battery(outside: &Path) -> Vec<(String, RefusalKind)> {
    vec![
        ("../x".into(), RefusalKind::Escape),
        ("../outside/secret.txt".into(), RefusalKind::Escape),
        ("a/../../x".into(), RefusalKind::Escape),
        ("a/../../outside/secret.txt".into(), RefusalKind::Escape),
        ("/etc/passwd".into(), RefusalKind::Escape),
        (
            outside.join("secret.txt").display().to_string(),
            RefusalKind::Escape,
        ),
        ("link_out".into(), RefusalKind::Escape),
        ("dir_out/secret.txt".into(), RefusalKind::Escape),
        ("dir_out".into(), RefusalKind::Escape),
        ("dir_out/missing.txt".into(), RefusalKind::Escape),
        ("~/x".into(), RefusalKind::NotFound),
        ("".into(), RefusalKind::Invalid),
        ("   ".into(), RefusalKind::Invalid),
        (
            "file.txt\0../../outside/secret.txt".into(),
            RefusalKind::Invalid,
        ),
        ("a/".repeat(5000), RefusalKind::Invalid),
    ]
}

/// What opening `input` beneath `cwd` gives: its path as shown, or the refusal.
fn resolve_in_cwd(cwd: &Path, input: &str) -> Result<String, FsRefusal> {
    let root = Root::open(cwd).unwrap();
    let rel = root.relative(input)?;
    match root.stat(&rel)? {
        Some(_) => Ok(rel.to_string()),
        None => Err(root.refusal(RefusalKind::NotFound, input, None)),
    }
}

#[test]
fn every_battery_input_is_refused_with_its_kind_and_a_message_for_the_model() {
    let fx = fixture();
    for (input, kind) in battery(&fx.outside) {
        let refusal =
            resolve_in_cwd(&fx.cwd, &input).expect_err(&format!("{input:?} must be refused"));
        assert_eq!(refusal.kind, kind, "{input:?}: {}", refusal.message);
        assert!(
            refusal.message.starts_with("[what]: "),
            "{}",
            refusal.message
        );
        assert!(
            refusal
                .message
                .contains(&format!("[code]: {}", kind.code())),
            "{}",
            refusal.message
        );
        assert!(refusal.message.contains("[how]: "), "{}", refusal.message);
        assert!(
            refusal.message.len() < 1000,
            "long inputs are not echoed whole: {}",
            refusal.message.len()
        );
    }
}

#[test]
fn inside_paths_are_accepted_with_a_relative_form() {
    let fx = fixture();
    let accepted = |input: &str| {
        resolve_in_cwd(&fx.cwd, input).unwrap_or_else(|r| panic!("{input:?}: {}", r.message))
    };

    assert_eq!(accepted("..foo"), "..foo");
    assert_eq!(
        accepted(&fx.cwd.join("a/b.txt").display().to_string()),
        "a/b.txt"
    );
    assert_eq!(accepted("."), ".");
    assert_eq!(accepted(&fx.cwd.display().to_string()), ".");
    assert_eq!(accepted("./a/../file.txt"), "file.txt");
    assert_eq!(accepted("a/"), "a");
    // A symlink that stays inside is followed; it keeps its own name.
    assert_eq!(accepted("link_in"), "link_in");
}

#[test]
fn a_missing_path_inside_is_not_found() {
    let fx = fixture();
    let refusal = resolve_in_cwd(&fx.cwd, "a/nope.txt").unwrap_err();
    assert_eq!(refusal.kind, RefusalKind::NotFound);
    assert!(
        refusal.message.contains("[path]: a/nope.txt"),
        "{}",
        refusal.message
    );
}

#[tokio::test]
async fn no_tool_reads_anything_outside_the_cwd() {
    let fx = fixture();
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(&fx.cwd, CancellationToken::new()).unwrap();

    for (input, _) in battery(&fx.outside) {
        let calls = [
            ("read_file", json!({"path": input})),
            ("tree", json!({"path": input})),
            ("grep", json!({"search_strs": [SECRET], "scope": input})),
        ];
        for (tool, args) in calls {
            let out = registry.execute(tool, args, ctx.clone()).await;
            assert!(out.is_error, "{tool} {input:?} must fail: {}", out.content);
            assert!(
                !out.content.contains(SECRET),
                "{tool} {input:?} leaked: {}",
                out.content
            );
        }
    }

    // Whole-tree tools do not follow the links out either.
    let tree = registry.execute("tree", json!({}), ctx.clone()).await;
    assert!(!tree.is_error);
    assert!(!tree.content.contains("secret.txt"), "{}", tree.content);
    let grep = registry
        .execute("grep", json!({"search_strs": [SECRET]}), ctx)
        .await;
    assert!(!grep.is_error);
    assert!(
        grep.content.starts_with("no matches found."),
        "{}",
        grep.content
    );
}

#[tokio::test]
async fn tools_accept_dot_dot_names_and_absolute_inside_paths() {
    let fx = fixture();
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(&fx.cwd, CancellationToken::new()).unwrap();

    let out = registry
        .execute("read_file", json!({"path": "..foo"}), ctx.clone())
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("1 | dot dot foo"), "{}", out.content);

    let absolute = fx.cwd.join("file.txt").display().to_string();
    let out = registry
        .execute("read_file", json!({"path": absolute}), ctx)
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("[path]: file.txt"), "{}", out.content);
}
