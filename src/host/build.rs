//! Turning resolved settings into a running [`Agent`]: the adaptor, the
//! session, the context and the built-in tools.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::HostError;

type Result<T, E = HostError> = std::result::Result<T, E>;
use crate::agent::{Agent, AgentConfig, LoopConfig, RecallSearchTool, RecallTool};
use crate::ai::{
    Adaptor, AnthropicAdaptor, GeminiAdaptor, HttpOptions, OpenAiAdaptor, ResponsesAdaptor,
    RetryPolicy,
};
use crate::config::{Paths, ProviderKind, Settings};
use crate::context::{
    ContextBuilder, ContextConfig, Environment, PromptSection, estimate, project, skills,
};
use crate::mcp::McpServers;
use crate::permission::{Approver, Mode, Permits, Policy};
use crate::sandbox::{DeniedReads, SandboxMode, SandboxPolicy};
use crate::session::{AgentSession, SessionError, SessionManager, SessionStatus, short_id};
use crate::tool::ToolRegistry;
use crate::tool::builtin::shell::{SecretFilter, Shell, ShellConfig};
use crate::tool::builtin::{self, EditFormat};
use crate::tool::editor::Editor;

/// Which session a host starts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A fresh session (written with its first prompt).
    New,
    /// The latest session of the cwd, or a fresh one when there is none.
    Latest,
    /// A given session (a full id once [`check_choice`] resolved it).
    Id(String),
    /// Let the user pick one of the cwd's sessions (the TUI's picker).
    Pick,
}

/// The network timeouts of `settings`: a local provider waits long for
/// the first byte and never retries a slow start (a retry would make the
/// model read the prompt again).
pub fn http_options(settings: &Settings) -> HttpOptions {
    HttpOptions {
        connect_timeout: settings.connect_timeout,
        idle_timeout: settings.idle_timeout,
        first_byte_timeout: Some(settings.first_byte_timeout()),
        retry_slow_start: !settings.provider.is_local(),
    }
}

/// The model adaptor the settings describe.
pub fn adaptor(settings: &Settings) -> Result<Arc<dyn Adaptor>> {
    let http = http_options(settings);
    let key = settings.api_key.clone();
    let base = settings.provider.base_url.clone();
    let model = settings.model.clone();
    let effort = settings.effort;
    let images = settings.image_input;
    let adaptor: Arc<dyn Adaptor> = match settings.provider.kind {
        ProviderKind::Anthropic => Arc::new(
            AnthropicAdaptor::new(base, key, model, http)?
                .with_effort(effort)
                .with_image_input(images),
        ),
        ProviderKind::OpenAi => Arc::new(
            OpenAiAdaptor::new(base, key, model, http)?
                .with_effort(effort)
                .with_image_input(images),
        ),
        ProviderKind::Gemini => Arc::new(
            GeminiAdaptor::new(base, key, model, http)?
                .with_effort(effort)
                .with_image_input(images),
        ),
        ProviderKind::OpenAiResponses => Arc::new(
            ResponsesAdaptor::new(base, key, model, http)?
                .with_effort(effort)
                .with_image_input(images),
        ),
    };
    Ok(adaptor)
}

/// How a host starts a fresh session, named in the "session in use" hint so
/// that it only ever suggests options the host accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreshHint {
    /// `light-agent exec`: a new session is its default.
    Exec,
    /// The interactive command line: `--new`.
    Interactive,
    /// Inside the TUI: `/new`.
    Tui,
    /// An editor over the Agent Client Protocol: its own new-session action.
    Editor,
}

impl FreshHint {
    fn text(self) -> &'static str {
        match self {
            FreshHint::Exec => "run exec without --continue and --resume for a new session",
            FreshHint::Interactive => "start a new session with light-agent --new",
            FreshHint::Tui => "start a new session with /new",
            FreshHint::Editor => "start a new session from the editor",
        }
    }
}

