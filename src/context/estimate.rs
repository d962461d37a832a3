//! Token estimates of what a request carries, conservative against the
//! bytes on the wire and against dense text, calibrated per session by what
//! the provider reports.
//!
//! The plain count is four bytes of the request body to a token. Text
//! travels as a JSON string, so each byte that JSON escapes counts twice
//! (quotes, backslashes, newlines, tabs) or six times (other control bytes);
//! tool-call arguments travel as a JSON string holding JSON, so they are
//! escaped once more. Every message, call and result adds a fixed envelope
//! (role, ids, field names).
//!
//! Dense text tokenizes far worse than four bytes a token (measured with
//! Qwen2.5's tokenizer: base64 and minified code 1.4 bytes a token, JSON
//! tool arguments 2.5, prose 5.9): the dense count ([`dense_bytes`]) charges
//! runs without whitespace whose characters change class every few bytes
//! (base64, hex, minified code, paths glued to punctuation) at 1.33 bytes a
//! token and every other ASCII punctuation byte twice.
//!
//! A [`Counter`] turns both into one figure: the dense count times the
//! session's calibration ratio ([`Calibration`]: what the provider reported
//! for the last requests over what the dense count said), never below the
//! plain count. Estimates only ever round up.
//!
//! Images are the exception to counting bytes (their base64 is not what a
//! provider bills): each counts [`IMAGE_TOKENS`], whatever its size.

use std::collections::VecDeque;

use crate::protocol::{AgentEvent, ToolSpec};

/// Tokens one image of a prompt is counted as. Providers bill an image by
/// its pixels, not its bytes, after scaling it down: Anthropic about
/// width × height / 750 up to ~1.15 megapixels (≈ 1 600 tokens), OpenAI at
/// most ~1 450 (high detail, 512-pixel tiles), Gemini 258 per 768-pixel
/// tile. 1 600 is the largest of the common cases.
pub const IMAGE_TOKENS: u64 = 1_600;

/// Bytes a message, call or result adds around its text (role, ids, keys).
const ENVELOPE_BYTES: u64 = 64;
/// Bytes a request adds around everything (model, stream flags, arrays).
const REQUEST_BYTES: u64 = 128;

/// Bytes `text` takes as a JSON string's contents.
pub fn json_bytes(text: &str) -> u64 {
    text.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// A tokenizer's count of `text`, modelled on how byte-pair vocabularies
/// split it, in quarter tokens (the unit [`json_bytes`] is counted in):
/// every ASCII digit is a token (Qwen splits numbers digit by digit), a run
/// of punctuation a token per two characters, a run of letters a token per
/// eight (split where a lower-case letter meets an upper-case one), a line
/// break a token, other whitespace nothing (it joins the next word), a
/// non-ASCII byte a quarter; a base64-like run (case flips every few
/// letters, digits among them) three quarters a byte.
pub fn dense_bytes(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut quarters = 0u64;
    let mut start = 0;
    let mut prev = 0u8;
    while start < bytes.len() {
        let b = bytes[start];
        if b.is_ascii_whitespace() {
            // Blank lines and the indentation after a break join it.
            if b == b'\n' && prev != b'\n' {
                quarters += 4;
            }
            prev = b;
            start += 1;
            continue;
        }
        let end = bytes[start..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |n| start + n);
        quarters += run_quarters(&bytes[start..end]);
        prev = 0;
        start = end;
    }
    quarters
}

/// Base64-like runs are at least this long.
const BASE64_RUN_MIN: usize = 16;

/// Quarter tokens of one run of non-whitespace bytes.
fn run_quarters(run: &[u8]) -> u64 {
    let flips = run
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    let digits = run.iter().filter(|b| b.is_ascii_digit()).count();
    if run.len() >= BASE64_RUN_MIN && digits > 0 && flips * 8 >= run.len() {
        return 3 * run.len() as u64;
    }
    #[derive(Clone, Copy)]
    enum Seg {
        None,
        Lower(u32),
        Upper(u32),
        Punct(u32),
    }
    let cost = |seg: Seg| -> u64 {
        match seg {
            Seg::None => 0,
            Seg::Lower(n) | Seg::Upper(n) => 4 * u64::from(n.div_ceil(8)),
            Seg::Punct(n) => 4 * u64::from(n.div_ceil(2)),
        }
    };
    let mut quarters = 0u64;
    let mut seg = Seg::None;
    for &b in run {
        let next = match (b, seg) {
            (b'a'..=b'z', Seg::Lower(n) | Seg::Upper(n)) => Seg::Lower(n + 1),
            (b'a'..=b'z', _) => Seg::Lower(1),
            (b'A'..=b'Z', Seg::Upper(n)) => Seg::Upper(n + 1),
            (b'A'..=b'Z', _) => Seg::Upper(1),
            (_, Seg::Punct(n)) if b.is_ascii_punctuation() => Seg::Punct(n + 1),
            _ if b.is_ascii_punctuation() => Seg::Punct(1),
            _ => Seg::None,
        };
        let continues = matches!(
            (seg, next),
            (Seg::Lower(_) | Seg::Upper(_), Seg::Lower(_))
                | (Seg::Upper(_), Seg::Upper(_))
                | (Seg::Punct(_), Seg::Punct(_))
        );
        if !continues {
            quarters += cost(seg);
        }
        seg = next;
        match b {
            b'0'..=b'9' => quarters += 4,
            0x80.. => quarters += 1,
            _ => {}
        }
    }
    quarters + cost(seg)
}

/// Tokens of `bytes` request bytes (four to a token, rounded up).
pub fn tokens_of_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// Turns request bytes into tokens: the dense count times the session's
/// calibration ratio, never below the plain count. Cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counter {
    ratio: f64,
}

