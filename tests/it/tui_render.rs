#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Snapshots of what the screen shows (committed scrollback above the live
//! area) for every cell kind and widget, at 40 and 200 columns.

use crate::tui_support;

use std::time::Duration;

use crossterm::event::KeyCode;
use light_agent::protocol::{AgentEvent, JobId, JobKind, JobUpdate, Meta, StopCause, ToolCall};
use light_agent::protocol::{
    HostEvent, McpServerRow, McpServerState, ModelChoice, Notice, NoticeLevel, Report,
    SessionHeader, SessionRow, SessionsReport, SkillRow, SkillsReport, StatusReport,
    StatusSnapshot, TokenTotals, ToolRow, TurnTokens,
};
use light_agent::tui::{App, TuiOptions};
use serde_json::json;
use tui_support::*;

const WIDTHS: [u16; 2] = [40, 200];

type Setup = dyn Fn(&mut App, std::time::Instant);

fn snap(name: &str, setup: impl Fn(&mut App, std::time::Instant)) {
    snap_with(name, TuiOptions::default(), setup);
}

fn snap_with(name: &str, opts: TuiOptions, setup: impl Fn(&mut App, std::time::Instant)) {
    snap_sized(name, opts, None, setup);
}

fn snap_sized(
    name: &str,
    opts: TuiOptions,
    rows: Option<u16>,
    setup: impl Fn(&mut App, std::time::Instant),
) {
    for width in WIDTHS {
        let height = rows.unwrap_or(if width == 40 { 24 } else { 16 });
        let (mut app, t0) = app_with(opts.clone(), width, height);
        input(&mut app, HostEvent::Status { status: status() });
        setup(&mut app, t0);
        let text = screen(&mut app, width, height);
        insta::assert_snapshot!(format!("{name}_{width}"), text);
    }
}

fn status() -> StatusSnapshot {
    StatusSnapshot {
        model: "claude-sonnet".into(),
        provider: "anthropic".into(),
        context_window: 200_000,
        window_tokens: 50_000,
        session_id: "5f3a9c21-77aa-4d1e".into(),
        permission_mode: Some(light_agent::protocol::PermissionMode::Ask),
        ..StatusSnapshot::default()
    }
}

fn start_turn(app: &mut App, prompt: &str) {
    type_text(app, prompt);
    key(app, KeyCode::Enter);
    turn_begins(app, 1, prompt);
}

#[test]
fn user_cell() {
    snap("user_cell", |app, _| {
        ev(
            app,
            user_input("Explain the parser module and list its public types, please"),
        );
        ev(app, stop(StopCause::Done));
    });
}

#[test]
fn cjk_prompt_and_composer() {
    snap("cjk_prompt", |app, _| {
        ev(
            app,
            user_input("请解释这个模块的作用，并列出所有公共类型和它们的用途"),
        );
        ev(app, stop(StopCause::Done));
        type_text(app, "继续：日本語のテキストも正しく折り返す");
    });
}

#[test]
fn thought_cell_live_and_collapsed() {
    snap("thought_live", |app, t0| {
        start_turn(app, "why?");
        stream_thought(
            app,
            "The user asks why.\nI should check the loop.\nThen the tools.\nAnd the summary.",
            2,
        );
        at(app, t0, 2.5);
    });
    snap("thought_done", |app, t0| {
        start_turn(app, "why?");
        stream_thought(
            app,
            "The user asks why.\nI should check the loop.\nThen the tools.",
            2,
        );
        at(app, t0, 4.0);
        stream_output(app, "Because the loop", 2);
    });
}

#[test]
fn output_cell_markdown() {
    let md = "# Parser\n\nThe **parser** turns `tokens` into a tree; see [docs](https://example.com/p).\n\n\
              - lexing\n- parsing\n  - recovery\n\n1. read\n2. build\n\n> quoted note\n\n\
              ```rust\nfn parse(s: &str) -> Tree {\n    todo!()\n}\n```\n\n| type | role |\n|---|---|\n| Tree | output |\n| Token | input |\n\n---\ndone";
    snap_sized(
        "output_markdown",
        TuiOptions::default(),
        Some(44),
        |app, _| {
            ev(app, user_input("describe"));
            ev(
                app,
                AgentEvent::Output {
                    text: md.into(),
                    meta: meta(),
                },
            );
            ev(app, stop(StopCause::Done));
        },
    );
}

