//! Running the `light-agent` binary as a child process that cannot see the
//! developer's providers, keys or log settings.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Variables that would point a child at a real provider, key, model or
/// base URL, or change what it logs.
pub const PROVIDER_VARS: [&str; 13] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "LIGHT_AGENT_PROVIDER",
    "LIGHT_AGENT_MODEL",
    "LIGHT_AGENT_BASE_URL",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "DEEPSEEK_BASE_URL",
    "OLLAMA_BASE_URL",
    "RUST_LOG",
];

/// Removes every one of [`PROVIDER_VARS`] from `cmd`'s environment.
pub fn scrub(cmd: &mut Command) {
    for var in PROVIDER_VARS {
        cmd.env_remove(var);
    }
}

/// Runs `cmd` to its end off the async runtime's threads.
pub async fn run(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// A temp dir holding a repo (`repo/`, the child's cwd) and the path of a
/// light-agent home (`home/`, not created).
pub struct Workspace {
    /// Removes everything when dropped.
    pub dir: tempfile::TempDir,
    /// What `LIGHT_AGENT_HOME` points at.
    pub home: PathBuf,
    /// The repo, holding `src/main.rs`.
    pub repo: PathBuf,
}

impl Workspace {
    /// A workspace whose `repo/src/main.rs` holds `main_rs`.
    pub fn new(main_rs: &str) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("src")).unwrap();
        std::fs::write(repo.join("src/main.rs"), main_rs).unwrap();
        Workspace { dir, home, repo }
    }
}

/// Runs `git args` in `dir` with a throwaway identity and no signing;
/// panics with git's stderr when it fails.
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