/// Turns a session id given on the command line (full, or a unique prefix
/// of the short id) into the full id, and refuses a session of another
/// directory or one another process is running — before any UI opens.
pub async fn check_choice(
    manager: &SessionManager,
    cwd: &Path,
    choice: SessionChoice,
    hint: FreshHint,
) -> Result<SessionChoice> {
    let SessionChoice::Id(input) = choice else {
        return Ok(choice);
    };
    let id = manager.resolve(&input).await?;
    let info = manager.info(&id).await?;
    if info.cwd != cwd {
        return Err(HostError::setup(format!(
            "session {} belongs to {dir}; continue it there: cd {dir} && light-agent resume {short}",
            info.id,
            dir = info.cwd.display(),
            short = short_id(&info.id),
        )));
    }
    if info.status == SessionStatus::Running {
        return Err(busy(&id, hint));
    }
    Ok(SessionChoice::Id(id))
}

/// Claims `session` for this process; a session another live process runs
/// is refused with a hint in `hint`'s words.
pub async fn claim(session: &AgentSession, hint: FreshHint) -> Result<()> {
    match session.claim().await {
        Err(SessionError::Busy(id)) => Err(busy(&id, hint)),
        other => Ok(other?),
    }
}

fn busy(id: &str, hint: FreshHint) -> HostError {
    HostError::setup(format!(
        "session {id} is in use by another light-agent process; wait for it to finish, or {}",
        hint.text()
    ))
}

/// Opens and claims the session the user chose for `cwd` (see
/// [`check_choice`] for ids); a fresh one is a draft, written with its first
/// event. Returns whether an existing session was resumed.
pub async fn open_session(
    manager: &SessionManager,
    cwd: &Path,
    choice: &SessionChoice,
    title: Option<String>,
    hint: FreshHint,
) -> Result<(AgentSession, bool)> {
    let existing = match choice {
        SessionChoice::Id(id) => Some(manager.open_session(id).await?),
        SessionChoice::Latest => manager.open_latest(cwd).await?,
        SessionChoice::New | SessionChoice::Pick => None,
    };
    let (session, resumed) = match existing {
        Some(session) => (session, true),
        None => (manager.draft(cwd, title).await?, false),
    };
    claim(&session, hint).await?;
    Ok((session, resumed))
}

/// The context configuration for `cwd`: a section for each tool family
/// (sent while its tools are offered), AGENTS.md (or CLAUDE.md, GEMINI.md),
/// skills and the environment. Warnings (skipped instruction files and
/// skills) are returned for the host to show.
pub fn context_config(
    cwd: &Path,
    paths: &Paths,
    settings: &Settings,
) -> (ContextConfig, Vec<String>) {
    let (instructions, mut warnings) = project::load_agents_md(cwd);
    let (skills, skill_warnings) = skills::discover(cwd, Some(&paths.skills_dir));
    warnings.extend(skill_warnings);
    let mut prompts: Vec<PromptSection> = builtin::tool_prompt_sections()
        .iter()
        .map(|p| PromptSection::for_tools(p.name, p.text, p.tools.iter().copied()))
        .collect();
    prompts.push(PromptSection::for_tools(
        "mcp_tools",
        crate::mcp::PROMPT,
        [format!("{}*", crate::mcp::TOOL_PREFIX)],
    ));
    let config = ContextConfig {
        prompts,
        project_instructions: instructions,
        skills,
        environment: Some(Environment::gather(cwd)),
        strategy: settings.context_strategy,
        context_window: settings.context_window,
        compact_at: settings.compact_at,
    };
    (config, warnings)
}

/// Estimated tokens of what every request of a session in `cwd` carries
/// before any message when every built-in tool is offered (writing tools of
/// the model's format, shell, recall): the system prompt and the tool
/// definitions. `config show` prints it; the budget is 2 000 at four bytes
/// a token.
pub fn prompt_tokens(cwd: &Path, paths: &Paths, settings: &Settings) -> Result<PromptTokens> {
    let (context, _) = context_config(cwd, paths, settings);
    let registry = ToolRegistry::new();
    let recall = RecallTool::new(None);
    let registered = registry
        .register(recall.clone())
        .and_then(|()| registry.register(RecallSearchTool::new(recall)))
        .and_then(|()| builtin::register_all(&registry))
        .and_then(|()| builtin::register_conversation(&registry, None))
        .and_then(|()| builtin::register_writing(&registry, edit_format(settings)))
        .and_then(|()| builtin::shell::register(&registry, &Shell::new(ShellConfig::default())));
    registered.map_err(|e| HostError::setup(format!("registering the built-in tools: {e}")))?;
    super::web::register(&registry, settings)?;
    let specs = registry.specs();
    let prompt = ContextBuilder::new(context).system_prompt(&specs);
    Ok(PromptTokens {
        plain: estimate::plain_fixed_tokens(&prompt, &specs),
        dense: estimate::fixed_tokens(&prompt, &specs),
    })
}

