//! The output budget: what the model sees of a command's output (at most
//! [`MODEL_BUDGET`] bytes: the head and a longer tail), and the full log
//! kept on disk once the output is bigger than that.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

/// Most bytes of output the model gets from one command.
pub const MODEL_BUDGET: usize = 16 * 1024;
/// Bytes kept from the start.
const HEAD: usize = 4 * 1024;
/// Bytes kept from the end (room is left for the omission line).
const TAIL: usize = MODEL_BUDGET - HEAD - 128;

/// A command's cleaned output as it accumulates.
#[derive(Debug)]
pub(crate) struct Output {
    /// Everything, while the total fits the budget.
    whole: Vec<u8>,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    log: Log,
}

#[derive(Debug)]
enum Log {
    /// Not needed yet (the output fits); created at this path when it does not.
    Pending(PathBuf),
    Open(PathBuf, BufWriter<File>),
    Failed(PathBuf, String),
}

impl Output {
    /// Empty output whose full log, if needed, goes to `log_path`.
    pub(crate) fn new(log_path: PathBuf) -> Self {
        Output {
            whole: Vec::new(),
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            log: Log::Pending(log_path),
        }
    }

    /// Bytes of cleaned output so far.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Adds cleaned text.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.head.len() < HEAD {
            let take = (HEAD - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
        }
        if bytes.len() >= TAIL {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - TAIL..]);
        } else {
            let excess = (self.tail.len() + bytes.len()).saturating_sub(TAIL);
            self.tail.drain(..excess);
            self.tail.extend(bytes);
        }
        match &mut self.log {
            Log::Pending(path) => {
                if self.total as usize <= MODEL_BUDGET {
                    self.whole.extend_from_slice(bytes);
                    return;
                }
                let path = std::mem::take(path);
                let whole = std::mem::take(&mut self.whole);
                self.log = open_log(&path, &whole, bytes);
            }
            Log::Open(path, file) => {
                if let Err(e) = file.write_all(bytes) {
                    self.log = Log::Failed(std::mem::take(path), e.to_string());
                }
            }
            Log::Failed(..) => {}
        }
    }

    /// The output after byte `pos` (what a job reader has not seen yet) and
    /// how many bytes of it are no longer held (only in the log). What is
    /// returned is at most [`MODEL_BUDGET`] bytes.
    pub(crate) fn since(&self, pos: u64) -> (u64, String) {
        if let Log::Pending(_) = self.log {
            let from = (pos as usize).min(self.whole.len());
            return (0, String::from_utf8_lossy(&self.whole[from..]).into_owned());
        }
        let tail_start = self.total - self.tail.len() as u64;
        let (omitted, skip) = if pos >= tail_start {
            (0, (pos - tail_start) as usize)
        } else {
            (tail_start - pos, 0)
        };
        let bytes: Vec<u8> = self.tail.iter().skip(skip).copied().collect();
        (omitted, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Where the full log is, once there is one.
    pub(crate) fn log_path(&self) -> Option<&Path> {
        match &self.log {
            Log::Pending(_) => None,
            Log::Open(path, _) | Log::Failed(path, _) => Some(path),
        }
    }

    /// The last `lines` lines (for the live pane).
    pub(crate) fn last_lines(&self, lines: usize) -> String {
        let (a, b) = self.tail.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim_end_matches('\n');
        let start = text
            .rmatch_indices('\n')
            .nth(lines.saturating_sub(1))
            .map_or(0, |(i, _)| i + 1);
        text[start..].to_string()
    }

    /// Flushes the log and gives the model's view: the whole output, or its
    /// head, `… N bytes omitted …` and its tail, plus where the full log is.
    pub(crate) fn finish(mut self) -> Finished {
        let log = match std::mem::replace(&mut self.log, Log::Pending(PathBuf::new())) {
            Log::Pending(_) => {
                return Finished {
                    text: String::from_utf8_lossy(&self.whole).into_owned(),
                    total: self.total,
                    log: None,
                };
            }
            Log::Open(path, mut file) => match file.flush() {
                Ok(()) => Ok(path),
                Err(e) => Err(format!("{}: {e}", path.display())),
            },
            Log::Failed(path, e) => Err(format!("{}: {e}", path.display())),
        };
        let head = cut_after_last_newline(&self.head);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = cut_before_first_newline(&tail);
        let omitted = self.total - head.len() as u64 - tail.len() as u64;
        let mut text = String::from_utf8_lossy(head).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("… {omitted} bytes omitted …\n"));
        text.push_str(&String::from_utf8_lossy(tail));
        Finished {
            text,
            total: self.total,
            log: Some(log),
        }
    }
}

