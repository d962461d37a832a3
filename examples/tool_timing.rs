//! Times repeated calls of one built-in tool in one process (what a session
//! does: the second `read_file` of a file finds its line index remembered).
//!
//! `cargo run --release --example tool_timing -- DIR REPEATS TOOL ARGS_JSON`
//! prints one line per call: `call N: MS ms, BYTES bytes`. Used by
//! `scripts/measure_fs.py`.

use std::time::Instant;

use light_agent::tool::{ToolContext, ToolRegistry, builtin};
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: tool_timing DIR REPEATS TOOL ARGS_JSON";
    let dir = args.next().ok_or_else(|| anyhow::anyhow!(usage))?;
    let repeats: usize = args.next().ok_or_else(|| anyhow::anyhow!(usage))?.parse()?;
    let tool = args.next().ok_or_else(|| anyhow::anyhow!(usage))?;
    let call: serde_json::Value =
        serde_json::from_str(&args.next().ok_or_else(|| anyhow::anyhow!(usage))?)?;
    let registry = ToolRegistry::new();
    builtin::register_all(&registry)?;
    let ctx = ToolContext::new(&dir, CancellationToken::new())?;
    for n in 1..=repeats {
        let started = Instant::now();
        let out = registry.execute(&tool, call.clone(), ctx.clone()).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        println!(
            "call {n}: {ms:.2} ms, {} bytes, error={}",
            out.content.len(),
            out.is_error
        );
    }
    Ok(())
}
