//! The seed's top-level usage in Rust: an OpenAI-compatible adaptor, the
//! three built-in tools with their prompt, a typed `weather` tool, one
//! prompt, and every event printed.
//!
//! ```sh
//! OPENAI_API_KEY=sk-… cargo run --example weather
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=qwen3 cargo run --example weather   # Ollama
//! ```

use std::sync::Arc;

use light_agent::agent::{Agent, AgentConfig, LoopConfig};
use light_agent::ai::{HttpOptions, OpenAiAdaptor};
use light_agent::context::{ContextConfig, PromptSection};
use light_agent::protocol::{AgentEvent, Secret};
use light_agent::tool::{ToolContext, ToolDefinition, ToolOutput, builtin};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of the `weather` tool.
#[derive(Deserialize, JsonSchema)]
struct Weather {
    /// City name, e.g. London.
    city: String,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base_url =
        std::env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".into());
    let api_key = std::env::var("OPENAI_API_KEY").ok().map(Secret::new);
    let model = std::env::var("MODEL").unwrap_or_else(|_| "gpt-4.1".into());

    let agent = Agent::new(AgentConfig {
        cwd: std::env::current_dir()?,
        session: None,
        adaptor: Arc::new(OpenAiAdaptor::new(
            base_url,
            api_key,
            model,
            HttpOptions::default(),
        )?),
        context: ContextConfig {
            prompts: vec![PromptSection::new(
                builtin::TOOL_PROMPTS_NAME,
                builtin::tool_prompts(),
            )],
            ..ContextConfig::default()
        },
        loop_config: LoopConfig::default(),
    });

    agent.tool().register(builtin::tree())?;
    agent.tool().register(builtin::grep())?;
    agent.tool().register(builtin::read_file())?;
    agent.tool().register(ToolDefinition::new(
        "weather",
        "Gets the current weather of a city.",
        |args: Weather, _ctx: ToolContext| async move {
            ToolOutput::ok(format!("{}: sunny", args.city))
        },
    ))?;

    let mut events = agent.subscribe();
    let printer = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            match &event {
                AgentEvent::OutputDelta { text, .. } => print!("{text}"),
                AgentEvent::ThoughtDelta { .. } => {}
                other => println!(
                    "\n[{}] {}",
                    other.kind(),
                    serde_json::to_string(other).unwrap_or_default()
                ),
            }
            if matches!(event, AgentEvent::AgentStop { .. }) {
                break;
            }
        }
    });

    let outcome = agent.prompt("What is the weather in London?").await?;
    printer.await?;
    println!("\nturn ended: {:?} {}", outcome.cause, outcome.message);
    Ok(())
}
