//! Turning resolved settings into a running [`Agent`]: the adaptor, the
//! session, the context and the built-in tools.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use light_agent::agent::{Agent, AgentConfig, LoopConfig};
use light_agent::ai::{
    Adaptor, AnthropicAdaptor, GeminiAdaptor, HttpOptions, OpenAiAdaptor, ResponsesAdaptor,
    RetryPolicy,
};
use light_agent::config::{Paths, ProviderKind, Settings};
use light_agent::context::{ContextConfig, PromptSection, project, skills};
use light_agent::mcp::McpServers;
use light_agent::permission::{Approver, Mode, Permits, Policy};
use light_agent::session::{AgentSession, SessionManager, SessionStatus};
use light_agent::tool::builtin::{self, EditFormat};

/// Which session a host starts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A fresh session.
    New,
    /// The latest session of the cwd, or a fresh one when there is none.
    Latest,
    /// A given session.
    Id(String),
}

/// The model adaptor the settings describe.
pub fn adaptor(settings: &Settings) -> Result<Arc<dyn Adaptor>> {
    let http = HttpOptions {
        connect_timeout: settings.connect_timeout,
        idle_timeout: settings.idle_timeout,
    };
    let key = settings.api_key.clone();
    let base = settings.provider.base_url.clone();
    let model = settings.model.clone();
    let adaptor: Arc<dyn Adaptor> = match settings.provider.kind {
        ProviderKind::Anthropic => Arc::new(AnthropicAdaptor::new(base, key, model, http)?),
        ProviderKind::OpenAi => Arc::new(OpenAiAdaptor::new(base, key, model, http)?),
        ProviderKind::Gemini => Arc::new(GeminiAdaptor::new(base, key, model, http)?),
        ProviderKind::OpenAiResponses => Arc::new(ResponsesAdaptor::new(base, key, model, http)?),
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
}

impl FreshHint {
    fn text(self) -> &'static str {
        match self {
            FreshHint::Exec => "run exec without --continue and --resume for a new session",
            FreshHint::Interactive => "start a new session with light-agent --new",
            FreshHint::Tui => "start a new session with /new",
        }
    }
}

/// Opens the session the user chose for `cwd`; a session another process
/// runs is refused with a hint in `hint`'s words.
pub async fn open_session(
    manager: &SessionManager,
    cwd: &Path,
    choice: &SessionChoice,
    title: Option<String>,
    hint: FreshHint,
) -> Result<(AgentSession, bool)> {
    let session = match choice {
        SessionChoice::Id(id) => manager.open_session(id).await?,
        SessionChoice::Latest => match manager.open_latest(cwd).await? {
            Some(session) => session,
            None => return Ok((manager.create(cwd, title).await?, false)),
        },
        SessionChoice::New => return Ok((manager.create(cwd, title).await?, false)),
    };
    let info = manager.info(session.id()).await?;
    if info.cwd != cwd {
        anyhow::bail!(
            "session {} belongs to {dir}; run light-agent there, or pass --cwd {dir}",
            info.id,
            dir = info.cwd.display()
        );
    }
    ensure_not_busy(manager, session.id(), hint).await?;
    Ok((session, true))
}

/// Refuses a session that another live light-agent process is running: two
/// writers would interleave their turns in one log.
pub async fn ensure_not_busy(manager: &SessionManager, id: &str, hint: FreshHint) -> Result<()> {
    if manager.info(id).await?.status == SessionStatus::Running {
        anyhow::bail!(
            "session {id} is in use by another light-agent process; wait for it to finish, or {}",
            hint.text()
        );
    }
    Ok(())
}

/// The context configuration for `cwd`: the built-in tools' guide,
/// AGENTS.md and skills. Warnings (skipped AGENTS.md files and skills) are
/// returned for the host to show.
pub fn context_config(
    cwd: &Path,
    paths: &Paths,
    settings: &Settings,
    writing: Option<EditFormat>,
) -> (ContextConfig, Vec<String>) {
    let (instructions, mut warnings) = project::load_agents_md(cwd);
    let (skills, skill_warnings) = skills::discover(cwd, Some(&paths.skills_dir));
    warnings.extend(skill_warnings);
    let mut prompts = vec![PromptSection::new(
        builtin::TOOL_PROMPTS_NAME,
        builtin::tool_prompts(),
    )];
    if let Some(format) = writing {
        prompts.push(PromptSection::new(
            builtin::WRITING_PROMPTS_NAME,
            builtin::writing_prompts(format),
        ));
    }
    let config = ContextConfig {
        prompts,
        project_instructions: instructions,
        skills,
        strategy_enabled: settings.context_strategy,
        context_window: settings.context_window,
        compact_at: settings.compact_at,
    };
    (config, warnings)
}

/// How a host decides gated calls: its default mode (used when no flag,
/// variable or file sets one) and who it asks.
#[derive(Clone)]
pub struct Gate {
    /// `ask` for the TUI, `read-only` for `exec`.
    pub default_mode: Mode,
    /// The TUI's overlay; `None` in `exec` (what needs asking is denied).
    pub approver: Option<Arc<dyn Approver>>,
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
    let mode = gate.mode(settings);
    let writing = mode.offers_writes().then(|| edit_format(settings));
    let (context, warnings) = context_config(cwd, paths, settings, writing);
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
    builtin::register_all(agent.tool()).context("registering the built-in tools")?;
    if let Some(format) = writing {
        builtin::register_writing(agent.tool(), format).context("registering the writing tools")?;
    }
    let policy = Policy::new(mode, settings.permissions.rules.clone());
    agent.set_permits(Permits::new(policy, gate.approver.clone()));
    Ok((agent, warnings))
}

/// How long the first prompt waits for MCP servers still starting; later
/// ones join the next model request.
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

/// The canonical working directory (`--cwd` or the process's).
pub fn canonical_cwd(flag: Option<&Path>) -> Result<PathBuf> {
    let cwd = match flag {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    std::fs::canonicalize(&cwd).with_context(|| format!("cannot open directory {}", cwd.display()))
}

/// A session title from the first line of its first prompt.
pub fn title_of(prompt: &str) -> String {
    let line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    super::truncate(line, 60)
}
