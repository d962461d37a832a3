//! The prompt editor: a multi-line textarea with readline/emacs editing,
//! paste chips and per-cwd history.
//!
//! Keys are mapped here, explicitly ([`Composer::key`]), instead of through
//! the textarea's own shortcuts (where Ctrl+U is undo). A paste over
//! [`CHIP_LINES`] lines or [`CHIP_CHARS`] characters is shown as a chip
//! `[Pasted text #N +L lines]` and expanded when the prompt is sent; an
//! attached image is a chip `[Image #N name.png]` whose part goes with the
//! prompt while the chip is in the text. Backspace right after a chip
//! deletes the whole chip.
//!
//! History is a JSON-lines file (one JSON string per prompt, so multi-line
//! prompts survive); it is read once at start and appended on each send.
//! A history file that cannot be read or written only costs the history.

use std::io::Write;
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::Widget;
use ratatui_textarea::{CursorMove, TextArea, WrapMode};

use crate::protocol::PromptPart;
use crate::tui::wrap::display_width;

const MAX_HISTORY: usize = 1000;
const MAX_HEIGHT: u16 = 8;
const PROMPT: &str = "› ";
/// The empty composer's hint, in parts: as many whole parts as fit are
/// shown, never a part cut in the middle.
const PLACEHOLDER_PARTS: [&str; 3] = ["Ask anything", " · / for commands", " · Ctrl+T transcript"];
/// A paste with more lines than this becomes a chip.
pub const CHIP_LINES: usize = 10;
/// A paste with more characters than this becomes a chip.
pub const CHIP_CHARS: usize = 1000;

/// The composer and its history.
pub struct Composer {
    area: TextArea<'static>,
    history: Vec<String>,
    recall: Option<usize>,
    draft: String,
    history_path: Option<PathBuf>,
    /// Pasted texts shown as chips, by label.
    pastes: Vec<(String, String)>,
    pastes_made: usize,
    /// Attached images shown as chips `[Image #N name]`, by label.
    images: Vec<(String, PromptPart)>,
    images_made: usize,
}

