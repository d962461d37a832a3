//! The MCP client against the in-repo test server (support/mcp_server.rs),
//! which runs as this test binary's ignored `mcp::server_role` test.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use light_agent::mcp::{McpServerConfig, McpServers, RestartError, ServerState};
use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::support::mcp_server::{self, MARKER_ENV, MODE_ENV};

/// The server role; run only by the tests below, through `--ignored --exact`.
#[tokio::test]
#[ignore = "child-process role: the MCP test server, started by the mcp tests"]
async fn server_role() {
    mcp_server::serve().await;
}

fn server(mode: &str, marker: Option<&Path>) -> McpServerConfig {
    let exe = std::env::current_exe().unwrap();
    let mut env = BTreeMap::from([(MODE_ENV.to_owned(), mode.to_owned())]);
    if let Some(marker) = marker {
        env.insert(MARKER_ENV.to_owned(), marker.display().to_string());
    }
    McpServerConfig {
        command: exe.display().to_string(),
        args: ["mcp::server_role", "--exact", "--ignored", "--nocapture"]
            .map(String::from)
            .to_vec(),
        env,
        disabled_tools: vec!["hidden".to_owned()],
        ..McpServerConfig::default()
    }
}

struct Started {
    servers: McpServers,
    registry: ToolRegistry,
    failures: Arc<Mutex<Vec<String>>>,
    dir: tempfile::TempDir,
}

async fn start(configs: BTreeMap<String, McpServerConfig>) -> Started {
    start_in(configs, false).await
}

async fn start_in(configs: BTreeMap<String, McpServerConfig>, read_only_only: bool) -> Started {
    let dir = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    let failures = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&failures);
    let servers = McpServers::start(
        &configs,
        dir.path(),
        &registry,
        read_only_only,
        move |text| sink.lock().unwrap().push(text),
    );
    assert!(servers.settled(Duration::from_secs(120)).await);
    Started {
        servers,
        registry,
        failures,
        dir,
    }
}

/// A call in the `full` mode: nothing is asked.
async fn call(started: &Started, name: &str, args: Value) -> ToolOutput {
    call_in(started, Mode::Full, name, args).await
}

async fn call_in(started: &Started, mode: Mode, name: &str, args: Value) -> ToolOutput {
    let mut ctx = ToolContext::new(started.dir.path(), CancellationToken::new()).unwrap();
    ctx.permits = Permits::new(Policy::new(mode, RuleList::default()), None);
    started.registry.execute(name, args, ctx).await
}

#[tokio::test]
async fn permissions_gate_calls_and_read_only_offers_read_only_tools() {
    let started = start(BTreeMap::from([("t".to_owned(), server("normal", None))])).await;
    // `auto` with nobody to ask: a tool marked read-only runs, the rest is denied.
    let echo = call_in(&started, Mode::Auto, "mcp__t__echo", json!({"text": "a"})).await;
    assert_eq!(echo, ToolOutput::ok("echo: a"));
    let crash = call_in(&started, Mode::Auto, "mcp__t__crash", json!({})).await;
    assert!(
        crash.is_error && crash.content.contains("mcp(t.crash)"),
        "{crash:?}"
    );
    // The server did not run it: it is still up.
    let after = call_in(&started, Mode::Auto, "mcp__t__echo", json!({"text": "b"})).await;
    assert_eq!(after, ToolOutput::ok("echo: b"));
    // `ask` asks even for a tool the server marks read-only.
    let asked = call_in(&started, Mode::Ask, "mcp__t__echo", json!({"text": "c"})).await;
    assert!(
        asked.is_error && asked.content.contains("nobody is here to approve"),
        "{asked:?}"
    );

    let read_only = start_in(
        BTreeMap::from([("t".to_owned(), server("normal", None))]),
        true,
    )
    .await;
    let names = read_only.registry.names();
    assert!(names.contains(&"mcp__t__echo".to_owned()), "{names:?}");
    assert!(!names.contains(&"mcp__t__crash".to_owned()), "{names:?}");
}

