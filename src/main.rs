//! The `light-agent` binary: the composition root. It parses the command
//! line, resolves configuration once, and hands over to a host: the TUI,
//! `exec`, or a subcommand. Only this file reads the environment.

mod cli;

use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{CommandFactory, Parser};
use light_agent::config::{self, ConfigError, Env, Flags, Paths, Resolution, Settings};
use light_agent::permission::Mode;
use light_agent::session::SessionManager;

use cli::Exit;
use cli::args::{Cli, Command, ConfigAction, ExecArgs, McpAction, ModelFlags};
use cli::build::{self, SessionChoice};
use cli::output::{self, OutputError};

fn main() -> ExitCode {
    // The sandbox helper runs before anything else starts (no runtime, no
    // threads): Landlock confines only the calling thread.
    let mut args = std::env::args_os();
    if args
        .nth(1)
        .is_some_and(|a| a == light_agent::sandbox::HELPER_ARG)
    {
        let status = light_agent::sandbox::helper_main(args);
        return ExitCode::from(u8::try_from(status).unwrap_or(1));
    }
    let cli = Cli::parse();
    // Headless runs stream on one thread: no cross-thread wake-up per delta.
    let mut builder = match cli.command {
        Some(Command::Exec(_)) => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            output::eprintln(&format!("light-agent: cannot start the async runtime: {e}"));
            return Exit::Failure.into();
        }
    };
    let result = runtime.block_on(run(cli));
    // A tool's blocking thread may be stuck in the kernel (a FIFO opened
    // for reading, a dead network mount); dropping the runtime would wait
    // for it forever. Everything that matters was committed already.
    runtime.shutdown_background();
    match result {
        Ok(exit) => exit.into(),
        Err(e) => {
            if let Some(failed) = e.downcast_ref::<OutputError>() {
                // A reader that went away (`| head -1`) is not a failure.
                if failed.is_closed_pipe() {
                    return Exit::Success.into();
                }
            }
            if is_disk_full(&e) {
                output::eprintln(&format!(
                    "light-agent: the disk is full ({e}); free some space and try again"
                ));
                return Exit::Failure.into();
            }
            output::eprintln(&format!("light-agent: {e:#}"));
            let usage = e.downcast_ref::<ConfigError>().is_some()
                || e.downcast_ref::<UsageError>().is_some();
            if usage { Exit::Usage } else { Exit::Failure }.into()
        }
    }
}

/// Whether `e` comes from a full disk (SQLite's "database or disk is full",
/// or ENOSPC from a write), which deserves a plain sentence, not a chain.
fn is_disk_full(e: &anyhow::Error) -> bool {
    const ENOSPC: i32 = 28;
    e.chain().any(|cause| {
        cause
            .downcast_ref::<rusqlite::Error>()
            .and_then(rusqlite::Error::sqlite_error_code)
            == Some(rusqlite::ErrorCode::DiskFull)
            || cause
                .downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::raw_os_error)
                == Some(ENOSPC)
    })
}

/// A mistake on the command line or in the configuration (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

