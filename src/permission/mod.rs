//! Who may change what: permission modes, rules, and asking the user.
//!
//! - [`Mode`] is the one switch (`--permissions`, `[permissions] mode`,
//!   `LIGHT_AGENT_PERMISSIONS`): `read-only`, `ask`, `auto`, `full`.
//! - [`Rule`]s (`edit(src/**)`, `shell(cargo test *)`, `mcp(server.tool)`)
//!   sit in three lists — allow, ask, deny — and [`Policy::decide`] turns a
//!   [`GateRequest`] into a [`Decision`]: deny beats ask beats allow, and the
//!   mode decides what no rule covers.
//! - [`Approver`] is how a host asks its user ([`ApprovalRequest`] in,
//!   [`ApprovalDecision`] out): the TUI shows an overlay, `exec` has nobody to
//!   ask, a library user brings their own.
//! - [`Permits`] is the handle a gated tool holds (in `ToolContext`): the
//!   policy, the approver and this session's "allow for the session" answers.
//!   A tool prepares its change, calls [`Permits::request`], and writes only
//!   when that returns `Ok`.
//!
//! Architecture invariant: this module never knows how a question is shown;
//! it depends on nothing but `std`, `futures` and the gitignore matcher.

mod approval;
mod command;
mod destructive;
mod mode;
mod permits;
mod policy;
mod rule;

pub use approval::{ApprovalDecision, ApprovalDetail, ApprovalRequest, Approver};
pub use command::{CommandShape, Segment, analyse};
pub use destructive::{Destructive, Overwrite, OverwriteBy};
pub use mode::{Mode, ParseModeError};
pub use permits::{Denied, HookAnswer, Permits, session_rules};
pub use policy::{Decision, GateRequest, Policy, shell_shape};
pub use rule::{Rule, RuleError, RuleKind, RuleList, RuleSource};