#[tokio::test]
async fn tools_are_listed_and_results_read_as_text() {
    let started = start(BTreeMap::from([("t".to_owned(), server("normal", None))])).await;
    let names = started.registry.names();
    assert!(names.contains(&"mcp__t__echo".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|n| n.contains("hidden")),
        "disabled_tools: {names:?}"
    );
    let ServerState::Ready { tools } = &started.servers.statuses()[0].state else {
        panic!("{:?}", started.servers.statuses());
    };
    assert_eq!(tools.len(), 6);
    let spec = started
        .registry
        .specs()
        .into_iter()
        .find(|s| s.name == "mcp__t__echo")
        .unwrap();
    assert!(
        spec.schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("_intent"))
    );
    assert!(spec.description.contains("Echoes"));

    let echo = call(
        &started,
        "mcp__t__echo",
        json!({"_intent": "test", "text": "hi"}),
    )
    .await;
    assert_eq!(echo, ToolOutput::ok("echo: hi"));
    let fail = call(&started, "mcp__t__fail", json!({})).await;
    assert_eq!(fail, ToolOutput::error("the tool failed on purpose"));
    let image = call(&started, "mcp__t__image", json!({})).await;
    assert_eq!(image, ToolOutput::ok("[image: image/png, 1.2 KB]"));
    let structured = call(&started, "mcp__t__structured", json!({})).await;
    assert!(!structured.is_error);
    let shown: Value = serde_json::from_str(&structured.content).unwrap();
    assert_eq!(shown, json!({"sum": 3, "terms": [1, 2]}));
    let wrong = call(&started, "mcp__t__echo", json!({"text": 5})).await;
    assert!(
        wrong.is_error && wrong.content.contains("schema validation"),
        "{wrong:?}"
    );
    assert!(started.failures.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_cancelled_call_is_cancelled_on_the_server() {
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("slow");
    let started = start(BTreeMap::from([(
        "t".to_owned(),
        server("normal", Some(&marker)),
    )]))
    .await;
    let cancel = CancellationToken::new();
    let mut ctx = ToolContext::new(started.dir.path(), cancel.clone()).unwrap();
    ctx.permits = Permits::new(Policy::new(Mode::Full, RuleList::default()), None);
    let registry = started.registry.clone();
    let running =
        tokio::spawn(async move { registry.execute("mcp__t__slow", json!({}), ctx).await });
    wait_for(&marker.with_extension("started")).await;
    cancel.cancel();
    let output = running.await.unwrap();
    assert!(
        output.is_error && output.content.contains("cancelled"),
        "{output:?}"
    );
    wait_for(&marker).await;
    // The server goes on serving.
    let echo = call(&started, "mcp__t__echo", json!({"text": "after"})).await;
    assert_eq!(echo, ToolOutput::ok("echo: after"));
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_gives_a_clear_error() {
    let started = start(BTreeMap::from([("t".to_owned(), server("normal", None))])).await;
    let output = call(&started, "mcp__t__crash", json!({})).await;
    assert!(output.is_error, "{output:?}");
    assert!(
        output
            .content
            .contains("MCP server `t` failed during the call to `crash`"),
        "{output:?}"
    );
    let again = call(&started, "mcp__t__echo", json!({"text": "x"})).await;
    assert!(again.is_error, "{again:?}");
}

#[tokio::test]
async fn a_silent_server_times_out_once_and_others_come_up() {
    let mut silent = server("silent", None);
    silent.startup_timeout_sec = Some(1);
    let mut broken = server("normal", None);
    broken.command = "/nonexistent/mcp-server".to_owned();
    let started = start(BTreeMap::from([
        ("quiet".to_owned(), silent),
        ("good".to_owned(), server("flood", None)),
        ("missing".to_owned(), broken),
    ]))
    .await;
    let statuses = started.servers.statuses();
    let state = |name: &str| {
        statuses
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .state
            .clone()
    };
    assert!(
        matches!(state("good"), ServerState::Ready { .. }),
        "{statuses:?}"
    );
    assert_eq!(
        state("quiet"),
        ServerState::Failed {
            error: "no answer within 1 s (startup_timeout_sec)".to_owned()
        }
    );
    assert!(
        matches!(state("missing"), ServerState::Failed { .. }),
        "{statuses:?}"
    );
    let failures = started.failures.lock().unwrap().clone();
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("MCP server `quiet` is not available"))
    );
    let echo = call(&started, "mcp__good__echo", json!({"text": "ok"})).await;
    assert_eq!(echo, ToolOutput::ok("echo: ok"));
}

