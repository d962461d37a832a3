#![allow(clippy::unwrap_used, clippy::expect_used)]
//! View-model harness: event sequences in, ops and committed lines out.

use crate::tui_support;

use std::time::Instant;

use crossterm::event::{Event, KeyCode, KeyModifiers};
use light_agent::protocol::{AgentEvent, JobId, JobUpdate, OpId, StopCause, WithdrawnPrompt};
use light_agent::protocol::{HostEvent, ModelChoice, Notice, Op, ReportKind, SessionRow};
use light_agent::tui::view::status_line::Activity;
use light_agent::tui::{AppMsg, TuiOptions};

fn model(name: &str) -> ModelChoice {
    ModelChoice {
        provider: String::new(),
        model: name.into(),
    }
}
use tui_support::*;

#[test]
fn typing_and_enter_sends_a_prompt_and_the_turn_streams_into_scrollback() {
    let (mut app, t0) = app(60, 20);
    type_text(&mut app, "hello");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::Prompt {
            parts: vec![],
            text: "hello".into()
        }]
    );
    assert_eq!(app.composer_text(), "");
    assert_eq!(
        app.activity(),
        Activity::Idle,
        "running only once the runtime says so"
    );

    turn_begins(&mut app, 1, "hello");
    assert_eq!(app.activity(), Activity::Thinking);
    assert_eq!(committed(&mut app), ["› hello"]);
    stream_thought(&mut app, "Look for main.\nThen answer.", 2);
    assert!(
        committed(&mut app).is_empty(),
        "thoughts stay live while streaming"
    );
    at(&mut app, t0, 3.0);
    stream_output(&mut app, "First line.\nSecond", 2);
    assert_eq!(
        committed(&mut app),
        [
            "",
            "• thought for 3.0s",
            "  Look for main.",
            "  Then answer.",
            "",
            "First line."
        ]
    );
    stream_output(&mut app, " line.", 2);
    assert!(
        committed(&mut app).is_empty(),
        "an incomplete line is never committed"
    );
    ev(
        &mut app,
        AgentEvent::Output {
            text: "First line.\nSecond line.".into(),
            meta: meta(),
        },
    );
    ev(
        &mut app,
        AgentEvent::Thought {
            text: "Look for main.\nThen answer.".into(),
            meta: meta(),
        },
    );
    assert_eq!(
        committed(&mut app),
        ["Second line."],
        "the full thought is not printed twice"
    );
    ev(&mut app, stop(StopCause::Done));
    job_ended(&mut app, 1, StopCause::Done);
    assert_eq!(app.activity(), Activity::Idle);
    assert!(!app.is_busy());
    assert!(committed(&mut app).is_empty());
}

#[test]
fn hundred_thousand_deltas_commit_exactly_the_full_text() {
    let paragraph = |i: usize| {
        format!("Paragraph {i} says something useful.\nIt has a second line, number {i}.\n\n")
    };
    let mut text = String::new();
    let mut n = 0;
    while text.chars().count() < 200_000 {
        text.push_str(&paragraph(n));
        n += 1;
    }
    let text: String = text.chars().take(200_000).collect();
    let (mut streamed, _) = app(120, 30);
    ev(&mut streamed, user_input("go"));
    streamed.take_committed();
    let started = Instant::now();
    stream_output(&mut streamed, &text, 2);
    ev(
        &mut streamed,
        AgentEvent::Output {
            text: text.clone(),
            meta: meta(),
        },
    );
    println!("100k deltas processed in {:?}", started.elapsed());
    let streamed_lines = committed(&mut streamed);

    let (mut one_shot, _) = app(120, 30);
    ev(&mut one_shot, user_input("go"));
    one_shot.take_committed();
    ev(
        &mut one_shot,
        AgentEvent::Output {
            text: text.clone(),
            meta: meta(),
        },
    );
    assert_eq!(streamed_lines, committed(&mut one_shot));

    let expected: Vec<&str> = text.trim_end().lines().collect();
    assert_eq!(
        streamed_lines[0], "",
        "a blank line separates the answer from the prompt"
    );
    assert_eq!(streamed_lines[1..], expected[..]);
}