impl Default for Counter {
    fn default() -> Self {
        Counter::UNCALIBRATED
    }
}

impl Counter {
    /// The dense count as it is (before any provider reported usage).
    pub const UNCALIBRATED: Counter = Counter { ratio: 1.0 };

    /// The ratio applied to the dense count.
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    fn tokens(&self, plain_bytes: u64, dense_bytes: u64) -> u64 {
        let dense = (tokens_of_bytes(dense_bytes) as f64 * self.ratio).ceil() as u64;
        dense.max(tokens_of_bytes(plain_bytes))
    }

    /// Tokens `text` takes as a JSON string.
    pub fn text(&self, text: &str) -> u64 {
        self.tokens(json_bytes(text) + 2, dense_bytes(text) + 2)
    }

    /// Tokens one event adds to a request, envelope included. Transient and
    /// accounting events add nothing (they are never sent).
    pub fn event(&self, event: &AgentEvent) -> u64 {
        let images = match event {
            AgentEvent::Input { images, .. } => images.len() as u64 * IMAGE_TOKENS,
            _ => 0,
        };
        self.tokens(
            event_bytes(event, json_bytes),
            event_bytes(event, dense_bytes),
        ) + images
    }

    /// Tokens of a request's fixed part: the system prompt, the tool
    /// definitions and the request's own envelope.
    pub fn fixed(&self, system_prompt: &str, specs: &[ToolSpec]) -> u64 {
        let plain = json_bytes(system_prompt) + specs_bytes(specs, json_bytes, raw_bytes);
        let dense = dense_bytes(system_prompt) + specs_bytes(specs, dense_bytes, dense_bytes);
        self.tokens(plain + 2 + REQUEST_BYTES, dense + 2 + REQUEST_BYTES)
    }
}

/// Request bytes of `event` with text measured by `measure`.
fn event_bytes(event: &AgentEvent, measure: fn(&str) -> u64) -> u64 {
    match event {
        AgentEvent::Input { text, .. }
        | AgentEvent::Thought { text, .. }
        | AgentEvent::Output { text, .. }
        | AgentEvent::AgentSummary { text, .. } => measure(text) + ENVELOPE_BYTES,
        AgentEvent::ToolCalls { calls, .. } => calls
            .iter()
            .map(|c| {
                let args = c.args.to_string();
                // The arguments are a JSON text inside a JSON string: escaped twice.
                measure(&c.id) + measure(&c.name) + 2 * measure(&args) + ENVELOPE_BYTES
            })
            .sum(),
        AgentEvent::ToolResult { outcome, .. } => {
            measure(&outcome.id) + measure(&outcome.result) + ENVELOPE_BYTES
        }
        // A stop becomes at most a one-line note to the model.
        AgentEvent::AgentStop { .. } => ENVELOPE_BYTES * 2,
        AgentEvent::ThoughtDelta { .. }
        | AgentEvent::OutputDelta { .. }
        | AgentEvent::AgentTrace { .. } => 0,
    }
}