async fn run(cli: Cli) -> Result<Exit> {
    let cwd = build::canonical_cwd(cli.cwd.as_deref()).map_err(|e| UsageError(format!("{e:#}")))?;
    let switches = switches(&cli);
    match cli.command {
        Some(Command::Tool { name, args }) => cli::tool_cmd::run(&name, &args, &cwd)
            .await
            .map_err(usage_unless_output),
        Some(Command::Exec(exec)) => {
            run_exec(exec, &cli.model, cli.log_level, &switches, &cwd).await
        }
        Some(Command::Acp) => run_acp(&cli.model, cli.log_level, &switches).await,
        Some(Command::Undo { id }) => cli::undo::run(&open_store()?, &cwd, id.as_deref()).await,
        Some(Command::Sessions { all, json, limit }) => {
            let manager = open_store()?;
            cli::sessions::list(&manager, &cwd, all, json, limit).await
        }
        Some(Command::Show { id, json }) => cli::sessions::show(&open_store()?, &id, json).await,
        Some(Command::Config { action }) => {
            run_config(action, &cli.model, cli.log_level, cli.permissions, &cwd).await
        }
        Some(Command::Mcp {
            action: McpAction::List { json },
        }) => {
            let setup = setup(&cli.model, cli.log_level, &switches).await?;
            let project_servers =
                light_agent::host::project_mcp::accepted_servers(&open_store()?, &cwd, |line| {
                    output::eprintln(&format!("warning: {line}"));
                })
                .await;
            cli::mcp_cmd::list(setup.resolution.settings(), &project_servers, &cwd, json).await
        }
        Some(Command::Completions { shell }) => {
            // Generated into memory: clap_complete panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "light-agent", &mut script);
            output::print(&String::from_utf8_lossy(&script))?;
            Ok(Exit::Success)
        }
        Some(Command::Resume { id }) => {
            let choice = match id {
                Some(id) => SessionChoice::Id(id),
                None => SessionChoice::Pick,
            };
            run_interactive(
                choice,
                &cli.model,
                cli.log_level,
                &switches,
                cwd,
                cli.prompt,
                cli.images,
            )
            .await
        }
        None => {
            let choice = match (cli.new, cli.resume) {
                (_, Some(Some(id))) => SessionChoice::Id(id),
                (_, Some(None)) => SessionChoice::Pick,
                (true, None) => SessionChoice::New,
                (false, None) => SessionChoice::Latest,
            };
            let choice = match cli.fork {
                // `--fork [ID]`: the copy is the session to open (no copy is
                // made for a UI that cannot start).
                Some(source) => SessionChoice::Id({
                    require_terminal()?;
                    cli::fork::copy(&open_store()?, &cwd, source.as_deref())
                        .await
                        .map_err(|e| UsageError(format!("{e:#}")))?
                }),
                None => choice,
            };
            run_interactive(
                choice,
                &cli.model,
                cli.log_level,
                &switches,
                cwd,
                cli.prompt,
                cli.images,
            )
            .await
        }
    }
}

async fn run_interactive(
    choice: SessionChoice,
    model: &ModelFlags,
    log_level: Option<String>,
    switches: &Switches,
    cwd: std::path::PathBuf,
    prompt: Option<String>,
    images: Vec<String>,
) -> Result<Exit> {
    require_terminal()?;
    // Checked before the UI takes the terminal: a bad image is a usage
    // error and stores nothing.
    for path in &images {
        light_agent::agent::image::Image::read(&cwd, path, None)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    let setup = setup(model, log_level, switches).await?;
    // A session that cannot be opened is refused before the UI takes the
    // terminal, with exit code 2.
    let manager = open_sessions(&setup.paths)?;
    let choice = build::check_choice(&manager, &cwd, choice, build::FreshHint::Interactive)
        .await
        .map_err(|e| UsageError(format!("{e:#}")))?;
    let (settings, model_missing) = match setup.resolution {
        Resolution::Ready(settings) => (settings, None),
        Resolution::NoModel { message, settings } => (settings, Some(message)),
    };
    let config = light_agent::host::HostConfig {
        cwd,
        paths: setup.paths,
        settings,
        model_missing,
        choice,
        session: None,
        offer_project_files: true,
        env: std::env::vars_os().collect(),
        default_mode: light_agent::permission::Mode::Ask,
        approvals: true,
        fresh_hint: build::FreshHint::Tui,
        mcp_wait: light_agent::host::McpWait::Grace,
        title: None,
        editor: None,
    };
    cli::interactive::run(config, manager, prompt, images).await
}

/// The interactive UI's precondition, checked before anything is stored.
fn require_terminal() -> Result<()> {
    use std::io::IsTerminal as _;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(UsageError(
            "the interactive UI needs a terminal; in scripts use `light-agent exec PROMPT`".into(),
        )
        .into());
    }
    Ok(())
}

