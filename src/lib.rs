//! light-agent: an event-stream coding-agent runtime.
#![deny(missing_docs)]

pub mod ai;
pub mod protocol;
pub mod tui;
