//! An [`Agent`] with the built-in tools over the mock model, in a temp dir
//! holding a small demo repo and a session database.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use light_agent::agent::{Agent, AgentConfig, LoopConfig};
use light_agent::ai::{Adaptor, RetryPolicy};
use light_agent::context::{ContextConfig, PromptSection};
use light_agent::protocol::AgentEvent;
use light_agent::session::{AgentSession, SessionManager};
use light_agent::tool::builtin;
use tokio::sync::mpsc::UnboundedReceiver;

use super::mock_model::{MockModel, Reply};

/// A running agent and what a test inspects around it.
pub struct Harness {
    /// The agent, its built-in tools registered.
    pub agent: Agent,
    /// The model it talks to.
    pub mock: MockModel,
    /// The session it writes to.
    pub session: AgentSession,
    /// Every event the agent emits, from its start.
    pub events: UnboundedReceiver<AgentEvent>,
    /// Holds `repo/` (the agent's cwd) and the session database.
    pub dir: tempfile::TempDir,
}

impl Harness {
    /// The demo repo ([`write_demo_repo`]), a new session for it, the mock
    /// scripted with `replies`, and an agent using the client `adaptor`
    /// builds for the mock (10 steps at most, retries after 20 ms).
    pub async fn start(
        replies: Vec<Reply>,
        adaptor: impl FnOnce(&MockModel) -> Arc<dyn Adaptor>,
    ) -> Harness {
        let retry = RetryPolicy {
            base_delay: Duration::from_millis(20),
            ..RetryPolicy::default()
        };
        Self::start_with_retry(replies, adaptor, retry).await
    }

    /// [`Harness::start`] with the agent retrying failed model calls by `retry`.
    pub async fn start_with_retry(
        replies: Vec<Reply>,
        adaptor: impl FnOnce(&MockModel) -> Arc<dyn Adaptor>,
        retry: RetryPolicy,
    ) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let repo = write_demo_repo(dir.path());
        let manager = SessionManager::open(&dir.path().join("sessions.sqlite3")).unwrap();
        let session = manager.create(&repo, None).await.unwrap();
        let mock = MockModel::start(replies).await;
        let agent = Agent::new(AgentConfig {
            cwd: repo,
            session: Some(session.clone()),
            adaptor: adaptor(&mock),
            context: ContextConfig {
                prompts: vec![PromptSection::new(
                    builtin::TOOL_PROMPTS_NAME,
                    builtin::tool_prompts(),
                )],
                ..ContextConfig::default()
            },
            loop_config: LoopConfig {
                max_steps: 10,
                retry,
            },
        });
        builtin::register_all(agent.tool()).unwrap();
        let events = agent.subscribe();
        Harness {
            agent,
            mock,
            session,
            events,
            dir,
        }
    }
}

/// A Chat Completions adaptor for the mock's model `mock-model`, no key.
pub fn openai_adaptor(mock: &MockModel) -> light_agent::ai::OpenAiAdaptor {
    light_agent::ai::OpenAiAdaptor::new(
        mock.openai_base_url(),
        None,
        "mock-model",
        light_agent::ai::HttpOptions::default(),
    )
    .unwrap()
}

/// The context of an agent with the built-in tools' prompts and a
/// `window`-token window.
pub fn tools_context(window: u64) -> ContextConfig {
    ContextConfig {
        prompts: vec![PromptSection::new(
            builtin::TOOL_PROMPTS_NAME,
            builtin::tool_prompts(),
        )],
        context_window: window,
        ..ContextConfig::default()
    }
}

/// Writes `parent/repo` with `src/main.rs`, `src/lib.rs` (`answer()`
/// returns 42) and a README; returns the repo's path.
pub fn write_demo_repo(parent: &Path) -> PathBuf {
    let repo = parent.join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("src/main.rs"),
        "fn main() {\n    println!(\"hello\");\n}\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
    repo
}

/// The events received so far, without waiting.
pub fn drain(rx: &mut UnboundedReceiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Ok(event) = rx.try_recv() {
        out.push(event);
    }
    out
}