#[test]
fn output_streaming_tail_is_live() {
    snap("output_streaming", |app, t0| {
        start_turn(app, "go");
        at(app, t0, 1.0);
        stream_output(app, "Line one is complete.\nLine two is still stre", 2);
    });
}

fn read_call() -> ToolCall {
    ToolCall {
        id: "c2".into(),
        name: "read_file".into(),
        args: json!({"path": "src/agent/loop.rs", "start_line": 10, "end_line": 80, "_intent": "read the loop body"}),
    }
}

#[test]
fn tool_panes_running_done_and_failed() {
    snap("tool_running", |app, t0| {
        start_turn(app, "find main");
        ev(
            app,
            AgentEvent::ToolCalls {
                calls: vec![grep_call("c1"), read_call()],
                meta: meta(),
            },
        );
        at(app, t0, 0.4);
    });
    snap("tool_done", |app, t0| {
        start_turn(app, "find main");
        ev(
            app,
            AgentEvent::ToolCalls {
                calls: vec![grep_call("c1"), read_call()],
                meta: meta(),
            },
        );
        at(app, t0, 0.3);
        let hits: Vec<String> = (1..=9)
            .map(|i| format!("src/mod{i}.rs:{i}: fn main() {{}}"))
            .collect();
        ev(app, result("c1", "grep", &hits.join("\n"), false));
        at(app, t0, 0.6);
        ev(
            app,
            result(
                "c2",
                "read_file",
                "[what]: <path is outside the working directory; refused>\n[path]: ../x",
                true,
            ),
        );
    });
    snap("tool_tree", |app, _| {
        ev(app, user_input("layout"));
        ev(
            app,
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: "t".into(),
                    name: "tree".into(),
                    args: json!({"path": "src", "_intent": "see the layout"}),
                }],
                meta: meta(),
            },
        );
        ev(
            app,
            result("t", "tree", "- src\n  - main.rs | size: 10 bytes", false),
        );
        ev(app, stop(StopCause::Done));
    });
}

#[test]
fn notices() {
    snap("notices", |app, _| {
        start_turn(app, "go");
        input(
            app,
            HostEvent::Notice {
                op: None,
                notice: Notice::Retrying {
                    attempt: 2,
                    delay: Duration::from_secs(4),
                    message: "429 rate limited".into(),
                },
            },
        );
        ev(app, stop(StopCause::User));
        ev(
            app,
            AgentEvent::AgentSummary {
                text: "summary".into(),
                covers_through: Meta::new(3, 2),
                meta: meta(),
            },
        );
        input(
            app,
            HostEvent::Notice {
                op: None,
                notice: Notice::Message {
                    level: NoticeLevel::Error,
                    text: "storage failed: disk full".into(),
                },
            },
        );
        input(
            app,
            HostEvent::Notice {
                op: None,
                notice: Notice::Message {
                    level: NoticeLevel::Info,
                    text: "session 5f3a9c21 · model claude-sonnet\ncwd /repo".into(),
                },
            },
        );
        ev(
            app,
            AgentEvent::AgentStop {
                cause: StopCause::Llm,
                message: "401 invalid key".into(),
                meta: meta(),
            },
        );
    });
}

