//! The command line.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use light_agent::protocol::Effort;

/// light-agent: a terminal coding agent that explores your repository with
/// sandboxed tree / grep / read_file tools.
#[derive(Debug, Parser)]
#[command(name = "light-agent", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    /// Start a new session instead of resuming the latest one for this directory.
    #[arg(long, conflicts_with = "resume")]
    pub new: bool,
    /// Resume the session with this id (or a unique prefix of its short id);
    /// without an id, pick one of this directory's sessions.
    #[arg(long, value_name = "ID", num_args = 0..=1)]
    pub resume: Option<Option<String>>,
    /// Copy the session with this id (default: this directory's latest)
    /// into a new session and open that; the original is not changed.
    #[arg(long, value_name = "ID", num_args = 0..=1, conflicts_with_all = ["resume", "new"])]
    pub fork: Option<Option<String>>,
    #[command(flatten)]
    pub model: ModelFlags,
    /// Working directory (default: the current one).
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Log level for the log file (e.g. info, debug, light_agent=trace).
    #[arg(long, global = true, value_name = "FILTER")]
    pub log_level: Option<String>,
    /// How commands are confined: workspace-write (default), read-only, or off.
    #[arg(long, global = true, value_name = "MODE", value_parser = ["workspace-write", "read-only", "off"])]
    pub sandbox: Option<String>,
    /// Permission mode: read-only (no writing tools; exec's default), ask
    /// (approve each change; the TUI's default), auto (edits apply), full.
    #[arg(long, global = true, value_name = "MODE")]
    pub permissions: Option<String>,
    /// A prompt to send at once.
    pub prompt: Option<String>,
    /// Attach an image (PNG, JPEG, GIF or WebP) to the first prompt; repeatable.
    #[arg(short = 'i', long = "image", value_name = "FILE")]
    pub images: Vec<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

const EXAMPLES: &str = "Examples:
  light-agent                          resume this directory's latest session
  light-agent resume                   pick one of this directory's sessions
  light-agent resume nd9u              resume the session whose short id starts with nd9u
  light-agent --fork                   continue a copy of this directory's latest session
  light-agent --new \"explain src/\"     start fresh with a prompt
  light-agent exec \"where is main?\"    one headless turn
  light-agent tool grep '{\"search_strs\":[\"fn main\"]}'";

