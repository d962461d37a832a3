#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A hostile repository: AGENTS.md and SKILL.md as symlinks out, FIFOs and
//! `/dev/zero`, a skill folder symlinked outside, a FIFO where the model
//! reads, and the working directory's path replaced mid-session. No byte
//! of the outside canary (and no `root:x:0:0`) reaches a request body or a
//! tool result, and every run ends.

use crate::support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use light_agent::ai::{HttpOptions, OpenAiAdaptor};
use light_agent::protocol::AgentEvent;
use rustix::fs::{CWD, Mode, mkfifoat};
use support::agent_harness::{Harness, drain};
use support::child_env::scrub;
use support::{MockModel, OpenAiStream, Reply};

const CANARY: &str = "CANARY-91c2-OUTSIDE-BYTES";
const PASSWD: &str = "root:x:0:0";
/// Only a hung run takes this long; it fails the test instead of hanging it.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// `<tmp>/outside/` (canary files, a canary skill) and `<tmp>/repo/` (a git
/// project, the child's cwd) with `<tmp>/home/` as its light-agent home.
struct Project {
    _tmp: tempfile::TempDir,
    outside: PathBuf,
    repo: PathBuf,
    home: PathBuf,
}

fn project() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let outside = base.join("outside");
    let repo = base.join("repo");
    fs::create_dir_all(outside.join("skill")).unwrap();
    fs::write(outside.join("secret.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(
        outside.join("skill/SKILL.md"),
        format!("---\nname: evil\ndescription: {CANARY}\n---\n{CANARY}\n"),
    )
    .unwrap();
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join("src")).unwrap();
    fs::write(repo.join("src/main.rs"), "fn main() {}\n").unwrap();
    Project {
        _tmp: tmp,
        home: base.join("home"),
        outside,
        repo,
    }
}

fn fifo(path: &Path) {
    mkfifoat(CWD, path, Mode::from_raw_mode(0o600)).unwrap();
}

fn exec(p: &Project, url: &str, prompt: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&p.repo).env("LIGHT_AGENT_HOME", &p.home);
    scrub(&mut cmd);
    cmd.args(["exec", "--base-url", url, "--model", "mock-model", prompt])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Runs `cmd` to its end; a run still going after [`HANG_GUARD`] is killed
