#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `light-agent tool …` run as a process: output and exit codes.

use std::fs;
use std::process::{Command, Output};

fn light_agent(args: &[&str], cwd: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_light-agent"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(
        dir.path().join("src/main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n",
    )
    .unwrap();
    fs::write(dir.path().join("README.md"), "# demo\n").unwrap();
    dir
}

#[test]
fn grep_prints_the_match_and_exits_zero() {
    let dir = repo();
    let out = light_agent(
        &["tool", "grep", r#"{"search_strs":["fn main"]}"#],
        dir.path(),
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("- src/main.rs:1\n  fn main() {\n"),
        "{stdout}"
    );
}

#[test]
fn cwd_flag_picks_the_sandbox() {
    let dir = repo();
    let elsewhere = tempfile::tempdir().unwrap();
    let cwd = dir.path().display().to_string();
    let out = light_agent(&["tool", "tree", "{}", "--cwd", &cwd], elsewhere.path());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("  - main.rs | size: 34 bytes"), "{stdout}");

    let out = light_agent(
        &[
            "tool",
            "read_file",
            r#"{"path":"src/main.rs","_intent":"see main"}"#,
            "--cwd",
            &cwd,
        ],
        elsewhere.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("2 |     println!(\"hi\");")
    );
}

#[test]
fn an_error_result_is_printed_and_exits_one() {
    let dir = repo();
    let out = light_agent(
        &["tool", "read_file", r#"{"path":"../etc/passwd"}"#],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("path_escape")
    );

    let out = light_agent(&["tool", "tree", r#"{"max_files":0}"#], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("- max_files: ")
    );
}

#[test]
fn usage_errors_exit_two() {
    let dir = repo();
    for args in [
        &["tool", "grep", "{not json"][..],
        &["tool", "nosuchtool", "{}"],
        &["tool", "grep"],
        &["tool", "tree", "{}", "--cwd", "/definitely/not/here"],
        &["--frobnicate"],
    ] {
        let out = light_agent(args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let out = light_agent(&["tool", "nosuchtool", "{}"], dir.path());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("tree, grep, read_file"), "{stderr}");
}

#[test]
fn version_and_help() {
    let dir = repo();
    let out = light_agent(&["--version"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("light-agent {}", env!("CARGO_PKG_VERSION"))
    );

    let out = light_agent(&["--help"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout).unwrap().contains("tool"));
    let out = light_agent(&["tool", "--help"], dir.path());
    assert!(String::from_utf8(out.stdout).unwrap().contains("--cwd"));
}