/// Request bytes of the tool definitions: names and descriptions measured
/// by `text` (they travel as JSON strings), each schema by `schema` (it
/// travels as a JSON object: its quotes are not escaped again).
fn specs_bytes(specs: &[ToolSpec], text: fn(&str) -> u64, schema: fn(&str) -> u64) -> u64 {
    specs
        .iter()
        .map(|s| {
            let body = s.schema.to_string();
            // Rounded up per spec, as each is its own object.
            4 * tokens_of_bytes(
                text(&s.name) + text(&s.description) + schema(&body) + ENVELOPE_BYTES,
            )
        })
        .sum()
}

/// Bytes of `text` as they are.
fn raw_bytes(text: &str) -> u64 {
    text.len() as u64
}

/// Tokens `text` takes as a JSON string (uncalibrated dense count).
pub fn text_tokens(text: &str) -> u64 {
    Counter::UNCALIBRATED.text(text)
}

/// Tokens one event adds to a request (uncalibrated dense count).
pub fn event_tokens(event: &AgentEvent) -> u64 {
    Counter::UNCALIBRATED.event(event)
}

/// Tokens of a request's fixed part at four bytes a token (the plain
/// count alone, without the dense model): the measure of the prompt
/// budget, comparable across versions and with other agents' figures.
pub fn plain_fixed_tokens(system_prompt: &str, specs: &[ToolSpec]) -> u64 {
    tokens_of_bytes(
        json_bytes(system_prompt) + specs_bytes(specs, json_bytes, raw_bytes) + 2 + REQUEST_BYTES,
    )
}

/// Tokens of a request's fixed part (uncalibrated dense count).
pub fn fixed_tokens(system_prompt: &str, specs: &[ToolSpec]) -> u64 {
    Counter::UNCALIBRATED.fixed(system_prompt, specs)
}

/// How many recent requests the calibration ratio is taken over.
const CALIBRATION_REQUESTS: usize = 3;
/// How much tighter a request is fitted after the provider said it was over
/// the window.
const OVERFLOW_TIGHTENING: f64 = 1.3;

/// The session's calibration: the ratio of the provider's reported input
/// tokens to the uncalibrated dense count, for the last few requests; the
/// counter uses the largest (the bound must hold for each of them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calibration {
    recent: VecDeque<f64>,
}

impl Calibration {
    /// Records that a request counted `estimated` tokens (uncalibrated) was
    /// reported by the provider as `reported` input tokens. Reports of
    /// nothing (providers that send no usage) are ignored.
    pub fn observe(&mut self, reported: u64, estimated: u64) {
        if reported == 0 || estimated == 0 {
            return;
        }
        self.push(reported as f64 / estimated as f64);
    }

    /// Records that the provider refused a request counted `estimated`
    /// (uncalibrated) as over its `window`: it counted more than `window`,
    /// so the ratio is at least `window / estimated`; the next requests are
    /// counted a good deal larger than that and than the last ratio.
    pub fn observe_overflow(&mut self, window: u64, estimated: u64) {
        // A configured window far above the provider's real one would make
        // the bound huge; one refusal moves the ratio at most fourfold.
        let last = self.counter().ratio.max(1.0);
        let at_least = (window as f64 / estimated.max(1) as f64).min(4.0 * last);
        let ratio = last.max(at_least) * OVERFLOW_TIGHTENING;
        self.push(ratio);
    }

    fn push(&mut self, ratio: f64) {
        if !ratio.is_finite() {
            return;
        }
        if self.recent.len() == CALIBRATION_REQUESTS {
            self.recent.pop_front();
        }
        self.recent.push_back(ratio);
    }