#[test]
fn esc_while_running_interrupts_and_the_stop_makes_the_ui_idle() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "go");
    key(&mut app, KeyCode::Enter);
    turn_begins(&mut app, 1, "go");
    stream_output(&mut app, "partial answ", 2);
    ops(&mut app);
    key(&mut app, KeyCode::Esc);
    assert_eq!(ops(&mut app), [Op::Interrupt]);
    app.take_committed();
    ev(
        &mut app,
        AgentEvent::AgentStop {
            cause: StopCause::User,
            message: "interrupted by user".into(),
            meta: meta(),
        },
    );
    job_ended(&mut app, 1, StopCause::User);
    assert_eq!(app.activity(), Activity::Idle);
    assert_eq!(
        committed(&mut app),
        ["", "partial answ", "", "⚠ interrupted"]
    );
    key(&mut app, KeyCode::Esc);
    assert!(ops(&mut app).is_empty(), "Esc when idle sends nothing");
}

#[test]
fn prompts_sent_while_running_show_as_queued_until_their_job_starts() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "first");
    key(&mut app, KeyCode::Enter);
    turn_begins(&mut app, 1, "first");
    type_text(&mut app, "second");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [
            Op::Prompt {
                parts: vec![],
                text: "first".into()
            },
            Op::Prompt {
                parts: vec![],
                text: "second".into()
            }
        ]
    );
    assert!(app.queued().is_empty(), "queued once the runtime says so");
    job_queued(&mut app, 2, "second");
    assert_eq!(app.queued(), ["second"]);
    assert!(screen(&mut app, 60, 20).contains("queued › second"));
    ev(&mut app, stop(StopCause::Done));
    job_ended(&mut app, 1, StopCause::Done);
    job_started(&mut app, 2);
    assert!(app.queued().is_empty());
    assert_eq!(app.activity(), Activity::Thinking);
}

#[test]
fn the_same_text_queued_twice_is_told_apart_by_id() {
    let (mut app, _) = app(60, 20);
    turn_begins(&mut app, 1, "first");
    job_queued(&mut app, 2, "again");
    job_queued(&mut app, 3, "again");
    job_ended(&mut app, 1, StopCause::Done);
    job_started(&mut app, 3);
    assert_eq!(app.queued(), ["again"]);
    input(
        &mut app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Withdrawn {
                prompts: vec![WithdrawnPrompt {
                    id: JobId(2),
                    text: "again".into(),
                }],
            },
        },
    );
    assert!(app.queued().is_empty());
}

#[test]
fn queued_prompts_withdrawn_after_an_interrupt_fill_the_composer() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "first");
    key(&mut app, KeyCode::Enter);
    turn_begins(&mut app, 1, "first");
    type_text(&mut app, "second");
    key(&mut app, KeyCode::Enter);
    job_queued(&mut app, 2, "second");
    type_text(&mut app, "draft");
    ev(&mut app, stop(StopCause::User));
    input(
        &mut app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Withdrawn {
                prompts: vec![WithdrawnPrompt {
                    id: JobId(2),
                    text: "second".into(),
                }],
            },
        },
    );
    assert!(app.queued().is_empty());
    assert_eq!(app.composer_text(), "second\ndraft");
}

#[test]
fn up_on_an_empty_composer_takes_the_last_queued_prompt_back() {
    let (mut app, _) = app(60, 20);
    turn_begins(&mut app, 1, "first");
    job_queued(&mut app, 2, "second");
    job_queued(&mut app, 3, "third");
    ops(&mut app);
    key(&mut app, KeyCode::Up);
    assert_eq!(ops(&mut app), [Op::Withdraw { job: JobId(3) }]);
    input(
        &mut app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Withdrawn {
                prompts: vec![WithdrawnPrompt {
                    id: JobId(3),
                    text: "third".into(),
                }],
            },
        },
    );
    assert_eq!(app.composer_text(), "third");
    assert_eq!(app.queued(), ["second"]);
}

#[test]
fn a_rejected_prompt_comes_back_with_the_reason_and_the_ui_stays_idle() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "hello?");
    key(&mut app, KeyCode::Enter);
    assert!(app.is_busy(), "Esc interrupts until the runtime answers");
    input(
        &mut app,
        HostEvent::PromptRejected {
            op: OpId::new("op-1"),
            text: "hello?".into(),
            reason: "No model is configured".into(),
        },
    );
    assert!(!app.is_busy());
    assert_eq!(app.activity(), Activity::Idle);
    assert_eq!(app.composer_text(), "hello?");
    assert!(committed(&mut app).contains(&"✗ No model is configured".to_string()));
    ops(&mut app);
    key(&mut app, KeyCode::Esc);
    assert!(ops(&mut app).is_empty());
}