/// Waits until `path` exists (the server's own signal).
async fn wait_for(path: &Path) {
    tokio::time::timeout(Duration::from_secs(60), async {
        while !path.exists() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{} never appeared", path.display()));
}

#[tokio::test]
async fn restart_retries_a_failed_server_and_refuses_unknown_or_disabled_ones() {
    // The program does not exist at the first start; it does at the retry.
    let bin = tempfile::tempdir().unwrap();
    let script = bin.path().join("server.sh");
    let mut later = server("normal", None);
    let real = std::mem::replace(&mut later.command, script.display().to_string());
    let mut off = server("normal", None);
    off.enabled = false;
    let started = start(BTreeMap::from([
        ("later".to_owned(), later),
        ("off".to_owned(), off),
    ]))
    .await;
    let status = |name: &str| {
        started
            .servers
            .statuses()
            .into_iter()
            .find(|s| s.name == name)
            .unwrap()
    };
    let failed = status("later");
    assert!(
        matches!(failed.state, ServerState::Failed { .. }),
        "{failed:?}"
    );
    assert!(!started.registry.contains("mcp__later__echo"));

    std::fs::write(&script, format!("#!/bin/sh\nexec {real:?} \"$@\"\n")).unwrap();
    let mut permissions = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).unwrap();
    started.servers.restart("later").unwrap();
    assert_eq!(status("later").state, ServerState::Starting);
    assert_eq!(
        started.servers.restart("later"),
        Err(RestartError::Starting("later".to_owned()))
    );
    assert!(started.servers.settled(Duration::from_secs(120)).await);
    let ready = status("later");
    assert!(
        matches!(ready.state, ServerState::Ready { .. }),
        "{ready:?}"
    );
    assert!(ready.started_at >= failed.started_at);
    let echo = call(&started, "mcp__later__echo", json!({"text": "back"})).await;
    assert_eq!(echo, ToolOutput::ok("echo: back"));
    assert_eq!(
        started.failures.lock().unwrap().len(),
        1,
        "the first failure only"
    );

    // A running server restarts with its tools registered once again.
    started.servers.restart("later").unwrap();
    assert!(!started.registry.contains("mcp__later__echo"));
    assert!(started.servers.settled(Duration::from_secs(120)).await);
    let echo = call(&started, "mcp__later__echo", json!({"text": "again"})).await;
    assert_eq!(echo, ToolOutput::ok("echo: again"));

    assert_eq!(
        started.servers.restart("off"),
        Err(RestartError::Disabled("off".to_owned()))
    );
    assert_eq!(
        started.servers.restart("nope"),
        Err(RestartError::Unknown("nope".to_owned()))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_streamable_http_server_is_called_with_its_token_and_headers() {
    let http = mcp_server::serve_http().await;
    let remote = McpServerConfig {
        url: Some(http.url.clone()),
        // Any variable that is set does: its value is the token.
        bearer_token_env_var: Some("PATH".to_owned()),
        headers: BTreeMap::from([("X-Team".to_owned(), "light".to_owned())]),
        disabled_tools: vec!["hidden".to_owned()],
        ..McpServerConfig::default()
    };
    let unset = McpServerConfig {
        url: Some(http.url.clone()),
        bearer_token_env_var: Some("LIGHT_AGENT_TEST_NO_SUCH_TOKEN".to_owned()),
        ..McpServerConfig::default()
    };
    let started = start(BTreeMap::from([
        ("remote".to_owned(), remote),
        ("unset".to_owned(), unset),
    ]))
    .await;
    let statuses = started.servers.statuses();
    let ServerState::Ready { tools } = &statuses[0].state else {
        panic!("{statuses:?}");
    };
    assert!(tools.contains(&"mcp__remote__echo".to_owned()), "{tools:?}");
    assert!(
        !tools.contains(&"mcp__remote__hidden".to_owned()),
        "{tools:?}"
    );
    assert_eq!(
        statuses[1].state,
        ServerState::Failed {
            error: "`LIGHT_AGENT_TEST_NO_SUCH_TOKEN` (bearer_token_env_var) is not set".to_owned()
        }
    );

    let echo = call(&started, "mcp__remote__echo", json!({"text": "over http"})).await;
    assert_eq!(echo, ToolOutput::ok("echo: over http"));
    let fail = call(&started, "mcp__remote__fail", json!({})).await;
    assert!(fail.is_error, "{fail:?}");

    let token = format!("Bearer {}", std::env::var("PATH").unwrap());
    let seen = http.seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    for headers in &seen {
        assert_eq!(
            headers.get("authorization").map(|v| v.to_str().unwrap()),
            Some(token.as_str())
        );
        assert_eq!(
            headers.get("x-team").map(|v| v.to_str().unwrap()),
            Some("light")
        );
    }
}

#[tokio::test]
async fn the_grace_counts_from_the_start_and_never_waits_for_a_slow_server() {
    let mut silent = server("silent", None);
    silent.startup_timeout_sec = Some(600);
    let dir = tempfile::tempdir().unwrap();
    let servers = McpServers::start(
        &BTreeMap::from([("slow".to_owned(), silent)]),
        dir.path(),
        &ToolRegistry::new(),
        false,
        |_| {},
    );
    // The guard is far below the server's start-up time: returning proves
    // the wait ended with the grace, not with the server.
    crate::support::bounded::ends(
        "the grace",
        servers.settled_in_grace(Duration::from_millis(100)),
    )
    .await;
    assert_eq!(servers.statuses()[0].state, ServerState::Starting);
    crate::support::bounded::ends(
        "a prompt after the grace",
        servers.settled_in_grace(Duration::from_millis(100)),
    )
    .await;
    assert!(!servers.settled(Duration::ZERO).await);
}

#[tokio::test]
async fn a_changed_tool_list_reaches_the_registry() {
    let started = start(BTreeMap::from([("g".to_owned(), server("growing", None))])).await;
    assert!(!started.registry.contains("mcp__g__grown"));
    let grow = call(&started, "mcp__g__grow", json!({})).await;
    assert_eq!(grow, ToolOutput::ok("grown"));
    let listed = || {
        started.servers.statuses().iter().any(|s| {
            matches!(&s.state, ServerState::Ready { tools } if tools.contains(&"mcp__g__grown".to_owned()))
        })
    };
    crate::support::bounded::until("the new tool is registered and listed", || {
        started.registry.contains("mcp__g__grown") && listed()
    })
    .await;
    let here = call(&started, "mcp__g__grown", json!({})).await;
    assert_eq!(here, ToolOutput::ok("here"));
    assert!(started.registry.contains("mcp__g__echo"), "the rest stays");
}
