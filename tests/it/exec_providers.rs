//! `light-agent exec` against the mock for every built-in profile: each
//! profile's base-URL variable is honoured and its key reaches only that
//! URL; and recorded real Gemini and Responses streams replayed end to end
//! (usage, final errors with one request, signature and encrypted-reasoning
//! replay on the next request).

use std::process::{Command, Output, Stdio};

use light_agent::config::BUILTIN_PROFILES;
use light_agent::protocol::{AgentEvent, Usage};
use serde_json::Value;

use crate::support;
use support::child_env::{Workspace, run, scrub};
use support::decoding::recorded;
use support::{MockModel, Reply};

/// A proxy nobody listens on: a request meant for a public `https://`
/// endpoint fails here instead of leaving the machine.
const DEAD_PROXY: &str = "http://127.0.0.1:9";

const KEY: &str = "sk-only-for-the-configured-url";

fn command(f: &Workspace, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_light-agent"));
    cmd.current_dir(&f.repo)
        .env("LIGHT_AGENT_HOME", &f.home)
        .stdin(Stdio::null());
    scrub(&mut cmd);
    cmd.env("HTTPS_PROXY", DEAD_PROXY)
        .env("https_proxy", DEAD_PROXY)
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy");
    cmd.args(args);
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn events(out: &Output) -> Vec<AgentEvent> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn recorded_reply(name: &str) -> Reply {
    Reply::sse(String::from_utf8(recorded(name)).unwrap())
}

/// The URL a profile's base-URL variable is set to, and a reply in its
/// wire format.
fn mock_for(kind: &str, mock: &MockModel) -> String {
    match kind {
        "anthropic" | "gemini" => mock.url(),
        _ => mock.openai_base_url(),
    }
}

fn reply_for(kind: &str) -> Reply {
    match kind {
        "anthropic" => Reply::anthropic_text("The capital of France is Paris."),
        "gemini" => recorded_reply("gemini_2_0_flash_text_shrinking_usage.sse"),
        "openai-responses" => recorded_reply("responses_gpt_4o_text.sse"),
        _ => Reply::openai_text("The capital of France is Paris."),
    }
}

/// The header a profile's key travels in, and how it is written.
fn key_header(kind: &str) -> (&'static str, String) {
    match kind {
        "anthropic" => ("x-api-key", KEY.to_owned()),
        "gemini" => ("x-goog-api-key", KEY.to_owned()),
        _ => ("authorization", format!("Bearer {KEY}")),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_builtin_profile_calls_its_base_url_variable_and_sends_the_key_only_there() {
    for profile in BUILTIN_PROFILES {
        let f = Workspace::new("fn main() {}\n");
        let kind = profile.kind.as_str();
        let mock = MockModel::start([reply_for(kind)]).await;
        let url = mock_for(kind, &mock);
        let args = ["--provider", profile.name, "--model", "recorded-model"];
        let with_env = |mut cmd: Command| {
            cmd.env(profile.base_url_env, &url);
            if let Some(key_env) = profile.key_env {
                cmd.env(key_env, KEY);
            }
            cmd
        };

        let mut show = with_env(command(&f, &args));
        show.args(["config", "show"]);
        // `config show` takes the global flags before the subcommand.
        let shown = run(show).await;
        let shown_text = text(&shown.stdout);
        assert!(
            shown_text.contains(&format!("\nbase_url = \"{url}\"\n")),
            "{}: {shown_text}{}",
            profile.name,
            text(&shown.stderr)
        );
        assert!(!shown_text.contains(KEY), "{shown_text}");

        let mut exec = with_env(command(&f, &["exec"]));
        exec.args(args).arg("What is the capital of France?");
        let out = run(exec).await;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            profile.name,
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).contains("The capital of France is Paris."),
            "{}: {}",
            profile.name,
            text(&out.stdout)
        );
        let requests = mock.requests();
        assert_eq!(requests.len(), 1, "{}", profile.name);
        match profile.key_env {
            Some(_) => {
                let (name, value) = key_header(kind);
                assert_eq!(
                    requests[0].header(name),
                    Some(value.as_str()),
                    "{}",
                    profile.name
                );
            }
            None => assert!(
                requests[0].headers.iter().all(|(_, v)| !v.contains(KEY)),
                "{}",
                profile.name
            ),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn gemini_usage_of_a_recorded_stream_is_its_last_chunk_s() {
    let f = Workspace::new("fn main() {}\n");
    let mock =
        MockModel::start([recorded_reply("gemini_2_0_flash_text_shrinking_usage.sse")]).await;
    let mut cmd = command(
        &f,
        &[
            "exec",
            "--json",
            "--provider",
            "gemini",
            "--model",
            "gemini-2.0-flash-exp",
            "Capital of France?",
        ],
    );
    cmd.env("GEMINI_API_KEY", KEY)
        .env("GOOGLE_GEMINI_BASE_URL", mock.url());
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let usage: Vec<Usage> = events(&out)
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::AgentTrace { usage, .. } => Some(usage),
            _ => None,
        })
        .collect();
    assert_eq!(
        usage,
        [Usage {
            input: 13,
            output: 8,
            total: 21,
            cached: None
        }]
    );
}

/// Runs one exec whose only reply is a recorded error stream; it must exit
/// 1 after exactly one request, without a retry notice.
async fn assert_final_after_one_request(
    provider: &str,
    key_env: &str,
    url_env: &str,
    fixture: &str,
) {
    let f = Workspace::new("fn main() {}\n");
    // A second reply is there for a retry to take, were there one.
    let mock = MockModel::start([recorded_reply(fixture), reply_for(provider)]).await;
    let url = mock_for(provider, &mock);
    let mut cmd = command(
        &f,
        &[
            "exec",
            "--provider",
            provider,
            "--model",
            "recorded-model",
            "hello",
        ],
    );
    cmd.env(key_env, KEY).env(url_env, &url);
    let out = run(cmd).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{fixture}: {err}");
    assert_eq!(mock.request_count(), 1, "{fixture}: not retried");
    assert!(!err.contains("retrying"), "{fixture}: {err}");
    assert!(!err.contains(KEY), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_blocked_gemini_prompt_exits_1_after_one_request() {
    assert_final_after_one_request(
        "gemini",
        "GEMINI_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "gemini_blocked_prompt.sse",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_in_stream_quota_error_exits_1_after_one_request() {
    assert_final_after_one_request(
        "openai-responses",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "responses_gpt_5_nano_quota_error.sse",
    )
    .await;
}

/// The JSON of every `data:` line of a recorded stream.
fn data_lines(name: &str) -> Vec<Value> {
    String::from_utf8(recorded(name))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d.trim_end()).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn recorded_encrypted_reasoning_is_sent_back_before_its_call_on_the_next_request() {
    let f = Workspace::new("fn main() {}\n");
    let steps =
        (1..=4).map(|k| recorded_reply(&format!("responses_gpt_5_1_codex_reasoning_{k}.sse")));
    let mock = MockModel::start(steps).await;
    let mut cmd = command(
        &f,
        &[
            "exec",
            "--provider",
            "openai-responses",
            "--model",
            "gpt-5.1-codex-max",
            "Compute (12+7)*3*10 with the calculator.",
        ],
    );
    cmd.env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", mock.openai_base_url());
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("The final result is **570**."),
        "{}",
        text(&out.stdout)
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 4);

    let recorded_item = data_lines("responses_gpt_5_1_codex_reasoning_1.sse")
        .into_iter()
        .find(|d| d["type"] == "response.output_item.done" && d["item"]["type"] == "reasoning")
        .unwrap()["item"]
        .clone();
    let input = requests[1].body["input"].as_array().unwrap().clone();
    let reasoning_at = input
        .iter()
        .position(|i| i["type"] == "reasoning")
        .expect("the reasoning item is replayed");
    let sent = &input[reasoning_at];
    assert_eq!(
        sent["encrypted_content"],
        recorded_item["encrypted_content"]
    );
    assert_eq!(sent["summary"], recorded_item["summary"]);
    assert!(
        sent.get("id").is_none(),
        "nothing is stored on OpenAI's side: {sent}"
    );
    let call = &input[reasoning_at + 1];
    assert_eq!(call["type"], "function_call");
    assert_eq!(call["call_id"], "call_AB6AaRZ1FYZB2RwS6A5vbdqn");
    assert!(
        input.iter().any(|i| i["type"] == "function_call_output"
            && i["call_id"] == "call_AB6AaRZ1FYZB2RwS6A5vbdqn"),
        "{input:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_gemini_call_signature_is_sent_back_on_the_next_request() {
    let f = Workspace::new("fn main() {}\n");
    let mock = MockModel::start([
        recorded_reply("gemini_3_pro_call_with_signature.sse"),
        recorded_reply("gemini_3_pro_answer_after_call.sse"),
    ])
    .await;
    let mut cmd = command(
        &f,
        &[
            "exec",
            "--provider",
            "gemini",
            "--model",
            "gemini-3-pro-preview",
            "What is the capital of the user country? Call the tool",
        ],
    );
    cmd.env("GEMINI_API_KEY", KEY)
        .env("GOOGLE_GEMINI_BASE_URL", mock.url());
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("The capital of Mexico is Mexico City."),
        "{}",
        text(&out.stdout)
    );
    let recorded_part =
        data_lines("gemini_3_pro_call_with_signature.sse")[0]["candidates"][0]["content"]["parts"]
            [0]
        .clone();
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let contents = requests[1].body["contents"].as_array().unwrap().clone();
    let model_turn = contents
        .iter()
        .find(|c| c["role"] == "model")
        .expect("the call is replayed");
    let part = &model_turn["parts"][0];
    assert_eq!(part["functionCall"]["name"], "get_country");
    assert_eq!(part["thoughtSignature"], recorded_part["thoughtSignature"]);
}

/// A model on this machine that takes longer than the idle bound to read
/// the prompt: exec waits for it (the first-byte bound of a local server is
/// 600 s), sends one request and shows the answer.
#[tokio::test(flavor = "multi_thread")]
async fn exec_waits_for_a_local_model_slower_than_the_idle_bound_with_one_request() {
    let f = Workspace::new("fn main() {}\n");
    std::fs::create_dir_all(&f.home).unwrap();
    std::fs::write(
        f.home.join("config.toml"),
        "[http]\nidle_timeout_secs = 1\n",
    )
    .unwrap();
    let mock = MockModel::start([
        Reply::openai_text("Prefill finished.")
            .first_byte_delay(std::time::Duration::from_millis(2_500)),
        Reply::openai_text("never asked for"),
    ])
    .await;
    let out = run(command(
        &f,
        &[
            "exec",
            "--base-url",
            &mock.openai_base_url(),
            "--model",
            "local-model",
            "hi",
        ],
    ))
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Prefill finished."),
        "{}",
        text(&out.stdout)
    );
    assert!(
        !text(&out.stderr).contains("retrying"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(mock.request_count(), 1);
}
