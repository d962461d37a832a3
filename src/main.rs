//! The `light-agent` binary: the composition root.
//!
//! For now it hosts one subcommand, `light-agent tool <NAME> '<JSON ARGS>'`,
//! which runs a built-in tool in the sandbox and prints its result.
//! Exit codes: 0 normal result, 1 error result, 2 usage error.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use light_agent::tool::{ToolContext, ToolRegistry, builtin};
use tokio_util::sync::CancellationToken;

/// Exit code for a tool that returned an error result.
const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code for a malformed command line (clap uses it too).
const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "light-agent",
    version,
    about = "An event-stream coding agent for the terminal"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a built-in tool (tree, grep, read_file) and print its result.
    ///
    /// Exits 0 for a normal result, 1 for an error result, 2 for usage errors.
    Tool {
        /// Tool name: tree, grep or read_file.
        name: String,
        /// Arguments as one JSON object, e.g. '{"search_strs":["fn main"]}'.
        args: String,
        /// Directory the tool is confined to (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Tool { name, args, cwd } => match run_tool(&name, &args, cwd) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("light-agent: {e:#}");
                ExitCode::from(EXIT_USAGE)
            }
        },
    }
}

/// Runs one tool call; `Err` is a usage error (bad JSON, unknown tool, bad cwd).
fn run_tool(name: &str, args: &str, cwd: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let args: serde_json::Value =
        serde_json::from_str(args).context("tool arguments are not valid JSON")?;
    let registry = ToolRegistry::new();
    builtin::register_all(&registry)?;
    if !registry.contains(name) {
        anyhow::bail!(
            "unknown tool {name:?}; available: {}",
            registry.names().join(", ")
        );
    }
    let cwd = match cwd {
        Some(cwd) => cwd,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let cancel = CancellationToken::new();
    let ctx = ToolContext::new(&cwd, cancel.clone())
        .with_context(|| format!("cannot use {} as the working directory", cwd.display()))?;

    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let output = runtime.block_on(async {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        });
        registry.execute(name, args, ctx).await
    });
    println!("{}", output.content);
    Ok(if output.is_error {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