#[test]
fn esc_right_after_enter_interrupts_before_the_job_is_reported() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "go");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert_eq!(
        ops(&mut app),
        [
            Op::Prompt {
                parts: vec![],
                text: "go".into()
            },
            Op::Interrupt
        ]
    );
}

#[test]
fn ctrl_c_interrupts_then_clears_then_quits_on_a_second_press() {
    let (mut app, t0) = app(60, 20);
    type_text(&mut app, "go");
    key(&mut app, KeyCode::Enter);
    turn_begins(&mut app, 1, "go");
    ops(&mut app);
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(ops(&mut app), [Op::Interrupt]);
    ev(&mut app, stop(StopCause::User));
    job_ended(&mut app, 1, StopCause::User);
    at(&mut app, t0, 2.0);
    type_text(&mut app, "text");
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(app.composer_text(), "");
    assert!(!app.should_quit());
    at(&mut app, t0, 4.0);
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(
        !app.should_quit(),
        "a single press on an empty composer only warns"
    );
    at(&mut app, t0, 4.5);
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.should_quit());
}

#[test]
fn ctrl_d_quits_only_on_an_empty_composer() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "x");
    key_mod(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL);
    assert!(!app.should_quit());
    key(&mut app, KeyCode::Backspace);
    key_mod(&mut app, KeyCode::Char('d'), KeyModifiers::CONTROL);
    assert!(app.should_quit());
}

#[test]
fn newline_keys_break_lines_and_paste_is_one_block() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "a");
    key_mod(&mut app, KeyCode::Enter, KeyModifiers::ALT);
    type_text(&mut app, "b");
    key_mod(&mut app, KeyCode::Enter, KeyModifiers::SHIFT);
    type_text(&mut app, "c");
    key_mod(&mut app, KeyCode::Char('j'), KeyModifiers::CONTROL);
    app.update(AppMsg::Terminal(Event::Paste("x\r\ny".into())));
    assert_eq!(app.composer_text(), "a\nb\nc\nx\ny");
    assert!(ops(&mut app).is_empty());
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::Prompt {
            parts: vec![],
            text: "a\nb\nc\nx\ny".into()
        }]
    );
}

#[test]
fn slash_commands_become_ops() {
    let (mut app, _) = app(60, 20);
    let cases: Vec<(&str, Op)> = vec![
        ("/new", Op::NewSession),
        ("/clear", Op::NewSession),
        ("/compact", Op::Compact),
        (
            "/model gpt-x",
            Op::SetModel {
                choice: model("gpt-x"),
            },
        ),
        ("/model", Op::ListModels),
        (
            "/status",
            Op::Report {
                kind: ReportKind::Status,
            },
        ),
        (
            "/tools",
            Op::Report {
                kind: ReportKind::Tools,
            },
        ),
        (
            "/skills",
            Op::Report {
                kind: ReportKind::Skills,
            },
        ),
        (
            "/title Fix the parser",
            Op::SetTitle {
                title: "Fix the parser".into(),
            },
        ),
        ("/export", Op::Export { path: None }),
        (
            "/export out.md",
            Op::Export {
                path: Some("out.md".into()),
            },
        ),
        (
            "/sessions",
            Op::Report {
                kind: ReportKind::Sessions,
            },
        ),
        ("/resume", Op::PickSession),
        (
            "/resume nd9u",
            Op::Resume {
                session: "nd9u".into(),
            },
        ),
        (
            "/mcp",
            Op::Report {
                kind: ReportKind::Mcp,
            },
        ),
        (
            "/mcp restart docs",
            Op::RestartMcp {
                server: "docs".into(),
            },
        ),
        ("/mcp accept", Op::DecideProjectMcp { accept: true }),
        ("/mcp decline", Op::DecideProjectMcp { accept: false }),
        ("/hooks", Op::Hooks),
        ("/hooks accept", Op::DecideProjectHooks { accept: true }),
        ("/hooks decline", Op::DecideProjectHooks { accept: false }),
        ("/agents", Op::Agents),
        ("/agents accept", Op::DecideProjectAgents { accept: true }),
        ("/agents decline", Op::DecideProjectAgents { accept: false }),
        (
            "/commands accept",
            Op::DecideProjectCommands { accept: true },
        ),
        (
            "/commands decline",
            Op::DecideProjectCommands { accept: false },
        ),
    ];
    for (text, op) in cases {
        type_text(&mut app, text);
        key(&mut app, KeyCode::Enter);
        assert_eq!(ops(&mut app), [op], "{text}");
    }
    type_text(&mut app, "/comp");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::Compact],
        "Enter runs the selected completion"
    );
    type_text(&mut app, "/mo");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.composer_text(), "/model ");
    type_text(&mut app, "m2");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::SetModel {
            choice: model("m2")
        }]
    );
    type_text(&mut app, "/quit");
    key(&mut app, KeyCode::Enter);
    assert!(app.should_quit());
}