impl Composer {
    /// A composer whose history lives in `history_path` (if any).
    pub fn new(history_path: Option<PathBuf>) -> Self {
        let history = history_path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|text| {
                let mut entries: Vec<String> = text
                    .lines()
                    .filter_map(|l| serde_json::from_str::<String>(l).ok())
                    .collect();
                let skip = entries.len().saturating_sub(MAX_HISTORY);
                entries.drain(..skip);
                entries
            })
            .unwrap_or_default();
        Self {
            area: fresh_area(),
            history,
            recall: None,
            draft: String::new(),
            history_path,
            pastes: Vec::new(),
            pastes_made: 0,
            images: Vec::new(),
            images_made: 0,
        }
    }

    /// The text being edited (paste chips as their labels).
    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Whether nothing has been typed.
    pub fn is_empty(&self) -> bool {
        self.area.is_empty()
    }

    /// Replaces the text and puts the cursor at its end.
    pub fn set_text(&mut self, text: &str) {
        let mut area = fresh_area();
        area.insert_str(text);
        self.area = area;
        self.recall = None;
    }

    /// Empties the composer and forgets its paste and image chips.
    pub fn clear(&mut self) {
        self.set_text("");
        self.pastes.clear();
        self.images.clear();
    }

    /// Inserts an image chip `[Image #N name]` at the cursor; `part` goes
    /// with the prompt while the chip is in the text.
    pub fn attach_image(&mut self, name: &str, part: PromptPart) {
        self.images_made += 1;
        let label = format!("[Image #{} {name}]", self.images_made);
        self.area.insert_str(&label);
        self.images.push((label, part));
    }

    /// The image chips still in the text, with their parts, in attach order.
    pub fn image_chips(&self) -> Vec<(String, PromptPart)> {
        let text = self.text();
        self.images
            .iter()
            .filter(|(label, _)| text.contains(label.as_str()))
            .cloned()
            .collect()
    }

    /// Takes back image chips (a rejected prompt's) whose labels the text
    /// holds again.
    pub fn restore_images(&mut self, chips: Vec<(String, PromptPart)>) {
        for chip in chips {
            if !self.images.iter().any(|(label, _)| *label == chip.0) {
                self.images.push(chip);
            }
        }
    }

    /// The `@` mention being typed at the cursor: the `@`'s column and what
    /// follows it up to the cursor.
    pub fn mention_at_cursor(&self) -> Option<(usize, String)> {
        let (row, col) = (self.area.cursor().0, self.area.cursor().1);
        let line = self.area.lines().get(row)?;
        crate::tui::mention::token_at(line, col)
    }

    /// Replaces the text from column `from` of the cursor's line up to the
    /// cursor with `with`.
    pub fn replace_before_cursor(&mut self, from: usize, with: &str) {
        let col = self.area.cursor().1;
        for _ in from..col {
            self.area.delete_char();
        }
        self.area.insert_str(with);
    }

    /// Deletes a whole chip (paste or image) that ends right before the
    /// cursor; `false` when none does.
    fn delete_chip_before_cursor(&mut self) -> bool {
        let (row, col) = (self.area.cursor().0, self.area.cursor().1);
        let Some(line) = self.area.lines().get(row) else {
            return false;
        };
        let before: String = line.chars().take(col).collect();
        let labels = self
            .pastes
            .iter()
            .map(|(l, _)| l)
            .chain(self.images.iter().map(|(l, _)| l));
        let Some(len) = labels
            .filter(|label| before.ends_with(label.as_str()))
            .map(|label| label.chars().count())
            .next()
        else {
            return false;
        };
        for _ in 0..len {
            self.area.delete_char();
        }
        true
    }

    /// Applies an editing key, readline style: Ctrl+A/E and Home/End line
    /// start/end; Ctrl+B/F and Left/Right by character; Alt+B/F and
    /// Ctrl/Alt+Left/Right by word; Ctrl+K/U kill to line end/start;
    /// Ctrl+W, Alt+Backspace kill the word before, Alt+D the word after;
    /// Ctrl+Y yanks the last kill; Ctrl+H/Backspace, Ctrl+D/Delete delete a
    /// character; Ctrl+Z undoes; Ctrl+O opens a paste chip for editing.
    /// Other control keys are ignored.
    pub fn key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if key.code == KeyCode::Backspace && !ctrl && !alt && self.delete_chip_before_cursor() {
            return;
        }
        let area = &mut self.area;
        match key.code {
            KeyCode::Char('a') if ctrl => area.move_cursor(CursorMove::Head),
            KeyCode::Char('e') if ctrl => area.move_cursor(CursorMove::End),
            KeyCode::Char('b') if ctrl => area.move_cursor(CursorMove::Back),
            KeyCode::Char('f') if ctrl => area.move_cursor(CursorMove::Forward),
            KeyCode::Char('b') if alt => area.move_cursor(CursorMove::WordBack),
            KeyCode::Char('f') if alt => area.move_cursor(CursorMove::WordForward),
            KeyCode::Char('k') if ctrl => drop(area.delete_line_by_end()),
            // At the line start readline does nothing (no line join).
            KeyCode::Char('u') if ctrl && area.cursor().1 > 0 => drop(area.delete_line_by_head()),
            KeyCode::Char('u') if ctrl => {}
            KeyCode::Char('w') if ctrl => drop(area.delete_word()),
            KeyCode::Char('d') if alt => drop(area.delete_next_word()),
            KeyCode::Char('y') if ctrl => drop(area.paste()),
            KeyCode::Char('h') if ctrl => drop(area.delete_char()),
            KeyCode::Char('d') if ctrl => drop(area.delete_next_char()),
            KeyCode::Char('z') if ctrl => drop(area.undo()),
            KeyCode::Char('o') if ctrl => self.open_chip(),
            KeyCode::Char(_) if ctrl || alt => {}
            KeyCode::Char(c) => area.insert_char(c),
            KeyCode::Backspace if alt || ctrl => drop(area.delete_word()),
            KeyCode::Backspace => drop(area.delete_char()),
            KeyCode::Delete if alt || ctrl => drop(area.delete_next_word()),
            KeyCode::Delete => drop(area.delete_next_char()),
            KeyCode::Left if alt || ctrl => area.move_cursor(CursorMove::WordBack),
            KeyCode::Right if alt || ctrl => area.move_cursor(CursorMove::WordForward),
            KeyCode::Left => area.move_cursor(CursorMove::Back),
            KeyCode::Right => area.move_cursor(CursorMove::Forward),
            KeyCode::Up => area.move_cursor(CursorMove::Up),
            KeyCode::Down => area.move_cursor(CursorMove::Down),
            KeyCode::Home => area.move_cursor(CursorMove::Head),
            KeyCode::End => area.move_cursor(CursorMove::End),
            KeyCode::Tab => drop(area.insert_tab()),
            _ => {}
        }
    }

    /// Inserts a line break at the cursor.
    pub fn newline(&mut self) {
        self.area.insert_newline();
    }

    /// Inserts pasted text as one edit (line endings normalised); a long
    /// paste goes in as a chip `[Pasted text #N +L lines]`.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let lines = text.lines().count();
        if lines > CHIP_LINES || text.chars().count() > CHIP_CHARS {
            self.pastes_made += 1;
            let unit = if lines == 1 { "line" } else { "lines" };
            let label = format!("[Pasted text #{} +{lines} {unit}]", self.pastes_made);
            self.area.insert_str(&label);
            self.pastes.push((label, text));
        } else {
            self.area.insert_str(text);
        }
    }

    /// Opens the paste chip at or before the cursor (else the first one):
    /// its text replaces the label, for editing. Nothing happens without one.
    pub fn open_chip(&mut self) {
        let text = self.text();
        let (row, col) = (self.area.cursor().0, self.area.cursor().1);
        let cursor: usize = text
            .split('\n')
            .take(row)
            .map(|l| l.len() + 1)
            .sum::<usize>()
            + text
                .split('\n')
                .nth(row)
                .map_or(0, |l| l.char_indices().nth(col).map_or(l.len(), |(i, _)| i));
        let found = self
            .pastes
            .iter()
            .enumerate()
            .filter_map(|(i, (label, _))| text.find(label.as_str()).map(|at| (i, at, label.len())))
            .filter(|&(_, at, _)| at <= cursor)
            .max_by_key(|&(_, at, _)| at)
            .or_else(|| {
                self.pastes.iter().enumerate().find_map(|(i, (label, _))| {
                    text.find(label.as_str()).map(|at| (i, at, label.len()))
                })
            });
        let Some((index, at, len)) = found else {
            return;
        };
        let (_, pasted) = self.pastes.remove(index);
        let mut opened = text;
        opened.replace_range(at..at + len, &pasted);
        let pastes = std::mem::take(&mut self.pastes);
        self.set_text(&opened);
        self.pastes = pastes;
    }

    /// The text as it will be sent: every paste chip still present
    /// replaced by what was pasted.
    pub fn expanded_text(&self) -> String {
        let mut text = self.text();
        for (label, pasted) in &self.pastes {
            if let Some(at) = text.find(label.as_str()) {
                text.replace_range(at..at + label.len(), pasted);
            }
        }
        text
    }

    /// Whether the cursor is on the first line (Up recalls history there).
    pub fn cursor_on_first_line(&self) -> bool {
        self.area.cursor().0 == 0
    }

    /// Whether the cursor is on the last line (Down moves through history there).
    pub fn cursor_on_last_line(&self) -> bool {
        self.area.cursor().0 + 1 >= self.area.lines().len()
    }

    /// Takes the text out for sending (paste chips expanded), records it in
    /// the history and empties the composer.
    pub fn submit(&mut self) -> String {
        let text = self.expanded_text();
        self.clear();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
            self.append_to_file(&text);
        }
        text
    }

    fn append_to_file(&self, text: &str) {
        let Some(path) = &self.history_path else {
            return;
        };
        let Ok(line) = serde_json::to_string(text) else {
            return;
        };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(file, "{line}");
        }
    }

    /// Recalls the previous prompt; returns false at the oldest entry.
    pub fn history_prev(&mut self) -> bool {
        let next = match self.recall {
            None if self.history.is_empty() => return false,
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => return false,
            Some(i) => i - 1,
        };
        self.show_recalled(next);
        true
    }

    /// Moves to the next newer prompt, then back to the draft.
    pub fn history_next(&mut self) -> bool {
        match self.recall {
            None => false,
            Some(i) if i + 1 < self.history.len() => {
                self.show_recalled(i + 1);
                true
            }
            Some(_) => {
                let draft = std::mem::take(&mut self.draft);
                self.set_text(&draft);
                true
            }
        }
    }

    fn show_recalled(&mut self, index: usize) {
        let text = self.history.get(index).cloned().unwrap_or_default();
        self.set_text(&text);
        self.recall = Some(index);
    }

    /// Rows the composer wants at `width` (wrapped lines, 1 to 8).
    pub fn height(&self, width: u16) -> u16 {
        let inner = width.saturating_sub(2).max(1) as usize;
        let rows: usize = self
            .area
            .lines()
            .iter()
            .map(|l| display_width(l).div_ceil(inner).max(1))
            .sum();
        (rows as u16).clamp(1, MAX_HEIGHT)
    }

    /// Where the terminal cursor belongs, relative to the composer area
    /// (for IME placement); wrapping is not accounted for.
    pub fn cursor_offset(&self) -> (u16, u16) {
        let (row, col) = (self.area.cursor().0, self.area.cursor().1);
        let line = self.area.lines().get(row).map(String::as_str).unwrap_or("");
        let before: String = line.chars().take(col).collect();
        (2 + display_width(&before) as u16, row as u16)
    }

    /// Moves the cursor to the end of the text.
    pub fn move_to_end(&mut self) {
        self.area.move_cursor(CursorMove::Bottom);
        self.area.move_cursor(CursorMove::End);
    }
}

