//! The `shell`, `shell_output` and `shell_kill` tools.

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::jobs::seconds;
use super::{CommandReport, CommandRequest, Shell};
use crate::permission::{
    ApprovalDetail, ApprovalRequest, GateRequest, Mode, analyse, session_rules, shell_shape,
};
use crate::protocol::CommandSandbox;
use crate::sandbox::SandboxState;
use crate::tool::{Tool, ToolContext, ToolOutput};

/// Default timeout of a foreground command.
const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Longest timeout a call may ask for.
const MAX_TIMEOUT_MS: u64 = 600_000;
/// Longest `shell_output` wait.
const MAX_WAIT_MS: u64 = 600_000;

const SHELL_DESCRIPTION: &str = "Run a bash command: exit status and output (over 16 KiB: its start, \
end and the full log's path). Sandboxed: writes only in the working directory and $TMPDIR; no \
network unless configured.";

const OUTPUT_DESCRIPTION: &str =
    "What a background job printed since the last read, and whether it runs.";

const KILL_DESCRIPTION: &str = "End a background job and everything it started.";

/// Arguments of `shell`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellArgs {
    /// The bash command line (the tool's description says enough).
    #[schemars(length(min = 1), transform = crate::tool::unexplained)]
    pub command: String,
    /// Stop after this long (default 120000).
    #[serde(default)]
    #[schemars(range(min = 1, max = 600000))]
    pub timeout_ms: Option<u64>,
    /// Directory to run in (default ".").
    #[schemars(transform = crate::tool::unexplained)]
    #[serde(default)]
    pub workdir: Option<String>,
    /// Return a job id at once (servers, watchers).
    #[serde(default)]
    pub background: bool,
}

/// Arguments of `shell_output`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellOutputArgs {
    /// From a background shell call.
    pub id: String,
    /// Wait this long for the job to end first.
    #[serde(default)]
    #[schemars(range(min = 0, max = 600000))]
    pub wait_ms: Option<u64>,
}

/// Arguments of `shell_kill`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShellKillArgs {
    /// From a background shell call.
    pub id: String,
}

/// The `shell` tool.
pub struct ShellTool {
    shell: Shell,
}

impl ShellTool {
    /// `shell` over `shell`.
    pub fn new(shell: Shell) -> Self {
        Self { shell }
    }
}

impl Tool for ShellTool {
    type Args = ShellArgs;

    fn name(&self) -> &str {
        "shell"
    }

    fn description(&self) -> &str {
        SHELL_DESCRIPTION
    }

    async fn execute(&self, args: ShellArgs, ctx: ToolContext) -> ToolOutput {
        if args.command.trim().is_empty() {
            return ToolOutput::error("the command is empty");
        }
        let cwd = match workdir(&ctx, args.workdir.as_deref()) {
            Ok(cwd) => cwd,
            Err(refusal) => return refusal,
        };
        let leaves_sandbox = match self.permit(&ctx, &args.command, &cwd).await {
            Ok(leaves) => leaves,
            Err(denied) => return denied,
        };
        // Its own task, so the change set is recorded also when the turn is
        // interrupted or the call's future dropped: either stops the
        // command through the task's token, then the task records.
        let shell = self.shell.clone();
        let stop = ctx.cancel.child_token();
        let _stop_when_dropped = stop.clone().drop_guard();
        let mut ctx = ctx;
        ctx.cancel = stop;
        let task = tokio::spawn(async move {
            // Background jobs outlive the call: no change set can be closed.
            let before = if !args.background && shell.can_write(&cwd, leaves_sandbox) {
                let sandbox = if leaves_sandbox || !shell.sandbox_state().is_enforced() {
                    CommandSandbox::Unsandboxed
                } else {
                    CommandSandbox::Sandboxed
                };
                let shown = relative_workdir(&ctx.cwd, &cwd);
                match shell
                    .snapshot_before(&ctx, &args.command, shown, sandbox)
                    .await
                {
                    Ok(before) => before,
                    Err(refused) => return refused,
                }
            } else {
                None
            };
            let output = run(&shell, &ctx, args, cwd, leaves_sandbox).await;
            shell.record_after(&ctx, before).await;
            output
        });
        task.await
            .unwrap_or_else(|e| ToolOutput::error(format!("the command failed: {e}")))
    }
}

