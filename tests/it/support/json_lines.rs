#![allow(clippy::unwrap_used, clippy::expect_used)]
//! A child process spoken to in JSON lines (`exec --input-format
//! stream-json`, `light-agent acp`): lines written to its stdin, every
//! stdout line parsed as JSON (a line that is not fails the test).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// Longest wait for a line; only a failing test waits this long.
const WAIT: Duration = Duration::from_secs(20);

/// The process, its stdin and its stdout's lines as JSON.
pub struct JsonLines {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl JsonLines {
    /// Starts `cmd` with piped stdin and stdout, stderr discarded.
    pub fn spawn(mut cmd: Command) -> JsonLines {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        JsonLines {
            child,
            stdin,
            lines,
        }
    }

    /// Writes `line` and a newline to stdin.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Lines until one matches `wanted` (that one included).
    pub fn until(&self, wanted: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("no such line; saw {seen:#?}"));
            let done = wanted(&line);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// Closes stdin and waits for the exit code.
    pub fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        // Lines after the last awaited one are drained by the reader thread.
        self.child.wait().unwrap().code()
    }
}