/// The base prompt's size, counted two ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptTokens {
    /// At four bytes a token: the budget's measure.
    pub plain: u64,
    /// By the dense model the window is fitted with (an upper bound: JSON
    /// punctuation counts double).
    pub dense: u64,
}

/// How a host decides gated calls: its default mode (used when no flag,
/// variable or file sets one) and who it asks.
#[derive(Clone)]
pub struct Gate {
    /// `ask` for the TUI, `read-only` for `exec`.
    pub default_mode: Mode,
    /// The TUI's overlay; `None` in `exec` (what needs asking is denied).
    pub approver: Option<Arc<dyn Approver>>,
    /// Who answers `ask_user`; `None` in `exec` (the model is told no user
    /// is present).
    pub asker: Option<Arc<dyn builtin::Asker>>,
    /// The editor the file tools read and write through (ACP's client
    /// offering its buffers); `None`: the disk only.
    pub editor: Option<Editor>,
}

impl Gate {
    /// The mode in force with `settings`.
    pub fn mode(&self, settings: &Settings) -> Mode {
        settings.permissions.mode.unwrap_or(self.default_mode)
    }
}

/// Which writing tools the model of `settings` gets.
pub fn edit_format(settings: &Settings) -> EditFormat {
    settings
        .edit_format
        .as_deref()
        .and_then(|f| f.parse().ok())
        .unwrap_or_else(|| EditFormat::default_for(&settings.model))
}

/// An agent over `session` with the built-in tools registered: the
/// writing tools too unless the mode is read-only.
pub fn agent(
    cwd: &Path,
    paths: &Paths,
    settings: &Settings,
    adaptor: Arc<dyn Adaptor>,
    session: Option<AgentSession>,
    gate: &Gate,
) -> Result<(Agent, Vec<String>)> {
    let (context, warnings) = context_config(cwd, paths, settings);
    let agent = agent_with_context(cwd, paths, settings, adaptor, session, gate, context)?;
    Ok((agent, warnings))
}

/// [`agent`] with a context made already (a subagent's, with its
/// definition's prompt among the project instructions).
pub fn agent_with_context(
    cwd: &Path,
    paths: &Paths,
    settings: &Settings,
    adaptor: Arc<dyn Adaptor>,
    session: Option<AgentSession>,
    gate: &Gate,
    context: ContextConfig,
) -> Result<Agent> {
    let mode = gate.mode(settings);
    let writing = mode.offers_writes().then(|| edit_format(settings));
    let agent = Agent::new(AgentConfig {
        cwd: cwd.to_path_buf(),
        session,
        adaptor,
        context,
        loop_config: LoopConfig {
            max_steps: settings.max_steps,
            retry: RetryPolicy {
                retries: settings.retries,
                ..RetryPolicy::default()
            },
        },
    });
    builtin::register_all(agent.tool())
        .and_then(|()| builtin::register_conversation(agent.tool(), gate.asker.clone()))
        .map_err(|e| HostError::setup(format!("registering the built-in tools: {e}")))?;
    super::web::register(agent.tool(), settings)?;
    if let Some(format) = writing {
        builtin::register_writing(agent.tool(), format)
            .map_err(|e| HostError::setup(format!("registering the writing tools: {e}")))?;
    }
    agent.set_editor(gate.editor.clone());
    let policy = Policy::new(mode, settings.permissions.rules.clone());
    let denied = DeniedReads::resolve(paths.home.as_deref(), &deny_read(paths, settings));
    agent.set_permits(
        Permits::new(policy, gate.approver.clone()).with_read_denied(denied.paths().to_vec()),
    );
    Ok(agent)
}

/// How long after their start the TUI's prompts wait for MCP servers still
/// starting; later ones join the next model request. (`exec` waits for each start to
/// settle.)
pub const MCP_GRACE: Duration = Duration::from_secs(2);

