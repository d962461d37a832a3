//! The agent's hooks as the settings configure them (`[[hooks.EVENT]]`
//! entries in `config.toml`) plus a project's accepted ones, run with the
//! shell's environment rules (no secrets).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::lock;
use crate::agent::hooks::{CallSite, Hook, HookEvent, Hooks};
use crate::config::HookSetting;
use crate::tool::builtin::shell::Shell;

/// `entries` as the agent's hooks (entries of events hooks do not run on
/// are left out); their environment is the commands' own (`shell`'s,
/// secrets removed).
pub fn hooks<'a>(entries: impl IntoIterator<Item = &'a HookSetting>, shell: &Shell) -> Hooks {
    let config = shell.config();
    let env = config
        .env
        .iter()
        .filter(|(name, _)| !config.secrets.removes(name))
        .cloned()
        .collect();
    let hooks = entries
        .into_iter()
        .filter_map(|h| {
            Some(Hook {
                event: HookEvent::from_name(&h.event)?,
                matcher: h.matcher.clone(),
                command: h.command.clone(),
                timeout: Duration::from_secs(h.timeout_sec),
            })
        })
        .collect();
    Hooks { hooks, env }
}

/// The hooks in force and where they run, for what the host fires itself
/// (`Notification`). Cheap to clone; empty until an agent has hooks.
#[derive(Clone, Default)]
pub(super) struct HookSlot(Arc<Mutex<Option<Arc<Scene>>>>);

struct Scene {
    hooks: Arc<Hooks>,
    session_id: String,
    cwd: PathBuf,
    warn: Arc<dyn Fn(String) + Send + Sync>,
}

impl HookSlot {
    /// Uses `hooks` from now on, in `cwd` for session `session_id`; their
    /// warnings go to `warn`.
    pub(super) fn set(
        &self,
        hooks: Hooks,
        session_id: &str,
        cwd: &Path,
        warn: Arc<dyn Fn(String) + Send + Sync>,
    ) {
        let scene = Scene {
            hooks: Arc::new(hooks),
            session_id: session_id.to_owned(),
            cwd: cwd.to_path_buf(),
            warn,
        };
        *lock(&self.0) = Some(Arc::new(scene));
    }

    /// The hooks in force, if any were set.
    pub(super) fn current(&self) -> Option<Hooks> {
        lock(&self.0)
            .as_ref()
            .map(|scene| Hooks::clone(&scene.hooks))
    }

    /// The `Notification` hooks for `kind` (`permission_prompt`,
    /// `elicitation_dialog`) with `message`, as a future that ends when
    /// they do. Dropping it (the request was answered or withdrawn) kills
    /// them with their groups.
    pub(super) fn notification(
        &self,
        kind: &'static str,
        message: String,
    ) -> BoxFuture<'static, ()> {
        let Some(scene) = lock(&self.0).clone() else {
            return futures::future::ready(()).boxed();
        };
        if !scene.hooks.has(HookEvent::Notification) {
            return futures::future::ready(()).boxed();
        }
        async move {
            let cancel = CancellationToken::new();
            let site = CallSite {
                session_id: &scene.session_id,
                cwd: &scene.cwd,
                cancel: &cancel,
                warn: scene.warn.as_ref(),
            };
            let fields = serde_json::json!({ "message": message, "notification_type": kind });
            scene
                .hooks
                .fire(HookEvent::Notification, kind, fields, &site)
                .await;
        }
        .boxed()
    }
}
