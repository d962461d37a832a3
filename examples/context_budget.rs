//! Measures how light-agent keeps long sessions inside small windows
//! (`docs/PERFORMANCE.md`, "Context within the window").
//!
//! For each window it runs a scripted session against an in-process model:
//! 10 turns of 12 tool steps and an answer (130 model steps), each tool
//! result 2–20 KB of code-like text. Every request is encoded as the OpenAI
//! Chat Completions body it would be on the wire and counted in bytes (four
//! to a token). At the end every result is recalled through `recall_indexed`
//! (following its pages) and compared byte for byte with the log, and the
//! characters sent are compared with a naive client that sends the whole
//! history on every step.
//!
//! ```sh
//! cargo run --release --example context_budget -- 4000 8000 16000
//! ```

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use light_agent::agent::{Agent, AgentConfig, LoopConfig};
use light_agent::ai::openai::{build_request_body, build_text_body};
use light_agent::ai::{Adaptor, AiError, EventStream, StreamRequest, TextRequest, TextResponse};
use light_agent::context::{ContextConfig, PromptSection};
use light_agent::protocol::{AgentEvent, Meta, ToolCall, Usage};
use light_agent::session::SessionManager;
use light_agent::tool::{ToolContext, ToolDefinition, ToolOutput, builtin};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const TURNS: usize = 10;
const TOOL_STEPS_PER_TURN: usize = 12;
const MODEL: &str = "scripted";

/// What the scripted model was sent.
#[derive(Default)]
struct Sent {
    /// Body bytes of each streamed (step) request.
    steps: Vec<u64>,
    /// Body bytes of each summary request.
    summaries: Vec<u64>,
    /// Tool steps asked for so far.
    calls: usize,
    /// Tool steps asked for in the running turn.
    calls_this_turn: usize,
}

/// A model that calls `fetch` twelve times a turn, then answers.
struct Scripted {
    sent: Arc<Mutex<Sent>>,
}

impl Adaptor for Scripted {
    fn stream(&self, req: StreamRequest, _cancel: CancellationToken) -> EventStream {
        let bytes = build_request_body(MODEL, &req).to_string().len() as u64;
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        sent.steps.push(bytes);
        // Turns run one after another, so the model counts its own steps.
        let event = if sent.calls_this_turn < TOOL_STEPS_PER_TURN {
            let n = sent.calls;
            sent.calls += 1;
            sent.calls_this_turn += 1;
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: format!("call_{n}"),
                    name: "fetch".into(),
                    args: json!({ "n": n, "_intent": format!("read part {n} of the module") }),
                }],
                meta: Meta::default(),
            }
        } else {
            sent.calls_this_turn = 0;
            AgentEvent::Output {
                text: "All parts are read; the module is consistent.".into(),
                meta: Meta::default(),
            }
        };
        let trace = AgentEvent::AgentTrace {
            usage: Usage {
                input: bytes / 4,
                output: 20,
                total: bytes / 4 + 20,
                cached: None,
            },
            model: MODEL.into(),
            started_at: 0,
            ended_at: 0,
            meta: Meta::default(),
        };
        Box::pin(futures::stream::iter([Ok(event), Ok(trace)]))
    }

    fn generate_text(&self, req: TextRequest) -> BoxFuture<'static, Result<TextResponse, AiError>> {
        let bytes = build_text_body(MODEL, &req).to_string().len() as u64;
        self.sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .summaries
            .push(bytes);
        let text = "<historyNote>\n<goal>read every part of the module</goal>\n<completed>parts read so far; see the folded calls</completed>\n<currentState>reading parts in order</currentState>\n<nextSteps>read the next part</nextSteps>\n</historyNote>".to_string();
        async move {
            Ok(TextResponse {
                text,
                usage: Usage::default(),
            })
        }
        .boxed()
    }

    fn model(&self) -> &str {
        MODEL
    }
}

#[derive(Deserialize, JsonSchema)]
struct Fetch {
    /// Part number.
    n: usize,
}

/// Part `n`: 2–20 KB of code-like text (quotes, tabs, newlines).
fn part(n: usize) -> String {
    let size = 2_000 + (n * 7_919) % 18_001;
    let mut text = String::with_capacity(size + 80);
    let mut line = 0;
    while text.len() < size {
        line += 1;
        text.push_str(&format!(
            "fn part_{n}_item_{line}(x: u32) -> u32 {{\n\tx + {line} // \"item {line}\"\n}}\n"
        ));
    }
    text.truncate(size);
    text
}

struct Figures {
    window: u64,
    steps: usize,
    summaries: usize,
    over: usize,
    largest: u64,
    sent: u64,
    naive: u64,
    results: usize,
    recalled: usize,
    paged: usize,
}

