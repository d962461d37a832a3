#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The run loop over an emulated terminal: keys in, ops out, runtime inputs
//! drawn, and it stops when asked.

use crate::tui_support;

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use futures::Stream;
use futures::channel::mpsc as fmpsc;
use light_agent::protocol::{AgentEvent, StopCause};
use light_agent::protocol::{HostEvent, Op};
use light_agent::tui::runner::{RunOptions, Screen, run_loop};
use light_agent::tui::{App, TuiOptions};
use tokio::sync::mpsc;
use tui_support::*;

fn press(tx: &fmpsc::UnboundedSender<io::Result<Event>>, code: KeyCode) {
    tx.unbounded_send(Ok(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))))
        .unwrap();
}

#[tokio::test]
async fn keys_become_ops_inputs_are_drawn_and_ctrl_d_quits() {
    let (key_tx, key_rx) = fmpsc::unbounded();
    let (op_tx, mut op_rx) = mpsc::unbounded_channel::<light_agent::protocol::Submission>();
    let (in_tx, mut in_rx) = mpsc::unbounded_channel();
    let mut screen = Screen::new(VtScreen::new(60, 20)).unwrap();
    let mut app = App::new(TuiOptions::default(), 60, 20, Instant::now(), NOW_MS);

    let driver = async {
        for c in "hi".chars() {
            press(&key_tx, KeyCode::Char(c));
        }
        press(&key_tx, KeyCode::Enter);
        let op = op_rx.recv().await.unwrap().op;
        assert_eq!(
            op,
            Op::Prompt {
                parts: vec![],
                text: "hi".into()
            }
        );
        in_tx
            .send(HostEvent::Agent {
                event: user_input("hi"),
            })
            .unwrap();
        for piece in ["Hel", "lo there\n", "bye"] {
            in_tx
                .send(HostEvent::Agent {
                    event: AgentEvent::OutputDelta {
                        text: piece.into(),
                        meta: meta(),
                    },
                })
                .unwrap();
        }
        press(&key_tx, KeyCode::Esc);
        assert_eq!(op_rx.recv().await.unwrap().op, Op::Interrupt);
        in_tx
            .send(HostEvent::Agent {
                event: stop(StopCause::User),
            })
            .unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        key_tx
            .unbounded_send(Ok(Event::Key(KeyEvent::new(
                KeyCode::Char('d'),
                KeyModifiers::CONTROL,
            ))))
            .unwrap();
    };
    let ui = run_loop(
        &mut screen,
        &mut app,
        key_rx,
        &op_tx,
        &mut in_rx,
        std::future::pending(),
        RunOptions::default(),
    );
    let (result, ()) =
        tokio::time::timeout(Duration::from_secs(10), async { tokio::join!(ui, driver) })
            .await
            .unwrap();
    result.unwrap();
    assert!(app.should_quit());
    let text = screen.surface().text();
    assert!(text.contains("› hi"), "{text}");
    assert!(text.contains("Hello there"), "{text}");
    assert!(text.contains("⚠ interrupted"), "{text}");
    assert!(text.contains("idle"), "{text}");
}

#[tokio::test]
async fn the_loop_ends_on_shutdown_and_when_the_runtime_goes_away() {
    let (_key_tx, key_rx) = fmpsc::unbounded::<io::Result<Event>>();
    let (op_tx, _op_rx) = mpsc::unbounded_channel();
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<HostEvent>();
    let mut screen = Screen::new(VtScreen::new(40, 12)).unwrap();
    let mut app = App::new(TuiOptions::default(), 40, 12, Instant::now(), NOW_MS);
    let done = run_loop(
        &mut screen,
        &mut app,
        key_rx,
        &op_tx,
        &mut in_rx,
        async {},
        RunOptions::default(),
    );
    tokio::time::timeout(Duration::from_secs(5), done)
        .await
        .unwrap()
        .unwrap();

    let (_key_tx, key_rx) = fmpsc::unbounded::<io::Result<Event>>();
    drop(in_tx);
    let done = run_loop(
        &mut screen,
        &mut app,
        key_rx,
        &op_tx,
        &mut in_rx,
        std::future::pending(),
        RunOptions::default(),
    );
    tokio::time::timeout(Duration::from_secs(5), done)
        .await
        .unwrap()
        .unwrap();
}