/// Which model to talk to; overrides the config file and environment.
#[derive(Debug, Clone, Default, Args)]
pub struct ModelFlags {
    /// Provider profile (openai, anthropic, deepseek, ollama, or one from config.toml).
    #[arg(long, global = true)]
    pub provider: Option<String>,
    /// Model name.
    #[arg(long, global = true)]
    pub model: Option<String>,
    /// Base URL of the provider's API (e.g. http://127.0.0.1:11434/v1).
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Context window of the model, in tokens.
    #[arg(long, global = true, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Reasoning effort of models that take one: minimal, low, medium or high.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub effort: Option<Effort>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the UI in a session: the picker of this directory's sessions,
    /// or the session ID names (full id, or a unique prefix of its short id).
    #[command(after_help = "Examples:
  light-agent resume
  light-agent resume nd9uk3qe")]
    Resume {
        /// Session id or short-id prefix.
        id: Option<String>,
    },
    /// Run one turn headless and print the answer.
    #[command(after_help = "Examples:
  light-agent exec \"summarise README.md\"
  echo \"list the modules\" | light-agent exec -
  light-agent exec --json --continue \"and the tests?\"")]
    Exec(ExecArgs),
    /// Serve an editor over the Agent Client Protocol (JSON-RPC on
    /// stdin/stdout): Zed, JetBrains IDEs, Neovim, Emacs start it as their agent.
    #[command(
        long_about = "Serve an editor over the Agent Client Protocol: JSON-RPC 2.0 messages, one a line, \
on stdin and stdout (nothing else is written to stdout; logs go to the log file). The editor starts \
the process and opens sessions in its project directory; each session is a light-agent session \
(stored, resumable with session/load or `light-agent resume`). Modes: read-only, ask (the default: \
edits and commands outside the rules are asked about through the editor), auto. When the editor \
offers its files (fs/read_text_file, fs/write_text_file), the file tools read and write files inside \
the directory through it, so unsaved buffers are seen; paths are checked against the directory first. \
The process ends when stdin closes.",
        after_help = "Examples (Zed, settings.json):
  \"agent_servers\": { \"light-agent\": { \"command\": \"light-agent\", \"args\": [\"acp\"] } }
  light-agent acp --provider ollama --model qwen3:8b"
    )]
    Acp,
    /// Run a built-in tool (tree, grep, read_file) confined to the working directory and print its result.
    #[command(after_help = "Examples:
  light-agent tool tree '{}'
  light-agent tool grep '{\"search_strs\":[\"fn main\"]}'
  light-agent tool read_file '{\"path\":\"src/main.rs\",\"start_line\":10}'")]
    Tool {
        /// Tool name.
        name: String,
        /// Arguments as a JSON object.
        args: String,
    },
    /// List stored sessions of this directory (or of every directory).
    #[command(after_help = "Examples:
  light-agent sessions
  light-agent sessions --all --limit 50
  light-agent sessions --json | jq -r '.[0].id'")]
    Sessions {
        /// Sessions of every directory.
        #[arg(long)]
        all: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Most sessions to list.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Print a stored session as markdown, or as JSON lines.
    #[command(after_help = "Examples:
  light-agent show sess_0abc123def
  light-agent show sess_0abc123def --json > session.jsonl")]
    Show {
        /// Session id or a unique prefix of its short id (see `light-agent sessions`).
        id: String,
        /// One JSON event per line.
        #[arg(long)]
        json: bool,
    },
    /// Create, locate or print the configuration.
    #[command(after_help = "Examples:
  light-agent config init
  light-agent config show --provider ollama")]
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Undo the file changes of the latest turn of this directory's latest
    /// session (or of session ID) that changed any; repeat to go further back.
    #[command(after_help = "Examples:
  light-agent undo
  light-agent undo sess_0abc123def")]
    Undo {
        /// Session id (default: this directory's latest session).
        id: Option<String>,
    },
    /// The configured MCP servers.
    #[command(after_help = "Examples:
  light-agent mcp list
  light-agent mcp list --json | jq -r '.[] | select(.state == \"failed\") | .name'")]
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Print shell completions.
    #[command(after_help = "Examples:
  light-agent completions bash > ~/.local/share/bash-completion/completions/light-agent
  light-agent completions zsh > ~/.zfunc/_light-agent")]
    Completions {
        /// Shell.
        shell: clap_complete::Shell,
    },
}

/// `mcp` actions.
#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Start each server once and print its state (starting, ready, failed,
    /// disabled), tool count, last start and error.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `config` actions.
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Write a commented starter config.toml (never overwrites).
    Init,
    /// Print where light-agent keeps its config, sessions, logs and skills.
    Path,
    /// Print the resolved settings, with API keys redacted.
    Show,
}

/// Arguments of `exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The prompt; `-` reads it from stdin. Not taken with
    /// `--input-format stream-json`, where stdin carries the ops.
    #[arg(required_unless_present = "input_format")]
    pub prompt: Option<String>,
    /// Print every event as a JSON line.
    #[arg(long)]
    pub json: bool,
    /// `stream-json`: read ops from stdin, one JSON object a line
    /// (`{"type":"prompt","id":"p1","text":"…"}`, `{"type":"interrupt"}`,
    /// `{"type":"approval","id":"approval-1","decision":"allow"}`,
    /// `{"type":"answer","id":"question-1","answers":["…"]}`, or Claude
    /// Code's `{"type":"user","message":{…}}`), and print every host event as
    /// a JSON line; the process ends when stdin closes and the last turn is done.
    #[arg(long, value_name = "FORMAT", value_parser = ["stream-json"])]
    pub input_format: Option<String>,
    /// Continue the latest session of this directory.
    #[arg(long = "continue", conflicts_with = "resume")]
    pub continue_latest: bool,
    /// Continue the session with this id (or a unique prefix of its short id).
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Attach an image (PNG, JPEG, GIF or WebP) to the prompt; repeatable.
    #[arg(short = 'i', long = "image", value_name = "FILE")]
    pub images: Vec<String>,
}