/// Runs a permitted command (in the background, or to its end and, when
/// the sandbox seems to have refused it, again outside with approval).
async fn run(
    shell: &Shell,
    ctx: &ToolContext,
    args: ShellArgs,
    cwd: PathBuf,
    leaves_sandbox: bool,
) -> ToolOutput {
    let timeout_ms = args
        .timeout_ms
        .unwrap_or(DEFAULT_TIMEOUT_MS)
        .clamp(1, MAX_TIMEOUT_MS);
    let request = CommandRequest {
        command: args.command,
        cwd,
        workspace: ctx.cwd.clone(),
        timeout: (!args.background || args.timeout_ms.is_some())
            .then(|| Duration::from_millis(timeout_ms)),
        // Approved although it writes outside the sandbox: it runs outside.
        unsandboxed: leaves_sandbox,
    };
    if args.background {
        return match shell.start_job(&request) {
            Ok(id) => ToolOutput::ok(format!(
                "started {id}; read its output with shell_output {{\"id\": \"{id}\"}}, end it \
                     with shell_kill. It ends with the session at the latest."
            )),
            Err(message) => ToolOutput::error(message),
        };
    }
    let report = match shell
        .run(&request, ctx.cancel.clone(), ctx.progress.clone())
        .await
    {
        Ok(report) => report,
        Err(e) => return ToolOutput::error(format!("the command could not be started: {e}")),
    };
    let sandboxed = !request.unsandboxed && report.sandbox.is_enforced();
    if report.success || !sandboxed || !looks_denied(&report.output) {
        return model_result(&report);
    }
    // It may have failed only because the sandbox refused it: offer to
    // run it again outside (always asked; nobody to ask → the failure).
    let again = ApprovalRequest {
        call_id: ctx.call_id.clone(),
        tool: "shell".into(),
        title: format!("run again outside the sandbox? {}", request.command),
        detail: ApprovalDetail::Command {
            command: request.command.clone(),
            workdir: relative_workdir(&ctx.cwd, &request.cwd),
            sandbox: CommandSandbox::Unsandboxed,
            destructive: Vec::new(),
        },
    };
    if ctx.permits.ask(again).await.is_err() {
        return model_result(&report);
    }
    let outside = CommandRequest {
        unsandboxed: true,
        ..request
    };
    match shell
        .run(&outside, ctx.cancel.clone(), ctx.progress.clone())
        .await
    {
        Ok(second) => {
            let mut output = model_result(&second);
            output.content = format!(
                "[failed in the sandbox ({}); run again outside it with the user's approval]\n{}",
                report.status, output.content
            );
            output
        }
        Err(e) => ToolOutput::error(format!("the command could not be started: {e}")),
    }
}

impl ShellTool {
    /// Asks the permission layer whether `command` may run in `dir`; the
    /// denial is the call's result. `Ok(true)`: allowed although it writes
    /// outside the sandbox's roots, so it must run outside the sandbox.
    async fn permit(
        &self,
        ctx: &ToolContext,
        command: &str,
        dir: &Path,
    ) -> Result<bool, ToolOutput> {
        let sandbox = if self.shell.sandbox_state().is_enforced() {
            CommandSandbox::Sandboxed
        } else {
            CommandSandbox::Unsandboxed
        };
        let workdir = relative_workdir(&ctx.cwd, dir);
        let roots = self.shell.writable_roots(&ctx.cwd);
        let shape = analyse(command, dir, &roots);
        let leaves = shape.writes_outside;
        let gate = GateRequest::Shell {
            command: command.to_string(),
            workdir: workdir.clone(),
            dir: dir.display().to_string(),
            writable_roots: roots.iter().map(|p| p.display().to_string()).collect(),
            sandbox,
            overwritten: self.shell.overwritten(&ctx.root, &shape).await,
        };
        let destructive: Vec<String> = shell_shape(&gate)
            .map(|shape| shape.destructive.iter().map(|d| d.describe()).collect())
            .unwrap_or_default();
        let prefixes: Vec<String> = session_rules(&gate).iter().map(|r| r.to_string()).collect();
        let title = match (destructive.first(), prefixes.is_empty()) {
            (Some(why), _) => format!("run {command}  (destructive: {why})"),
            (None, true) => format!("run {command}"),
            (None, false) => format!(
                "run {command}  (a: allow {} this session)",
                prefixes.join(", ")
            ),
        };
        let approval = ApprovalRequest {
            call_id: ctx.call_id.clone(),
            tool: "shell".into(),
            title,
            detail: ApprovalDetail::Command {
                command: command.to_string(),
                workdir,
                sandbox,
                destructive,
            },
        };
        ctx.permits
            .request(gate, approval)
            .await
            // `full` runs without the helper anyway; elsewhere an approved
            // command that writes outside the roots must run outside.
            .map(|()| leaves && ctx.permits.mode() != Mode::Full)
            .map_err(|denied| ToolOutput::error(denied.message))
    }
}

/// `dir` relative to the working directory, `.` for itself.
fn relative_workdir(cwd: &Path, dir: &Path) -> String {
    dir.strip_prefix(cwd)
        .ok()
        .filter(|rel| !rel.as_os_str().is_empty())
        .map_or_else(|| ".".to_string(), |rel| rel.display().to_string())
}