#[test]
fn the_resume_picker_filters_and_resumes_the_chosen_session() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "/resume");
    key(&mut app, KeyCode::Enter);
    assert_eq!(ops(&mut app), [Op::PickSession]);
    let row = |id: &str, title: &str| SessionRow {
        id: id.into(),
        title: title.into(),
        cwd: "/repo".into(),
        updated_at: NOW_MS - 3_600_000,
        turns: 3,
    };
    input(
        &mut app,
        HostEvent::Sessions {
            rows: vec![row("aaaa1111", "fix parser"), row("bbbb2222", "write docs")],
        },
    );
    type_text(&mut app, "docs");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::Resume {
            session: "bbbb2222".into()
        }]
    );
    assert_eq!(app.composer_text(), "", "typing went to the filter");
}

#[test]
fn up_recalls_earlier_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let opts = TuiOptions {
        history_path: Some(dir.path().join("history.jsonl")),
        ..TuiOptions::default()
    };
    let (mut app, _) = app_with(opts.clone(), 60, 20);
    type_text(&mut app, "earlier");
    key(&mut app, KeyCode::Enter);
    let (mut app, _) = app_with(opts, 60, 20);
    key(&mut app, KeyCode::Up);
    assert_eq!(app.composer_text(), "earlier");
}

#[test]
fn tool_panes_commit_in_call_order_with_intent_args_and_preview() {
    let (mut app, t0) = app(80, 20);
    ev(&mut app, user_input("q"));
    app.take_committed();
    let mut second = grep_call("c2");
    second.name = "read_file".into();
    second.args = serde_json::json!({"path": "src/main.rs", "start_line": 1, "end_line": 40});
    ev(
        &mut app,
        AgentEvent::ToolCalls {
            calls: vec![grep_call("c1"), second],
            meta: meta(),
        },
    );
    assert_eq!(app.activity(), Activity::RunningTools(2));
    at(&mut app, t0, 0.5);
    ev(&mut app, result("c2", "read_file", "fn main() {}", false));
    assert!(
        committed(&mut app).is_empty(),
        "the second pane waits for the first"
    );
    assert_eq!(app.activity(), Activity::RunningTools(1));
    at(&mut app, t0, 1.2);
    let lines: Vec<String> = (1..=8).map(|i| format!("src/f{i}.rs:1: hit")).collect();
    ev(&mut app, result("c1", "grep", &lines.join("\n"), false));
    assert_eq!(
        committed(&mut app),
        [
            "",
            "✓ grep \"fn main\", \"Tool\" in src · 1.2s",
            "  ↳ find the entry point",
            "  │ src/f1.rs:1: hit",
            "  │ src/f2.rs:1: hit",
            "  │ src/f3.rs:1: hit",
            "  │ src/f4.rs:1: hit",
            "  │ src/f5.rs:1: hit",
            "  │ +3 lines",
            "",
            "✓ read_file src/main.rs:1-40 · 0.5s",
            "  │ fn main() {}",
        ]
    );
    assert_eq!(app.activity(), Activity::Thinking);
}

