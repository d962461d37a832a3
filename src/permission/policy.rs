//! The policy: a mode plus rules, deciding each gated request.

use std::path::{Path, PathBuf};

use super::command::{CommandShape, analyse};
use super::mode::Mode;
use super::rule::{Rule, RuleList, RuleSource};
use crate::protocol::CommandSandbox;

/// What the policy says about one request. Ordered so that the stricter
/// answer is the greater: deny beats ask beats allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    /// Go ahead without asking.
    Allow,
    /// Ask the user first.
    Ask,
    /// Refuse.
    Deny,
}

/// What a gated tool is about to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateRequest {
    /// Change (create, replace, delete, move to) these files; paths relative
    /// to the working directory, `/`-separated.
    Edit {
        /// Every path the call writes or removes.
        paths: Vec<String>,
    },
    /// Run a command.
    Shell {
        /// The command line as the model gave it.
        command: String,
        /// Where it runs, relative to the working directory.
        workdir: String,
        /// Where it runs, absolute (redirect targets are resolved from here).
        dir: String,
        /// Absolute directories it may write beneath; a redirect elsewhere
        /// is asked about.
        writable_roots: Vec<String>,
        /// Whether it would run sandboxed.
        sandbox: CommandSandbox,
        /// Absolute paths of files its `>` redirects or `mv`/`cp` would
        /// replace and that the caller found worth keeping (a file git
        /// tracks, any file outside git): they make it destructive.
        overwritten: Vec<String>,
    },
    /// Call an MCP tool.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// Whether the server marks the tool read-only.
        read_only: bool,
    },
    /// Fetch a URL (`web_fetch`): each host a call reaches, redirects
    /// included, is asked about.
    Web {
        /// The URL's host, lower case (`docs.rs`, `127.0.0.1`, `[::1]`).
        host: String,
    },
}

/// The mode and the rules in force.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// The permission mode.
    pub mode: Mode,
    /// The configured rules, in the order of their sources.
    pub rules: RuleList,
    /// Built-in denials that any matching allow rule overrides (`.git/`).
    defaults: Vec<Rule>,
}

impl Policy {
    /// A policy of `mode` and `rules`, with `.git/` denied unless an allow
    /// rule covers the path.
    pub fn new(mode: Mode, rules: RuleList) -> Policy {
        let defaults = ["edit(.git/)"]
            .iter()
            .filter_map(|text| Rule::parse(text, RuleSource::Default).ok())
            .collect();
        Policy {
            mode,
            rules,
            defaults,
        }
    }

    /// The built-in rules (listed by `/permissions`).
    pub fn defaults(&self) -> &[Rule] {
        &self.defaults
    }

    /// What to do with `request`.
    pub fn decide(&self, request: &GateRequest) -> Decision {
        self.ruling(request).0
    }

    /// What to do with `request`, and the rule that decided it (`None` when
    /// the mode did).
    pub fn ruling(&self, request: &GateRequest) -> (Decision, Option<&Rule>) {
        self.ruling_with(request, &[])
    }