/// The model's view of a finished output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finished {
    /// At most [`MODEL_BUDGET`] bytes of text.
    pub text: String,
    /// Bytes of cleaned output in all.
    pub total: u64,
    /// Where the full output is (`None`: `text` is all of it), or why it
    /// could not be kept.
    pub log: Option<Result<PathBuf, String>>,
}

fn open_log(path: &Path, first: &[u8], then: &[u8]) -> Log {
    let opened = (|| {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = BufWriter::with_capacity(64 * 1024, File::create(path)?);
        file.write_all(first)?;
        file.write_all(then)?;
        Ok::<_, std::io::Error>(file)
    })();
    match opened {
        Ok(file) => Log::Open(path.to_path_buf(), file),
        Err(e) => Log::Failed(path.to_path_buf(), e.to_string()),
    }
}

/// The head up to its last line end (all of it when it has none).
fn cut_after_last_newline(bytes: &[u8]) -> &[u8] {
    match memchr::memrchr(b'\n', bytes) {
        Some(i) => &bytes[..=i],
        None => bytes,
    }
}

/// The tail from its first full line (all of it when it has no line end
/// before its last byte).
fn cut_before_first_newline(bytes: &[u8]) -> &[u8] {
    match memchr::memchr(b'\n', bytes) {
        Some(i) if i + 1 < bytes.len() => &bytes[i + 1..],
        _ => bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_given_whole_and_no_log_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        let mut output = Output::new(log.clone());
        output.push(b"one\ntwo\n");
        let finished = output.finish();
        assert_eq!(finished.text, "one\ntwo\n");
        assert_eq!(finished.log, None);
        assert!(!log.exists());
    }

    #[test]
    fn large_output_keeps_head_and_tail_and_logs_everything() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("shell").join("x.log");
        let mut output = Output::new(log.clone());
        let mut all = String::new();
        for n in 1..=20_000 {
            let line = format!("{n}\n");
            all.push_str(&line);
            // Odd chunking: one line at a time, like a pipe that wakes often.
            output.push(line.as_bytes());
        }
        let finished = output.finish();
        assert!(
            finished.text.len() <= MODEL_BUDGET,
            "{}",
            finished.text.len()
        );
        assert!(finished.text.starts_with("1\n2\n"));
        assert!(finished.text.ends_with("19999\n20000\n"));
        let omitted: u64 = finished
            .text
            .lines()
            .find_map(|l| {
                l.strip_prefix("… ")?
                    .strip_suffix(" bytes omitted …")?
                    .parse()
                    .ok()
            })
            .unwrap();
        let shown =
            finished.text.len() as u64 - format!("… {omitted} bytes omitted …\n").len() as u64;
        assert_eq!(omitted + shown, all.len() as u64);
        assert_eq!(finished.log, Some(Ok(log.clone())));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), all);
    }

    #[test]
    fn since_gives_what_a_reader_has_not_seen() {
        let dir = tempfile::tempdir().unwrap();
        let mut output = Output::new(dir.path().join("j.log"));
        output.push(b"abc\n");
        assert_eq!(output.since(0), (0, "abc\n".to_string()));
        assert_eq!(output.since(4), (0, String::new()));
        output.push(&vec![b'x'; MODEL_BUDGET * 2]);
        let (omitted, text) = output.since(4);
        assert_eq!(omitted + text.len() as u64, MODEL_BUDGET as u64 * 2);
        assert!(text.len() <= MODEL_BUDGET);
    }

    #[test]
    fn last_lines_are_the_newest() {
        let mut output = Output::new(PathBuf::from("/nonexistent/x.log"));
        output.push(b"a\nb\nc\nd\n");
        assert_eq!(output.last_lines(2), "c\nd");
        assert_eq!(output.last_lines(10), "a\nb\nc\nd");
    }
}