#[test]
fn status_line_states() {
    for width in WIDTHS {
        let mut all = String::new();
        let states: Vec<(&str, Box<Setup>)> = vec![
            ("idle", Box::new(|_, _| {})),
            (
                "thinking",
                Box::new(|app, t0| {
                    start_turn(app, "q");
                    at(app, t0, 1.5);
                }),
            ),
            (
                "streaming",
                Box::new(|app, t0| {
                    start_turn(app, "q");
                    stream_output(app, "abc", 2);
                    at(app, t0, 12.0);
                }),
            ),
            (
                "running_tools",
                Box::new(|app, t0| {
                    start_turn(app, "q");
                    ev(
                        app,
                        AgentEvent::ToolCalls {
                            calls: vec![grep_call("a"), read_call()],
                            meta: meta(),
                        },
                    );
                    at(app, t0, 75.0);
                }),
            ),
            (
                "retrying",
                Box::new(|app, t0| {
                    start_turn(app, "q");
                    input(
                        app,
                        HostEvent::Notice {
                            op: None,
                            notice: Notice::Retrying {
                                attempt: 3,
                                delay: Duration::from_secs(8),
                                message: "overloaded".into(),
                            },
                        },
                    );
                    at(app, t0, 9.0);
                }),
            ),
            (
                "queued",
                Box::new(|app, t0| {
                    start_turn(app, "q");
                    type_text(app, "next one");
                    key(app, KeyCode::Enter);
                    job_queued(app, 2, "next one");
                    type_text(app, "and another");
                    key(app, KeyCode::Enter);
                    job_queued(app, 3, "and another");
                    at(app, t0, 3.0);
                }),
            ),
            (
                "compacting",
                Box::new(|app, t0| {
                    input(
                        app,
                        HostEvent::Job {
                            op: None,
                            update: JobUpdate::Started {
                                id: JobId(1),
                                kind: JobKind::Compact,
                            },
                        },
                    );
                    at(app, t0, 4.0);
                }),
            ),
            (
                "tokens",
                Box::new(|app, _| {
                    input(
                        app,
                        HostEvent::SessionTokens {
                            tokens: TokenTotals {
                                input: 123_456,
                                output: 7_890,
                                cached: 100_000,
                            },
                        },
                    );
                }),
            ),
        ];
        for (name, setup) in states {
            let (mut app, t0) = app(width, 12);
            let mut s = status();
            s.window_tokens = if name == "queued" { 185_000 } else { 50_000 };
            input(&mut app, HostEvent::Status { status: s });
            setup(&mut app, t0);
            let text = screen(&mut app, width, 12);
            let last = text
                .lines()
                .find(|l| l.contains("% "))
                .unwrap_or_default()
                .to_string();
            all.push_str(&format!("{name:>14}: {last}\n"));
        }
        insta::assert_snapshot!(format!("status_line_{width}"), all);
    }
}

#[test]
fn slash_popup() {
    snap("slash_popup", |app, _| {
        type_text(app, "/s");
    });
}

#[test]
fn resume_picker() {
    snap("resume_picker", |app, _| {
        let row = |id: &str, title: &str, hours: u64, turns: u64| SessionRow {
            id: id.into(),
            title: title.into(),
            cwd: "/repo".into(),
            updated_at: NOW_MS - hours * 3_600_000,
            turns,
        };
        input(
            app,
            HostEvent::Sessions {
                rows: vec![
                    row(
                        "aaaa1111-2222",
                        "Fix the streaming parser when chunks split UTF-8",
                        1,
                        12,
                    ),
                    row("bbbb2222-3333", "Write docs", 30, 3),
                    row("cccc3333-4444", "", 200, 1),
                ],
            },
        );
        key(app, KeyCode::Down);
    });
}

#[test]
fn session_header_and_missing_model() {
    let opts = TuiOptions {
        no_model_message: Some("no model configured: set LIGHT_AGENT_MODEL or [model] in ~/.config/light-agent/config.toml".into()),
        ..TuiOptions::default()
    };
    snap_with("session_header", opts, |app, _| {
        input(
            app,
            HostEvent::SessionOpened {
                header: SessionHeader {
                    id: "5f3a9c21-77aa-4d1e".into(),
                    title: "Parser work".into(),
                    updated_at: NOW_MS - 5 * 60_000,
                    turns: 7,
                    note: Some(
                        "the latest session is open in another process; started a new one".into(),
                    ),
                },
                recent: vec![
                    user_input("where is main?"),
                    AgentEvent::Thought {
                        text: "Search for fn main.".into(),
                        meta: meta(),
                    },
                    AgentEvent::ToolCalls {
                        calls: vec![grep_call("g1")],
                        meta: meta(),
                    },
                    result("g1", "grep", "src/main.rs:1: fn main() {}", false),
                    AgentEvent::Output {
                        text: "In `src/main.rs`.".into(),
                        meta: meta(),
                    },
                    stop(StopCause::Done),
                ],
            },
        );
    });
}

fn tokens(input: u64, output: u64, cached: u64) -> TokenTotals {
    TokenTotals {
        input,
        output,
        cached,
    }
}

