//! The interactive host: the TUI on one side, the runtime on the other,
//! joined only by two channels (`Op` in, `UiInput` out).
//!
//! - [`bridge`]: [`RuntimeBridge`](bridge::RuntimeBridge) owns the session
//!   manager, the current session and its [`Agent`](light_agent::agent::Agent);
//!   it serves ops and forwards the agent's ordered stream (events, job
//!   updates, notices) to the UI.
//! - [`sessions`]: opening, switching and listing sessions.
//! - [`reports`]: the typed answers to `/status`, `/tools`, `/skills`,
//!   `/sessions` and the model picker's rows.

mod bridge;
mod project_mcp;
mod reports;
mod sessions;
mod user_shell;

use std::path::PathBuf;

use anyhow::Result;
use light_agent::config::{Paths, Settings};
use light_agent::session::SessionManager;
use light_agent::tui::{self, NoticeLevel, Op, RuntimeStatus, TuiExit, TuiOptions, UiInput};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::Exit;
use super::build::SessionChoice;

/// What the interactive host starts with.
pub struct Launch {
    /// Canonical working directory.
    pub cwd: PathBuf,
    /// Config, data and log locations.
    pub paths: Paths,
    /// Resolved settings (`model_missing` says whether a model is usable).
    pub settings: Settings,
    /// Why no model can be used, if none can.
    pub model_missing: Option<String>,
    /// Which session to open (an id already resolved and checked).
    pub choice: SessionChoice,
    /// A prompt to send at once.
    pub initial_prompt: Option<String>,
    /// The process environment (commands start from it, secrets removed).
    pub env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
}

/// Runs the TUI until the user quits.
pub async fn run(launch: Launch, manager: SessionManager) -> Result<Exit> {
    let (op_tx, op_rx) = unbounded_channel();
    let (ui_tx, ui_rx) = unbounded_channel();
    let opts = TuiOptions {
        history_path: Some(super::history_file::history_path(
            &launch.paths.data_dir,
            &launch.cwd,
        )),
        show_thoughts: launch.settings.tui.show_thoughts,
        tool_preview_lines: launch.settings.tui.tool_preview_lines,
        no_model_message: launch.model_missing.clone(),
        initial_prompt: launch.initial_prompt.clone(),
    };
    // Known before anything loads: the status line never shows a stale model.
    let _ = ui_tx.send(UiInput::Status(RuntimeStatus {
        model: launch.settings.model.clone(),
        provider: launch.settings.provider.name.clone(),
        context_window: launch.settings.context_window,
        ..RuntimeStatus::default()
    }));
    // The UI draws its first frame while the session loads.
    let runtime = tokio::spawn(async move {
        match bridge::RuntimeBridge::start(launch, manager, ui_tx.clone()).await {
            Ok(mut bridge) => {
                bridge.serve(op_rx).await;
                bridge.shutdown().await;
            }
            Err(e) => refuse_everything(op_rx, ui_tx, format!("{e:#}")).await,
        }
    });
    let ui = tui::run(opts, op_tx, ui_rx).await;
    // The op channel is closed now; the bridge interrupts, flushes and marks
    // the session idle before we report back.
    let _ = runtime.await;
    Ok(match ui? {
        TuiExit::Quit => Exit::Success,
        TuiExit::Signal(number) => Exit::Signal(number),
    })
}

/// Without a session nothing can run: every prompt goes back to the composer
/// with the reason, until the UI quits.
async fn refuse_everything(
    mut ops: UnboundedReceiver<Op>,
    ui: UnboundedSender<UiInput>,
    reason: String,
) {
    let reason = format!("no session could be opened: {reason}");
    let _ = ui.send(UiInput::Notice {
        level: NoticeLevel::Error,
        text: reason.clone(),
    });
    while let Some(op) = ops.recv().await {
        match op {
            Op::Quit => return,
            Op::Prompt(text) => {
                let _ = ui.send(UiInput::PromptRejected {
                    text,
                    reason: reason.clone(),
                });
            }
            _ => {}
        }
    }
}
