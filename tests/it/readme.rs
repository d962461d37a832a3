#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The README's commands work as written. Blocks fenced as ```` ```sh offline ````
//! need no network: each line runs in a fresh repository with the built binary
//! standing in for `light-agent`.

use std::process::Command;

const README: &str = include_str!("../../README.md");

/// Lines of the fenced blocks whose info string is exactly `info`.
fn blocks(info: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in README.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(tag)) if tag.trim() == info => current = Some(Vec::new()),
            (Some(_), Some("")) => out.extend(current.take()),
            (Some(lines), None) => lines.push(line.to_string()),
            _ => {}
        }
    }
    out
}

/// A command line without its trailing `# comment`.
fn command(line: &str) -> &str {
    match line.find("  #") {
        Some(at) => line[..at].trim(),
        None => line.trim(),
    }
}

#[test]
fn offline_commands_run_and_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("src/main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n",
    )
    .unwrap();
    std::fs::create_dir(repo.join(".git")).unwrap();
    let bin = env!("CARGO_BIN_EXE_light-agent");
    let commands: Vec<String> = blocks("sh offline")
        .concat()
        .iter()
        .map(|l| command(l).to_string())
        .filter(|c| !c.is_empty())
        .collect();
    assert!(commands.len() >= 8, "{commands:?}");
    for line in commands {
        let rest = line
            .strip_prefix("light-agent ")
            .unwrap_or_else(|| panic!("not a light-agent command: {line}"));
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("'{bin}' {rest}"))
            .current_dir(&repo)
            .env("LIGHT_AGENT_HOME", dir.path().join("home"))
            .env("LIGHT_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("DEEPSEEK_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{line}` failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(repo.join("light-agent.bash").exists());
}

#[test]
fn the_set_up_is_two_commands_and_ci_runs_the_test_one() {
    let setup: Vec<String> = blocks("sh")
        .into_iter()
        .next()
        .unwrap()
        .iter()
        .map(|l| command(l).to_string())
        .collect();
    assert_eq!(setup, ["cargo run --release --", "cargo test"]);
    let ci = include_str!("../../.ci/run");
    assert!(ci.lines().any(|l| l.trim() == "cargo test"), "{ci}");
}

#[test]
fn the_environment_table_is_the_one_the_code_uses() {
    let rows: Vec<Vec<String>> = README
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().trim_matches('`').to_string())
                .collect()
        })
        .collect();
    let expected: Vec<Vec<String>> = light_agent::config::BUILTIN_PROFILES
        .iter()
        .map(|p| {
            vec![
                p.name.to_string(),
                p.key_env.unwrap_or("(none)").to_string(),
                p.base_url_env.to_string(),
                p.default_url.to_string(),
            ]
        })
        .collect();
    assert_eq!(rows, expected);
}