/// A key stream that, like crossterm's `EventStream`, remembers only the
/// waker of the first poll that found nothing, until it wakes it.
#[derive(Clone, Default)]
struct FirstWakerKeys(Arc<Mutex<(VecDeque<Event>, Option<Waker>)>>);

impl FirstWakerKeys {
    fn press(&self, code: KeyCode) {
        let mut inner = self.0.lock().unwrap();
        inner
            .0
            .push_back(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        if let Some(waker) = inner.1.take() {
            waker.wake();
        }
    }
}

impl Stream for FirstWakerKeys {
    type Item = io::Result<Event>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut inner = self.0.lock().unwrap();
        if let Some(event) = inner.0.pop_front() {
            return Poll::Ready(Some(Ok(event)));
        }
        if inner.1.is_none() {
            inner.1 = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[tokio::test]
async fn keys_after_a_drained_batch_still_wake_the_loop_regression_noop_waker() {
    let keys = FirstWakerKeys::default();
    let (op_tx, mut op_rx) = mpsc::unbounded_channel();
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<HostEvent>();
    let ui_keys = keys.clone();
    // The loop runs in its own task so that nothing but the key stream's
    // waker can wake it.
    let ui = tokio::spawn(async move {
        let mut screen = Screen::new(VtScreen::new(40, 12)).unwrap();
        let mut app = App::new(TuiOptions::default(), 40, 12, Instant::now(), NOW_MS);
        run_loop(
            &mut screen,
            &mut app,
            ui_keys,
            &op_tx,
            &mut in_rx,
            std::future::pending(),
            RunOptions::default(),
        )
        .await
    });
    keys.press(KeyCode::Char('a'));
    tokio::time::sleep(Duration::from_millis(200)).await;
    keys.press(KeyCode::Enter);
    let op = tokio::time::timeout(Duration::from_secs(2), op_rx.recv()).await;
    app_quit_key(&keys);
    drop(in_tx);
    assert_eq!(
        op.expect("the Enter key never reached the loop")
            .map(|s| s.op),
        Some(Op::Prompt {
            parts: vec![],
            text: "a".into()
        })
    );
    tokio::time::timeout(Duration::from_secs(5), ui)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

fn app_quit_key(keys: &FirstWakerKeys) {
    let mut inner = keys.0.lock().unwrap();
    inner.0.push_back(Event::Key(KeyEvent::new(
        KeyCode::Char('d'),
        KeyModifiers::CONTROL,
    )));
    if let Some(waker) = inner.1.take() {
        waker.wake();
    }
}

/// The time to this frame is measured by `scripts/measure.py` (start →
/// input prompt), never asserted here.
#[test]
fn the_first_frame_of_an_empty_session_says_idle() {
    let mut screen = Screen::new(VtScreen::new(120, 40)).unwrap();
    let mut app = App::new(TuiOptions::default(), 120, 40, Instant::now(), NOW_MS);
    screen.draw(&mut app).unwrap();
    assert!(screen.surface().text().contains("idle"));
}

#[tokio::test]
async fn the_first_frame_shows_what_the_runtime_said_before_it_regression_no_model_flash() {
    let (_key_tx, key_rx) = fmpsc::unbounded::<io::Result<Event>>();
    let (op_tx, _op_rx) = mpsc::unbounded_channel();
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<HostEvent>();
    in_tx
        .send(HostEvent::Status {
            status: light_agent::protocol::StatusSnapshot {
                model: "gpt-test-model".into(),
                ..Default::default()
            },
        })
        .unwrap();
    let mut screen = Screen::new(VtScreen::new(60, 12)).unwrap();
    let mut app = App::new(TuiOptions::default(), 60, 12, Instant::now(), NOW_MS);
    // Shutdown is already due: exactly the first frame gets drawn.
    run_loop(
        &mut screen,
        &mut app,
        key_rx,
        &op_tx,
        &mut in_rx,
        async {},
        RunOptions::default(),
    )
    .await
    .unwrap();
    let text = screen.surface().text();
    assert!(text.contains("gpt-test-model"), "{text}");
    assert!(!text.contains("no model"), "{text}");
}
