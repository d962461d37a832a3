#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Process hygiene of the `shell` tool: timeouts and interrupts leave no
//! process, nothing waits on a terminal or a pager, huge outputs fit the
//! budget with a full log, secrets stay out, background jobs end with the
//! session.

use crate::support;

use std::time::Duration;

use light_agent::tool::builtin::shell::MODEL_BUDGET;
use serde_json::json;
use support::shell_harness::{ShellHarness, processes_with, unique_sleep, wait_until_gone};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_timeout_stops_the_command_and_everything_it_started() {
    let h = ShellHarness::with_env(&[]);
    let nap = unique_sleep(30);
    // The sleep runs as a grandchild too, so the group kill is what ends it.
    let out = h
        .call(
            "shell",
            json!({ "command": format!("sleep {nap} & sleep {nap}; wait"), "timeout_ms": 1000 }),
        )
        .await;
    assert!(out.is_error, "{}", out.content);
    assert!(out.content.contains("timed out"), "{}", out.content);
    assert_eq!(wait_until_gone(&nap).await, Vec::<u32>::new());
}

#[tokio::test]
async fn an_interrupt_stops_the_command_and_leaves_no_process() {
    let h = ShellHarness::with_env(&[]);
    let nap = unique_sleep(40);
    let cancel = CancellationToken::new();
    let mut args = json!({ "command": format!("sleep {nap}") });
    args["_intent"] = "t".into();
    let call = h.registry.execute("shell", args, h.ctx(cancel.clone()));
    let started = async {
        while processes_with(&nap).is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cancel.cancel();
    };
    let (out, ()) = tokio::join!(call, started);
    assert!(
        out.is_error && out.content.contains("stopped"),
        "{}",
        out.content
    );
    assert_eq!(wait_until_gone(&nap).await, Vec::<u32>::new());
}

#[tokio::test]
async fn a_dropped_call_leaves_no_process() {
    // The agent drops unfinished tool futures the moment a turn is interrupted.
    let h = ShellHarness::with_env(&[]);
    let nap = unique_sleep(40);
    let mut args = json!({ "command": format!("sleep {nap} & sleep {nap}; wait") });
    args["_intent"] = "t".into();
    let call = h
        .registry
        .execute("shell", args, h.ctx(CancellationToken::new()));
    tokio::select! {
        _ = call => panic!("sleep ended on its own"),
        _ = async {
            while processes_with(&nap).len() < 2 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        } => {}
    }
    assert_eq!(wait_until_gone(&nap).await, Vec::<u32>::new());
}

#[tokio::test]
async fn reading_the_terminal_fails_at_once() {
    let h = ShellHarness::with_env(&[]);
    // Were /dev/tty reachable this would wait for the whole timeout.
    let out = h
        .call(
            "shell",
            json!({ "command": "read x < /dev/tty; echo rc=$?", "timeout_ms": 600000 }),
        )
        .await;
    assert!(out.content.contains("rc=1"), "{}", out.content);
    assert!(out.content.contains("/dev/tty"), "{}", out.content);
    let out = h.sh("read x; echo \"rc=$? x=[$x]\"").await;
    assert!(out.content.contains("rc=1 x=[]"), "{}", out.content);
}

#[tokio::test]
async fn git_log_does_not_wait_on_a_pager() {
    let h = ShellHarness::with_env(&[("PAGER", "less"), ("GIT_PAGER", "less")]);
    let out = h
        .sh(
            "git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m first-commit \
             && git log && printenv GIT_PAGER",
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("first-commit"), "{}", out.content);
    assert!(out.content.contains("\ncat\n"), "{}", out.content);
}

#[tokio::test]
async fn a_huge_output_fits_the_budget_and_the_log_has_all_of_it() {
    let h = ShellHarness::with_env(&[]);
    let out = h.sh("seq 1 2000000").await;
    assert!(!out.is_error, "{}", &out.content[..200]);
    let body_start = out.content.find('\n').unwrap() + 1;
    let log_line = out.content.lines().last().unwrap();
    let body = &out.content[body_start..out.content.len() - log_line.len() - 1];
    assert!(body.len() <= MODEL_BUDGET, "{}", body.len());
    assert!(body.starts_with("1\n2\n3\n"), "{}", &body[..50]);
    assert!(body.ends_with("1999999\n2000000\n"));
    let omitted: u64 = body
        .lines()
        .find_map(|l| {
            l.strip_prefix("… ")?
                .strip_suffix(" bytes omitted …")?
                .parse()
                .ok()
        })
        .expect("an omitted count");
    let expected: String = (1..=2_000_000).map(|n| format!("{n}\n")).collect();
    let marker = format!("… {omitted} bytes omitted …\n");
    assert_eq!(
        body.len() as u64 - marker.len() as u64 + omitted,
        expected.len() as u64
    );
    // "[full output: N bytes in PATH]"
    let path = log_line
        .strip_prefix("[full output: ")
        .and_then(|l| l.split_once(" bytes in "))
        .map(|(_, p)| p.trim_end_matches(']'))
        .expect(log_line);
    assert_eq!(std::fs::read_to_string(path).unwrap(), expected);
}

