//! Server-Sent Events framing as a pure state machine: bytes in, events out.
//!
//! [`SseDecoder::feed`] accepts chunks split at any byte (inside a line, a
//! CRLF pair or a UTF-8 character) and yields the same events whatever the
//! split. Lines end in LF, CR or CRLF; `:` comment lines are skipped;
//! several `data:` lines join with `\n`; `event:` names the next event;
//! `id:` and `retry:` are ignored because no caller reconnects.
//!
//! Unlike the WHATWG algorithm, [`SseDecoder::finish`] dispatches an event
//! still pending at end of input: some providers end a stream without the
//! final blank line, and the last event is often the one with the usage.
//!
//! Written by hand instead of through `eventsource-stream` because the
//! adaptors and their tests need a synchronous decoder (no runtime, no
//! `Stream`) that can be fed fixtures one split at a time, and because the
//! hot path here borrows lines straight from the input chunk.

/// One dispatched Server-Sent Event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` name, empty for the default `message` event.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental SSE decoder; see the module docs for the accepted syntax.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of a line whose end has not arrived yet.
    partial_line: Vec<u8>,
    /// The previous chunk ended with CR; a leading LF belongs to it.
    skip_lf: bool,
    event: String,
    data: String,
    has_data: bool,
    at_start: bool,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self {
            at_start: true,
            ..Self::default()
        }
    }

    /// Consumes one chunk and appends every event it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = chunk;
        if self.skip_lf && !rest.is_empty() {
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
            self.skip_lf = false;
        }
        while let Some(pos) = memchr::memchr2(b'\n', b'\r', rest) {
            let line = &rest[..pos];
            let ended_by_cr = rest[pos] == b'\r';
            rest = &rest[pos + 1..];
            if self.partial_line.is_empty() {
                self.process_line(line, out);
            } else {
                let mut joined = std::mem::take(&mut self.partial_line);
                joined.extend_from_slice(line);
                self.process_line(&joined, out);
                joined.clear();
                self.partial_line = joined;
            }
            if ended_by_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.skip_lf = true,
                    Some(_) => {}
                }
            }
        }
        self.partial_line.extend_from_slice(rest);
    }

    /// Ends the input: a trailing unterminated line is processed and an
    /// event still pending is dispatched into `out`.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.partial_line.is_empty() {
            let line = std::mem::take(&mut self.partial_line);
            self.process_line(&line, out);
        }
        self.dispatch(out);
    }

    fn process_line(&mut self, mut line: &[u8], out: &mut Vec<SseEvent>) {
        if self.at_start {
            self.at_start = false;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                push_utf8(&mut self.data, value);
                self.has_data = true;
            }
            b"event" => {
                self.event.clear();
                push_utf8(&mut self.event, value);
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.has_data {
            out.push(SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data),
            });
            self.has_data = false;
        } else {
            self.event.clear();
        }
    }
}

/// Appends `bytes` as text; invalid UTF-8 becomes U+FFFD. The strict check
/// first: it is vectorised, the lossy walk is not.
fn push_utf8(dst: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => dst.push_str(text),
        Err(_) => dst.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for piece in pieces {
            decoder.feed(piece, &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.into(),
            data: data.into(),
        }
    }

    #[test]
    fn lf_crlf_and_cr_line_endings_give_the_same_events() {
        let expected = vec![event("", "a"), event("ping", "b")];
        for text in [
            "data: a\n\nevent: ping\ndata: b\n\n",
            "data: a\r\n\r\nevent: ping\r\ndata: b\r\n\r\n",
            "data: a\r\revent: ping\rdata: b\r\r",
        ] {
            assert_eq!(decode_in_pieces(&[text.as_bytes()]), expected, "{text:?}");
        }
    }

    #[test]
    fn crlf_split_between_chunks_is_one_line_end() {
        let events = decode_in_pieces(&[b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n"]);
        assert_eq!(events, vec![event("", "a"), event("", "b")]);
    }

    #[test]
    fn comments_are_skipped_and_multi_line_data_joins_with_newline() {
        let events = decode_in_pieces(&[b": keep-alive\ndata: one\ndata:two\n: mid\n\n"]);
        assert_eq!(events, vec![event("", "one\ntwo")]);
    }

    #[test]
    fn utf8_character_split_across_chunks_survives() {
        let text = "data: héllo ✓\n\n".as_bytes();
        for k in 0..=text.len() {
            assert_eq!(
                decode_in_pieces(&[&text[..k], &text[k..]]),
                vec![event("", "héllo ✓")]
            );
        }
    }

    #[test]
    fn pending_event_is_dispatched_at_end_of_input() {
        assert_eq!(decode_in_pieces(&[b"data: last"]), vec![event("", "last")]);
        assert_eq!(
            decode_in_pieces(&[b"data: last\n"]),
            vec![event("", "last")]
        );
    }

    #[test]
    fn event_name_without_data_is_dropped_and_does_not_leak() {
        let events = decode_in_pieces(&[b"event: ping\n\ndata: x\n\n"]);
        assert_eq!(events, vec![event("", "x")]);
    }

    #[test]
    fn field_without_colon_and_value_without_space() {
        let events = decode_in_pieces(&[b"data\ndata:x\n\n"]);
        assert_eq!(events, vec![event("", "\nx")]);
    }

    #[test]
    fn leading_byte_order_mark_is_ignored() {
        let events = decode_in_pieces(&["\u{feff}data: x\n\n".as_bytes()]);
        assert_eq!(events, vec![event("", "x")]);
    }
}