/// The directory a call runs in: the working directory, or `workdir`
/// checked through the confined API to be a directory beneath it. The
/// command is then started in it by path (the sandbox confines its writes
/// whatever the tree does meanwhile).
fn workdir(ctx: &ToolContext, workdir: Option<&str>) -> Result<PathBuf, ToolOutput> {
    let Some(dir) = workdir.filter(|d| !d.trim().is_empty() && d.trim() != ".") else {
        return Ok(ctx.cwd.clone());
    };
    let rel = ctx.root.relative(dir).map_err(ToolOutput::from)?;
    ctx.root.open_dir(&rel).map_err(ToolOutput::from)?;
    Ok(ctx.cwd.join(rel.to_os_path()))
}

/// The result the model gets for a finished command.
pub(crate) fn model_result(report: &CommandReport) -> ToolOutput {
    if report.success {
        ToolOutput::ok(report.model_text())
    } else {
        ToolOutput::error(report.model_text())
    }
}

impl CommandReport {
    /// What the model is told: the status and duration (and the sandbox
    /// when it was not enforced), the budgeted output, where the full log
    /// is, and a hint when the sandbox may have refused something.
    pub fn model_text(&self) -> String {
        let report = self;
        let mut text = format!("{} after {}", report.status, seconds(report.took));
        match &report.sandbox {
            SandboxState::Enforced { .. } | SandboxState::Off => {}
            other => text.push_str(&format!(" ({other})")),
        }
        text.push('\n');
        if report.output.is_empty() {
            text.push_str("(no output)\n");
        } else {
            text.push_str(&report.output);
            if !report.output.ends_with('\n') {
                text.push('\n');
            }
        }
        match &report.log {
            None => {}
            Some(Ok(path)) => text.push_str(&format!(
                "[full output: {} bytes in {}]\n",
                report.output_bytes,
                path.display()
            )),
            Some(Err(e)) => text.push_str(&format!("[the full output could not be kept: {e}]\n")),
        }
        if !report.success && report.sandbox.is_enforced() && looks_denied(&report.output) {
            text.push_str(
                "[the sandbox may have refused this: it allows writes only inside the working \
                 directory, $TMPDIR and the configured writable roots, and no network unless \
                 configured]\n",
            );
        }
        text
    }
}

/// Whether output reads like a sandbox refusal.
pub(crate) fn looks_denied(output: &str) -> bool {
    [
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
    ]
    .iter()
    .any(|needle| output.contains(needle))
}

/// The `shell_output` tool.
pub struct ShellOutputTool {
    shell: Shell,
}

impl ShellOutputTool {
    /// `shell_output` over `shell`.
    pub fn new(shell: Shell) -> Self {
        Self { shell }
    }
}

impl Tool for ShellOutputTool {
    type Args = ShellOutputArgs;

    fn name(&self) -> &str {
        "shell_output"
    }

    fn description(&self) -> &str {
        OUTPUT_DESCRIPTION
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: ShellOutputArgs, ctx: ToolContext) -> ToolOutput {
        let wait = Duration::from_millis(args.wait_ms.unwrap_or(0).min(MAX_WAIT_MS));
        let read = match self.shell.read_job(&args.id, wait, &ctx.cancel).await {
            Ok(read) => read,
            Err(message) => return ToolOutput::error(message),
        };
        let mut text = format!("{}: {}\n", read.info.id, read.info.state);
        if read.omitted > 0 {
            text.push_str(&format!("… {} bytes omitted …\n", read.omitted));
        }
        if read.text.is_empty() {
            text.push_str("(no new output)\n");
        } else {
            text.push_str(&read.text);
            if !read.text.ends_with('\n') {
                text.push('\n');
            }
        }
        if let Some(log) = read.log {
            text.push_str(&format!("[full output: {}]\n", log.display()));
        }
        ToolOutput::ok(text)
    }
}

/// The `shell_kill` tool.
pub struct ShellKillTool {
    shell: Shell,
}

impl ShellKillTool {
    /// `shell_kill` over `shell`.
    pub fn new(shell: Shell) -> Self {
        Self { shell }
    }
}

impl Tool for ShellKillTool {
    type Args = ShellKillArgs;

    fn name(&self) -> &str {
        "shell_kill"
    }

    fn description(&self) -> &str {
        KILL_DESCRIPTION
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: ShellKillArgs, _ctx: ToolContext) -> ToolOutput {
        match self.shell.kill_job(&args.id).await {
            Ok(info) => ToolOutput::ok(format!("{}: {}", info.id, info.state)),
            Err(message) => ToolOutput::error(message),
        }
    }
}