    /// [`Policy::ruling`] with this session's "allow for the session" shell
    /// rules counted as allow rules.
    pub fn ruling_with<'a>(
        &'a self,
        request: &GateRequest,
        session: &'a [Rule],
    ) -> (Decision, Option<&'a Rule>) {
        match request {
            GateRequest::Edit { paths } => {
                let mut worst: Option<(Decision, Option<&Rule>)> = None;
                for ruling in paths.iter().map(|p| self.edit_ruling(p)) {
                    if worst.is_none_or(|w| ruling.0 > w.0) {
                        worst = Some(ruling);
                    }
                }
                worst.unwrap_or((self.fallback(Decision::Ask), None))
            }
            GateRequest::Shell { sandbox, .. } => {
                if self.mode == Mode::ReadOnly {
                    return (Decision::Deny, None);
                }
                let Some(shape) = shell_shape(request) else {
                    return (Decision::Deny, None);
                };
                self.shell_ruling(&shape, *sandbox, session)
            }
            GateRequest::Mcp {
                server,
                tool,
                read_only,
            } => {
                if let Some((d, r)) = self.by_rules(|r| r.covers_mcp(server, tool)) {
                    return (d, Some(r));
                }
                // The mark is the server's word: `ask` asks anyway; the
                // other modes take it (read-only offers only such tools).
                if *read_only && self.mode != Mode::Ask {
                    return (Decision::Allow, None);
                }
                (self.fallback(Decision::Ask), None)
            }
            GateRequest::Web { host } => {
                if let Some((d, r)) = self.by_rules(|r| r.covers_web(host)) {
                    return (d, Some(r));
                }
                // What a page returns reaches the model, and a URL can carry
                // data out: only `full` fetches unasked.
                (self.fallback(Decision::Ask), None)
            }
        }
    }

    /// A parsed command: a deny or ask rule on any segment decides; else it
    /// is allowed when allow rules cover every segment and nothing in it
    /// must always be asked about (substitution, eval, sh -c, redirects
    /// outside); else the mode decides, `auto` allowing what stays in an
    /// enforced sandbox.
    fn shell_ruling<'a>(
        &'a self,
        shape: &CommandShape,
        sandbox: CommandSandbox,
        session: &'a [Rule],
    ) -> (Decision, Option<&'a Rule>) {
        for (decision, list) in [
            (Decision::Deny, &self.rules.deny),
            (Decision::Ask, &self.rules.ask),
        ] {
            let hit = shape
                .segments
                .iter()
                .find_map(|seg| list.iter().find(|r| r.covers_segment(seg)));
            if let Some(rule) = hit {
                return (decision, Some(rule));
            }
        }
        if !shape.destructive.is_empty() {
            // Destructive: only a rule the user wrote for every segment (not
            // an "allow for the session" answer) or `full` lets it run
            // unasked; the sandbox does not protect the work tree.
            if shape.always_ask.is_empty() {
                let written: Option<Vec<&Rule>> = shape
                    .segments
                    .iter()
                    .map(|seg| self.rules.allow.iter().find(|r| r.covers_segment(seg)))
                    .collect();
                if let Some(first) = written.and_then(|rules| rules.first().copied()) {
                    return (Decision::Allow, Some(first));
                }
            }
            return (self.fallback(Decision::Ask), None);
        }
        let contained = sandbox == CommandSandbox::Sandboxed && !shape.writes_outside;
        if !shape.always_ask.is_empty() {
            // No allow rule lets these through; only the mode can.
            return (
                self.fallback(if contained {
                    Decision::Allow
                } else {
                    Decision::Ask
                }),
                None,
            );
        }
        if !shape.segments.is_empty() {
            let allowed: Option<Vec<&Rule>> = shape
                .segments
                .iter()
                .map(|seg| {
                    self.rules
                        .allow
                        .iter()
                        .chain(session)
                        .find(|r| r.covers_segment(seg))
                })
                .collect();
            if let Some(rules) = allowed {
                return (Decision::Allow, rules.first().copied());
            }
        }
        let auto = if contained {
            Decision::Allow
        } else {
            Decision::Ask
        };
        (self.fallback(auto), None)
    }

    fn edit_ruling(&self, path: &str) -> (Decision, Option<&Rule>) {
        if self.mode == Mode::ReadOnly {
            return (Decision::Deny, None);
        }
        if let Some((d, r)) = self.by_rules(|r| r.covers_path(path)) {
            return (d, Some(r));
        }
        if let Some(rule) = self.defaults.iter().find(|r| r.covers_path(path)) {
            return (Decision::Deny, Some(rule));
        }
        (self.fallback(Decision::Allow), None)
    }

    /// The first matching rule, deny list first, then ask, then allow.
    fn by_rules(&self, covers: impl Fn(&Rule) -> bool) -> Option<(Decision, &Rule)> {
        let lists = [
            (Decision::Deny, &self.rules.deny),
            (Decision::Ask, &self.rules.ask),
            (Decision::Allow, &self.rules.allow),
        ];
        lists
            .into_iter()
            .find_map(|(d, list)| list.iter().find(|r| covers(r)).map(|r| (d, r)))
    }

    /// What the mode says when no rule matched; `auto` is what `Mode::Auto`
    /// gives for this kind of request.
    fn fallback(&self, auto: Decision) -> Decision {
        match self.mode {
            Mode::ReadOnly => Decision::Deny,
            Mode::Ask => Decision::Ask,
            Mode::Auto => auto,
            Mode::Full => Decision::Allow,
        }
    }
}

