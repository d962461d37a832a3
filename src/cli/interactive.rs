//! The interactive front end: the TUI on one side, the library's
//! [`Host`] on the other, joined only by the protocol's submissions and
//! host events.

use anyhow::Result;
use light_agent::host::{Host, HostConfig};
use light_agent::session::SessionManager;
use light_agent::tui::{self, TuiExit, TuiOptions};
use tokio::sync::mpsc::unbounded_channel;

use super::Exit;

/// Runs the TUI until the user quits; `initial_prompt` is sent as soon as
/// the UI is up, with `images` (checked by the caller) attached.
pub async fn run(
    config: HostConfig,
    manager: SessionManager,
    initial_prompt: Option<String>,
    images: Vec<String>,
) -> Result<Exit> {
    let (ops_tx, ops_rx) = unbounded_channel();
    let (events_tx, events_rx) = unbounded_channel();
    let opts = TuiOptions {
        history_path: Some(super::history_file::history_path(
            &config.paths.data_dir,
            &config.cwd,
        )),
        show_thoughts: config.settings.tui.show_thoughts,
        tool_preview_lines: config.settings.tui.tool_preview_lines,
        no_model_message: config.model_missing.clone(),
        initial_prompt,
        notifications: config
            .settings
            .tui
            .notifications
            .parse()
            .unwrap_or_default(),
        images,
    };
    // The UI draws its first frame while the session loads.
    let (host, stopped) = Host::start(config, manager, events_tx);
    let serving = tokio::spawn(host.serve(ops_rx));
    let ui = tui::run(opts, ops_tx, events_rx).await;
    // The op channel is closed now; the host interrupts, flushes and marks
    // the session idle before we report back.
    let _ = serving.await;
    let _ = stopped.await;
    Ok(match ui? {
        TuiExit::Quit => Exit::Success,
        TuiExit::Signal(number) => Exit::Signal(number),
    })
}