#[tokio::test]
async fn provider_keys_and_secrets_are_not_passed_on() {
    let h = ShellHarness::with_env(&[
        ("OPENAI_API_KEY", "sk-test-secret"),
        ("SOME_SERVICE_TOKEN", "tok-secret"),
        ("HARMLESS", "visible"),
    ]);
    let out = h.sh("printenv OPENAI_API_KEY").await;
    assert!(out.is_error, "{}", out.content);
    assert!(!out.content.contains("sk-test-secret"), "{}", out.content);
    let out = h.sh("env").await;
    assert!(!out.content.contains("secret"), "{}", out.content);
    assert!(out.content.contains("HARMLESS=visible"), "{}", out.content);
}

#[tokio::test]
async fn a_background_job_is_readable_and_ends_with_the_session() {
    let h = ShellHarness::with_env(&[]);
    let nap = unique_sleep(60);
    let out = h
        .call(
            "shell",
            json!({ "command": format!("echo first; echo second; sleep {nap}"), "background": true }),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    assert!(out.content.contains("job-1"), "{}", out.content);
    // Wait for the output to arrive (the job itself keeps running).
    let mut seen = String::new();
    for _ in 0..200 {
        let read = h
            .call("shell_output", json!({ "id": "job-1", "wait_ms": 20 }))
            .await;
        assert!(!read.is_error, "{}", read.content);
        assert!(
            read.content.starts_with("job-1: running"),
            "{}",
            read.content
        );
        seen.push_str(&read.content);
        if seen.contains("second") {
            break;
        }
    }
    assert!(seen.contains("first") && seen.contains("second"), "{seen}");
    assert_eq!(h.shell.jobs().len(), 1);
    assert!(h.shell.jobs()[0].running);
    assert!(!processes_with(&nap).is_empty());
    drop(h);
    assert_eq!(wait_until_gone(&nap).await, Vec::<u32>::new());
}

#[tokio::test]
async fn shell_kill_ends_a_job() {
    let h = ShellHarness::with_env(&[]);
    // Before any job: the model is told none was started, not to try job-1.
    let none = h.call("shell_output", json!({ "id": "job-1" })).await;
    assert!(none.is_error);
    assert!(
        none.content
            .starts_with("there is no job \"job-1\": no command was started in the background"),
        "{}",
        none.content
    );
    let nap = unique_sleep(60);
    let out = h
        .call(
            "shell",
            json!({ "command": format!("sleep {nap}"), "background": true }),
        )
        .await;
    assert!(!out.is_error, "{}", out.content);
    let killed = h.call("shell_kill", json!({ "id": "job-1" })).await;
    assert!(killed.content.contains("stopped"), "{}", killed.content);
    assert!(!h.shell.jobs()[0].running);
    assert_eq!(wait_until_gone(&nap).await, Vec::<u32>::new());
    let unknown = h.call("shell_kill", json!({ "id": "job-9" })).await;
    assert!(unknown.is_error);
    assert_eq!(
        unknown.content,
        "there is no job \"job-9\"; the jobs are job-1"
    );
}

#[tokio::test]
async fn exit_status_and_escapes_reach_the_model_cleanly() {
    let h = ShellHarness::with_env(&[]);
    let out = h
        .sh("printf '\\033[31mred\\033[0m\\n10%%\\r50%%\\r100%%\\n'; exit 3")
        .await;
    assert!(out.is_error);
    assert!(out.content.starts_with("exit 3 after "), "{}", out.content);
    assert!(out.content.contains("\nred\n100%\n"), "{:?}", out.content);
}

#[tokio::test]
async fn workdir_must_stay_inside() {
    let h = ShellHarness::with_env(&[]);
    std::fs::create_dir(h.work.path().join("sub")).unwrap();
    let out = h
        .call("shell", json!({ "command": "pwd", "workdir": "sub" }))
        .await;
    assert!(out.content.trim_end().ends_with("/sub"), "{}", out.content);
    let out = h
        .call("shell", json!({ "command": "pwd", "workdir": "../" }))
        .await;
    assert!(out.is_error, "{}", out.content);
}
