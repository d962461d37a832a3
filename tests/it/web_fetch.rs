#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `web_fetch` against a local web server (never the internet): HTML as
//! markdown, the 5 MiB cut, redirects (a loop, too many, one to a private
//! address), refused schemes and credentials, the approval naming the host,
//! the small model's answer; and end to end in `exec` from config.toml.

use crate::support;

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use light_agent::agent::WebFetchTool;
use light_agent::ai::web::{PrivateAccess, WebClient, WebOptions};
use light_agent::permission::{
    ApprovalDecision, ApprovalDetail, ApprovalRequest, Approver, Mode, Permits, Policy, RuleList,
    RuleSource,
};
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry};
use serde_json::json;
use support::vendors::Vendor;
use support::web_server::{BIG, WebServer};
use support::{MockModel, OpenAiStream, Reply};
use tokio_util::sync::CancellationToken;

/// The tool with `private` access and no small model, in a registry.
fn registry(private: PrivateAccess) -> ToolRegistry {
    let client = WebClient::new(WebOptions {
        private,
        ..WebOptions::default()
    })
    .unwrap();
    let registry = ToolRegistry::new();
    registry.register(WebFetchTool::new(client, None)).unwrap();
    registry
}

fn all_private() -> PrivateAccess {
    PrivateAccess {
        all: true,
        hosts: Vec::new(),
    }
}

/// A context in `mode` with `approver`.
fn context(dir: &std::path::Path, mode: Mode, approver: Option<Arc<dyn Approver>>) -> ToolContext {
    let mut ctx = ToolContext::new(dir, CancellationToken::new()).unwrap();
    ctx.permits = Permits::new(Policy::new(mode, RuleList::default()), approver);
    ctx.call_id = "call_1".into();
    ctx
}

async fn fetch(registry: &ToolRegistry, url: &str) -> ToolOutput {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), Mode::Full, None);
    registry
        .execute("web_fetch", json!({"_intent": "read it", "url": url}), ctx)
        .await
}