async fn run(window: u64, dir: &Path) -> anyhow::Result<Figures> {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo)?;
    let manager = SessionManager::open(&dir.join("sessions.sqlite3"))?;
    let session = manager.create(&repo, None).await?;
    let sent = Arc::new(Mutex::new(Sent::default()));
    let context = ContextConfig {
        prompts: vec![PromptSection::new(
            builtin::TOOL_PROMPTS_NAME,
            builtin::tool_prompts(),
        )],
        context_window: window,
        ..ContextConfig::default()
    };
    let agent = Agent::new(AgentConfig {
        cwd: repo.clone(),
        session: Some(session.clone()),
        adaptor: Arc::new(Scripted { sent: sent.clone() }),
        context: context.clone(),
        loop_config: LoopConfig {
            max_steps: 100,
            ..LoopConfig::default()
        },
    });
    builtin::register_all(agent.tool())?;
    agent.tool().register(ToolDefinition::new(
        "fetch",
        "Returns one part of the module.",
        |args: Fetch, _ctx: ToolContext| async move { ToolOutput::ok(part(args.n)) },
    ))?;

    for turn in 0..TURNS {
        agent
            .prompt(format!("read the next parts ({turn})"))
            .await?;
    }

    // Every result, byte for byte, through recall_indexed and its pages.
    let log = session.load_all().await?;
    let mut results = 0;
    let mut recalled = 0;
    let mut paged = 0;
    for event in &log {
        let AgentEvent::ToolResult { outcome, .. } = event else {
            continue;
        };
        results += 1;
        let (text, pages) = recall(&agent, &repo, &outcome.id).await?;
        recalled += usize::from(text == outcome.result);
        paged += usize::from(pages > 1);
    }

    // The naive client: the whole history on every step.
    let tools = agent.tool().specs();
    let system = light_agent::context::ContextBuilder::new(context)
        .system_prompt(&tools)
        .to_string();
    let mut history: Vec<AgentEvent> = Vec::new();
    let mut naive = 0;
    for event in log {
        match event {
            AgentEvent::AgentTrace { .. } | AgentEvent::AgentSummary { .. } => continue,
            AgentEvent::ToolCalls { .. } | AgentEvent::Output { .. } => {
                let req = StreamRequest {
                    system_prompt: system.clone(),
                    events: history.clone(),
                    tools: tools.clone(),
                    images: Default::default(),
                };
                naive += build_request_body(MODEL, &req).to_string().len() as u64;
            }
            _ => {}
        }
        history.push(event);
    }

    let sent = sent.lock().unwrap_or_else(|e| e.into_inner());
    let all = sent.steps.iter().chain(&sent.summaries);
    Ok(Figures {
        window,
        steps: sent.steps.len(),
        summaries: sent.summaries.len(),
        over: all.clone().filter(|b| **b > window * 4).count(),
        largest: all.clone().copied().max().unwrap_or(0).div_ceil(4),
        sent: all.sum(),
        naive,
        results,
        recalled,
        paged,
    })
}

/// The whole stored result of `id`, following its pages, and the page count.
async fn recall(agent: &Agent, repo: &Path, id: &str) -> anyhow::Result<(String, usize)> {
    let mut joined = String::new();
    let mut offset = 0u64;
    let mut pages = 0;
    loop {
        let ctx = ToolContext::new(repo, CancellationToken::new())?;
        let args = json!({ "id": id, "offset": offset, "_intent": "check" });
        let out = agent.tool().execute("recall_indexed", args, ctx).await;
        anyhow::ensure!(!out.is_error, "recall of {id} failed: {}", out.content);
        pages += 1;
        let Some(rest) = out.content.strip_prefix("[recall page: ") else {
            return Ok((out.content, pages));
        };
        let Some((header, body)) = rest.split_once('\n') else {
            anyhow::bail!("a page of {id} without a body");
        };
        joined.push_str(body);
        match header.split_once("offset: ") {
            Some((_, next)) => offset = next.split(' ').next().unwrap_or("0").parse()?,
            None => return Ok((joined, pages)),
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut windows: Vec<u64> = std::env::args()
        .skip(1)
        .map(|w| w.parse())
        .collect::<Result<_, _>>()?;
    if windows.is_empty() {
        windows = vec![4_000, 8_000, 16_000];
    }
    println!(
        "| window | model steps | summary requests | requests over the window | largest request (tokens) | sent (MB) | naive client (MB) | sent / naive | results recalled byte for byte | recalled in pages |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for window in windows {
        let dir = tempfile::tempdir()?;
        let f = run(window, dir.path()).await?;
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.1} | {:.3}× | {}/{} | {} |",
            f.window,
            f.steps,
            f.summaries,
            f.over,
            f.largest,
            f.sent as f64 / 1e6,
            f.naive as f64 / 1e6,
            f.sent as f64 / f.naive as f64,
            f.recalled,
            f.results,
            f.paged
        );
    }
    Ok(())
}