/// and fails the test.
async fn run_to_end(mut cmd: Command) -> Output {
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let waited = tokio::time::timeout(
        HANG_GUARD,
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()),
    )
    .await;
    match waited {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("light-agent never ended");
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every request body the mock received, and the run's own output: none
/// holds an outside byte.
fn assert_no_leak(mock: &MockModel, out: &Output) {
    for (i, request) in mock.requests().iter().enumerate() {
        let body = request.body.to_string();
        assert!(
            !body.contains(CANARY) && !body.contains(PASSWD),
            "request {i} carries outside bytes: {body}"
        );
        assert!(body.len() < 200_000, "request {i} is {} bytes", body.len());
    }
    for stream in [&out.stdout, &out.stderr] {
        let shown = text(stream);
        assert!(
            !shown.contains(CANARY) && !shown.contains(PASSWD),
            "{shown}"
        );
    }
}

/// One `exec` run answering "ok": it must end with status 0, leak nothing
/// and return its stderr.
async fn one_run(p: &Project) -> String {
    let mock = MockModel::start([Reply::openai_text("ok")]).await;
    let out = run_to_end(exec(p, &mock.openai_base_url(), "hello")).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(mock.request_count(), 1);
    assert_no_leak(&mock, &out);
    text(&out.stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_md_symlinked_outside_is_skipped_with_a_warning() {
    for target in [
        PathBuf::from("/etc/passwd"),
        PathBuf::from("../outside/secret.txt"),
    ] {
        let p = project();
        symlink(&target, p.repo.join("AGENTS.md")).unwrap();
        let stderr = one_run(&p).await;
        assert!(
            stderr.contains("warning: skipped") && stderr.contains("AGENTS.md"),
            "{target:?}: {stderr}"
        );
        assert!(stderr.contains("outside the project"), "{stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_md_as_fifo_or_dev_zero_is_skipped_and_the_run_ends() {
    let p = project();
    fifo(&p.repo.join("AGENTS.md"));
    let stderr = one_run(&p).await;
    assert!(stderr.contains("FIFO"), "{stderr}");

    let p = project();
    symlink("/dev/zero", p.repo.join("AGENTS.md")).unwrap();
    let stderr = one_run(&p).await;
    assert!(stderr.contains("warning: skipped"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn agents_md_linked_inside_the_project_is_still_read() {
    let p = project();
    fs::create_dir_all(p.repo.join("docs")).unwrap();
    fs::write(p.repo.join("docs/rules.md"), "RULES-FROM-INSIDE").unwrap();
    symlink("docs/rules.md", p.repo.join("AGENTS.md")).unwrap();
    let mock = MockModel::start([Reply::openai_text("ok")]).await;
    let out = run_to_end(exec(&p, &mock.openai_base_url(), "hello")).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        mock.requests()[0]
            .body
            .to_string()
            .contains("RULES-FROM-INSIDE")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn skill_md_symlinked_outside_fifo_or_dev_zero_is_skipped() {
    let skills = |p: &Project| {
        let dir = p.repo.join(".agents/skills/evil");
        fs::create_dir_all(&dir).unwrap();
        dir.join("SKILL.md")
    };
    let p = project();
    symlink(p.outside.join("skill/SKILL.md"), skills(&p)).unwrap();
    let stderr = one_run(&p).await;
    assert!(
        stderr.contains("SKILL.md") && stderr.contains("skipped"),
        "{stderr}"
    );

    let p = project();
    fifo(&skills(&p));
    let stderr = one_run(&p).await;
    assert!(stderr.contains("FIFO"), "{stderr}");

    let p = project();
    symlink("/dev/zero", skills(&p)).unwrap();
    let stderr = one_run(&p).await;
    assert!(stderr.contains("skipped"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_folder_symlinked_outside_is_skipped() {
    let p = project();
    fs::create_dir_all(p.repo.join(".agents/skills")).unwrap();
    symlink(p.outside.join("skill"), p.repo.join(".agents/skills/evil")).unwrap();
    let stderr = one_run(&p).await;
    assert!(
        stderr.contains("skipped skill") && stderr.contains("outside the project"),
        "{stderr}"
    );

    // The same with the whole skills folder linked out.
    let p = project();
    fs::create_dir_all(p.repo.join(".agents")).unwrap();
    symlink(&p.outside, p.repo.join(".agents/skills")).unwrap();
    let stderr = one_run(&p).await;
    assert!(stderr.contains("skipped skills folder"), "{stderr}");
}

fn read_call(path: &str) -> Reply {
    OpenAiStream::new()
        .tool_call("c1", "read_file", &[&format!("{{\"path\": \"{path}\"}}")])
        .into_reply()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fifo_where_the_model_reads_ends_the_call_and_the_turn() {
    let p = project();
    fifo(&p.repo.join("pipe"));
    let mock = MockModel::start([read_call("pipe"), Reply::openai_text("done")]).await;
    let out = run_to_end(exec(&p, &mock.openai_base_url(), "read the pipe")).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_no_leak(&mock, &out);
    let second = mock.requests()[1].body.to_string();
    assert!(second.contains("not a regular file"), "{second}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigint_ends_a_run_that_met_a_fifo() {
    let p = project();
    fifo(&p.repo.join("pipe"));
    let hang = OpenAiStream::new()
        .text("thinking")
        .into_reply()
        .hang_after(1);
    let mock = MockModel::start([read_call("pipe"), hang]).await;
    let child = exec(&p, &mock.openai_base_url(), "read the pipe")
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let waiter = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap());
    assert!(
        mock.wait_for_requests(2, HANG_GUARD).await,
        "no second request"
    );
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    let out = match tokio::time::timeout(HANG_GUARD, waiter).await {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            panic!("SIGINT did not end the run");
        }
    };
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert_no_leak(&mock, &out);
}

#[tokio::test(flavor = "multi_thread")]
async fn replacing_the_cwd_path_mid_session_changes_nothing_the_tools_reach() {
    let calls = OpenAiStream::new()
        .tool_call("c1", "read_file", &[r#"{"path": "etc/passwd"}"#])
        .tool_call("c2", "tree", &[r#"{"path": "."}"#])
        .tool_call("c3", "grep", &[r#"{"search_strs": ["x:0:0:", "fn main"]}"#])
        .tool_call("c4", "read_file", &[r#"{"path": "src/main.rs"}"#])
        .into_reply();
    let mut h = Harness::start(vec![calls, Reply::openai_text("done")], |mock| {
        Arc::new(
            OpenAiAdaptor::new(
                mock.openai_base_url(),
                Some("sk-test".into()),
                "mock-model",
                HttpOptions::default(),
            )
            .unwrap(),
        )
    })
    .await;
    // mv repo repo.moved; ln -s / repo
    let repo = h.dir.path().join("repo");
    fs::rename(&repo, h.dir.path().join("repo.moved")).unwrap();
    symlink("/", &repo).unwrap();

    tokio::time::timeout(HANG_GUARD, h.agent.prompt("look around"))
        .await
        .expect("the turn never ended")
        .unwrap();
    let results: Vec<_> = drain(&mut h.events)
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::ToolResult { outcome, .. } => Some(outcome),
            _ => None,
        })
        .collect();
    let by_id = |id: &str| {
        results
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.result.clone())
            .unwrap()
    };
    assert!(by_id("c1").contains("path_not_found"), "{}", by_id("c1"));
    let tree = by_id("c2");
    assert!(
        tree.contains("- main.rs") && !tree.contains("- etc"),
        "{tree}"
    );
    assert!(by_id("c3").contains("src/main.rs:1"), "{}", by_id("c3"));
    assert!(by_id("c4").contains("1 | fn main()"), "{}", by_id("c4"));
    assert_eq!(h.mock.request_count(), 2);
    for request in h.mock.requests() {
        let body = request.body.to_string();
        assert!(!body.contains(PASSWD), "{body}");
    }
}
