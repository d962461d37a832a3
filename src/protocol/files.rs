//! The working directory's files as a front end's `@` picker sees them:
//! the listing the host walks for [`Op::ListFiles`](super::Op::ListFiles)
//! and what a mentioned path turned out to be
//! ([`Op::CheckMentions`](super::Op::CheckMentions)).

use serde::{Deserialize, Serialize};

/// One entry of the working directory's listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceEntry {
    /// Its path relative to the working directory, `/`-separated; a
    /// directory's ends with `/`.
    pub path: String,
    /// What it is.
    pub kind: EntryKind,
}

/// What a listed entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file (or a link to one inside the directory).
    File,
    /// A directory (never sent: listed so the user can narrow to it).
    Directory,
    /// A symbolic link that leads outside the directory, or nowhere: never
    /// read.
    Refused,
}

/// What a mentioned path is, as far as a prompt can use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MentionState {
    /// A text file, small enough to go with the prompt.
    Text,
    /// A text file too large to inline: it goes as a hint to read it.
    Large,
    /// A binary file: not sent.
    Binary,
    /// A directory: not sent.
    Directory,
    /// Nothing by that name.
    Missing,
    /// Outside the working directory (by its spelling or through a
    /// symlink): never read.
    Outside,
    /// Something that is not a regular file (FIFO, socket, device), denied
    /// or unreadable: not sent.
    Unusable,
}

impl MentionState {
    /// Whether a mention in this state goes with the prompt.
    pub fn is_sent(self) -> bool {
        matches!(self, MentionState::Text | MentionState::Large)
    }

    /// A few words for the composer ("outside the working directory").
    pub fn describe(self) -> &'static str {
        match self {
            MentionState::Text => "a text file",
            MentionState::Large => "a large file (sent as a hint to read it)",
            MentionState::Binary => "a binary file, not sent",
            MentionState::Directory => "a directory, not sent",
            MentionState::Missing => "not found, not sent",
            MentionState::Outside => "outside the working directory, not read",
            MentionState::Unusable => "not a readable regular file, not sent",
        }
    }
}

/// One answer of [`Op::CheckMentions`](super::Op::CheckMentions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MentionCheck {
    /// The path as it was asked about.
    pub path: String,
    /// What it is.
    pub state: MentionState,
}