#[test]
fn a_resumed_session_prints_its_header_and_recent_turns() {
    let (mut app, _) = app(60, 20);
    let header = light_agent::protocol::SessionHeader {
        id: "0123456789abcdef".into(),
        title: "Parser work".into(),
        updated_at: NOW_MS - 2 * 86_400_000,
        turns: 4,
        note: None,
    };
    let recent = vec![
        user_input("what is here?"),
        AgentEvent::Output {
            text: "A **parser**.".into(),
            meta: meta(),
        },
        stop(StopCause::Done),
    ];
    input(&mut app, HostEvent::SessionOpened { header, recent });
    assert_eq!(
        committed(&mut app),
        [
            "── Parser work · 89abcdef · 2d ago · 4 turns",
            "",
            "› what is here?",
            "",
            "A parser."
        ]
    );
    assert_eq!(app.activity(), Activity::Idle);
}

#[test]
fn a_hundred_thousand_line_transcript_opens_at_once() {
    let (mut app, _) = app(100, 40);
    let body: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
    ev(&mut app, user_input("dump"));
    ev(&mut app, result("c1", "tree", &body, false));
    ev(&mut app, stop(StopCause::Done));
    app.take_committed();
    let started = Instant::now();
    key_mod(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL);
    let text = screen(&mut app, 100, 40);
    let took = started.elapsed();
    println!("opened and drew a 100k-line transcript in {took:?}");
    assert!(app.overlay_open());
    assert!(text.contains("line 99999"), "{text}");
    key(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "line 5000");
    key(&mut app, KeyCode::Enter);
    let text = screen(&mut app, 100, 40);
    assert!(text.lines().any(|l| l == "line 5000"), "{text}");
    key(&mut app, KeyCode::Char('q'));
    assert!(!app.overlay_open());
}

#[test]
fn a_dropped_partial_answer_never_reaches_scrollback_and_the_retry_streams_afresh() {
    let (mut app, _) = app(60, 20);
    ev(&mut app, user_input("go"));
    committed(&mut app);
    stream_output(&mut app, "Shown line.\nnever fin", 3);
    assert_eq!(committed(&mut app), ["", "Shown line."]);
    input(
        &mut app,
        HostEvent::Notice {
            op: None,
            notice: Notice::PartialDropped,
        },
    );
    let notice = committed(&mut app).join("\n");
    assert!(notice.contains("cut off and is dropped"), "{notice}");
    assert!(!notice.contains("never fin"), "{notice}");
    stream_output(&mut app, "Whole answer.\n", 3);
    ev(
        &mut app,
        AgentEvent::Output {
            text: "Whole answer.\n".into(),
            meta: meta(),
        },
    );
    let after = committed(&mut app).join("\n");
    assert!(after.contains("Whole answer."), "{after}");
    assert!(!after.contains("never fin"), "{after}");
}

#[test]
fn up_and_down_walk_a_history_that_contains_a_slash_command() {
    let dir = tempfile::tempdir().unwrap();
    let opts = TuiOptions {
        history_path: Some(dir.path().join("history.jsonl")),
        ..TuiOptions::default()
    };
    let (mut app, _) = app_with(opts, 60, 20);
    for text in ["first prompt", "/status", "last prompt"] {
        type_text(&mut app, text);
        key(&mut app, KeyCode::Enter);
    }
    ops(&mut app);
    let mut seen = Vec::new();
    for _ in 0..3 {
        key(&mut app, KeyCode::Up);
        seen.push(app.composer_text());
    }
    assert_eq!(seen, ["last prompt", "/status", "first prompt"]);
    key(&mut app, KeyCode::Down);
    assert_eq!(app.composer_text(), "/status");
    key(&mut app, KeyCode::Down);
    assert_eq!(app.composer_text(), "last prompt");
    assert!(
        !screen(&mut app, 60, 20).contains("session, model, tokens"),
        "a recalled command does not open the popup"
    );
}

#[test]
fn esc_closes_the_slash_popup_and_keeps_the_text() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "/sta");
    assert!(screen(&mut app, 60, 20).contains("/status"));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.composer_text(), "/sta");
    assert!(!screen(&mut app, 60, 20).contains("session, model, tokens"));
    assert!(ops(&mut app).is_empty());
}

#[test]
fn ctrl_u_deletes_to_the_line_start() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "keep this");
    key_mod(&mut app, KeyCode::Char('w'), KeyModifiers::CONTROL);
    type_text(&mut app, "that");
    key_mod(&mut app, KeyCode::Char('b'), KeyModifiers::ALT);
    key_mod(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    assert_eq!(app.composer_text(), "that");
}