#[test]
fn status_report() {
    snap_sized(
        "status_report",
        TuiOptions::default(),
        Some(36),
        |app, _| {
            let turns = (1..=12)
                .map(|turn| TurnTokens {
                    turn,
                    calls: if turn == 12 { 1 } else { 3 },
                    tokens: tokens(4_000 * turn, 300 + turn, 2_000 * turn),
                })
                .collect();
            input(
                app,
                HostEvent::Report {
                    report: Report::Status(StatusReport {
                        session_id: "sess_0mh1x2y3znd9uk3qe".into(),
                        title: "Parser work".into(),
                        cwd: "/home/me/repo".into(),
                        model: "claude-sonnet".into(),
                        provider: "anthropic".into(),
                        base_url: "https://api.anthropic.com".into(),
                        context_window: 200_000,
                        window_tokens: 50_000,
                        turns,
                        database: "/home/me/.local/share/light-agent/sessions.sqlite3".into(),
                    }),
                },
            );
        },
    );
}

#[test]
fn tools_report() {
    snap("tools_report", |app, _| {
        let tool = |name: &str, description: &str| ToolRow {
            name: name.into(),
            description: description.into(),
        };
        input(
            app,
            HostEvent::Report {
                report: Report::Tools(vec![
                    tool(
                        "tree",
                        "List files under a directory, honouring .gitignore.\nMore.",
                    ),
                    tool("grep", "Search files for fixed strings."),
                    tool("read_file", "Read a file or a window of its lines."),
                    tool(
                        "recall_indexed",
                        "Return the full result of an earlier tool call.",
                    ),
                ]),
            },
        );
    });
}

#[test]
fn mcp_report() {
    snap("mcp_report", |app, _| {
        let row =
            |name: &str, state, tools, error: Option<&str>, minutes: Option<u64>| McpServerRow {
                name: name.into(),
                state,
                tools,
                error: error.map(Into::into),
                started_at: minutes.map(|m| NOW_MS - m * 60_000),
            };
        input(
            app,
            HostEvent::Report {
                report: Report::Mcp(vec![
                    row("docs", McpServerState::Ready, 12, None, Some(5)),
                    row(
                        "github",
                        McpServerState::Failed,
                        0,
                        Some("no answer within 30 s (startup_timeout_sec)"),
                        Some(90),
                    ),
                    row("browser", McpServerState::Starting, 0, None, Some(0)),
                    row("old", McpServerState::Disabled, 0, None, None),
                ]),
            },
        );
    });
}

#[test]
fn skills_report() {
    snap("skills_report", |app, _| {
        input(
            app,
            HostEvent::Report {
                report: Report::Skills(SkillsReport {
                    skills: vec![
                        SkillRow {
                            name: "release".into(),
                            description: "Cut a release: changelog, tag, publish.".into(),
                        },
                        SkillRow {
                            name: "bench".into(),
                            description: "Run the benchmarks and update PERFORMANCE.md.".into(),
                        },
                    ],
                    search_dirs: vec![
                        ".agents/skills".into(),
                        "/home/me/.config/light-agent/skills".into(),
                    ],
                }),
            },
        );
        input(
            app,
            HostEvent::Report {
                report: Report::Skills(SkillsReport {
                    skills: vec![],
                    search_dirs: vec![".agents/skills".into()],
                }),
            },
        );
    });
}

#[test]
fn sessions_report() {
    snap_sized(
        "sessions_report",
        TuiOptions::default(),
        Some(30),
        |app, _| {
            let row = |id: &str, title: &str, cwd: &str, hours: u64| SessionRow {
                id: id.into(),
                title: title.into(),
                cwd: cwd.into(),
                updated_at: NOW_MS - hours * 3_600_000,
                turns: hours,
            };
            input(
                app,
                HostEvent::Report {
                    report: Report::Sessions(SessionsReport {
                        cwd: "/home/me/repo".into(),
                        current_id: "sess_0mh1x2y3znd9uk3qe".into(),
                        rows: vec![
                            row("sess_0mh1x2y3znd9uk3qe", "Parser work", "/home/me/repo", 1),
                            row("sess_0mh1x2y3a7b2c4d5e", "", "/home/me/repo", 5),
                            row("sess_0mh1x2y3kq8zz01xy", "Docs site", "/home/me/site", 30),
                        ],
                    }),
                },
            );
        },
    );
}

