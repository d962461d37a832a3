//! The handle a gated tool holds: policy, approver and this session's
//! "allow for the session" answers.

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::approval::{ApprovalDecision, ApprovalRequest, Approver};
use super::command::{Segment, analyse};
use super::mode::Mode;
use super::policy::{Decision, GateRequest, Policy, shell_shape};
use super::rule::{Rule, RuleSource};

/// A gated call that may not run; its message is the call's error result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Denied {
    /// Why, and how to allow it where that helps.
    pub message: String,
}

/// Cheap-clone handle deciding gated calls for one agent.
#[derive(Clone)]
pub struct Permits {
    inner: Arc<Inner>,
    /// A hook's answer about the one call these permits are for.
    hook: Option<HookAnswer>,
}

/// A `PreToolUse` hook's `permissionDecision` about one call, applied over
/// the rules: `Allow` runs what would be asked (what a rule or the mode
/// denies stays denied), `Ask` asks about what would run unasked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookAnswer {
    /// Run it without asking.
    Allow,
    /// Ask the user first.
    Ask,
}

struct Inner {
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
    /// Tools the user allowed for the rest of the session.
    session_tools: Mutex<BTreeSet<String>>,
    /// Command prefixes the user allowed for the rest of the session
    /// (`shell(cargo test *)`, source [`RuleSource::Session`]).
    session_commands: Mutex<Vec<Rule>>,
    /// Paths no sandboxed command and no file tool may read (shown by
    /// `/permissions`; enforced by the sandbox and `tool::fs`).
    read_denied: Vec<PathBuf>,
}

impl fmt::Debug for Permits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permits")
            .field("policy", &self.inner.policy)
            .field("approver", &self.inner.approver.is_some())
            .finish()
    }
}

impl Default for Permits {
    /// `ask` with nobody to ask: every gated call is denied unless a rule
    /// allows it.
    fn default() -> Self {
        Permits::new(Policy::default(), None)
    }
}

impl Permits {
    /// Permits deciding by `policy`, asking `approver` (none: what needs
    /// asking is denied, with a message saying how to allow it).
    pub fn new(policy: Policy, approver: Option<Arc<dyn Approver>>) -> Permits {
        Permits {
            inner: Arc::new(Inner {
                policy,
                approver,
                session_tools: Mutex::new(BTreeSet::new()),
                session_commands: Mutex::new(Vec::new()),
                read_denied: Vec::new(),
            }),
            hook: None,
        }
    }

    /// These permits for one call a hook answered about (see
    /// [`HookAnswer`]); session answers stay shared.
    pub fn with_hook_answer(&self, answer: HookAnswer) -> Permits {
        Permits {
            inner: self.inner.clone(),
            hook: Some(answer),
        }
    }

