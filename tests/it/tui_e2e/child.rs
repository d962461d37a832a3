//! The child process of the pty tests: a workspace, an isolated
//! environment and the `light-agent` command line against the mock model.

use portable_pty::CommandBuilder;

use super::pty::{Pty, WAIT};
use crate::support::child_env::{PROVIDER_VARS, Workspace};

/// A workspace whose repo is a git repo, with its light-agent home created.
pub fn fixture() -> Workspace {
    let f = Workspace::new("fn main() {\n    println!(\"hello\");\n}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&f.repo)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        std::fs::create_dir_all(f.repo.join(".git")).unwrap();
    }
    f
}

/// The environment every child gets: an isolated home, xterm, and none of
/// the variables that would pick a real provider.
pub fn isolate(cmd: &mut CommandBuilder, f: &Workspace) {
    cmd.cwd(&f.repo);
    cmd.env("LIGHT_AGENT_HOME", &f.home);
    cmd.env("TERM", "xterm-256color");
    for var in PROVIDER_VARS
        .into_iter()
        .chain(["LIGHT_AGENT_TEST_PANIC", "NO_COLOR"])
    {
        cmd.env_remove(var);
    }
}

/// `light-agent` in the workspace, talking to `base_url` when given.
pub fn agent_command(f: &Workspace, base_url: Option<&str>) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_light-agent"));
    isolate(&mut cmd, f);
    if let Some(url) = base_url {
        cmd.args(["--base-url", url, "--model", "mock-model"]);
    }
    cmd
}

/// The status line names the model once the UI has drawn its first frame.
pub fn wait_ready(pty: &Pty) {
    pty.wait_for_text("mock-model", WAIT);
}
