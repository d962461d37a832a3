//! light-agent: an event-stream coding-agent runtime.
#![deny(missing_docs)]

pub mod agent;
pub mod ai;
pub mod config;
pub mod context;
pub mod protocol;
pub mod session;
pub mod tool;
pub mod tui;
