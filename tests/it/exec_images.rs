#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Images in prompts end to end: `light-agent exec -i FILE` against the
//! mock model, the session database, `show` and `--continue`.

use crate::support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use light_agent::protocol::AgentEvent;
use light_agent::session::SessionManager;
use serde_json::{Value, json};
use support::child_env::{Workspace, run, scrub};
use support::images::{base64, jpeg, png};
use support::{MockModel, Reply};

/// `light-agent ARGS` in the workspace's repo, with model flags for the mock
/// when `mock` is given (`gpt-4o` takes images; `mock-model` is unknown and
/// so text-only).
fn command(f: &Workspace, mock: Option<(&MockModel, &str)>, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo).env("LIGHT_AGENT_HOME", &f.home);
    scrub(&mut cmd);
    if let Some((mock, model)) = mock {
        cmd.args(["--base-url", &mock.openai_base_url(), "--model", model]);
    }
    cmd.args(args).stdin(Stdio::null());
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn db(f: &Workspace) -> std::path::PathBuf {
    f.home.join("sessions.sqlite3")
}

/// The image parts of the first user message of a Chat Completions body.
fn sent_images(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().unwrap();
    let first = messages.iter().find(|m| m["role"] == "user").unwrap();
    first["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "image_url")
        .cloned()
        .collect()
}

fn data_uri(media_type: &str, bytes: &[u8]) -> Value {
    json!({"type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{}", base64(bytes))}})
}