    /// These permits with `paths` as the read deny list (see
    /// [`Permits::read_denied`]).
    /// Meant for permits just made: a clone already shared elsewhere keeps
    /// its own list, and the returned permits start without session answers.
    pub fn with_read_denied(self, paths: Vec<PathBuf>) -> Permits {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            policy: shared.policy.clone(),
            approver: shared.approver.clone(),
            session_tools: Mutex::new(BTreeSet::new()),
            session_commands: Mutex::new(Vec::new()),
            read_denied: Vec::new(),
        });
        inner.read_denied = paths;
        Permits {
            inner: Arc::new(inner),
            hook: self.hook,
        }
    }

    /// Paths that neither a sandboxed command nor a file tool may read: the
    /// user's secrets, light-agent's own data and `[sandbox] deny_read`.
    pub fn read_denied(&self) -> &[PathBuf] {
        &self.inner.read_denied
    }

    /// The policy in force.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// The permission mode.
    pub fn mode(&self) -> Mode {
        self.inner.policy.mode
    }

    /// The same permits in `mode`: same rules, same approver, and what the
    /// user allowed for this session still allowed.
    pub fn with_mode(&self, mode: Mode) -> Permits {
        let mut policy = self.inner.policy.clone();
        policy.mode = mode;
        Permits {
            inner: Arc::new(Inner {
                policy,
                approver: self.inner.approver.clone(),
                session_tools: Mutex::new(self.session_tools_guard().clone()),
                session_commands: Mutex::new(self.session_commands_guard().clone()),
                read_denied: self.inner.read_denied.clone(),
            }),
            hook: self.hook,
        }
    }

    /// The same permits asking `approver` instead (a subagent's, which
    /// names the child in each request it passes on). A hook's answer
    /// about the call they were made for is not carried over: the child's
    /// calls are others.
    pub fn with_approver(&self, approver: Option<Arc<dyn Approver>>) -> Permits {
        Permits {
            inner: Arc::new(Inner {
                policy: self.inner.policy.clone(),
                approver,
                session_tools: Mutex::new(self.session_tools_guard().clone()),
                session_commands: Mutex::new(self.session_commands_guard().clone()),
                read_denied: self.inner.read_denied.clone(),
            }),
            hook: None,
        }
    }

    /// Tools the user allowed for the rest of this session, sorted.
    pub fn session_tools(&self) -> Vec<String> {
        self.session_tools_guard().iter().cloned().collect()
    }

    /// Command rules the user allowed for the rest of this session.
    pub fn session_commands(&self) -> Vec<Rule> {
        self.session_commands_guard().clone()
    }

    fn session_commands_guard(&self) -> std::sync::MutexGuard<'_, Vec<Rule>> {
        // A poisoned list is still a valid list of rules.
        self.inner
            .session_commands
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn session_tools_guard(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        // A poisoned set is still a valid set of names.
        self.inner
            .session_tools
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The mode, every rule in force with where it came from, and the tools
    /// allowed for this session (what `/permissions` shows).
    pub fn describe(&self) -> String {
        let policy = &self.inner.policy;
        let mut out = format!("mode: {}", policy.mode);
        let lists = [
            ("deny", &policy.rules.deny),
            ("ask", &policy.rules.ask),
            ("allow", &policy.rules.allow),
        ];
        for (name, rules) in lists {
            for rule in rules {
                out.push_str(&format!("\n{name:<6}{rule}  ({})", rule.source()));
            }
        }
        for rule in policy.defaults() {
            out.push_str(&format!(
                "\ndeny  {rule}  ({}; an allow rule overrides it)",
                rule.source()
            ));
        }
        for tool in self.session_tools() {
            out.push_str(&format!("\nallow {tool}  (this session: answered `a`)"));
        }
        if !self.inner.read_denied.is_empty() {
            let paths: Vec<String> = self
                .inner
                .read_denied
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            out.push_str(&format!(
                "\ndeny  read {}  (sandboxed commands and file tools; [sandbox] deny_read adds)",
                paths.join(", ")
            ));
        }
        out
    }

    /// Decides `gate`, asking the user with `approval` when the policy says
    /// ask. Resolves `Ok` when the call may run. Dropping the future (the
    /// turn was interrupted) drops the question.
    pub async fn request(
        &self,
        gate: GateRequest,
        approval: ApprovalRequest,
    ) -> Result<(), Denied> {
        let session = self.session_commands();
        let (decision, rule) = self.inner.policy.ruling_with(&gate, &session);
        let decision = match (self.hook, decision) {
            (Some(HookAnswer::Allow), Decision::Ask) => Decision::Allow,
            (Some(HookAnswer::Ask), Decision::Allow) => Decision::Ask,
            (_, decision) => decision,
        };
        match decision {
            Decision::Allow => return Ok(()),
            Decision::Deny => {
                let message = match rule {
                    Some(rule) if *rule.source() == RuleSource::Default => format!(
                        "denied: {} is protected by default (rule {rule}); a [permissions] allow rule can open it",
                        subject(&gate)
                    ),
                    Some(rule) => format!("denied by rule {rule} (from {})", rule.source()),
                    None => format!(
                        "denied: the permission mode is {}; nothing may be changed",
                        self.mode()
                    ),
                };
                return Err(Denied { message });
            }
            Decision::Ask => {}
        }
        let asked_by_rule = rule.is_some();
        // Commands are allowed for the session by prefix, never wholesale.
        let is_shell = matches!(gate, GateRequest::Shell { .. });
        let session_key = session_key(&gate, &approval);
        let asked_by_hook = self.hook == Some(HookAnswer::Ask);
        if !is_shell
            && !asked_by_rule
            && !asked_by_hook
            && self.session_tools_guard().contains(&session_key)
        {
            return Ok(());
        }
        let Some(approver) = self.inner.approver.clone() else {
            if let Some(message) = destructive_denial(&gate) {
                return Err(Denied { message });
            }
            // In auto what still asks needs full (or a rule) to run unasked.
            let wider = if self.mode() == Mode::Auto {
                "full"
            } else {
                "auto"
            };
            return Err(Denied {
                message: format!(
                    "denied in exec: nobody is here to approve {}. Run with --permissions {wider}, or allow it in config.toml: [permissions] allow = [\"{}\"]",
                    subject(&gate),
                    suggested_rule(&gate)
                ),
            });
        };
        match approver.approve(approval).await {
            ApprovalDecision::Approve => Ok(()),
            ApprovalDecision::ApproveForSession => {
                if is_shell {
                    let mut commands = self.session_commands_guard();
                    for rule in session_rules(&gate) {
                        if !commands.contains(&rule) {
                            commands.push(rule);
                        }
                    }
                } else {
                    self.session_tools_guard().insert(session_key);
                }
                Ok(())
            }
            ApprovalDecision::Deny { reason } => Err(Denied {
                message: match reason.as_deref().map(str::trim) {
                    Some(reason) if !reason.is_empty() => format!("denied by the user: {reason}"),
                    _ => "denied by the user".to_string(),
                },
            }),
        }
    }
}

