#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `sessions`, `show`, `config` and `completions` run as processes.

use std::path::Path;
use std::process::{Command, Output};

use light_agent::protocol::{AgentEvent, InputSource, Meta, StopCause};
use light_agent::session::SessionManager;

fn light_agent(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_light-agent"))
        .current_dir(cwd)
        .env("LIGHT_AGENT_HOME", home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("DEEPSEEK_API_KEY")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn sessions_and_show_read_what_the_store_holds() {
    let dir = tempfile::tempdir().unwrap();
    let (home, repo, other) = (
        dir.path().join("home"),
        dir.path().join("repo"),
        dir.path().join("other"),
    );
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    let id = {
        let manager = SessionManager::open(&home.join("sessions.sqlite3")).unwrap();
        let elsewhere = manager
            .create(&other, Some("elsewhere".into()))
            .await
            .unwrap();
        elsewhere
            .append(&AgentEvent::Input {
                images: Vec::new(),
                text: "hello there".into(),
                source: InputSource::User,
                meta: Meta::new(1, 1),
            })
            .await
            .unwrap();
        // Never prompted in: hidden from every listing.
        manager.create(&repo, Some("empty".into())).await.unwrap();
        let session = manager
            .create(&repo, Some("find main".into()))
            .await
            .unwrap();
        let m = Meta::new(1, 1);
        for event in [
            AgentEvent::Input {
                images: Vec::new(),
                text: "where is main?".into(),
                source: InputSource::User,
                meta: m,
            },
            AgentEvent::Output {
                text: "In src/main.rs.".into(),
                meta: m,
            },
            AgentEvent::AgentStop {
                cause: StopCause::Done,
                message: String::new(),
                meta: m,
            },
        ] {
            session.append(&event).await.unwrap();
        }
        session.id().to_string()
    };

    let here = light_agent(&home, &repo, &["sessions"]);
    assert_eq!(here.status.code(), Some(0));
    let listed = stdout(&here);
    assert!(
        listed.contains(&id) && listed.contains("find main") && listed.contains("1 turn"),
        "{listed}"
    );
    assert!(!listed.contains("elsewhere"));
    assert!(!listed.contains("empty"), "{listed}");

    let all = light_agent(&home, &repo, &["sessions", "--all", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    assert_eq!(rows[0]["id"], id.as_str(), "newest first");

    let markdown = stdout(&light_agent(&home, &repo, &["show", &id]));
    assert!(
        markdown.contains("# find main")
            && markdown.contains("> where is main?")
            && markdown.contains("In src/main.rs."),
        "{markdown}"
    );
    let lines = stdout(&light_agent(&home, &repo, &["show", &id, "--json"]));
    let events: Vec<AgentEvent> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 3);

    let short = &id[id.len() - 8..];
    let by_prefix = stdout(&light_agent(&home, &repo, &["show", &short[..4]]));
    assert_eq!(by_prefix, markdown, "a short-id prefix names the session");

    let missing = light_agent(&home, &repo, &["show", "sess_nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("sess_nope"));
}

#[test]
fn config_init_writes_once_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let first = light_agent(&home, dir.path(), &["config", "init"]);
    assert_eq!(first.status.code(), Some(0));
    let file = home.join("config.toml");
    std::fs::write(&file, "model = \"mine\"\n").unwrap();
    let second = light_agent(&home, dir.path(), &["config", "init"]);
    assert_eq!(second.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&second.stderr).contains("already exists"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "model = \"mine\"\n"
    );

    let paths = stdout(&light_agent(&home, dir.path(), &["config", "path"]));
    assert!(paths.contains(&file.display().to_string()), "{paths}");
}

#[test]
fn config_show_redacts_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_light-agent"))
        .current_dir(dir.path())
        .env("LIGHT_AGENT_HOME", dir.path())
        .env("OPENAI_API_KEY", "sk-show-me-not")
        .args(["config", "show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("provider = \"openai\"") && text.contains("[redacted]"),
        "{text}"
    );
    assert!(!text.contains("sk-show-me-not"));
}

#[test]
fn a_malformed_config_is_reported_with_line_and_column_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "model = \"x\"\nprovider = = \n",
    )
    .unwrap();
    let out = light_agent(dir.path(), dir.path(), &["config", "show"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml:2:"), "{err}");
}

#[test]
fn completions_are_generated_for_bash() {
    let dir = tempfile::tempdir().unwrap();
    let out = light_agent(dir.path(), dir.path(), &["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    let script = stdout(&out);
    assert!(
        script.contains("complete")
            && script.contains("light-agent")
            && script.contains("sessions")
    );
}

#[tokio::test]
async fn resuming_another_directorys_session_says_where_it_belongs() {
    let dir = tempfile::tempdir().unwrap();
    let (home, repo, other) = (
        dir.path().join("home"),
        dir.path().join("repo"),
        dir.path().join("other"),
    );
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    let id = {
        let manager = SessionManager::open(&home.join("sessions.sqlite3")).unwrap();
        manager.create(&other, None).await.unwrap().id().to_string()
    };
    let out = light_agent(
        &home,
        &repo,
        &[
            "exec",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--resume",
            &id,
            "hi",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bad --resume is a usage error"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let other = std::fs::canonicalize(&other).unwrap();
    assert!(
        err.contains("belongs to") && err.contains(&other.display().to_string()),
        "{err}"
    );
}