/// Answers every approval with `answer` and keeps the requests.
struct Recording {
    answer: ApprovalDecision,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Approver for Recording {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        self.asked.lock().unwrap().push(request);
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn html_comes_back_as_markdown_with_its_links_and_text_as_it_is() {
    let server = WebServer::start().await;
    let tools = registry(all_private());

    let out = fetch(&tools, &server.url("127.0.0.1", "/page.html")).await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("# Release notes"), "{}", out.content);
    assert!(
        out.content
            .contains("[the guide](https://docs.example/guide)"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("steal()"), "scripts are left out");
    assert!(out.content.contains("as markdown"), "{}", out.content);

    let out = fetch(&tools, &server.url("127.0.0.1", "/notes.md")).await;
    assert!(
        out.content.ends_with("# Notes\n\n<b>kept as is</b>\n"),
        "{}",
        out.content
    );
    let out = fetch(&tools, &server.url("127.0.0.1", "/data.json")).await;
    assert!(out.content.ends_with("{\"a\": [1, 2]}"), "{}", out.content);

    let out = fetch(&tools, &server.url("127.0.0.1", "/image.png")).await;
    assert!(
        out.is_error && out.content.contains("image/png"),
        "{}",
        out.content
    );
    let out = fetch(&tools, &server.url("127.0.0.1", "/missing")).await;
    assert!(
        out.is_error && out.content.contains("HTTP 404"),
        "{}",
        out.content
    );
    assert!(out.content.ends_with("gone"), "{}", out.content);
}

#[tokio::test]
async fn a_20_mb_body_is_cut_at_5_mb_with_a_note() {
    let server = WebServer::start().await;
    let out = fetch(&registry(all_private()), &server.url("127.0.0.1", "/big")).await;
    assert!(!out.is_error, "{}", &out.content[..200]);
    let (header, body) = out.content.split_once("\n\n").unwrap();
    assert!(
        header.contains("[cut]: only the first 5.0 MB of 20.0 MB were read"),
        "{header}"
    );
    assert_eq!(body.len(), 5 * 1024 * 1024);
    assert!(body.bytes().all(|b| b == b'x'));
    assert!(BIG > body.len());
}

#[tokio::test]
async fn a_redirect_to_a_private_address_is_refused_by_default() {
    let server = WebServer::start().await;
    // Only the name `localhost` may be on a private address: the first hop
    // passes, the redirect's 127.0.0.1 is checked like any other host.
    let tools = registry(PrivateAccess {
        all: false,
        hosts: vec!["localhost".into()],
    });
    let out = fetch(&tools, &server.url("localhost", "/to-loopback")).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("127.0.0.1, a loopback address"),
        "{}",
        out.content
    );
    assert_eq!(server.paths(), ["/to-loopback"], "/secret never requested");

    // Without any exception neither a literal nor a name resolving there
    // reaches the server.
    let closed = registry(PrivateAccess::default());
    for url in [
        server.url("127.0.0.1", "/secret"),
        server.url("localhost", "/secret"),
        server.url("[::ffff:127.0.0.1]", "/secret"),
        format!("http://2130706433:{}/secret", server.port),
    ] {
        let out = fetch(&closed, &url).await;
        assert!(
            out.is_error && out.content.contains("refused"),
            "{url}: {}",
            out.content
        );
    }
    assert_eq!(server.paths(), ["/to-loopback"]);

    // allow_private opens it, and the redirect is followed without cookies.
    let out = fetch(
        &registry(all_private()),
        &server.url("127.0.0.1", "/to-page"),
    )
    .await;
    assert!(out.content.contains("[the guide]"), "{}", out.content);
    let last = server.seen().pop().unwrap();
    assert_eq!(last.path, "/page.html");
    assert!(
        !last.head.to_ascii_lowercase().contains("cookie"),
        "{}",
        last.head
    );
}

#[tokio::test]
async fn redirect_loops_and_long_chains_are_stopped() {
    let server = WebServer::start().await;
    let tools = registry(all_private());
    let out = fetch(&tools, &server.url("127.0.0.1", "/loop-a")).await;
    assert!(
        out.is_error && out.content.contains("redirect loop"),
        "{}",
        out.content
    );
    assert_eq!(server.paths(), ["/loop-a", "/loop-b"]);

    let out = fetch(&tools, &server.url("127.0.0.1", "/hop/1")).await;
    assert!(
        out.is_error && out.content.contains("more than 5 redirects"),
        "{}",
        out.content
    );
    let hops = server
        .paths()
        .iter()
        .filter(|p| p.starts_with("/hop/"))
        .count();
    assert_eq!(hops, 6, "the first request and five redirects");
}

#[tokio::test]
async fn other_schemes_are_refused_first_and_after_a_redirect() {
    let server = WebServer::start().await;
    let tools = registry(all_private());
    for url in [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "gopher://127.0.0.1/",
    ] {
        let out = fetch(&tools, url).await;
        assert!(
            out.is_error && out.content.contains("only http and https"),
            "{url}: {}",
            out.content
        );
    }
    let out = fetch(&tools, &server.url("127.0.0.1", "/to-file")).await;
    assert!(out.content.contains("`file:`"), "{}", out.content);
}

#[tokio::test]
async fn the_approval_names_the_host_and_a_denial_sends_nothing() {
    let server = WebServer::start().await;
    let tools = registry(all_private());
    let dir = tempfile::tempdir().unwrap();
    let no = Arc::new(Recording {
        answer: ApprovalDecision::Deny { reason: None },
        asked: Mutex::new(Vec::new()),
    });
    let ctx = context(dir.path(), Mode::Ask, Some(no.clone()));
    let url = server.url("127.0.0.1", "/page.html");
    let out = tools
        .execute("web_fetch", json!({"_intent": "x", "url": url}), ctx)
        .await;
    assert!(
        out.is_error && out.content.contains("denied by the user"),
        "{}",
        out.content
    );
    let asked = no.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].title, "fetch from 127.0.0.1");
    assert_eq!(
        asked[0].detail,
        ApprovalDetail::Web {
            url: url.clone(),
            host: "127.0.0.1".into()
        }
    );
    assert!(server.paths().is_empty());

    // A rule `web(HOST)` allows without asking.
    let rules = RuleList::parse(
        &["web(127.0.0.1)".into()],
        &[],
        &[],
        &RuleSource::CommandLine,
    )
    .unwrap();
    let mut ctx = context(dir.path(), Mode::Ask, Some(no.clone()));
    ctx.permits = Permits::new(Policy::new(Mode::Ask, rules), Some(no.clone()));
    let out = tools
        .execute("web_fetch", json!({"_intent": "x", "url": url}), ctx)
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(no.asked.lock().unwrap().len(), 1, "not asked again");
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn credentials_in_a_url_are_refused_and_reach_no_log_and_no_question() {
    let server = WebServer::start().await;
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let tools = registry(all_private());
    let dir = tempfile::tempdir().unwrap();
    let yes = Arc::new(Recording {
        answer: ApprovalDecision::Approve,
        asked: Mutex::new(Vec::new()),
    });
    let with_credentials = format!("http://admin:hunter2@127.0.0.1:{}/page.html", server.port);
    let ctx = context(dir.path(), Mode::Ask, Some(yes.clone()));
    let out = tools
        .execute(
            "web_fetch",
            json!({"_intent": "x", "url": with_credentials}),
            ctx,
        )
        .await;
    assert!(
        out.is_error && out.content.contains("credentials"),
        "{}",
        out.content
    );
    assert!(!out.content.contains("hunter2"), "{}", out.content);
    assert!(yes.asked.lock().unwrap().is_empty(), "nobody was asked");
    assert!(server.paths().is_empty(), "nothing was sent");

    // The same fetch without credentials is logged: the capture is live.
    let ctx = context(dir.path(), Mode::Ask, Some(yes.clone()));
    let plain = server.url("127.0.0.1", "/page.html");
    let out = tools
        .execute("web_fetch", json!({"_intent": "x", "url": plain}), ctx)
        .await;
    assert!(!out.is_error, "{}", out.content);
    let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(log.contains("/page.html"), "the log holds the fetch: {log}");
    assert!(!log.contains("hunter2") && !log.contains("admin:"), "{log}");
}