impl Permits {
    /// Asks the user about `approval` whatever the rules say (a command that
    /// failed inside the sandbox, offered to run again outside it). Denied
    /// when nobody can be asked or the mode is read-only; "allow for the
    /// session" counts for this call only.
    pub async fn ask(&self, approval: ApprovalRequest) -> Result<(), Denied> {
        if self.mode() == Mode::ReadOnly {
            return Err(Denied {
                message: "denied: the permission mode is read-only".into(),
            });
        }
        let Some(approver) = self.inner.approver.clone() else {
            return Err(Denied {
                message: "nobody is here to approve it".into(),
            });
        };
        match approver.approve(approval).await {
            ApprovalDecision::Approve | ApprovalDecision::ApproveForSession => Ok(()),
            ApprovalDecision::Deny { reason } => Err(Denied {
                message: match reason.as_deref().map(str::trim) {
                    Some(reason) if !reason.is_empty() => format!("denied by the user: {reason}"),
                    _ => "denied by the user".to_string(),
                },
            }),
        }
    }
}

/// The `shell(prefix *)` rules "allow for the session" adds for a command:
/// one per segment whose prefix is known.
pub fn session_rules(gate: &GateRequest) -> Vec<Rule> {
    let GateRequest::Shell {
        command,
        dir,
        writable_roots,
        ..
    } = gate
    else {
        return Vec::new();
    };
    let roots: Vec<std::path::PathBuf> = writable_roots.iter().map(Into::into).collect();
    let shape = analyse(command, std::path::Path::new(dir), &roots);
    let mut rules: Vec<Rule> = Vec::new();
    for prefix in shape.segments.iter().filter_map(Segment::session_prefix) {
        if let Ok(rule) = Rule::parse(&format!("shell({prefix} *)"), RuleSource::Session)
            && !rules.contains(&rule)
        {
            rules.push(rule);
        }
    }
    rules
}

/// What "allow for the session" remembers for a request: the tool's name,
/// or for a fetch the rule of its host (`web(docs.rs)`), so allowing one host
/// never allows another.
fn session_key(gate: &GateRequest, approval: &ApprovalRequest) -> String {
    match gate {
        GateRequest::Web { .. } => suggested_rule(gate),
        _ => approval.tool.clone(),
    }
}

/// Why a destructive command is denied when nobody can be asked, naming
/// the rules that would allow it; `None` when it is not destructive.
fn destructive_denial(gate: &GateRequest) -> Option<String> {
    let found = shell_shape(gate)?.destructive;
    let first = found.first()?;
    let mut rules: Vec<&str> = Vec::new();
    for rule in &found {
        match rule.rule.as_deref() {
            Some(r) if !rules.contains(&r) => rules.push(r),
            _ => {}
        }
    }
    let how = if found.iter().any(|d| d.rule.is_none()) {
        "run with --permissions full (no rule reaches inside sh -c or eval)".to_string()
    } else {
        let quoted: Vec<String> = rules.iter().map(|r| format!("\"{r}\"")).collect();
        format!(
            "allow it in config.toml: [permissions] allow = [{}], or run with --permissions full",
            quoted.join(", ")
        )
    };
    Some(format!(
        "denied in exec: {} and nobody is here to approve it; nothing was run. To run it, {how}",
        first.describe()
    ))
}

/// What the request touches, for messages.
fn subject(gate: &GateRequest) -> String {
    match gate {
        GateRequest::Edit { paths } => format!("the change to {}", paths.join(", ")),
        GateRequest::Shell { command, .. } => format!("the command `{command}`"),
        GateRequest::Mcp { server, tool, .. } => format!("the tool {server}.{tool}"),
        GateRequest::Web { host } => format!("fetching from {host}"),
    }
}