/// A tool command's failure as a usage error (exit 2), except a failed
/// write of its result, which keeps its own handling.
fn usage_unless_output(e: anyhow::Error) -> anyhow::Error {
    if e.is::<OutputError>() {
        e
    } else {
        UsageError(format!("{e:#}")).into()
    }
}

fn env() -> Env {
    Env::from_vars(std::env::vars())
}

fn paths(env: &Env) -> Result<Paths> {
    Ok(Paths::resolve(env.get("LIGHT_AGENT_HOME").map(Path::new))?)
}

/// The session database at `paths`.
fn open_sessions(paths: &Paths) -> Result<SessionManager> {
    SessionManager::open(&paths.db_file)
        .with_context(|| format!("opening the session database {}", paths.db_file.display()))
}

fn open_store() -> Result<SessionManager> {
    open_sessions(&paths(&env())?)
}

async fn run_config(
    action: ConfigAction,
    model: &ModelFlags,
    log_level: Option<String>,
    permissions: Option<String>,
    cwd: &Path,
) -> Result<Exit> {
    match action {
        ConfigAction::Init => {
            let paths = paths(&env())?;
            let file = config::init(&paths)?;
            output::println(&format!("wrote {}", file.display()))?;
        }
        ConfigAction::Path => {
            let paths = paths(&env())?;
            output::print(&format!(
                "config:   {}\nsessions: {}\nlogs:     {}\nskills:   {}\n",
                paths.config_file.display(),
                paths.db_file.display(),
                paths.log_dir.display(),
                paths.skills_dir.display()
            ))?;
        }
        ConfigAction::Show => {
            let switches = Switches {
                permissions,
                sandbox: None,
            };
            let setup = setup(model, log_level, &switches).await?;
            if let Resolution::NoModel { message, .. } = &setup.resolution {
                output::println(&format!("# {message}"))?;
            }
            let settings = setup.resolution.settings();
            output::print(&config::show(settings))?;
            let tokens = build::prompt_tokens(cwd, &setup.paths, settings)?;
            output::print(&format!(
                "\n[prompt]\n# system prompt + every built-in tool's definition, estimated tokens here\n# (four bytes a token; the window is fitted by the dense count, an upper bound)\nbase_tokens = {}\nbase_tokens_dense = {}\n",
                tokens.plain, tokens.dense
            ))?;
        }
    }
    Ok(Exit::Success)
}

/// The environment, configuration directories and resolved settings.
struct Setup {
    paths: Paths,
    resolution: Resolution,
    _log: Option<config::LogGuard>,
}

/// Flags applied when resolving: `--permissions` and `--sandbox`.
#[derive(Default)]
struct Switches {
    permissions: Option<String>,
    sandbox: Option<String>,
}

fn switches(cli: &Cli) -> Switches {
    Switches {
        permissions: cli.permissions.clone(),
        sandbox: cli.sandbox.clone(),
    }
}

async fn setup(
    model: &ModelFlags,
    log_level: Option<String>,
    switches: &Switches,
) -> Result<Setup> {
    let env = env();
    let paths = paths(&env)?;
    let flags = Flags {
        provider: model.provider.clone(),
        model: model.model.clone(),
        base_url: model.base_url.clone(),
        context_window: model.context_window,
        effort: model.effort,
        log_level,
        permissions: switches.permissions.clone(),
    };
    // Ask local servers first, concurrently and within a budget, so resolving
    // stays pure and no runtime worker blocks on a network call.
    let servers = config::servers_to_probe(&paths, &env, &flags)?;
    let answers = futures::future::join_all(
        servers
            .iter()
            .map(|url| light_agent::ai::probe_ollama(url, light_agent::ai::PROBE_TIMEOUT)),
    )
    .await;
    let probed = |url: &str| {
        let at = servers.iter().position(|asked| asked == url)?;
        answers.get(at).cloned().flatten()
    };
    let mut resolution = config::load(&paths, &env, &flags, &probed)?;
    if let Some(mode) = &switches.sandbox {
        resolution.settings_mut().sandbox.mode = mode.to_string();
    }
    let settings = resolution.settings();
    // Logging is best effort: a read-only state dir must not stop the agent.
    let log = config::init_logging(&paths, &settings.log_level).ok();
    for warning in &settings.warnings {
        output::eprintln(&format!("warning: {warning}"));
    }
    Ok(Setup {
        paths,
        resolution,
        _log: log,
    })
}

