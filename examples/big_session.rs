//! Writes a session of N events (default 100 000) for a directory, so that
//! start-up with a long history can be measured (`scripts/measure.py`);
//! an optional third argument makes every tool result that many bytes of
//! code-like text (default: a short grep hit).
//!
//! ```sh
//! LIGHT_AGENT_HOME=/tmp/home cargo run --release --example big_session -- /path/to/repo 100000 [RESULT_BYTES]
//! ```

use light_agent::config::Paths;
use light_agent::protocol::{AgentEvent, InputSource, Meta, StopCause, ToolCall, ToolOutcome};
use light_agent::session::SessionManager;
use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let cwd = std::path::PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let count: u64 = args
        .next()
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(100_000);
    let result_bytes: Option<usize> = args.next().map(|n| n.parse()).transpose()?;
    let result = match result_bytes {
        None => "src/main.rs:1\n  fn main() {}".to_string(),
        Some(bytes) => {
            let line = "    let value = compute(input, &options).unwrap_or_default();\n";
            line.repeat(bytes / line.len() + 1)[..bytes].to_string()
        }
    };
    let home = std::env::var_os("LIGHT_AGENT_HOME").map(std::path::PathBuf::from);
    let paths = Paths::resolve(home.as_deref())?;
    let manager = SessionManager::open(&paths.db_file)?;
    let session = manager.create(&cwd, Some("a long session".into())).await?;
    let mut written = 0;
    let mut turn = 0;
    while written < count {
        turn += 1;
        let m = Meta::new(turn, 1);
        let id = format!("call_{turn}");
        let events = [
            AgentEvent::Input {
                images: Vec::new(),
                text: format!("question {turn}"),
                source: InputSource::User,
                meta: m,
            },
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: id.clone(),
                    name: "grep".into(),
                    args: json!({"search_strs": ["fn main"], "_intent": "look"}),
                }],
                meta: m,
            },
            AgentEvent::ToolResult {
                outcome: ToolOutcome {
                    id,
                    name: "grep".into(),
                    result: result.clone(),
                    is_error: false,
                    display: None,
                },
                meta: m,
            },
            AgentEvent::Output {
                text: format!("answer {turn}: it is in src/main.rs."),
                meta: Meta::new(turn, 2),
            },
            AgentEvent::AgentStop {
                cause: StopCause::Done,
                message: String::new(),
                meta: Meta::new(turn, 2),
            },
        ];
        for event in &events {
            session.append(event).await?;
        }
        written += events.len() as u64;
    }
    println!("{} {written} events, {turn} turns", session.id());
    Ok(())
}