    /// The counter to use now.
    pub fn counter(&self) -> Counter {
        let ratio = self.recent.iter().copied().fold(f64::NAN, f64::max);
        Counter {
            ratio: if ratio.is_nan() { 1.0 } else { ratio },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Meta;

    #[test]
    fn escaped_bytes_count_double_and_multibyte_text_counts_its_bytes() {
        assert_eq!(json_bytes("abcd"), 4);
        assert_eq!(json_bytes("a\"b\n"), 6);
        assert_eq!(json_bytes("é"), 2);
        assert_eq!(json_bytes("\u{1}"), 6);
    }

    #[test]
    fn an_event_costs_at_least_its_text_and_never_less_than_its_json() {
        let event = AgentEvent::Output {
            text: "line \"one\"\nline two\n".repeat(50),
            meta: Meta::new(1, 1),
        };
        let json = serde_json::to_string(&event).unwrap();
        assert!(event_tokens(&event) * 4 >= json.len() as u64);
    }

    /// Qwen2.5 counts (llama.cpp `/tokenize`): base64 1.4 bytes a token,
    /// minified JavaScript about the same.
    #[test]
    fn dense_runs_count_at_least_what_a_tokenizer_makes_of_them() {
        let base64: String = (0..4096u32)
            .map(|i| {
                let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                alphabet[(i.wrapping_mul(2_654_435_761) >> 7) as usize % 64] as char
            })
            .collect();
        assert!(
            text_tokens(&base64) as f64 >= 4096.0 / 1.4,
            "{}",
            text_tokens(&base64)
        );
        let hex = "3f9a2c7d1e8b4a60".repeat(64);
        assert!(text_tokens(&hex) as f64 >= hex.len() as f64 / 1.4);
        let minified = "function(e,t){var n=e.length;return n>t?e.slice(0,t):e}".repeat(40);
        // Our sample is milder than a real bundle: at least twice prose's density.
        assert!(text_tokens(&minified) as f64 >= minified.len() as f64 / 2.0);
        // Prose stays at four bytes a token.
        let prose = "The quick brown fox jumps over the lazy dog and runs away. ".repeat(40);
        assert_eq!(text_tokens(&prose), tokens_of_bytes(json_bytes(&prose) + 2));
        // A timestamp is a token a digit for Qwen.
        let stamps = "2026-12-01 21:18:10\n".repeat(50);
        assert!(text_tokens(&stamps) >= 50 * 18, "{}", text_tokens(&stamps));
    }

    #[test]
    fn calibration_scales_the_dense_count_but_never_below_four_bytes_a_token() {
        let prose = "plain words in a sentence ".repeat(100);
        let mut calibration = Calibration::default();
        assert_eq!(calibration.counter(), Counter::UNCALIBRATED);
        calibration.observe(3000, 1000);
        assert_eq!(calibration.counter().ratio(), 3.0);
        let plain = tokens_of_bytes(json_bytes(&prose) + 2);
        let dense = tokens_of_bytes(dense_bytes(&prose) + 2);
        assert!(dense < plain);
        assert_eq!(calibration.counter().text(&prose), 3 * dense);
        let mut low = Calibration::default();
        low.observe(100, 1000);
        assert_eq!(low.counter().text(&prose), plain);
        // The largest of the last few ratios holds.
        low.observe(2000, 1000);
        low.observe(500, 1000);
        assert_eq!(low.counter().ratio(), 2.0);
        low.observe(500, 1000);
        low.observe(500, 1000);
        assert_eq!(low.counter().ratio(), 0.5);
        low.observe_overflow(1000, 400);
        assert!(low.counter().ratio() >= 2.5 * 1.3);
    }

    #[test]
    fn each_image_of_a_prompt_costs_its_stated_tokens_whatever_its_bytes() {
        let image = |bytes| crate::protocol::ImageRef {
            hash: format!("h{bytes}"),
            media_type: "image/png".into(),
            name: "shot.png".into(),
            bytes,
        };
        let prompt = |images| AgentEvent::Input {
            text: "look".into(),
            source: crate::protocol::InputSource::User,
            meta: Meta::new(1, 1),
            images,
        };
        let bare = event_tokens(&prompt(vec![]));
        let two = event_tokens(&prompt(vec![image(100), image(15_000_000)]));
        assert_eq!(two - bare, 2 * IMAGE_TOKENS);
    }
}
