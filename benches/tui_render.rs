//! Render cost of the TUI: the first frame of an empty session, and one
//! frame (deltas of one frame + draw) during a 20k-delta streamed answer.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use light_agent::protocol::{AgentEvent, InputSource, Meta};
use light_agent::tui::runner::Screen;
use light_agent::tui::{App, AppMsg, TuiOptions, UiInput};
use ratatui::backend::TestBackend;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

fn answer_text(deltas: usize) -> Vec<String> {
    let words = [
        "The ",
        "parser ",
        "reads ",
        "`tokens` ",
        "and ",
        "**builds** ",
        "a ",
        "tree",
        ".\n",
        "- item ",
        "one\n",
        "\n",
        "```rust\n",
        "fn main() {}\n",
        "```\n",
        "\n",
    ];
    (0..deltas)
        .map(|i| words[i % words.len()].to_string())
        .collect()
}

fn delta(text: &str) -> AgentEvent {
    AgentEvent::OutputDelta {
        text: text.to_string(),
        meta: Meta::new(1, 1),
    }
}

fn started_app() -> App {
    let mut app = App::new(TuiOptions::default(), WIDTH, HEIGHT, Instant::now(), 0);
    app.update(AppMsg::Input(UiInput::Event(AgentEvent::Input {
        text: "explain".into(),
        source: InputSource::User,
        meta: Meta::new(1, 1),
    })));
    app
}

fn first_frame(c: &mut Criterion) {
    c.bench_function("first_frame_empty_session", |b| {
        b.iter(|| {
            let mut screen =
                Screen::new(TestBackend::new(WIDTH, HEIGHT)).unwrap_or_else(|e| panic!("{e}"));
            let mut app = App::new(TuiOptions::default(), WIDTH, HEIGHT, Instant::now(), 0);
            screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
            black_box(screen.backend().buffer().area);
        })
    });
}

fn frame_during_stream(c: &mut Criterion) {
    let pieces = answer_text(20_000);
    const PER_FRAME: usize = 8;
    c.bench_function("frame_during_20k_delta_stream", |b| {
        let mut screen =
            Screen::new(TestBackend::new(WIDTH, HEIGHT)).unwrap_or_else(|e| panic!("{e}"));
        let mut app = started_app();
        let mut next = 0;
        b.iter(|| {
            if next + PER_FRAME > pieces.len() {
                app = started_app();
                next = 0;
            }
            for piece in &pieces[next..next + PER_FRAME] {
                app.update(AppMsg::Input(UiInput::Event(delta(piece))));
            }
            next += PER_FRAME;
            screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
        })
    });
    c.bench_function("whole_20k_delta_stream_one_frame_per_8_deltas", |b| {
        b.iter(|| {
            let mut screen =
                Screen::new(TestBackend::new(WIDTH, HEIGHT)).unwrap_or_else(|e| panic!("{e}"));
            let mut app = started_app();
            for chunk in pieces.chunks(PER_FRAME) {
                for piece in chunk {
                    app.update(AppMsg::Input(UiInput::Event(delta(piece))));
                }
                screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
            }
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = first_frame, frame_during_stream
}
criterion_main!(benches);