#[test]
fn a_long_paste_is_a_chip_and_the_prompt_carries_all_of_it() {
    let (mut app, _) = app(60, 20);
    let pasted: String = (1..=200).map(|i| format!("row {i}\n")).collect();
    type_text(&mut app, "summarise ");
    app.update(AppMsg::Terminal(Event::Paste(pasted.clone())));
    assert_eq!(app.composer_text(), "summarise [Pasted text #1 +200 lines]");
    assert!(screen(&mut app, 60, 20).contains("[Pasted text #1 +200 lines]"));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::Prompt {
            parts: vec![],
            text: format!("summarise {pasted}")
        }]
    );
}

#[test]
fn compact_reports_once_and_esc_cancels_it() {
    use light_agent::protocol::{JobKind, Meta};
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "/compact");
    key(&mut app, KeyCode::Enter);
    assert_eq!(ops(&mut app), [Op::Compact]);
    input(
        &mut app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Started {
                id: JobId(4),
                kind: JobKind::Compact,
            },
        },
    );
    assert_eq!(app.activity(), Activity::Compacting);
    key(&mut app, KeyCode::Esc);
    assert_eq!(ops(&mut app), [Op::Interrupt], "Esc cancels a compaction");
    ev(
        &mut app,
        AgentEvent::AgentSummary {
            text: "note".into(),
            covers_through: Meta::new(3, 2),
            meta: Meta::new(3, 2),
        },
    );
    input(
        &mut app,
        HostEvent::Job {
            op: None,
            update: JobUpdate::Ended {
                id: JobId(4),
                kind: JobKind::Compact,
                cause: StopCause::Done,
                message: "older steps were summarised".into(),
                window_tokens: 1200,
            },
        },
    );
    let lines = committed(&mut app);
    assert_eq!(
        lines,
        ["• context compacted (summary through turn 3 step 2)"],
        "one notice"
    );
    assert_eq!(app.activity(), Activity::Idle);
}

#[test]
fn traces_add_up_to_the_session_tokens_on_the_status_line() {
    use light_agent::protocol::Usage;
    let (mut app, _) = app(120, 20);
    let header = light_agent::protocol::SessionHeader {
        id: "sess_0000000000abcdefg".into(),
        ..Default::default()
    };
    input(
        &mut app,
        HostEvent::SessionOpened {
            header,
            recent: vec![],
        },
    );
    input(
        &mut app,
        HostEvent::SessionTokens {
            tokens: light_agent::protocol::TokenTotals {
                input: 1000,
                output: 100,
                cached: 0,
            },
        },
    );
    turn_begins(&mut app, 1, "go");
    ev(
        &mut app,
        AgentEvent::AgentTrace {
            usage: Usage {
                input: 11_345,
                output: 1_100,
                total: 12_445,
                cached: Some(8_000),
            },
            model: "m".into(),
            started_at: 0,
            ended_at: 0,
            meta: meta(),
        },
    );
    let tokens = app.tokens();
    assert_eq!(
        (tokens.input, tokens.output, tokens.cached),
        (12_345, 1_200, 8_000)
    );
    let line = light_agent::tui::wrap::plain(&app.status_view().line());
    assert!(line.contains("12.3k in · 1.2k out · 8.0k cached"), "{line}");
}

#[test]
fn ctrl_c_clears_a_prompt_that_came_back() {
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "hello?");
    key(&mut app, KeyCode::Enter);
    input(
        &mut app,
        HostEvent::PromptRejected {
            op: OpId::new("op-1"),
            text: "hello?".into(),
            reason: "no model".into(),
        },
    );
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(app.composer_text(), "");
}

#[test]
fn the_transcript_opened_during_a_stream_follows_it_regression_frozen_snapshot() {
    let (mut app, _) = app(60, 12);
    ev(&mut app, user_input("stream"));
    stream_output(&mut app, "first line\nsecond li", 3);
    key_mod(&mut app, KeyCode::Char('t'), KeyModifiers::CONTROL);
    let text = screen(&mut app, 60, 12);
    assert!(text.contains("second li"), "{text}");
    stream_output(&mut app, "ne\nthird line\n", 3);
    let text = screen(&mut app, 60, 12);
    assert!(text.contains("third line"), "{text}");
    ev(
        &mut app,
        AgentEvent::Output {
            text: "first line\nsecond line\nthird line\nthe end".into(),
            meta: meta(),
        },
    );
    ev(&mut app, stop(StopCause::Done));
    let text = screen(&mut app, 60, 12);
    assert!(text.contains("the end"), "{text}");
    assert_eq!(text.matches("third line").count(), 1, "{text}");
}