/// Starts the configured MCP servers in the background, their tools joining
/// `agent`'s registry; a server that fails is reported once as a warning
/// notice. In the read-only mode only tools the servers mark read-only are
/// offered. Call after subscribing to the agent's notices and setting its permits.
pub fn mcp_servers(agent: &Agent, cwd: &Path, settings: &Settings) -> McpServers {
    let notices = agent.clone();
    let read_only_only = agent.permits().mode() == Mode::ReadOnly;
    McpServers::start(
        &settings.mcp_servers,
        cwd,
        agent.tool(),
        read_only_only,
        move |text| notices.warn(text),
    )
}

/// The command runner for a session in `cwd`: the sandbox from `[sandbox]`
/// (none in `full` permissions or `mode = "off"`: then commands run without
/// the helper), `env` (the process environment, read by `main`) without
/// provider keys and secrets. Runs the helper once to learn what the sandbox
/// enforces here.
pub fn shell(
    paths: &Paths,
    settings: &Settings,
    env: &[(OsString, OsString)],
    full_permissions: bool,
) -> Shell {
    let sandbox = SandboxPolicy {
        mode: SandboxMode::parse(&settings.sandbox.mode).unwrap_or_default(),
        writable_roots: settings.sandbox.writable_roots.clone(),
        deny_read: deny_read(paths, settings),
        network: settings.sandbox.network,
        simulate_unavailable: env
            .iter()
            .any(|(name, value)| name == SIMULATE_UNAVAILABLE_ENV && value == "1"),
    };
    let helper = if full_permissions || sandbox.mode == SandboxMode::Off {
        None
    } else {
        Some(sandbox_helper())
    };
    let provider_keys = settings
        .providers
        .iter()
        .filter_map(|p| p.api_key_env.clone())
        .collect();
    Shell::new(ShellConfig {
        sandbox,
        helper,
        env: env.to_vec(),
        secrets: SecretFilter {
            provider_keys,
            passthrough: settings.shell.env_passthrough.clone(),
        },
        log_dir: paths.state_dir.join("shell"),
        snapshot_budget: None,
    })
}

/// What nothing sandboxed and no file tool may read beyond
/// [`light_agent::sandbox::HOME_SECRETS`]: `[sandbox] deny_read` and
/// light-agent's own private files wherever they are.
fn deny_read(paths: &Paths, settings: &Settings) -> Vec<String> {
    let own = paths.private_files();
    let own = own.iter().filter_map(|p| p.to_str()).map(str::to_string);
    settings
        .sandbox
        .deny_read
        .iter()
        .cloned()
        .chain(own)
        .collect()
}

/// Registers the shell tools on `agent` unless its permissions are
/// read-only, and lets `read_file` read the full command logs.
pub fn register_shell(agent: &Agent, shell: &Shell) -> Result<()> {
    if agent.permits().mode() == Mode::ReadOnly {
        return Ok(());
    }
    builtin::shell::register(agent.tool(), shell)
        .map_err(|e| HostError::setup(format!("registering the shell tools: {e}")))?;
    // Without it the logs are only unreadable by read_file; commands still run.
    if let Err(e) = agent.add_read_root(&shell.config().log_dir) {
        tracing::warn!(error = %e, "the shell log folder cannot be opened for read_file");
    }
    Ok(())
}

/// Test switch: with this variable set to `1` the sandbox helper behaves as
/// on a kernel without Landlock.
pub const SIMULATE_UNAVAILABLE_ENV: &str = "LIGHT_AGENT_TEST_NO_LANDLOCK";

/// The canonical working directory (`--cwd` or the process's).
pub fn canonical_cwd(flag: Option<&Path>) -> Result<PathBuf, std::io::Error> {
    let cwd = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()?,
    };
    std::fs::canonicalize(&cwd).map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot open directory {}: {e}", cwd.display()),
        )
    })
}

/// A session title from the first line of its first prompt.
pub fn title_of(prompt: &str) -> String {
    let line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    truncate(line, 60)
}

/// The sandbox helper: `light-agent-sandbox` beside this binary (it starts
/// in a fraction of the time), else this very binary. If neither can be run
/// there is no sandbox, and the probe says so (auto then asks before every
/// command).
fn sandbox_helper() -> PathBuf {
    let this = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/proc/self/exe"));
    let beside = this.with_file_name(SANDBOX_HELPER_BIN);
    if beside.is_file() { beside } else { this }
}

/// The file name of the stand-alone sandbox helper.
const SANDBOX_HELPER_BIN: &str = "light-agent-sandbox";

/// `text` cut to `max` characters, with `…` when something was cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
