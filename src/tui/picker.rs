//! The `@` file picker's behaviour in the [`App`]: typing `@` opens it
//! over the cached listing (and asks the host for a fresh one), typing
//! narrows it, Up/Down move, Tab/Enter insert `@path`, Esc closes. Mentions
//! in the composer are checked with the host; those that will not be sent
//! are named above the composer, and on send every other one becomes a
//! file-reference part.

use super::app::App;
use super::mention::{self, FileIndex, PICKER_ROWS};
use super::view::file_picker::{self, PickerView};
use crate::protocol::{EntryKind, MentionCheck, MentionState, Op, PromptPart, WorkspaceEntry};

/// The picker's state beside the composer.
#[derive(Default)]
pub struct MentionPicker {
    /// Whether it is shown.
    pub open: bool,
    /// The selected row.
    pub selected: usize,
    /// The rows shown, best first.
    pub matches: Vec<WorkspaceEntry>,
    /// The listing and the mentions' states.
    pub files: FileIndex,
}

impl App {
    /// Asks the host for the listing ahead of the first `@`, so the
    /// picker's first rows come from the cache (the run loop calls it once
    /// at start; the walk runs on the host's blocking pool).
    pub fn prefetch_files(&mut self) {
        if !self.mention.files.listing {
            self.mention.files.listing = true;
            self.push_op(Op::ListFiles);
        }
    }

    /// Asks the host for the prompt-file commands (the run loop calls it
    /// once at start; `/commands` asks again).
    pub fn prefetch_commands(&mut self) {
        self.push_op(Op::ListCommands);
    }

    /// Whether the `@` picker is shown.
    pub fn picker_open(&self) -> bool {
        self.mention.open
    }

    /// After an edit of the composer: `typed_at` says an `@` was just
    /// typed, which opens the picker; it closes once no mention is being
    /// typed at the cursor; the rows follow the typed text.
    pub(crate) fn follow_mention(&mut self, typed_at: bool) {
        let token = self.composer.mention_at_cursor();
        if typed_at && token.is_some() && !self.mention.open {
            self.mention.open = true;
            self.mention.selected = 0;
            // Refreshed on every open; the cached listing serves meanwhile.
            self.prefetch_files();
        }
        match token {
            Some((_, query)) if self.mention.open => self.rematch(&query),
            _ => self.mention.open = false,
        }
        self.ask_mention_states();
    }

    fn rematch(&mut self, query: &str) {
        self.mention.matches = self
            .mention
            .files
            .matches(query, PICKER_ROWS)
            .into_iter()
            .cloned()
            .collect();
        self.mention.selected = self
            .mention
            .selected
            .min(self.mention.matches.len().saturating_sub(1));
    }

    /// A new listing from the host.
    pub(crate) fn on_files(&mut self, entries: Vec<WorkspaceEntry>, truncated: bool) {
        self.mention.files.set_entries(entries, truncated);
        if self.mention.open
            && let Some((_, query)) = self.composer.mention_at_cursor()
        {
            self.rematch(&query);
        }
    }

    /// The host's answers about mentioned paths.
    pub(crate) fn on_mentions_checked(&mut self, checks: Vec<MentionCheck>) {
        self.mention.files.set_checks(checks);
    }

    /// Moves the selection.
    pub(crate) fn mention_step(&mut self, delta: isize) {
        let last = self.mention.matches.len().saturating_sub(1);
        self.mention.selected = self.mention.selected.saturating_add_signed(delta).min(last);
    }

    /// Closes the picker; the typed text stays.
    pub(crate) fn close_picker(&mut self) {
        self.mention.open = false;
    }

    /// Tab/Enter: the selected entry replaces the typed mention. A folder
    /// keeps the picker open inside it; anything else closes it, followed
    /// by a space.
    pub(crate) fn picker_choose(&mut self) {
        let Some(entry) = self.mention.matches.get(self.mention.selected).cloned() else {
            self.mention.open = false;
            return;
        };
        let Some((at, _)) = self.composer.mention_at_cursor() else {
            self.mention.open = false;
            return;
        };
        if entry.kind == EntryKind::Directory {
            self.composer
                .replace_before_cursor(at, &format!("@{}", entry.path));
            self.mention.selected = 0;
            self.rematch(&entry.path);
            return;
        }
        self.composer
            .replace_before_cursor(at, &format!("@{} ", entry.path));
        self.mention.open = false;
        self.ask_mention_states();
    }

    /// Asks the host about the mentions in the composer it has not been
    /// asked about, except the one being typed.
    fn ask_mention_states(&mut self) {
        let typing = self.composer.mention_at_cursor().map(|(_, t)| t);
        let paths: Vec<String> = mention::mentions(&self.composer.text())
            .into_iter()
            .filter(|m| typing.as_deref().and_then(mention::parse_token).as_ref() != Some(m))
            .map(|m| m.path)
            .collect();
        let ask = self.mention.files.to_ask(paths);
        if !ask.is_empty() {
            self.push_op(Op::CheckMentions { paths: ask });
        }
    }

    /// The mentions in `text` that go with the prompt, as file parts: all
    /// but those known not to be sendable (the host checks the rest).
    pub(crate) fn mention_parts(&self, text: &str) -> Vec<PromptPart> {
        mention::mentions(text)
            .into_iter()
            .filter(|m| {
                self.mention
                    .files
                    .state(&m.path)
                    .is_none_or(MentionState::is_sent)
            })
            .map(|m| m.part())
            .collect()
    }

    /// Mentions in the composer that will not be sent, and why.
    pub(crate) fn refused_mentions(&self) -> Vec<(String, MentionState)> {
        mention::mentions(&self.composer.text())
            .into_iter()
            .filter_map(|m| {
                let state = self.mention.files.state(&m.path)?;
                (!state.is_sent()).then_some((m.path, state))
            })
            .collect()
    }

    /// The picker's rows as drawn.
    pub(crate) fn picker_lines(&self, width: u16) -> Vec<ratatui::text::Line<'static>> {
        file_picker::lines(
            &PickerView {
                matches: &self.mention.matches,
                selected: self.mention.selected,
                loaded: self.mention.files.loaded,
                truncated: self.mention.files.truncated,
            },
            width,
        )
    }
}
