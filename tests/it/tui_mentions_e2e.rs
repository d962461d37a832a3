#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `@` mentions and images in the real binary, in a pty against the mock
//! model (issue #24): the picker narrows as the user types and Enter
//! inserts the path, whose text the request carries; a symlink leading out
//! of the directory is offered as refused and never read; `-i` and a
//! pasted image path become image parts; a fake PNG, a 1 × 100 000 image
//! and a clipboard tool that hangs each end in a clear message.

use crate::support;
use crate::tui_e2e::child::{agent_command, fixture};
use crate::tui_e2e::pty;

use portable_pty::CommandBuilder;
use pty::{Key, Pty, WAIT};
use serde_json::Value;
use support::child_env::Workspace;
use support::images::{base64, png};
use support::{MockModel, Reply};

/// Bytes a terminal sends for a bracketed paste of `text`.
fn paste(pty: &Pty, text: &str) {
    pty.send(format!("\x1b[200~{text}\x1b[201~").as_bytes());
}

/// The whole request body of every request so far, as text.
fn bodies(mock: &MockModel) -> Vec<String> {
    mock.requests().iter().map(|r| r.body.to_string()).collect()
}

/// The image parts of the last user message of a Chat Completions body.
fn sent_images(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    last["content"]
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p["type"] == "image_url")
                .map(|p| p["image_url"]["url"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// `light-agent` on a model that takes images (`gpt-4o`), with `args`.
fn image_command(f: &Workspace, mock: &MockModel, args: &[&str]) -> CommandBuilder {
    let mut cmd = agent_command(f, None);
    cmd.args(["--base-url", &mock.openai_base_url(), "--model", "gpt-4o"]);
    cmd.args(args);
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_at_picker_narrows_inserts_and_the_request_carries_the_file() {
    let f = fixture();
    std::fs::create_dir_all(f.repo.join("docs")).unwrap();
    std::fs::write(f.repo.join("docs/guide.md"), "GUIDE-BODY: how to fly\n").unwrap();
    std::fs::write(f.repo.join("src/lib.rs"), "pub fn lib() {}\n").unwrap();
    let outside = f.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP-SECRET-BYTES\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), f.repo.join("leak.txt")).unwrap();
    let mock =
        MockModel::start([Reply::openai_text("Read it."), Reply::openai_text("Done.")]).await;
    let pty = Pty::spawn(agent_command(&f, Some(&mock.openai_base_url())));
    pty.wait_for_text("mock-model", WAIT);

    pty.type_text("explain @");
    pty.wait_for_text("@docs/guide.md", WAIT);
    pty.wait_for_text("@src/main.rs", WAIT);
    pty.type_text("gui");
    pty.wait_until("the picker narrowed to the guide", WAIT, |p| {
        let screen = p.screen().contents();
        screen.contains("@docs/guide.md") && !screen.contains("@src/main.rs")
    });
    pty.press(Key::Enter);
    pty.wait_for_text("› explain @docs/guide.md", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Read it.", WAIT);
    let first = &bodies(&mock)[0];
    assert!(first.contains("GUIDE-BODY: how to fly"), "{first}");
    assert!(first.contains("[file docs/guide.md]"), "{first}");

    // The link out is offered, marked refused, and never read.
    pty.type_text("and @leak");
    pty.wait_for_text("refused: leads outside the directory", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_text("@leak.txt: outside the working directory, not read", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Done.", WAIT);
    for body in bodies(&mock) {
        assert!(!body.contains("TOP-SECRET-BYTES"), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dash_i_and_a_pasted_image_path_become_image_parts() {
    let f = fixture();
    let (a, b) = (png(2, 3), png(4, 5));
    std::fs::write(f.repo.join("a.png"), &a).unwrap();
    let dropped = f.dir.path().join("my shot.png");
    std::fs::write(&dropped, &b).unwrap();
    let mock = MockModel::start([Reply::openai_text("Two images.")]).await;
    let pty = Pty::spawn(image_command(&f, &mock, &["-i", "a.png"]));
    pty.wait_for_text("gpt-4o", WAIT);
    pty.wait_for_text("[Image #1 a.png]", WAIT);
    // As a terminal pastes a dropped file: quoted.
    paste(&pty, &format!("'{}'", dropped.display()));
    pty.wait_for_text("[Image #2 my shot.png]", WAIT);
    pty.type_text(" compare");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Two images.", WAIT);
    let body = &mock.requests()[0].body;
    assert_eq!(
        sent_images(body),
        [
            format!("data:image/png;base64,{}", base64(&a)),
            format!("data:image/png;base64,{}", base64(&b)),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fake_png_and_a_one_by_100000_image_are_refused_with_their_reason() {
    let f = fixture();
    std::fs::write(f.repo.join("fake.png"), "just text, no picture").unwrap();
    std::fs::write(f.repo.join("tall.png"), png(1, 100_000)).unwrap();
    let mock = MockModel::start([Reply::openai_text("unused")]).await;
    let pty = Pty::spawn(image_command(&f, &mock, &[]));
    pty.wait_for_text("gpt-4o", WAIT);

    paste(&pty, "fake.png");
    pty.wait_for_text("[Image #1 fake.png]", WAIT);
    pty.type_text(" look");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("fake.png is not a PNG, JPEG, GIF or WebP image", WAIT);
    // The prompt and its chip come back for editing.
    pty.wait_for_text("› [Image #1 fake.png] look", WAIT);

    pty.send(b"\x15"); // Ctrl+U: clear the line
    paste(&pty, "tall.png");
    pty.wait_for_text("[Image #2 tall.png]", WAIT);
    pty.press(Key::Enter);
    pty.wait_for_anywhere("tall.png is 1 x 100000 pixels", WAIT);
    assert_eq!(mock.request_count(), 0, "nothing reached the model");
}

/// A folder holding a fake `wl-paste` running `script`, to put first on PATH.
fn fake_wl_paste(f: &Workspace, script: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let bin = f.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let tool = bin.join("wl-paste");
    std::fs::write(&tool, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// PATH with `first` before the test's own.
fn path_with(first: &std::path::Path) -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", first.display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_v_attaches_the_clipboards_image_and_the_request_carries_it() {
    let f = fixture();
    let shot = f.dir.path().join("clip.png");
    std::fs::write(&shot, png(3, 3)).unwrap();
    let bin = fake_wl_paste(&f, &format!("exec /bin/cat '{}'", shot.display()));
    let mock = MockModel::start([Reply::openai_text("Pasted.")]).await;
    let mut cmd = image_command(&f, &mock, &[]);
    cmd.env("PATH", path_with(&bin));
    let pty = Pty::spawn(cmd);
    pty.wait_for_text("gpt-4o", WAIT);
    pty.send(b"\x16"); // Ctrl+V
    pty.wait_for_text("[Image #1 clipboard-1.png]", WAIT);
    pty.type_text(" what is this?");
    pty.press(Key::Enter);
    pty.wait_for_anywhere("Pasted.", WAIT);
    assert_eq!(
        sent_images(&mock.requests()[0].body),
        [format!("data:image/png;base64,{}", base64(&png(3, 3)))]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_clipboard_tool_ctrl_v_says_what_to_install() {
    let f = fixture();
    let empty = f.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let mock = MockModel::start([Reply::openai_text("unused")]).await;
    let mut cmd = image_command(&f, &mock, &[]);
    cmd.env("PATH", &empty);
    let pty = Pty::spawn(cmd);
    pty.wait_for_text("gpt-4o", WAIT);
    pty.send(b"\x16"); // Ctrl+V
    pty.wait_for_anywhere("no clipboard tool found: install wl-clipboard", WAIT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_clipboard_tool_is_stopped_with_a_message() {
    let f = fixture();
    let bin = fake_wl_paste(&f, "exec sleep 600");
    let mock = MockModel::start([Reply::openai_text("unused")]).await;
    let mut cmd = image_command(&f, &mock, &[]);
    cmd.env("PATH", path_with(&bin));
    let pty = Pty::spawn(cmd);
    pty.wait_for_text("gpt-4o", WAIT);
    pty.send(b"\x16"); // Ctrl+V
    pty.wait_for_anywhere("wl-paste did not answer within 3s and was stopped", WAIT);
    // The UI kept going meanwhile and after.
    pty.type_text("still here");
    pty.wait_for_text("› still here", WAIT);
}