#[test]
fn model_picker() {
    snap("model_picker", |app, _| {
        let choice = |provider: &str, model: &str| ModelChoice {
            provider: provider.into(),
            model: model.into(),
        };
        input(
            app,
            HostEvent::Models {
                models: vec![
                    choice("anthropic", "claude-sonnet"),
                    choice("openai", "gpt-5"),
                    choice("ollama", "qwen3:32b"),
                ],
            },
        );
        key(app, KeyCode::Down);
    });
}
/// A table as a model writes one: long prose in one column, short values in
/// the others. It must fit at every width, rules intact, cell text wrapped
/// inside its cell (a `TestBackend` of exactly that width, one screen).
#[test]
fn table_fits_at_40_60_80_and_120_columns() {
    use light_agent::tui::stream::MarkdownStream;
    use light_agent::tui::view::output_cell;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Paragraph;

    const TABLE: &str = "| module | what it does | lines |\n\
        |---|---|---|\n\
        | `stream.rs` | commits a streamed answer in complete lines, each rendered once | 280 |\n\
        | `table.rs` | lays tables out for the width there is | 190 |\n\
        | `inline_terminal.rs` | draws the live area below the scrollback without cursor queries | 400 |\n\n";
    for width in [40u16, 60, 80, 120] {
        let lines = output_cell::wrap(MarkdownStream::render_all_for(TABLE, width), width);
        let height = lines.len() as u16;
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal
            .draw(|f| f.render_widget(Paragraph::new(lines.clone()), f.area()))
            .unwrap();
        for line in &lines {
            let text = light_agent::tui::wrap::plain(line);
            assert!(
                light_agent::tui::wrap::display_width(&text) <= width as usize,
                "{text:?} is wider than {width}"
            );
        }
        insta::assert_snapshot!(format!("table_{width}"), terminal.backend().to_string());
    }
}

fn plan() -> light_agent::protocol::Plan {
    serde_json::from_value(json!({"plan": [
        {"step": "Find every caller of parse_config", "status": "completed"},
        {"step": "Rename it to load_config across the crate", "status": "in_progress"},
        {"step": "Run cargo test", "status": "pending"}]}))
    .unwrap()
}

#[test]
fn plan_pinned_above_the_composer() {
    snap("plan_pinned", |app, _| {
        input(app, HostEvent::Plan { plan: plan() });
        type_text(app, "and then?");
    });
}

#[test]
fn plan_folded_by_ctrl_p() {
    snap("plan_folded", |app, _| {
        input(app, HostEvent::Plan { plan: plan() });
        key_mod(
            app,
            KeyCode::Char('p'),
            crossterm::event::KeyModifiers::CONTROL,
        );
    });
}

#[test]
fn question_overlay() {
    snap("question_overlay", |app, _| {
        input(
            app,
            HostEvent::QuestionAsked {
                id: light_agent::protocol::OpId::new("question-1"),
                questions: vec![light_agent::protocol::Question {
                    question: "Which database should the service use?".into(),
                    options: vec!["sqlite".into(), "postgres".into()],
                }],
            },
        );
        type_text(app, "mysq");
    });
}

const THREE_LINE_DIFF: &str = "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,2 +1,2 @@\n fn main() {\n-    old();\n+    new();\n";