#[test]
fn wide_graphemes_leave_nothing_behind_in_the_live_area_regression_stray_flag() {
    use light_agent::tui::runner::Screen;
    let (mut app, _) = app(40, 12);
    let mut screen = Screen::new(VtScreen::new(40, 12)).unwrap();
    type_text(&mut app, "ab🇵🇱👨‍👩‍👧你好cd");
    screen.draw(&mut app).unwrap();
    assert!(
        screen.surface().text().contains("ab🇵🇱"),
        "{}",
        screen.surface().text()
    );
    while app.composer_text() != "ab" {
        key(&mut app, KeyCode::Backspace);
    }
    screen.draw(&mut app).unwrap();
    let text = screen.surface().text();
    for stray in ['🇵', '🇱', '👨', '你', 'c'] {
        assert!(!text.contains(stray), "{stray} left behind:\n{text}");
    }
    assert!(text.contains("› ab"), "{text}");
}

#[test]
fn below_twenty_by_six_the_live_area_says_the_terminal_is_too_small() {
    let (mut small, _) = app(18, 5);
    type_text(&mut small, "draft");
    let text = screen(&mut small, 18, 5);
    assert_eq!(text.trim(), "terminal too small");
    let (mut enough, _) = app(20, 6);
    type_text(&mut enough, "draft");
    let text = screen(&mut enough, 20, 6);
    assert!(text.contains("› draft"), "{text}");
}

/// The ops the app submitted since the last call, without their ids.
fn ops(app: &mut light_agent::tui::App) -> Vec<Op> {
    app.take_ops().into_iter().map(|s| s.op).collect()
}

#[test]
fn effort_sets_a_level_or_off_refuses_a_typo_and_shows_in_the_status_line() {
    use light_agent::protocol::{Effort, StatusSnapshot};
    let (mut app, _) = app(120, 20);
    for (typed, effort) in [("/effort high", Some(Effort::High)), ("/effort off", None)] {
        type_text(&mut app, typed);
        key(&mut app, KeyCode::Enter);
        assert_eq!(ops(&mut app), [Op::SetEffort { effort }], "{typed}");
    }
    type_text(&mut app, "/effort hihg");
    key(&mut app, KeyCode::Enter);
    assert!(ops(&mut app).is_empty());
    assert!(screen(&mut app, 120, 20).contains("effort must be minimal, low, medium or high"));
    input(
        &mut app,
        HostEvent::Status {
            status: StatusSnapshot {
                model: "gpt-5".into(),
                effort: Some(Effort::Low),
                ..StatusSnapshot::default()
            },
        },
    );
    let text = screen(&mut app, 120, 20);
    assert!(text.lines().any(|l| l.starts_with("gpt-5 low ·")), "{text}");
}

#[test]
fn a_question_is_declined_by_esc_and_closed_by_an_interrupted_turn() {
    use crossterm::event::KeyModifiers;
    use light_agent::protocol::{OpId, Question};
    let ask = |app: &mut light_agent::tui::App, id: &str| {
        input(
            app,
            HostEvent::QuestionAsked {
                id: OpId::new(id),
                questions: vec![Question {
                    question: "Which one?".into(),
                    options: vec!["a".into()],
                }],
            },
        );
    };
    let (mut app, _) = app(80, 20);
    type_text(&mut app, "go");
    key(&mut app, KeyCode::Enter);
    ops(&mut app);
    turn_begins(&mut app, 1, "go");
    ask(&mut app, "question-1");
    assert!(screen(&mut app, 80, 20).contains("Which one?"));
    key(&mut app, KeyCode::Esc);
    let sent = app.take_ops();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].id, OpId::new("question-1"));
    assert_eq!(sent[0].op, Op::Answer { answers: vec![] });

    ask(&mut app, "question-2");
    key_mod(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(ops(&mut app), [Op::Interrupt]);
    ev(&mut app, stop(light_agent::protocol::StopCause::User));
    assert!(!screen(&mut app, 80, 20).contains("Which one?"));
}