#[tokio::test]
async fn a_prompt_is_answered_by_the_small_model_over_the_page() {
    let server = WebServer::start().await;
    let mock = MockModel::start([Vendor::OpenAi.text_answer("Read the guide first.")]).await;
    let client = WebClient::new(WebOptions {
        private: all_private(),
        ..WebOptions::default()
    })
    .unwrap();
    let tools = ToolRegistry::new();
    tools
        .register(WebFetchTool::new(
            client,
            Some(Vendor::OpenAi.adaptor(&mock)),
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), Mode::Full, None);
    let url = server.url("127.0.0.1", "/page.html");
    let out = tools
        .execute(
            "web_fetch",
            json!({"_intent": "x", "url": url, "prompt": "What comes first?"}),
            ctx,
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(
        out.content.ends_with("Read the guide first."),
        "{}",
        out.content
    );
    let sent = mock.requests()[0].body.to_string();
    assert!(sent.contains("What comes first?"), "{sent}");
    assert!(
        sent.contains("[the guide](https://docs.example/guide)"),
        "{sent}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn exec_fetches_under_a_web_rule_from_config_and_stores_and_logs_no_credentials() {
    let server = WebServer::start().await;
    let f = support::child_env::Workspace::new("fn main() {}\n");
    crate::exec_permissions::config(
        &f,
        "log_level = \"trace\"\n[web]\nallow_private = true\n[permissions]\nallow = [\"web(127.0.0.1)\"]\n",
    );
    let call = |id: &str, url: &str| {
        OpenAiStream::new()
            .tool_call(
                id,
                "web_fetch",
                &[&json!({"_intent": "read the notes", "url": url}).to_string()],
            )
            .into_reply()
    };
    let with_credentials = format!("http://admin:hunter2@127.0.0.1:{}/page.html", server.port);
    let mock = MockModel::start([
        call("call_1", &server.url("127.0.0.1", "/page.html")),
        call("call_2", &with_credentials),
        Reply::openai_text("done"),
    ])
    .await;
    let out = support::child_env::run(crate::exec_permissions::command(
        &f,
        &mock.openai_base_url(),
        &["read the notes"],
    ))
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let requests = mock.requests();
    let second = requests[1].body.to_string();
    assert!(
        second.contains("[the guide](https://docs.example/guide)"),
        "{second}"
    );
    let third = requests[2].body["messages"].to_string();
    assert!(
        third.contains("credentials (user:pass@) are refused"),
        "{third}"
    );
    assert_eq!(server.paths(), ["/page.html"]);

    let mut logged = String::new();
    for entry in walk(&f.home) {
        if entry.components().any(|c| c.as_os_str() == "logs") {
            logged.push_str(&String::from_utf8_lossy(&std::fs::read(&entry).unwrap()));
        }
    }
    assert!(
        logged.contains("web fetch"),
        "the trace log was written: {logged:.400}"
    );
    let leaks: Vec<&str> = logged.lines().filter(|l| l.contains("hunter2")).collect();
    assert!(leaks.is_empty(), "credentials in the log: {leaks:#?}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"));
    // Nor the session store (the model's call was recorded scrubbed), nor
    // any other file the run left.
    for file in walk(&f.home) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !bytes.windows(7).any(|w| w == b"hunter2"),
            "credentials in {}",
            file.display()
        );
    }
    assert!(third.contains("***@127.0.0.1"), "{third}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