/// The parsed command of a shell request, its confirmed overwrites counted
/// as destructive; `None` for other requests.
pub fn shell_shape(request: &GateRequest) -> Option<CommandShape> {
    let GateRequest::Shell {
        command,
        dir,
        writable_roots,
        overwritten,
        ..
    } = request
    else {
        return None;
    };
    let roots: Vec<PathBuf> = writable_roots.iter().map(PathBuf::from).collect();
    let mut shape = analyse(command, Path::new(dir), &roots);
    shape.confirm_overwrites(overwritten, Path::new(dir));
    Some(shape)
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new(Mode::default(), RuleList::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(mode: Mode, allow: &[&str], ask: &[&str], deny: &[&str]) -> Policy {
        let owned = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let rules = RuleList::parse(
            &owned(allow),
            &owned(ask),
            &owned(deny),
            &RuleSource::CommandLine,
        )
        .unwrap();
        Policy::new(mode, rules)
    }

    fn edit(paths: &[&str]) -> GateRequest {
        GateRequest::Edit {
            paths: paths.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_mode_decides_what_no_rule_covers() {
        let req = edit(&["src/a.rs"]);
        assert_eq!(
            policy(Mode::ReadOnly, &[], &[], &[]).decide(&req),
            Decision::Deny
        );
        assert_eq!(policy(Mode::Ask, &[], &[], &[]).decide(&req), Decision::Ask);
        assert_eq!(
            policy(Mode::Auto, &[], &[], &[]).decide(&req),
            Decision::Allow
        );
        assert_eq!(
            policy(Mode::Full, &[], &[], &[]).decide(&req),
            Decision::Allow
        );
    }

    #[test]
    fn deny_beats_ask_beats_allow() {
        let p = policy(
            Mode::Ask,
            &["edit(src/**)"],
            &["edit(src/gen/**)"],
            &["edit(.env*)", "edit(src/gen/secret.rs)"],
        );
        assert_eq!(p.decide(&edit(&["src/a.rs"])), Decision::Allow);
        assert_eq!(p.decide(&edit(&["src/gen/b.rs"])), Decision::Ask);
        assert_eq!(p.decide(&edit(&["src/gen/secret.rs"])), Decision::Deny);
        assert_eq!(p.decide(&edit(&[".env.local"])), Decision::Deny);
        let (_, rule) = p.ruling(&edit(&[".env"]));
        assert_eq!(rule.map(|r| r.to_string()), Some("edit(.env*)".to_string()));
    }

    #[test]
    fn the_strictest_path_of_a_call_decides() {
        let p = policy(Mode::Auto, &[], &["edit(docs/**)"], &["edit(secrets/)"]);
        assert_eq!(p.decide(&edit(&["a.rs", "docs/x.md"])), Decision::Ask);
        assert_eq!(
            p.decide(&edit(&["a.rs", "docs/x.md", "secrets/k"])),
            Decision::Deny
        );
        assert_eq!(p.decide(&edit(&["a.rs", "b.rs"])), Decision::Allow);
    }

    #[test]
    fn git_folder_is_denied_unless_allowed() {
        let p = policy(Mode::Full, &[], &[], &[]);
        let (decision, rule) = p.ruling(&edit(&[".git/config"]));
        assert_eq!(decision, Decision::Deny);
        assert_eq!(rule.map(|r| r.source().clone()), Some(RuleSource::Default));
        assert_eq!(p.decide(&edit(&[".gitignore"])), Decision::Allow);
        let allowed = policy(Mode::Auto, &["edit(.git/hooks/**)"], &[], &[]);
        assert_eq!(
            allowed.decide(&edit(&[".git/hooks/pre-commit"])),
            Decision::Allow
        );
        assert_eq!(allowed.decide(&edit(&[".git/config"])), Decision::Deny);
    }

    #[test]
    fn read_only_denies_edits_whatever_the_rules() {
        let p = policy(Mode::ReadOnly, &["edit(**)"], &[], &[]);
        assert_eq!(p.decide(&edit(&["a"])), Decision::Deny);
    }

    #[test]
    fn shell_requests_use_rules_then_the_sandbox() {
        let shell = |command: &str, sandbox| GateRequest::Shell {
            command: command.into(),
            workdir: ".".into(),
            dir: "/p".into(),
            writable_roots: vec!["/p".into()],
            sandbox,
            overwritten: Vec::new(),
        };
        let p = policy(Mode::Auto, &["shell(cargo test *)"], &[], &["shell(rm *)"]);
        assert_eq!(
            p.decide(&shell("cargo test -q", CommandSandbox::Unsandboxed)),
            Decision::Allow
        );
        assert_eq!(
            p.decide(&shell("rm -rf x", CommandSandbox::Sandboxed)),
            Decision::Deny
        );
        assert_eq!(
            p.decide(&shell("ls", CommandSandbox::Sandboxed)),
            Decision::Allow
        );
        assert_eq!(
            p.decide(&shell("ls", CommandSandbox::Unsandboxed)),
            Decision::Ask
        );
        let ask = policy(Mode::Ask, &[], &[], &[]);
        assert_eq!(
            ask.decide(&shell("ls", CommandSandbox::Sandboxed)),
            Decision::Ask
        );
    }

    #[test]
    fn read_only_mcp_tools_are_asked_only_in_ask() {
        let mcp = |read_only| GateRequest::Mcp {
            server: "github".into(),
            tool: "list".into(),
            read_only,
        };
        let p = policy(Mode::Ask, &[], &[], &[]);
        assert_eq!(p.decide(&mcp(true)), Decision::Ask);
        assert_eq!(p.decide(&mcp(false)), Decision::Ask);
        let p = policy(Mode::Auto, &[], &[], &[]);
        assert_eq!(p.decide(&mcp(true)), Decision::Allow);
        assert_eq!(p.decide(&mcp(false)), Decision::Ask);
        let p = policy(Mode::ReadOnly, &[], &[], &[]);
        assert_eq!(p.decide(&mcp(true)), Decision::Allow);
        assert_eq!(p.decide(&mcp(false)), Decision::Deny);
        let allowed = policy(Mode::Ask, &["mcp(github.list)"], &[], &[]);
        assert_eq!(allowed.decide(&mcp(true)), Decision::Allow);
        let denied = policy(Mode::Full, &[], &[], &["mcp(github.*)"]);
        assert_eq!(denied.decide(&mcp(true)), Decision::Deny);
    }
}
