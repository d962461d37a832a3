//! `light-agent tool NAME ARGS_JSON`: one built-in tool call confined to the working directory.

use std::path::Path;

use anyhow::{Context as _, Result};
use light_agent::tool::{ToolContext, ToolRegistry, builtin};
use tokio_util::sync::CancellationToken;

use super::Exit;

/// Runs one tool call and prints its result. `Err` is a usage error (bad
/// JSON, unknown tool, bad cwd); an error result exits 1.
pub async fn run(name: &str, args: &str, cwd: &Path) -> Result<Exit> {
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
    let cancel = CancellationToken::new();
    let ctx = ToolContext::new(cwd, cancel.clone())
        .with_context(|| format!("cannot use {} as the working directory", cwd.display()))?;
    let interrupter = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    });
    let output = registry.execute(name, args, ctx).await;
    interrupter.abort();
    super::output::println(&output.content)?;
    Ok(if output.is_error {
        Exit::Failure
    } else {
        Exit::Success
    })
}