async fn sessions_json(f: &Workspace) -> Value {
    let out = run(command(f, None, &["sessions", "--json"])).await;
    serde_json::from_slice(&out.stdout).unwrap_or(json!([]))
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_i_sends_each_image_stores_it_once_and_continue_and_show_keep_it() {
    let f = Workspace::new("fn main() {}\n");
    let (shot, photo) = (png(3, 2), jpeg(4, 4));
    std::fs::write(f.repo.join("shot.png"), &shot).unwrap();
    let outside = f.dir.path().join("photo.jpg");
    std::fs::write(&outside, &photo).unwrap();
    let mock = MockModel::start([
        Reply::openai_text("Two tiny images."),
        Reply::openai_text("Still two."),
        Reply::openai_text("Same shot."),
    ])
    .await;
    let model = Some((&mock, "gpt-4o"));

    let photo_arg = outside.to_str().unwrap();
    let args = [
        "exec",
        "-i",
        "shot.png",
        "--image",
        photo_arg,
        "what are these?",
    ];
    let first = run(command(&f, model, &args)).await;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let body = &mock.requests()[0].body;
    assert_eq!(
        sent_images(body),
        [data_uri("image/png", &shot), data_uri("image/jpeg", &photo)]
    );
    let prompt = body["messages"][1]["content"][0]["text"].as_str().unwrap();
    assert!(
        prompt.starts_with("what are these?\n[image shot.png, ")
            && prompt.contains("[image photo.jpg, "),
        "{prompt}"
    );

    // A later turn in a new process: the images come back from the
    // database, byte for byte.
    let second = run(command(&f, model, &["exec", "--continue", "and now?"])).await;
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    assert_eq!(
        sent_images(&mock.requests()[1].body),
        [data_uri("image/png", &shot), data_uri("image/jpeg", &photo)]
    );

    // The same bytes again are not stored again.
    let third = run(command(&f, model, &["exec", "-i", "shot.png", "again"])).await;
    assert_eq!(third.status.code(), Some(0), "{}", text(&third.stderr));
    let manager = SessionManager::open(&db(&f)).unwrap();
    assert_eq!(manager.image_count().await.unwrap(), 2);

    let sessions = sessions_json(&f).await;
    let id = sessions[1]["id"].as_str().unwrap().to_owned();
    let show = run(command(&f, None, &["show", &id])).await;
    let markdown = text(&show.stdout);
    assert!(
        markdown.contains(&format!(
            "> what are these?\n> [image shot.png, {} B]",
            shot.len()
        )) && markdown.contains(&format!("> [image photo.jpg, {} B]", photo.len())),
        "{markdown}"
    );
    let json = run(command(&f, None, &["show", &id, "--json"])).await;
    let first_event: AgentEvent =
        serde_json::from_str(text(&json.stdout).lines().next().unwrap()).unwrap();
    let AgentEvent::Input { images, .. } = first_event else {
        panic!("the first event is the prompt");
    };
    let named: Vec<(&str, &str, u64)> = images
        .iter()
        .map(|i| (i.name.as_str(), i.media_type.as_str(), i.bytes))
        .collect();
    assert_eq!(
        named,
        [
            ("shot.png", "image/png", shot.len() as u64),
            ("photo.jpg", "image/jpeg", photo.len() as u64)
        ]
    );
}

/// Runs `exec` with `-i NAME` after writing `bytes` there; asserts it was
/// refused with `message` (exit 2), no request made and nothing stored.
async fn assert_refused(f: &Workspace, mock: &MockModel, name: &str, bytes: &[u8], message: &str) {
    std::fs::write(f.repo.join(name), bytes).unwrap();
    let out: Output = run(command(
        f,
        Some((mock, "gpt-4o")),
        &["exec", "-i", name, "look"],
    ))
    .await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
    assert!(stderr.contains(message), "{name}: {stderr}");
    assert_eq!(mock.request_count(), 0, "{name}: no request");
    assert_eq!(sessions_json(f).await, json!([]), "{name}: no session");
    let manager = SessionManager::open(&db(f)).unwrap();
    assert_eq!(manager.image_count().await.unwrap(), 0, "{name}");
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_truncated_fake_and_absurd_images_are_refused_and_nothing_is_stored() {
    let f = Workspace::new("fn main() {}\n");
    let mock = MockModel::start([]).await;
    let mut huge = png(100, 100);
    huge.resize(30 * 1024 * 1024, 0);
    assert_refused(
        &f,
        &mock,
        "huge.png",
        &huge,
        "huge.png is larger than the 20 MB an image may have",
    )
    .await;
    let whole = png(3, 2);
    let cut = &whole[..whole.len() - 8];
    assert_refused(&f, &mock, "cut.png", cut, "cut.png is a truncated PNG file").await;
    let photo = jpeg(4, 4);
    let cut = &photo[..photo.len() - 2];
    assert_refused(
        &f,
        &mock,
        "cut.jpg",
        cut,
        "cut.jpg is a truncated JPEG file",
    )
    .await;
    assert_refused(
        &f,
        &mock,
        "fake.png",
        b"not an image at all",
        "fake.png is not a PNG, JPEG, GIF or WebP image",
    )
    .await;
    assert_refused(
        &f,
        &mock,
        "tall.png",
        &png(1, 100_000),
        "tall.png is 1 x 100000 pixels; each side must be 1 to 8000",
    )
    .await;
    let missing = run(command(
        &f,
        Some((&mock, "gpt-4o")),
        &["exec", "-i", "nope.png", "look"],
    ))
    .await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("nope.png"),
        "{}",
        text(&missing.stderr)
    );
}

fn write_config(home: &Path, body: &str) {
    std::fs::create_dir_all(home).unwrap();
    std::fs::write(home.join("config.toml"), body).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_text_only_model_refuses_images_before_any_request_unless_configured() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::write(f.repo.join("shot.png"), png(2, 2)).unwrap();
    let mock = MockModel::start([Reply::openai_text("I see it.")]).await;
    let text_only = Some((&mock, "mock-model"));

    let out = run(command(&f, text_only, &["exec", "-i", "shot.png", "look"])).await;
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("the model mock-model does not take images")
            && stderr.contains("images = true"),
        "{stderr}"
    );
    assert_eq!(mock.request_count(), 0);
    assert_eq!(sessions_json(&f).await, json!([]), "nothing stored");
    let manager = SessionManager::open(&db(&f)).unwrap();
    assert_eq!(manager.image_count().await.unwrap(), 0);

    write_config(&f.home, "[models.\"mock-model\"]\nimages = true\n");
    let out = run(command(&f, text_only, &["exec", "-i", "shot.png", "look"])).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(sent_images(&mock.requests()[0].body).len(), 1);
}