/// A rule that would allow the request.
fn suggested_rule(gate: &GateRequest) -> String {
    match gate {
        GateRequest::Edit { paths } if paths.len() == 1 => format!("edit({})", paths[0]),
        GateRequest::Edit { .. } => "edit(**)".to_string(),
        GateRequest::Shell { command, .. } => {
            let first = command.split_whitespace().next().unwrap_or("*");
            format!("shell({first} *)")
        }
        GateRequest::Mcp { server, tool, .. } => format!("mcp({server}.{tool})"),
        GateRequest::Web { host } => format!("web({host})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::{ApprovalDetail, RuleList};
    use futures::future::BoxFuture;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Answers every question with the same decision and counts them.
    struct Scripted {
        answer: ApprovalDecision,
        asked: AtomicUsize,
    }

    impl Approver for Scripted {
        fn approve(&self, _request: ApprovalRequest) -> BoxFuture<'static, ApprovalDecision> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            let answer = self.answer.clone();
            Box::pin(async move { answer })
        }
    }

    fn scripted(answer: ApprovalDecision) -> Arc<Scripted> {
        Arc::new(Scripted {
            answer,
            asked: AtomicUsize::new(0),
        })
    }

    fn edit(path: &str) -> (GateRequest, ApprovalRequest) {
        (
            GateRequest::Edit {
                paths: vec![path.to_string()],
            },
            ApprovalRequest {
                call_id: "c1".into(),
                tool: "edit".into(),
                title: format!("edit {path}"),
                detail: ApprovalDetail::Diff {
                    unified: String::new(),
                },
            },
        )
    }

    fn policy(mode: Mode, allow: &[&str], ask: &[&str], deny: &[&str]) -> Policy {
        let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let source = RuleSource::Config("config.toml".into());
        Policy::new(
            mode,
            RuleList::parse(&owned(allow), &owned(ask), &owned(deny), &source).unwrap(),
        )
    }

    #[tokio::test]
    async fn nobody_to_ask_denies_with_how_to_allow() {
        let permits = Permits::new(policy(Mode::Ask, &[], &[], &[]), None);
        let (gate, req) = edit("src/a.rs");
        let denied = permits.request(gate, req).await.unwrap_err();
        assert!(
            denied.message.starts_with("denied in exec"),
            "{}",
            denied.message
        );
        assert!(denied.message.contains("--permissions auto"));
        assert!(denied.message.contains("edit(src/a.rs)"));
    }

    #[tokio::test]
    async fn a_hooks_allow_runs_what_would_ask_and_its_ask_asks_what_would_run() {
        let no = scripted(ApprovalDecision::Deny { reason: None });
        let permits = Permits::new(
            policy(Mode::Ask, &["edit(src/**)"], &[], &["edit(.env*)"]),
            Some(no.clone()),
        );
        let (gate, req) = edit("notes.md");
        let allowed = permits.with_hook_answer(HookAnswer::Allow);
        assert_eq!(allowed.request(gate, req).await, Ok(()));
        let (gate, req) = edit(".env");
        assert!(
            allowed.request(gate, req).await.is_err(),
            "a deny rule holds"
        );
        assert_eq!(no.asked.load(Ordering::SeqCst), 0);

        let (gate, req) = edit("src/a.rs");
        let asking = permits.with_hook_answer(HookAnswer::Ask);
        assert!(asking.request(gate.clone(), req.clone()).await.is_err());
        assert_eq!(no.asked.load(Ordering::SeqCst), 1, "the hook's ask asked");
        assert_eq!(permits.request(gate, req).await, Ok(()), "only that call");

        // A subagent's permits come from its `task` call's: the hook's
        // answer about that call does not reach the child's calls.
        let (gate, req) = edit("notes.md");
        let child = allowed.with_approver(Some(no.clone()));
        assert!(child.request(gate, req).await.is_err());
        assert_eq!(no.asked.load(Ordering::SeqCst), 2, "the child's call asked");
    }

    #[tokio::test]
    async fn deny_rules_name_the_rule_and_its_file() {
        let permits = Permits::new(policy(Mode::Auto, &[], &[], &["edit(.env*)"]), None);
        let (gate, req) = edit(".env");
        let denied = permits.request(gate, req).await.unwrap_err();
        assert_eq!(
            denied.message,
            "denied by rule edit(.env*) (from config.toml)"
        );
    }

    #[tokio::test]
    async fn user_answers_decide_and_session_answers_stick() {
        let yes = scripted(ApprovalDecision::Approve);
        let permits = Permits::new(policy(Mode::Ask, &[], &[], &[]), Some(yes.clone()));
        let (gate, req) = edit("a");
        assert_eq!(permits.request(gate.clone(), req.clone()).await, Ok(()));
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(yes.asked.load(Ordering::SeqCst), 2);

        let always = scripted(ApprovalDecision::ApproveForSession);
        let permits = Permits::new(
            policy(Mode::Ask, &[], &["edit(docs/**)"], &[]),
            Some(always.clone()),
        );
        let (gate, req) = edit("a");
        assert_eq!(permits.request(gate.clone(), req.clone()).await, Ok(()));
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(
            always.asked.load(Ordering::SeqCst),
            1,
            "the second call was not asked"
        );
        assert_eq!(permits.session_tools(), vec!["edit".to_string()]);
        let (gate, req) = edit("docs/x.md");
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(
            always.asked.load(Ordering::SeqCst),
            2,
            "an ask rule still asks"
        );

        let no = scripted(ApprovalDecision::Deny {
            reason: Some(" use the other file ".into()),
        });
        let permits = Permits::new(policy(Mode::Ask, &[], &[], &[]), Some(no));
        let (gate, req) = edit("a");
        let denied = permits.request(gate, req).await.unwrap_err();
        assert_eq!(denied.message, "denied by the user: use the other file");
    }

    fn fetch(host: &str) -> (GateRequest, ApprovalRequest) {
        let gate = GateRequest::Web { host: host.into() };
        let req = ApprovalRequest {
            call_id: "c".into(),
            tool: "web_fetch".into(),
            title: format!("fetch from {host}"),
            detail: ApprovalDetail::Web {
                url: format!("https://{host}/"),
                host: host.into(),
            },
        };
        (gate, req)
    }

    #[tokio::test]
    async fn fetches_ask_per_host_and_web_rules_decide() {
        let always = scripted(ApprovalDecision::ApproveForSession);
        let permits = Permits::new(
            policy(Mode::Ask, &["web(docs.rs)"], &[], &["web(*.evil.test)"]),
            Some(always.clone()),
        );
        let (gate, req) = fetch("docs.rs");
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(always.asked.load(Ordering::SeqCst), 0, "an allow rule");
        let (gate, req) = fetch("a.evil.test");
        let denied = permits.request(gate, req).await.unwrap_err();
        assert!(denied.message.contains("web(*.evil.test)"), "{denied:?}");

        let (gate, req) = fetch("example.org");
        assert_eq!(permits.request(gate.clone(), req.clone()).await, Ok(()));
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(
            always.asked.load(Ordering::SeqCst),
            1,
            "allowed for the session"
        );
        let (gate, req) = fetch("example.com");
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(
            always.asked.load(Ordering::SeqCst),
            2,
            "another host is asked again"
        );
        assert_eq!(
            permits.session_tools(),
            vec![
                "web(example.com)".to_string(),
                "web(example.org)".to_string()
            ]
        );

        let nobody = Permits::new(policy(Mode::Auto, &[], &[], &[]), None);
        let (gate, req) = fetch("example.org");
        let denied = nobody.request(gate, req).await.unwrap_err();
        assert!(denied.message.contains("web(example.org)"), "{denied:?}");
        let full = Permits::new(policy(Mode::Full, &[], &[], &[]), None);
        let (gate, req) = fetch("example.org");
        assert_eq!(full.request(gate, req).await, Ok(()));
    }

    #[tokio::test]
    async fn describe_lists_the_mode_rules_sources_and_session_answers() {
        let always = scripted(ApprovalDecision::ApproveForSession);
        let permits = Permits::new(
            policy(Mode::Ask, &["edit(src/**)"], &[], &["edit(.env*)"]),
            Some(always),
        );
        let (gate, req) = edit("a");
        permits.request(gate, req).await.unwrap();
        assert_eq!(
            permits.describe(),
            "mode: ask\ndeny  edit(.env*)  (config.toml)\nallow edit(src/**)  (config.toml)\ndeny  edit(.git/)  (built in; an allow rule overrides it)\nallow edit  (this session: answered `a`)"
        );
    }

    #[tokio::test]
    async fn allowed_calls_are_not_asked() {
        let yes = scripted(ApprovalDecision::Approve);
        let permits = Permits::new(
            policy(Mode::Ask, &["edit(src/**)"], &[], &[]),
            Some(yes.clone()),
        );
        let (gate, req) = edit("src/a.rs");
        assert_eq!(permits.request(gate, req).await, Ok(()));
        assert_eq!(yes.asked.load(Ordering::SeqCst), 0);
        let (gate, req) = edit(".git/config");
        let denied = permits.request(gate, req).await.unwrap_err();
        assert!(
            denied.message.contains("protected by default"),
            "{}",
            denied.message
        );
    }
}