fn fresh_area() -> TextArea<'static> {
    let mut area = TextArea::default();
    area.set_wrap_mode(WrapMode::WordOrGlyph);
    area.set_cursor_line_style(Style::new());
    area.set_placeholder_text(PLACEHOLDER_PARTS.concat());
    area.set_placeholder_style(Style::new().fg(Color::DarkGray));
    area.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
    area
}

impl Widget for &Composer {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < 3 || area.height == 0 {
            return;
        }
        let marker = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        buf.set_span(area.x, area.y, &Span::styled(PROMPT, marker), 2);
        let text_area = Rect {
            x: area.x + 2,
            width: area.width - 2,
            ..area
        };
        (&self.area).render(text_area, buf);
        if self.is_empty() {
            // Blank what is past the last whole part of the hint (which
            // starts after the cursor's cell).
            let fits = placeholder_width(text_area.width.saturating_sub(1)) + 1;
            for x in text_area.x + fits..text_area.right() {
                if let Some(cell) = buf.cell_mut((x, text_area.y)) {
                    cell.reset();
                }
            }
        }
    }
}

/// The width of the hint's whole parts that fit in `width` columns (the
/// first part, cut, when not even it fits).
fn placeholder_width(width: u16) -> u16 {
    let mut shown = 0;
    for part in PLACEHOLDER_PARTS {
        let next = shown + display_width(part);
        if next > usize::from(width) {
            break;
        }
        shown = next;
    }
    if shown == 0 { width } else { shown as u16 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_persisted_and_recalled_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        let mut c = Composer::new(Some(path.clone()));
        c.set_text("first");
        c.submit();
        c.set_text("two\nlines");
        c.submit();
        let mut c = Composer::new(Some(path));
        c.set_text("draft");
        assert!(c.history_prev());
        assert_eq!(c.text(), "two\nlines");
        assert!(c.history_prev());
        assert_eq!(c.text(), "first");
        assert!(!c.history_prev());
        assert!(c.history_next());
        assert!(c.history_next());
        assert_eq!(c.text(), "draft");
    }

    fn press(c: &mut Composer, code: KeyCode, modifiers: KeyModifiers) {
        c.key(KeyEvent::new(code, modifiers));
    }

    #[test]
    fn readline_keys_move_and_kill() {
        let mut c = Composer::new(None);
        c.set_text("alpha beta gamma");
        press(&mut c, KeyCode::Char('w'), KeyModifiers::CONTROL);
        assert_eq!(c.text(), "alpha beta ");
        press(&mut c, KeyCode::Char('b'), KeyModifiers::ALT);
        press(&mut c, KeyCode::Char('k'), KeyModifiers::CONTROL);
        assert_eq!(c.text(), "alpha ");
        press(&mut c, KeyCode::Char('y'), KeyModifiers::CONTROL);
        assert_eq!(c.text(), "alpha beta ", "Ctrl+Y yanks the last kill");
        press(&mut c, KeyCode::Char('a'), KeyModifiers::CONTROL);
        press(&mut c, KeyCode::Char('>'), KeyModifiers::NONE);
        press(&mut c, KeyCode::Char('e'), KeyModifiers::CONTROL);
        press(&mut c, KeyCode::Char('!'), KeyModifiers::NONE);
        assert_eq!(c.text(), ">alpha beta !");
        press(&mut c, KeyCode::Left, KeyModifiers::CONTROL);
        press(&mut c, KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(c.text(), "!", "Ctrl+U deletes to the line start");
        press(&mut c, KeyCode::Home, KeyModifiers::NONE);
        press(&mut c, KeyCode::Char('d'), KeyModifiers::ALT);
        assert_eq!(c.text(), "");
    }

    #[test]
    fn long_pastes_become_chips_expanded_on_submit() {
        let mut c = Composer::new(None);
        let long: String = (1..=12).map(|i| format!("line {i}\n")).collect();
        c.set_text("see ");
        c.paste(&long);
        c.paste("short");
        assert_eq!(c.text(), "see [Pasted text #1 +12 lines]short");
        assert_eq!(c.submit(), format!("see {long}short"));
        assert!(c.is_empty());
    }

    #[test]
    fn ctrl_o_opens_the_chip_before_the_cursor_for_editing() {
        let mut c = Composer::new(None);
        let first: String = (1..=11).map(|i| format!("a{i}\n")).collect();
        let second: String = (1..=11).map(|i| format!("b{i}\n")).collect();
        c.paste(&first);
        c.paste(&second);
        assert_eq!(
            c.text(),
            "[Pasted text #1 +11 lines][Pasted text #2 +11 lines]"
        );
        press(&mut c, KeyCode::Char('o'), KeyModifiers::CONTROL);
        assert_eq!(c.text(), format!("[Pasted text #1 +11 lines]{second}"));
        assert_eq!(c.expanded_text(), format!("{first}{second}"));
    }

    #[test]
    fn paste_keeps_lines_and_normalises_endings() {
        let mut c = Composer::new(None);
        c.paste("a\r\nb\rc");
        assert_eq!(c.text(), "a\nb\nc");
    }
}
