//! Render cost of the TUI: the first frame of an empty session, one frame
//! (deltas of one frame + draw) during a 20k-delta streamed answer, and
//! whole answers of 10 000 and 100 000 lines.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use light_agent::protocol::HostEvent;
use light_agent::protocol::{AgentEvent, InputSource, Meta};
use light_agent::tui::inline_terminal::Surface;
use light_agent::tui::runner::Screen;
use light_agent::tui::{App, AppMsg, TuiOptions};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

/// A terminal that counts the bytes it is sent and shows nothing.
struct Sink {
    bytes: usize,
}

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Surface for Sink {
    fn size(&self) -> std::io::Result<(u16, u16)> {
        Ok((WIDTH, HEIGHT))
    }
}

fn sink() -> Sink {
    Sink { bytes: 0 }
}

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
    app.update(AppMsg::Input(HostEvent::Agent {
        event: AgentEvent::Input {
            text: "explain".into(),
            source: InputSource::User,
            meta: Meta::new(1, 1),
        },
    }));
    app
}

fn first_frame(c: &mut Criterion) {
    c.bench_function("first_frame_empty_session", |b| {
        b.iter(|| {
            let mut screen = Screen::new(sink()).unwrap_or_else(|e| panic!("{e}"));
            let mut app = App::new(TuiOptions::default(), WIDTH, HEIGHT, Instant::now(), 0);
            screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
            black_box(screen.surface().bytes);
        })
    });
}

fn frame_during_stream(c: &mut Criterion) {
    let pieces = answer_text(20_000);
    const PER_FRAME: usize = 8;
    c.bench_function("frame_during_20k_delta_stream", |b| {
        let mut screen = Screen::new(sink()).unwrap_or_else(|e| panic!("{e}"));
        let mut app = started_app();
        let mut next = 0;
        b.iter(|| {
            if next + PER_FRAME > pieces.len() {
                app = started_app();
                next = 0;
            }
            for piece in &pieces[next..next + PER_FRAME] {
                app.update(AppMsg::Input(HostEvent::Agent {
                    event: delta(piece),
                }));
            }
            next += PER_FRAME;
            screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
        })
    });
    c.bench_function("whole_20k_delta_stream_one_frame_per_8_deltas", |b| {
        b.iter(|| {
            let mut screen = Screen::new(sink()).unwrap_or_else(|e| panic!("{e}"));
            let mut app = started_app();
            for chunk in pieces.chunks(PER_FRAME) {
                for piece in chunk {
                    app.update(AppMsg::Input(HostEvent::Agent {
                        event: delta(piece),
                    }));
                }
                screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
            }
        })
    });
}

/// One answer of many short lines, one delta a line, drawn every 64
/// deltas: the cost must grow with the lines, not with their square.
fn long_answers(c: &mut Criterion) {
    for lines in [10_000usize, 100_000] {
        let pieces: Vec<String> = (0..lines)
            .map(|i| format!("line {i} of the answer\n"))
            .collect();
        c.bench_function(&format!("answer_of_{lines}_lines_one_frame_per_64"), |b| {
            b.iter(|| {
                let mut screen = Screen::new(sink()).unwrap_or_else(|e| panic!("{e}"));
                let mut app = started_app();
                for chunk in pieces.chunks(64) {
                    for piece in chunk {
                        app.update(AppMsg::Input(HostEvent::Agent {
                            event: delta(piece),
                        }));
                    }
                    screen.draw(&mut app).unwrap_or_else(|e| panic!("{e}"));
                }
                black_box(screen.surface().bytes)
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = first_frame, frame_during_stream, long_answers
}
criterion_main!(benches);