#[test]
fn an_applied_edit_previews_its_change() {
    snap("edit_applied", |app, _| {
        ev(app, user_input("rename"));
        ev(
            app,
            AgentEvent::ToolCalls {
                calls: vec![ToolCall {
                    id: "e".into(),
                    name: "edit".into(),
                    args: json!({"path": "src/main.rs", "_intent": "call new"}),
                }],
                meta: meta(),
            },
        );
        ev(
            app,
            AgentEvent::ToolResult {
                outcome: light_agent::protocol::ToolOutcome {
                    id: "e".into(),
                    name: "edit".into(),
                    // What the model gets: a numbered excerpt around the change.
                    result:
                        "[what]: edit applied\n[content]:\n1 | fn main() {\n2 |     new();\n3 | }"
                            .into(),
                    is_error: false,
                    display: Some(THREE_LINE_DIFF.into()),
                },
                meta: meta(),
            },
        );
        ev(app, stop(StopCause::Done));
    });
    let (mut app, _) = app(80, 24);
    input(&mut app, HostEvent::Status { status: status() });
    ev(&mut app, user_input("rename"));
    ev(
        &mut app,
        AgentEvent::ToolCalls {
            calls: vec![ToolCall {
                id: "e".into(),
                name: "edit".into(),
                args: json!({"path": "src/main.rs"}),
            }],
            meta: meta(),
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolResult {
            outcome: light_agent::protocol::ToolOutcome {
                id: "e".into(),
                name: "edit".into(),
                result: "[what]: edit applied\n[content]:\n1 | fn main() {".into(),
                is_error: false,
                display: Some(THREE_LINE_DIFF.into()),
            },
            meta: meta(),
        },
    );
    let text = screen(&mut app, 80, 24);
    assert!(text.contains("│ -    old();"), "{text}");
    assert!(text.contains("│ +    new();"), "{text}");
    assert!(
        !text.contains("1 | fn main"),
        "the model's excerpt is not the preview: {text}"
    );
}

#[test]
fn the_approval_overlay_of_a_short_diff_takes_only_its_rows() {
    let request = light_agent::protocol::ApprovalRequest {
        call_id: "e".into(),
        tool: "edit".into(),
        title: "edit src/main.rs (+1 −1)".into(),
        detail: light_agent::protocol::ApprovalDetail::Diff {
            unified: THREE_LINE_DIFF.into(),
        },
    };
    let ask = |app: &mut App| {
        input(
            app,
            HostEvent::ApprovalRequested {
                id: light_agent::protocol::OpId::new("approval-1"),
                request: request.clone(),
            },
        )
    };
    snap("approval_short_diff", |app, _| ask(app));
    let (mut app, _) = app(80, 24);
    input(&mut app, HostEvent::Status { status: status() });
    ask(&mut app);
    let text = screen(&mut app, 80, 24);
    let rows: Vec<&str> = text.lines().collect();
    let title = rows.iter().position(|r| r.contains("approve?")).unwrap();
    let keys = rows
        .iter()
        .position(|r| r.contains("deny (reason)"))
        .unwrap();
    let diff_rows = THREE_LINE_DIFF.lines().count();
    assert_eq!(keys - title - 1, diff_rows, "{text}");
    let last = rows.iter().rposition(|r| !r.trim().is_empty()).unwrap();
    assert_eq!(
        last - title + 1,
        diff_rows + 3,
        "title, diff, keys and the status line, no blank rows: {text}"
    );
}

fn workspace_listing() -> HostEvent {
    use light_agent::protocol::EntryKind;
    listing(&[
        ("docs/guide.md", EntryKind::File),
        ("src/main.rs", EntryKind::File),
        ("src/tui/mention.rs", EntryKind::File),
        ("docs/", EntryKind::Directory),
        ("src/", EntryKind::Directory),
        ("leak.txt", EntryKind::Refused),
    ])
}

#[test]
fn at_picker_lists_matches_with_folders_and_refused_links_marked() {
    snap("at_picker", |app, _| {
        type_text(app, "explain @");
        input(app, workspace_listing());
    });
    snap("at_picker_narrowed", |app, _| {
        type_text(app, "explain @");
        input(app, workspace_listing());
        type_text(app, "s");
        key(app, KeyCode::Down);
    });
}

#[test]
fn a_mention_that_will_not_be_sent_is_named_above_the_composer() {
    snap("at_mention_refused", |app, _| {
        input(app, workspace_listing());
        type_text(app, "read @leak.txt and @src/ please");
    });
}

/// The picker's rows alone, on a `TestBackend` of 60 columns.
#[test]
fn at_picker_rows_on_a_test_backend() {
    use light_agent::protocol::{EntryKind, WorkspaceEntry};
    use light_agent::tui::view::file_picker::{PickerView, lines};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Paragraph;

    let entry = |path: &str, kind| WorkspaceEntry {
        path: path.into(),
        kind,
    };
    let matches = [
        entry("src/main.rs", EntryKind::File),
        entry("src/", EntryKind::Directory),
        entry("leak.txt", EntryKind::Refused),
        entry(
            "a/very/long/path/that/does/not/fit/in/sixty/columns/at/all.rs",
            EntryKind::File,
        ),
    ];
    let view = PickerView {
        matches: &matches,
        selected: 1,
        loaded: true,
        truncated: false,
    };
    let rows = lines(&view, 60);
    let mut terminal = Terminal::new(TestBackend::new(60, rows.len() as u16)).unwrap();
    terminal
        .draw(|f| f.render_widget(Paragraph::new(rows.clone()), f.area()))
        .unwrap();
    insta::assert_snapshot!("at_picker_rows_60", terminal.backend().to_string());
    let empty = PickerView {
        matches: &[],
        selected: 0,
        loaded: false,
        truncated: false,
    };
    let waiting = lines(&empty, 60);
    assert_eq!(
        light_agent::tui::wrap::plain(&waiting[0]),
        "  listing files…"
    );
}
