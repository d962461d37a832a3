//! Text changes computed in memory, before anything is written: the
//! `old_string` matcher of `edit`, the `*** Begin Patch` grammar and hunk
//! matching of `apply_patch`, the file format both preserve, and the
//! unified diffs shown for approval and undo.
//!
//! - [`text`]: a file's bytes as text — BOM, dominant line ending, binary
//!   and size refusals.
//! - [`normalize`]: the looser views matching falls back to (trailing
//!   whitespace, typographic punctuation) and `N | ` prefix removal.
//! - [`replace`]: `edit`'s replacements, each matched once.
//! - [`grammar`]: parsing a patch into [`FileOp`]s.
//! - [`hunk`]: applying an update's hunks to a file.
//! - [`diff`]: unified diffs with counts and numbered excerpts.
//!
//! Architecture invariant: nothing here touches the disk; every function is
//! pure and refuses rather than guesses (no similarity scores).

pub mod diff;
pub mod grammar;
pub mod hunk;
pub mod normalize;
pub mod replace;
pub mod text;

pub use diff::{FileDiff, diff_texts};
pub use grammar::{FileOp, GrammarError, Hunk, HunkLine, parse_patch};
pub use hunk::{HunkError, apply_hunks};
pub use replace::{ReplaceError, Replacement, apply_replacements};
pub use text::{Eol, MAX_EDIT_BYTES, TextFile, TextRefusal};
