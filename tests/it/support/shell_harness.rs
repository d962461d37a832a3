//! A [`Shell`] over a scratch directory, with the real binary as the
//! sandbox helper and a private `$TMPDIR`, plus process-table checks.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::sandbox::SandboxPolicy;
use light_agent::tool::builtin::shell::{self, SecretFilter, Shell, ShellConfig};
use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry};
use tokio_util::sync::CancellationToken;

/// A scratch working directory, temporary directory and log directory.
pub struct ShellHarness {
    pub work: tempfile::TempDir,
    pub tmp: tempfile::TempDir,
    pub logs: tempfile::TempDir,
    pub shell: Shell,
    pub registry: ToolRegistry,
    /// What calls are decided by: `full` (the policy is not what these tests
    /// check; the sandbox is), unless replaced.
    pub permits: Permits,
}

impl ShellHarness {
    /// Sandboxed with `policy` (helper: the built binary).
    pub fn sandboxed(policy: SandboxPolicy) -> Self {
        Self::build(Some(policy), Vec::new())
    }

    /// No sandbox (as in `full` permissions).
    pub fn unsandboxed() -> Self {
        Self::build(None, Vec::new())
    }

    /// Sandboxed by default policy, starting from `extra` environment variables.
    pub fn with_env(extra: &[(&str, &str)]) -> Self {
        let extra = extra
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect();
        Self::build(Some(SandboxPolicy::default()), extra)
    }

    /// Sandboxed with `policy`, commands seeing `home` as `$HOME`.
    pub fn with_home(policy: SandboxPolicy, home: &Path) -> Self {
        Self::build(Some(policy), vec![("HOME".into(), home.into())])
    }

    fn build(policy: Option<SandboxPolicy>, extra: Vec<(OsString, OsString)>) -> Self {
        let work = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let logs = tempfile::tempdir().unwrap();
        let mut env: Vec<(OsString, OsString)> = ["PATH", "HOME", "LANG"]
            .iter()
            .filter_map(|n| std::env::var_os(n).map(|v| (OsString::from(n), v)))
            .collect();
        env.push(("TMPDIR".into(), tmp.path().into()));
        env.retain(|(name, _)| !extra.iter().any(|(given, _)| given == name));
        env.extend(extra);
        let helper = policy
            .is_some()
            .then(|| PathBuf::from(env!("CARGO_BIN_EXE_light-agent-sandbox")));
        let shell = Shell::new(ShellConfig {
            sandbox: policy.unwrap_or_default(),
            helper,
            env,
            secrets: SecretFilter {
                provider_keys: vec!["OPENAI_API_KEY".into()],
                passthrough: Vec::new(),
            },
            log_dir: logs.path().join("shell"),
            snapshot_budget: None,
        });
        let registry = ToolRegistry::new();
        shell::register(&registry, &shell).unwrap();
        ShellHarness {
            work,
            tmp,
            logs,
            shell,
            registry,
            permits: Permits::new(Policy::new(Mode::Full, RuleList::default()), None),
        }
    }

    /// A tool context in the working directory.
    pub fn ctx(&self, cancel: CancellationToken) -> ToolContext {
        let mut ctx = ToolContext::new(self.work.path(), cancel).unwrap();
        ctx.permits = self.permits.clone();
        ctx
    }

    /// Calls `tool` with `args` (an `_intent` is added).
    pub async fn call(&self, tool: &str, mut args: serde_json::Value) -> ToolOutput {
        args["_intent"] = "test".into();
        self.registry
            .execute(tool, args, self.ctx(CancellationToken::new()))
            .await
    }

    /// Runs `command` with the `shell` tool.
    pub async fn sh(&self, command: &str) -> ToolOutput {
        self.call("shell", serde_json::json!({ "command": command }))
            .await
    }
}

/// Pids whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Zombies are already dead; their parent just has not reaped them.
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            !zombie
                && String::from_utf8_lossy(&cmdline)
                    .replace('\0', " ")
                    .contains(needle)
        })
        .collect()
}

/// Waits (up to a generous bound) until no process matches `needle`;
/// returns those still there.
pub async fn wait_until_gone(needle: &str) -> Vec<u32> {
    let give_up = Instant::now() + Duration::from_secs(15);
    loop {
        let left = processes_with(needle);
        if left.is_empty() || Instant::now() > give_up {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until a process whose command line holds `needle` runs (the
/// output before it can be on screen a moment before it starts); returns
/// the pids, empty if none appeared within the guard.
pub async fn wait_until_running(needle: &str) -> Vec<u32> {
    let give_up = Instant::now() + Duration::from_secs(15);
    loop {
        let found = processes_with(needle);
        if !found.is_empty() || Instant::now() > give_up {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A sleep duration nobody else uses, so its process can be found.
pub fn unique_sleep(seconds: u32) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{seconds}.{:09}", nanos.max(1))
}

/// Whether `path` exists.
pub fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}
