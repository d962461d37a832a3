//! The `task` tool on a host's agent (`[agents] enabled`): children made
//! like the parent — same directory, sandbox (the session's `Shell`),
//! approver and deny list — each on its own session linked to the call.
//!
//! Agent definitions come from the config dir's `agents/*.md`, and from a
//! project's `.agents/agents/` and `.claude/agents/` once the user accepted
//! them ([`super::project_agents`]): they change what the agent does.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;

use super::build::{self, Gate};
use super::hooks::HookSlot;
use crate::agent::Agent;
use crate::agent::task::{AgentDefinition, Child, ChildFactory, ChildRequest, TaskTool};
use crate::ai::Adaptor;
use crate::config::{Paths, Settings};
use crate::permission::Approver;
use crate::protocol::{ApprovalDecision, ApprovalRequest};
use crate::session::{AgentSession, SessionManager};
use crate::tool::builtin::shell::Shell;
use crate::tool::fs::{RelPath, Root};

/// Most bytes of one definition file read.
const DEFINITION_CAP: usize = 64 * 1024;

/// What children are made of: the parent's settings, model, session and
/// command runner as they were when the parent agent was made.
pub(super) struct Parts {
    pub(super) cwd: PathBuf,
    pub(super) paths: Paths,
    pub(super) settings: Settings,
    pub(super) adaptor: Arc<dyn Adaptor>,
    pub(super) manager: SessionManager,
    pub(super) parent: AgentSession,
    pub(super) shell: Option<Shell>,
    pub(super) gate: Gate,
    /// The hooks in force for the parent (the user's and an accepted
    /// project's), which its children go through too.
    pub(super) hooks: HookSlot,
}

/// Registers `task` on `agent` when `[agents] enabled`, over the user's
/// definitions and `project`'s (an accepted project's, which come first);
/// returns warnings about definition files skipped. A `task` registered
/// before is replaced.
pub(super) fn register(agent: &Agent, parts: Parts, project: Vec<AgentDefinition>) -> Vec<String> {
    if !parts.settings.agents.enabled {
        return Vec::new();
    }
    let user_dir = parts.paths.config_dir.join("agents");
    let (user, mut warnings) = match Root::open(&user_dir) {
        Ok(root) => definitions(&root, &RelPath::root()),
        Err(_) => (Vec::new(), Vec::new()),
    };
    let mut definitions = project;
    for definition in user {
        if !definitions
            .iter()
            .any(|known| known.name == definition.name)
        {
            definitions.push(definition);
        }
    }
    let max_parallel = parts.settings.agents.max_parallel;
    let tool = TaskTool::new(
        Arc::new(HostChildren(Arc::new(parts))),
        definitions,
        max_parallel,
        agent.notice_sink(),
    );
    agent.tool().remove(crate::agent::task::TASK);
    if let Err(e) = agent.tool().register(tool) {
        warnings.push(format!("the task tool could not be registered: {e}"));
    }
    warnings
}

/// The definitions in `dir` below `root` (`*.md`, sorted by file name; the
/// first of a name wins), and why others were skipped. Read through the
/// root: no symlink is followed, no FIFO waited on, at most
/// [`DEFINITION_CAP`] bytes a file.
pub(super) fn definitions(root: &Root, dir: &RelPath) -> (Vec<AgentDefinition>, Vec<String>) {
    let (mut definitions, mut warnings) = (Vec::<AgentDefinition>::new(), Vec::new());
    let shown_dir: PathBuf = std::iter::once(root.display_path().as_os_str())
        .chain(dir.components())
        .collect();
    let Ok(opened) = root.open_dir(dir) else {
        return (definitions, warnings);
    };
    let Ok(mut entries) = opened.entries() else {
        return (definitions, warnings);
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in entries {
        if Path::new(&entry.name).extension() != Some(OsStr::new("md")) {
            continue;
        }
        let shown = shown_dir.join(&entry.name);
        let text = match opened.open_file(&entry.name) {
            Ok(Some(mut file)) => match file.read_prefix(DEFINITION_CAP) {
                Ok((bytes, _)) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    warnings.push(format!("skipped agent {}: {e}", shown.display()));
                    continue;
                }
            },
            Ok(None) => continue,
            Err(e) => {
                warnings.push(format!("skipped agent {}: {e}", shown.display()));
                continue;
            }
        };
        match AgentDefinition::parse(&text) {
            Ok(d) if !definitions.iter().any(|known| known.name == d.name) => definitions.push(d),
            Ok(_) => {}
            Err(why) => warnings.push(format!("skipped agent {}: {why}", shown.display())),
        }
    }
    (definitions, warnings)
}

/// The parent's approver, with the child named at the start of each
/// request's title so front ends show whose call it is.
struct ChildApprover {
    inner: Arc<dyn Approver>,
    tag: String,
}

impl Approver for ChildApprover {
    fn approve(&self, mut request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
        request.title.insert_str(0, &self.tag);
        self.inner.approve(request)
    }
}

/// The host's [`ChildFactory`].
struct HostChildren(Arc<Parts>);

impl ChildFactory for HostChildren {
    fn spawn(&self, request: ChildRequest) -> BoxFuture<'static, Result<Child, String>> {
        let parts = self.0.clone();
        Box::pin(async move { child(&parts, request).await })
    }
}

async fn child(parts: &Parts, request: ChildRequest) -> Result<Child, String> {
    let definition = &request.definition;
    let session = parts
        .manager
        .create_child(
            &parts.cwd,
            parts.parent.id(),
            &request.call_id,
            &definition.name,
            build::truncate(&request.title, 60),
        )
        .await
        .map_err(|e| e.to_string())?;
    let mode = request.permits.mode();
    let mut settings = parts.settings.clone();
    settings.permissions.mode = Some(mode);
    let adaptor = match &definition.model {
        Some(model) => {
            settings.model = model.clone();
            build::adaptor(&settings).map_err(|e| e.to_string())?
        }
        None => parts.adaptor.clone(),
    };
    let (mut context, _) = build::context_config(&parts.cwd, &parts.paths, &settings);
    if !definition.prompt.is_empty() {
        let instructions = context.project_instructions.take().unwrap_or_default();
        context.project_instructions = Some(format!(
            "{instructions}\n\n# Your role: {}\n\n{}",
            definition.name, definition.prompt
        ));
    }
    let gate = Gate {
        default_mode: mode,
        asker: None,
        ..parts.gate.clone()
    };
    let agent = build::agent_with_context(
        &parts.cwd,
        &parts.paths,
        &settings,
        adaptor,
        Some(session.clone()),
        &gate,
        context,
    )
    .map_err(|e| e.to_string())?;
    // The parent's permits, narrowed: its rules, deny list and what the
    // user allowed for the session; its approver, naming the child.
    let approver = parts.gate.approver.clone().map(|inner| {
        Arc::new(ChildApprover {
            inner,
            tag: format!("[{} · {}] ", definition.name, request.call_id),
        }) as Arc<dyn Approver>
    });
    agent.set_permits(request.permits.with_approver(approver));
    if let Some(shell) = &parts.shell {
        build::register_shell(&agent, shell).map_err(|e| e.to_string())?;
    }
    if let Some(hooks) = parts.hooks.current() {
        agent.set_hooks(hooks);
    }
    for name in agent.tool().names() {
        if !definition.offers(&name) {
            agent.tool().remove(&name);
        }
    }
    Ok(Child {
        agent,
        session_id: session.id().to_owned(),
    })
}