async fn run_acp(
    model: &ModelFlags,
    log_level: Option<String>,
    switches: &Switches,
) -> Result<Exit> {
    let setup = setup(model, log_level, switches).await?;
    let manager = open_sessions(&setup.paths)?;
    let (settings, model_missing) = match setup.resolution {
        Resolution::Ready(settings) => (settings, None),
        Resolution::NoModel { message, settings } => (settings, Some(message)),
    };
    cli::acp::run(cli::acp::AcpSetup {
        paths: setup.paths,
        settings,
        model_missing,
        env: std::env::vars_os().collect(),
        manager,
    })
    .await
}

async fn run_exec(
    args: ExecArgs,
    model: &ModelFlags,
    log_level: Option<String>,
    switches: &Switches,
    cwd: &Path,
) -> Result<Exit> {
    let setup = setup(model, log_level, switches).await?;
    let settings: &Settings = match &setup.resolution {
        Resolution::Ready(settings) => settings,
        Resolution::NoModel { message, .. } => return Err(UsageError(message.clone()).into()),
    };
    let format = match (args.input_format.is_some(), args.json) {
        (true, _) => cli::exec::Format::StreamJson,
        (false, true) => cli::exec::Format::Json,
        (false, false) => cli::exec::Format::Text,
    };
    let prompt = match args.prompt {
        Some(prompt) if prompt == "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading the prompt from stdin")?;
            Some(text)
        }
        other => other,
    };
    if prompt.as_ref().is_some_and(|p| p.trim().is_empty()) {
        return Err(UsageError("the prompt is empty".into()).into());
    }
    // Checked before any session is opened: a bad image stores nothing.
    for path in &args.images {
        light_agent::agent::image::Image::read(cwd, path, None)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    let parts = args
        .images
        .iter()
        .map(|path| light_agent::protocol::PromptPart::Image {
            source: light_agent::protocol::ImageSource::Path { path: path.clone() },
            name: None,
        })
        .collect();
    let choice = match (args.resume, args.continue_latest) {
        (Some(id), _) => SessionChoice::Id(id),
        (None, true) => SessionChoice::Latest,
        (None, false) => SessionChoice::New,
    };
    // A model that cannot be built is a usage error, before any session opens.
    build::adaptor(settings).map_err(|e| UsageError(format!("{e:#}")))?;
    let manager = open_sessions(&setup.paths)?;
    let choice = build::check_choice(&manager, cwd, choice, build::FreshHint::Exec)
        .await
        .map_err(|e| UsageError(format!("{e:#}")))?;
    let title = prompt.as_deref().map(build::title_of);
    let (session, _) = build::open_session(
        &manager,
        cwd,
        &choice,
        title.clone(),
        build::FreshHint::Exec,
    )
    .await?;
    let config = light_agent::host::HostConfig {
        cwd: cwd.to_path_buf(),
        paths: setup.paths.clone(),
        settings: settings.clone(),
        model_missing: None,
        choice,
        session: Some(session),
        offer_project_files: false,
        env: std::env::vars_os().collect(),
        default_mode: Mode::ReadOnly,
        // Only a stream-json driver can answer approval requests.
        approvals: format == cli::exec::Format::StreamJson,
        fresh_hint: build::FreshHint::Exec,
        mcp_wait: light_agent::host::McpWait::Settled,
        title,
        editor: None,
    };
    let (events_tx, events_rx) = tokio::sync::mpsc::unbounded_channel();
    let (host, stopped) = light_agent::host::Host::start(config, manager, events_tx);
    let exit = cli::exec::run(host, events_rx, prompt, parts, format).await;
    let _ = stopped.await;
    exit
}
