//! The integration tests: one binary, one module per area (linked once).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
mod tui_support;

mod agent_context;
mod agent_loop;
mod agent_vendors;
mod ai_adaptor_mock;
mod ai_decode_fixtures;
mod ai_gemini;
mod ai_request_shape;
mod ai_responses;
mod ai_vendor_request_shape;
mod architecture;
mod cli_commands;
mod config_init;
mod config_logging;
mod config_probe;
mod config_resolve;
mod examples;
mod exec_cli;
mod readme;
mod session_log;
mod session_manager;
mod tool_cancel;
mod tool_cli;
mod tool_grep;
mod tool_read_file;
mod tool_registry;
mod tool_sandbox;
mod tool_tree;
mod tui_app;
mod tui_e2e;
mod tui_loop;
mod tui_render;
