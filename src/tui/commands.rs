//! What each slash command does: most become an [`Op`]; `/help` and
//! argument errors are answered locally.

use std::path::PathBuf;

use super::app::App;
use super::bridge::{NoticeLevel, Op};
use super::view::slash_popup::help_text;

/// Runs `command` (the text after the slash).
pub fn run(app: &mut App, command: &str) {
    let (name, arg) = match command.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, arg.trim()),
        None => (command.trim(), ""),
    };
    let op = match name {
        "help" => {
            app.notice(NoticeLevel::Info, &help_text());
            return;
        }
        "new" => Op::NewSession,
        "resume" => Op::ListSessions { all_cwds: false },
        "sessions" => Op::ListSessions { all_cwds: true },
        "compact" => Op::Compact,
        "status" => Op::Status,
        "tools" => Op::Tools,
        "skills" => Op::Skills,
        "undo" => Op::Undo,
        "diff" => Op::Diff,
        "permissions" => Op::Permissions,
        "model" if arg.is_empty() => {
            app.notice(NoticeLevel::Warn, "usage: /model NAME");
            return;
        }
        "model" => Op::SetModel(arg.to_string()),
        "title" if arg.is_empty() => {
            app.notice(NoticeLevel::Warn, "usage: /title TEXT");
            return;
        }
        "title" => Op::SetTitle(arg.to_string()),
        "export" => Op::Export((!arg.is_empty()).then(|| PathBuf::from(arg))),
        "quit" | "exit" => {
            app.request_quit();
            return;
        }
        other => {
            app.notice(
                NoticeLevel::Warn,
                &format!("unknown command /{other} — /help lists them"),
            );
            return;
        }
    };
    app.push_op(op);
}
