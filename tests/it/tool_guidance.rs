#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Errors that guide: a missing path or scope names what exists near it,
//! and a search that finds nothing says what was searched and what to try.

use std::path::Path;

use crate::support::write;
use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::tool::builtin::EditFormat;
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The project of issue #22's weak model: the answer is one level down in
/// `relay/`, not in `src/relay`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "relay/settings.py", "DEFAULT_PORT = 8080\n");
    write(
        dir.path(),
        "relay/server.py",
        "from settings import DEFAULT_PORT\n",
    );
    write(dir.path(), "src/app.py", "print('hi')\n");
    write(dir.path(), "README.md", "# relay\n");
    dir
}

/// Every one of `parts` is in `out`'s text.
fn holds(out: &ToolOutput, parts: &[&str]) {
    for part in parts {
        assert!(
            out.content.contains(part),
            "{part:?} missing from:\n{}",
            out.content
        );
    }
}

/// Every built-in tool with `format`'s writing tools, and a context in
/// `dir` whose changes need no approval.
fn tools(dir: &Path, format: EditFormat) -> (ToolRegistry, ToolContext) {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    builtin::register_writing(&registry, format).unwrap();
    let mut ctx = ToolContext::new(dir, CancellationToken::new()).unwrap();
    ctx.permits = Permits::new(Policy::new(Mode::Auto, RuleList::default()), None);
    (registry, ctx)
}

async fn call(dir: &Path, format: EditFormat, name: &str, args: Value) -> ToolOutput {
    let (registry, ctx) = tools(dir, format);
    registry.execute(name, args, ctx).await
}

#[tokio::test]
async fn a_grep_scope_that_does_not_exist_names_the_folder_that_does() {
    let dir = project();
    let args = json!({"search_strs": ["port"], "scope": "src/relay", "_intent": "find the port"});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    assert!(out.is_error);
    holds(&out, &["[code]: path_not_found"]);
    holds(&out, &["\n[closest]: relay/"]);
    holds(&out, &["\n[existing]: `src` holds app.py"]);
}

#[tokio::test]
async fn a_grep_without_matches_says_what_it_searched_and_suggests_a_shorter_fragment() {
    let dir = project();
    let args = json!({"search_strs": ["relay server default port"], "scope": "relay", "_intent": "find the port"});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.starts_with("no matches found."),
        "{}",
        out.content
    );
    assert!(
        out.content
            .contains("- `relay server default port`\n\nScope: `relay`"),
        "{}",
        out.content
    );
    assert!(
        out.content
            .contains("try a shorter fragment such as `default`, or the whole project (no scope)"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn a_phrase_without_matches_shows_the_lines_holding_its_words_best_file_first() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "README.md", "# relay\n");
    write(dir.path(), "docs/deploy.md", "The proxy listens on 443.\n");
    write(
        dir.path(),
        "relay/settings.py",
        "# Where the relay listens unless RELAY_PORT says otherwise.\nHOST = 'localhost'\nDEFAULT_PORT = 7421\n",
    );
    let args = json!({"search_strs": ["relay server listen by default"]});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    assert!(!out.is_error, "{}", out.content);
    holds(
        &out,
        &[
            "[words]: no line holds the text as given; these lines hold its words `relay`, `server`, `listen`, `default` in any case",
        ],
    );
    let (_, listed) = out.content.split_once("[words]").unwrap();
    // settings.py holds three of the words, the others one each.
    let order: Vec<usize> = [
        "- relay/settings.py:1\n  # Where the relay listens",
        "- relay/settings.py:3\n  DEFAULT_PORT = 7421",
        "- README.md:1",
        "- docs/deploy.md:1",
    ]
    .iter()
    .map(|line| {
        listed
            .find(line)
            .unwrap_or_else(|| panic!("{line:?} missing from:\n{listed}"))
    })
    .collect();
    assert!(order.is_sorted(), "{listed}");
    assert!(!listed.contains("HOST"), "{listed}");

    // A single word in the wrong case is found in any case.
    let args = json!({"search_strs": ["default_port"]});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    holds(
        &out,
        &[
            "its words `default_port` in any case",
            "- relay/settings.py:3\n  DEFAULT_PORT = 7421",
        ],
    );

    // Nothing is added when the words are nowhere either.
    let args = json!({"search_strs": ["quantum flux"]});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    assert!(!out.content.contains("[words]"), "{}", out.content);
}

