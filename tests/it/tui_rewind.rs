#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Rewind in the view-model: Esc twice on an idle, empty composer asks the
//! host for the prompts (and nothing else does), the list and its choices
//! as `TestBackend` snapshots, a choice sends its op, and the host's
//! answer puts the rewound prompt back into the composer.

use crate::tui_support;

use crossterm::event::KeyCode;
use light_agent::protocol::{HostEvent, Op, OpId, PromptRow, RewindOutcome};
use light_agent::tui::App;
use light_agent::tui::view::rewind_picker::RewindPicker;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::Paragraph;
use tui_support::*;

fn ops(app: &mut App) -> Vec<Op> {
    app.take_ops().into_iter().map(|s| s.op).collect()
}

fn prompts() -> Vec<PromptRow> {
    let row = |turn: u64, text: &str, minutes: u64, files: &[&str]| PromptRow {
        turn,
        text: text.into(),
        at: NOW_MS - minutes * 60_000,
        files: files.iter().map(|f| f.to_string()).collect(),
    };
    vec![
        row(
            3,
            "now rename the helper everywhere",
            2,
            &["src/lib.rs", "src/main.rs", "tests/a.rs"],
        ),
        row(
            2,
            "add a test for the parser\nwith two lines",
            15,
            &["tests/parser.rs"],
        ),
        row(1, "explain the layout of this repository", 90, &[]),
    ]
}

/// The picker's rows alone, on a `TestBackend` of `width` columns.
fn drawn(picker: &RewindPicker, width: u16) -> String {
    let rows = picker.lines(NOW_MS, width);
    let mut terminal = Terminal::new(TestBackend::new(width, rows.len() as u16)).unwrap();
    terminal
        .draw(|f| f.render_widget(Paragraph::new(rows.clone()), f.area()))
        .unwrap();
    terminal.backend().to_string()
}

#[test]
fn the_rewind_list_and_its_choices_on_a_test_backend() {
    let mut picker = RewindPicker::new(prompts());
    picker.step(1);
    insta::assert_snapshot!("rewind_list_80", drawn(&picker, 80));
    insta::assert_snapshot!("rewind_list_40", drawn(&picker, 40));
    assert_eq!(picker.enter(), None);
    insta::assert_snapshot!("rewind_choices_80", drawn(&picker, 80));
}

#[test]
fn esc_twice_on_an_idle_empty_composer_asks_for_the_prompts() {
    let (mut app, t0) = app(80, 20);
    key(&mut app, KeyCode::Esc);
    assert!(ops(&mut app).is_empty(), "one Esc only arms");
    assert!(screen(&mut app, 80, 20).contains("press Esc again to rewind"));
    at(&mut app, t0, 0.3);
    key(&mut app, KeyCode::Esc);
    assert_eq!(ops(&mut app), [Op::ListPrompts]);

    // Too slow a second press arms again; text in the composer never rewinds.
    at(&mut app, t0, 1.0);
    key(&mut app, KeyCode::Esc);
    at(&mut app, t0, 2.5);
    key(&mut app, KeyCode::Esc);
    assert!(ops(&mut app).is_empty());
    type_text(&mut app, "draft");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    assert!(ops(&mut app).is_empty());
}

#[test]
fn esc_twice_while_a_turn_runs_interrupts_and_never_rewinds() {
    let (mut app, _) = app(80, 20);
    turn_begins(&mut app, 1, "work");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    assert!(ops(&mut app).iter().all(|op| *op == Op::Interrupt));
}

#[test]
fn choosing_a_prompt_and_both_sends_the_rewind_and_the_answer_refills_the_composer() {
    let (mut app, _) = app(80, 24);
    input(
        &mut app,
        HostEvent::Prompts {
            op: OpId::new("op-1"),
            prompts: prompts(),
        },
    );
    assert!(screen(&mut app, 80, 24).contains("rewind ›"));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert!(screen(&mut app, 80, 24).contains("before turn 2"));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        ops(&mut app),
        [Op::Rewind {
            to_turn: 2,
            conversation: true,
            code: true
        }]
    );
    input(
        &mut app,
        HostEvent::Rewound {
            op: OpId::new("op-2"),
            outcome: RewindOutcome {
                turn: 2,
                conversation: true,
                prompt: "add a test for the parser".into(),
                code: true,
                restored: vec!["tests/parser.rs".into()],
                skipped: vec![("src/x.rs".into(), "changed since by someone else".into())],
            },
        },
    );
    let shown = screen(&mut app, 80, 24);
    assert!(shown.contains("› add a test for the parser"), "{shown}");
    assert!(
        shown.contains("left alone src/x.rs: changed since by someone else"),
        "{shown}"
    );
}

#[test]
fn slash_rewind_and_slash_fork_send_their_ops() {
    let (mut app, _) = app(80, 20);
    type_text(&mut app, "/rewind");
    key(&mut app, KeyCode::Enter);
    assert_eq!(ops(&mut app), [Op::ListPrompts]);
    type_text(&mut app, "/fork");
    key(&mut app, KeyCode::Enter);
    assert_eq!(ops(&mut app), [Op::Fork { before_turn: None }]);
}
