//! Commands beyond the front end's own: prompt files (`/fix issue-12` from
//! `.claude/commands/fix.md`) and the built-in `/init` and `/review`.
//!
//! - `discover.rs` finds prompt files through the confined-open API: the
//!   project's `.agents/commands`, `.claude/commands`, `.opencode/command(s)`
//!   and `.gemini/commands`, then the user's `commands/` in the config
//!   directory; a name is taken once, project files first.
//! - `parse.rs` reads their formats and expands a run's arguments.
//! - `trust.rs`: a project file's shell lines (`` !`cmd` ``) run only after
//!   the user accepted the project's commands in their current content.
//! - `review.rs`: `/review`'s diff.
//! - `run.rs`: the actor's side — listing, running, deciding.
//!
//! Built-ins are never shadowed: the host answers `init` and `review`
//! before looking at files, and a front end drops a listed file named like
//! one of its own commands (saying so).

pub mod discover;
pub mod parse;
pub mod review;
mod run;
pub mod trust;