#[tokio::test]
async fn a_search_of_a_very_large_tree_is_not_walked_again_for_its_words() {
    let dir = tempfile::tempdir().unwrap();
    for folder in 0..101 {
        for file in 0..200 {
            write(
                dir.path(),
                &format!("d{folder}/f{file}.txt"),
                "the relay listens\n",
            );
        }
    }
    let args = json!({"search_strs": ["relay server default"]});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    assert!(
        out.content.starts_with("no matches found."),
        "{}",
        out.content
    );
    assert!(!out.content.contains("[words]"), "{}", out.content);
    // One folder fewer (20 000 files) is still searched for the words.
    std::fs::remove_dir_all(dir.path().join("d100")).unwrap();
    let args = json!({"search_strs": ["relay server default"]});
    let out = call(dir.path(), EditFormat::Replace, "grep", args).await;
    holds(&out, &["[words]: no line holds the text as given"]);
}

#[tokio::test]
async fn read_file_and_tree_of_missing_paths_point_at_the_closest_by_name() {
    let dir = project();
    let out = call(
        dir.path(),
        EditFormat::Replace,
        "read_file",
        json!({"path": "src/settings.py", "_intent": "read settings"}),
    )
    .await;
    assert!(out.is_error);
    holds(&out, &["\n[closest]: relay/settings.py"]);
    holds(&out, &["\n[existing]: `src` holds app.py"]);

    let out = call(
        dir.path(),
        EditFormat::Replace,
        "tree",
        json!({"path": "lib/relay", "_intent": "see the relay"}),
    )
    .await;
    assert!(out.is_error);
    holds(&out, &["\n[closest]: relay/"]);
    assert!(
        out.content
            .contains("\n[existing]: `.` holds relay/, src/, README.md"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn writing_tools_name_what_exists_when_the_file_to_change_is_missing() {
    let dir = project();
    let edit = json!({
        "path": "settings.py",
        "edits": [{"old_string": "8080", "new_string": "9090"}],
        "_intent": "change the port",
    });
    let out = call(dir.path(), EditFormat::Replace, "edit", edit).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("settings.py does not exist (edit changes existing files): give the path of the file you mean"),
        "{}",
        out.content
    );
    holds(&out, &["\n[closest]: relay/settings.py"]);

    let patch = "*** Begin Patch\n*** Update File: server.py\n@@\n-from settings import DEFAULT_PORT\n+from relay.settings import DEFAULT_PORT\n*** End Patch";
    let out = call(
        dir.path(),
        EditFormat::Patch,
        "apply_patch",
        json!({"patch": patch, "_intent": "fix the import"}),
    )
    .await;
    assert!(out.is_error);
    holds(&out, &["server.py does not exist"]);
    holds(&out, &["\n[closest]: relay/server.py"]);
}

#[tokio::test]
async fn a_failed_edit_of_a_file_never_read_shows_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = "{\n  \"server\": {\n    \"port\": 8080\n  }\n}\n";
    write(dir.path(), "config.json", config);
    let (registry, ctx) = tools(dir.path(), EditFormat::Replace);
    let guess = json!({"path": "config.json", "edits": [{"old_string": "server.port", "new_string": "8081"}],
        "_intent": "set the port"});
    let out = registry.execute("edit", guess.clone(), ctx.clone()).await;
    assert!(out.is_error);
    holds(&out, &["old_string matched 0 times", "nothing was changed"]);
    holds(
        &out,
        &["you had not read config.json", "3 |     \"port\": 8080"],
    );
    // Now it has seen the file: the same mistake gets the short error.
    let out = registry.execute("edit", guess, ctx.clone()).await;
    assert!(out.is_error);
    assert!(!out.content.contains("you had not read"), "{}", out.content);
    // And the exact text from it applies.
    let fixed = json!({"path": "config.json", "edits": [{"old_string": "\"port\": 8080", "new_string": "\"port\": 8081"}],
        "_intent": "set the port"});
    let out = registry.execute("edit", fixed, ctx).await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("config.json")).unwrap(),
        config.replace("8080", "8081")
    );
}

#[tokio::test]
async fn a_patch_that_does_not_apply_to_a_file_never_read_shows_the_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "greet.py",
        "def greet(name):\n    return 'Hello, ' + name\n",
    );
    let patch = "*** Begin Patch\n*** Update File: greet.py\n@@\n-    return \"Hi, \" + name\n+    return \"Welcome, \" + name\n*** End Patch";
    let out = call(
        dir.path(),
        EditFormat::Patch,
        "apply_patch",
        json!({"patch": patch, "_intent": "greet"}),
    )
    .await;
    assert!(out.is_error);
    holds(
        &out,
        &[
            "nothing was changed",
            "you had not read greet.py",
            "2 |     return 'Hello, ' + name",
        ],
    );
}