#[test]
fn the_at_picker_asks_for_the_listing_narrows_and_sends_mentions_as_file_parts() {
    use light_agent::protocol::{EntryKind, MentionCheck, MentionState, PromptPart};
    let (mut app, _) = app(60, 20);
    type_text(&mut app, "see @");
    assert!(app.picker_open());
    assert_eq!(
        ops(&mut app),
        [Op::ListFiles],
        "typing @ asks for a fresh listing"
    );
    input(
        &mut app,
        listing(&[
            ("src/main.rs", EntryKind::File),
            ("src/lib.rs", EntryKind::File),
            ("src/", EntryKind::Directory),
            ("out.txt", EntryKind::Refused),
        ]),
    );
    type_text(&mut app, "lib");
    key(&mut app, KeyCode::Tab);
    assert!(!app.picker_open());
    assert_eq!(app.composer_text(), "see @src/lib.rs ");
    assert_eq!(
        ops(&mut app),
        [Op::CheckMentions {
            paths: vec!["src/lib.rs".into()]
        }]
    );
    // A range typed by hand, a folder chosen in the picker (it stays open
    // inside it), then Esc; a binary file the host reports.
    type_text(&mut app, "and @src/main.rs#L2-3 @");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.composer_text(),
        "see @src/lib.rs and @src/main.rs#L2-3 @src/"
    );
    assert!(
        app.picker_open(),
        "a folder keeps the picker open inside it"
    );
    key(&mut app, KeyCode::Esc);
    assert!(!app.picker_open());
    type_text(&mut app, " @logo.bin");
    input(
        &mut app,
        HostEvent::MentionsChecked {
            checks: vec![MentionCheck {
                path: "logo.bin".into(),
                state: MentionState::Binary,
            }],
        },
    );
    ops(&mut app);
    key(&mut app, KeyCode::Enter);
    let sent = ops(&mut app);
    let Some(Op::Prompt { parts, .. }) = sent.last() else {
        panic!("{sent:?}");
    };
    assert_eq!(
        parts,
        &[
            PromptPart::File {
                path: "src/lib.rs".into(),
                lines: None
            },
            PromptPart::File {
                path: "src/main.rs".into(),
                lines: Some((2, 3))
            },
        ],
        "the folder and the binary file are not sent"
    );
}

#[test]
fn an_image_chip_is_deleted_whole_by_backspace_and_then_not_sent() {
    let opts = TuiOptions {
        images: vec!["a.png".into(), "b.png".into()],
        ..TuiOptions::default()
    };
    let (mut app, _) = app_with(opts, 60, 20);
    assert_eq!(app.composer_text(), "[Image #1 a.png][Image #2 b.png]");
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.composer_text(), "[Image #1 a.png]");
    type_text(&mut app, " look");
    key(&mut app, KeyCode::Enter);
    let sent = ops(&mut app);
    let Some(Op::Prompt { parts, text }) = sent.last() else {
        panic!("{sent:?}");
    };
    assert_eq!(text, "[Image #1 a.png] look");
    assert_eq!(
        parts,
        &[light_agent::protocol::PromptPart::Image {
            source: light_agent::protocol::ImageSource::Path {
                path: "a.png".into()
            },
            name: None
        }]
    );
}

#[test]
fn a_turn_ending_while_the_users_own_command_runs_does_not_mark_it_cancelled() {
    let (mut app, _) = app(80, 20);
    ev(&mut app, user_input("hi"));
    app.update(AppMsg::Input(HostEvent::UserShellStarted {
        id: "user-shell-1".into(),
        command: "rm -rf src".into(),
    }));
    ev(
        &mut app,
        AgentEvent::AgentStop {
            cause: StopCause::Done,
            message: String::new(),
            meta: meta(),
        },
    );
    assert!(app.user_command_running(), "the pane is still live");
    assert!(!committed(&mut app).iter().any(|l| l.contains("cancelled")));
    app.update(AppMsg::Input(HostEvent::UserShellDone {
        id: "user-shell-1".into(),
        result: "exit 0 after 0.0 s".into(),
        is_error: false,
    }));
    let lines = committed(&mut app);
    assert!(
        lines.iter().any(|l| l.contains("exit 0 after")),
        "{lines:?}"
    );
    assert!(!app.user_command_running());
}
