//! Rules: `edit(glob)`, `shell(pattern)`, `mcp(server.tool)`, `web(host)`,
//! and where each came from.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use globset::GlobMatcher;

use super::command::Segment;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Where a rule came from, for `/permissions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleSource {
    /// Built into light-agent (`.git/` is denied unless a rule allows it).
    Default,
    /// A `[permissions]` list in this configuration file.
    Config(PathBuf),
    /// The command line.
    CommandLine,
    /// Answered "allow for the session" in this session.
    Session,
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleSource::Default => f.write_str("built in"),
            RuleSource::Config(path) => write!(f, "{}", path.display()),
            RuleSource::CommandLine => f.write_str("command line"),
            RuleSource::Session => f.write_str("this session"),
        }
    }
}

/// What a rule covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// Every writing tool (`edit`, `write`, `apply_patch`) on paths matching
    /// this gitignore-style glob, relative to the working directory.
    Edit(String),
    /// Commands whose words start with the pattern's words; a final `*`
    /// stands for any further words (`cargo test *`).
    Shell(String),
    /// MCP tools named `server.tool` matching this glob (`github.*`).
    Mcp(String),
    /// `web_fetch` from hosts matching this glob (`docs.rs`, `*.github.com`),
    /// compared in lower case.
    Web(String),
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleKind::Edit(glob) => write!(f, "edit({glob})"),
            RuleKind::Shell(pattern) => write!(f, "shell({pattern})"),
            RuleKind::Mcp(glob) => write!(f, "mcp({glob})"),
            RuleKind::Web(glob) => write!(f, "web({glob})"),
        }
    }
}

/// A rule's compiled form.
#[derive(Clone)]
enum Matcher {
    Path(Gitignore),
    Words,
    Name(GlobMatcher),
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Matcher")
    }
}

/// A rule text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("permission rule `{text}`: {reason}")]
pub struct RuleError {
    /// The rule as written.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

/// One rule, compiled, and where it came from.
#[derive(Debug, Clone)]
pub struct Rule {
    kind: RuleKind,
    source: RuleSource,
    matcher: Matcher,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.source == other.source
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)
    }
}

impl Rule {
    /// Parses `edit(glob)`, `shell(pattern)`, `mcp(glob)` or `web(host glob)`.
    ///
    /// Fails on any other kind, an empty or negated (`!`) pattern, or a glob
    /// that does not compile.
    pub fn parse(text: &str, source: RuleSource) -> Result<Rule, RuleError> {
        let error = |reason: &str| RuleError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let trimmed = text.trim();
        let (kind, rest) = trimmed
            .split_once('(')
            .ok_or_else(|| error("expected edit(…), shell(…), mcp(…) or web(…)"))?;
        let inner = rest
            .strip_suffix(')')
            .ok_or_else(|| error("missing the closing `)`"))?
            .trim();
        if inner.is_empty() {
            return Err(error("the pattern is empty"));
        }
        let (kind, matcher) = match kind.trim() {
            "edit" => {
                if inner.starts_with('!') {
                    return Err(error("negated patterns are not supported; use a deny rule"));
                }
                let mut builder = GitignoreBuilder::new("");
                builder
                    .add_line(None, inner)
                    .map_err(|e| error(&e.to_string()))?;
                let matcher = builder.build().map_err(|e| error(&e.to_string()))?;
                (RuleKind::Edit(inner.to_string()), Matcher::Path(matcher))
            }
            "shell" => {
                let words = inner.split_whitespace().collect::<Vec<_>>().join(" ");
                (RuleKind::Shell(words), Matcher::Words)
            }
            "mcp" => {
                let matcher = globset::Glob::new(inner)
                    .map_err(|e| error(&e.to_string()))?
                    .compile_matcher();
                (RuleKind::Mcp(inner.to_string()), Matcher::Name(matcher))
            }
            "web" => {
                let host = inner.to_ascii_lowercase();
                let matcher = globset::Glob::new(&host)
                    .map_err(|e| error(&e.to_string()))?
                    .compile_matcher();
                (RuleKind::Web(host), Matcher::Name(matcher))
            }
            _ => return Err(error("expected edit(…), shell(…), mcp(…) or web(…)")),
        };
        Ok(Rule {
            kind,
            source,
            matcher,
        })
    }

    /// What the rule covers.
    pub fn kind(&self) -> &RuleKind {
        &self.kind
    }

    /// Where the rule came from.
    pub fn source(&self) -> &RuleSource {
        &self.source
    }

    /// Whether this is an `edit` rule covering `path` (relative to the
    /// working directory, `/`-separated). A path that is absolute or climbs
    /// with `..` is covered by no rule.
    pub fn covers_path(&self, path: &str) -> bool {
        let Matcher::Path(matcher) = &self.matcher else {
            return false;
        };
        let path = Path::new(path);
        if !is_plain_relative(path) {
            return false;
        }
        matcher.matched_path_or_any_parents(path, false).is_ignore()
    }

    /// Whether this is a `shell` rule covering `command` word by word.
    /// Commands with shell syntax beyond plain words (`;`, `|`, `&`, `$`,
    /// backquotes, redirections, subshells) are covered by no rule, so an
    /// allow rule never lets a chained command through.
    pub fn covers_command(&self, command: &str) -> bool {
        let RuleKind::Shell(pattern) = &self.kind else {
            return false;
        };
        if command.contains([';', '|', '&', '$', '`', '<', '>', '(', ')', '\n']) {
            return false;
        }
        let words: Vec<&str> = command.split_whitespace().collect();
        let mut wanted: Vec<&str> = pattern.split(' ').collect();
        let open_ended = wanted.last() == Some(&"*");
        if open_ended {
            wanted.pop();
        }
        if open_ended {
            words.len() >= wanted.len() && words[..wanted.len()] == wanted[..]
        } else {
            words == wanted
        }
    }

    /// Whether this is a `shell` rule covering one simple command of a
    /// parsed command line: its leading words equal the pattern's (then any
    /// further words with a final `*`, exactly these words without). A
    /// computed word (`$X`) among the pattern's words matches nothing.
    pub fn covers_segment(&self, segment: &Segment) -> bool {
        let RuleKind::Shell(pattern) = &self.kind else {
            return false;
        };
        let mut wanted: Vec<&str> = pattern.split(' ').collect();
        let open_ended = wanted.last() == Some(&"*");
        if open_ended {
            wanted.pop();
        }
        let words = &segment.words;
        let fits = if open_ended {
            words.len() >= wanted.len()
        } else {
            words.len() == wanted.len()
        };
        fits && wanted
            .iter()
            .zip(words)
            .all(|(want, word)| word.as_deref() == Some(*want))
    }

    /// Whether this is an `mcp` rule covering `server.tool`.
    pub fn covers_mcp(&self, server: &str, tool: &str) -> bool {
        if !matches!(self.kind, RuleKind::Mcp(_)) {
            return false;
        }
        let Matcher::Name(matcher) = &self.matcher else {
            return false;
        };
        matcher.is_match(format!("{server}.{tool}"))
    }

    /// Whether this is a `web` rule covering `host` (any case).
    pub fn covers_web(&self, host: &str) -> bool {
        if !matches!(self.kind, RuleKind::Web(_)) {
            return false;
        }
        let Matcher::Name(matcher) = &self.matcher else {
            return false;
        };
        matcher.is_match(host.to_ascii_lowercase())
    }
}

/// A relative path without `..`, `.` prefixes allowed.
fn is_plain_relative(path: &Path) -> bool {
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && path.components().next().is_some()
}

/// The three rule lists of a policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleList {
    /// Rules whose matches apply without asking.
    pub allow: Vec<Rule>,
    /// Rules whose matches always ask.
    pub ask: Vec<Rule>,
    /// Rules whose matches are refused.
    pub deny: Vec<Rule>,
}

impl RuleList {
    /// Parses three lists of rule texts from one source; every bad rule is
    /// reported.
    pub fn parse(
        allow: &[String],
        ask: &[String],
        deny: &[String],
        source: &RuleSource,
    ) -> Result<RuleList, Vec<RuleError>> {
        let mut errors = Vec::new();
        let mut parse_all = |texts: &[String]| -> Vec<Rule> {
            texts
                .iter()
                .filter_map(|t| match Rule::parse(t, source.clone()) {
                    Ok(rule) => Some(rule),
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                })
                .collect()
        };
        let list = RuleList {
            allow: parse_all(allow),
            ask: parse_all(ask),
            deny: parse_all(deny),
        };
        if errors.is_empty() {
            Ok(list)
        } else {
            Err(errors)
        }
    }

    /// Appends another list's rules after this one's.
    pub fn extend(&mut self, other: RuleList) {
        self.allow.extend(other.allow);
        self.ask.extend(other.ask);
        self.deny.extend(other.deny);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> Rule {
        Rule::parse(text, RuleSource::CommandLine).unwrap()
    }

    #[test]
    fn edit_globs_follow_gitignore() {
        let src = rule("edit(src/**)");
        assert!(src.covers_path("src/a.rs"));
        assert!(src.covers_path("src/deep/b.rs"));
        assert!(
            !src.covers_path("tests/src/a.rs"),
            "a slash anchors the glob"
        );
        assert!(!src.covers_path("srcx/a.rs"));

        let env = rule("edit(.env*)");
        assert!(env.covers_path(".env"));
        assert!(env.covers_path(".env.local"));
        assert!(
            env.covers_path("deploy/.env.prod"),
            "no slash matches at any depth"
        );
        assert!(!env.covers_path("env"));

        let git = rule("edit(.git/)");
        assert!(
            git.covers_path(".git/config"),
            "a folder rule covers what is inside"
        );
        assert!(rule("edit(.git/**)").covers_path(".git/hooks/pre-commit"));
    }

    #[test]
    fn paths_outside_are_covered_by_no_rule() {
        let all = rule("edit(**)");
        assert!(all.covers_path("a/b"));
        assert!(!all.covers_path("../a"));
        assert!(!all.covers_path("/etc/passwd"));
        assert!(!all.covers_path(""));
    }

    #[test]
    fn shell_patterns_match_words() {
        let tests = rule("shell(cargo   test *)");
        assert_eq!(tests.to_string(), "shell(cargo test *)");
        assert!(tests.covers_command("cargo test"));
        assert!(tests.covers_command("cargo  test --release"));
        assert!(!tests.covers_command("cargo testing"));
        assert!(!tests.covers_command("cargo test; rm -rf /"));
        assert!(!tests.covers_command("cargo test $(curl x)"));
        let exact = rule("shell(git status)");
        assert!(exact.covers_command("git status"));
        assert!(!exact.covers_command("git status -s"));
    }

    #[test]
    fn mcp_globs_match_server_dot_tool() {
        let github = rule("mcp(github.*)");
        assert!(github.covers_mcp("github", "list_issues"));
        assert!(!github.covers_mcp("gitlab", "list_issues"));
    }

    #[test]
    fn web_globs_match_hosts_in_any_case() {
        let docs = rule("web(Docs.rs)");
        assert_eq!(docs.to_string(), "web(docs.rs)");
        assert!(docs.covers_web("docs.rs"));
        assert!(docs.covers_web("DOCS.RS"));
        assert!(!docs.covers_web("docs.rs.evil.com"));
        let github = rule("web(*.github.com)");
        assert!(github.covers_web("api.github.com"));
        assert!(!github.covers_web("github.com.evil"));
    }

    #[test]
    fn kinds_do_not_cross() {
        assert!(!rule("edit(*)").covers_command("ls"));
        assert!(!rule("shell(*)").covers_path("a"));
        assert!(!rule("mcp(*)").covers_web("a"));
        assert!(!rule("web(*)").covers_mcp("a", "b"));
    }

    #[test]
    fn bad_rules_are_reported_with_their_text() {
        for bad in ["edit", "edit()", "edit(a", "read(a)", "edit(!a)", "mcp([)"] {
            let err = Rule::parse(bad, RuleSource::CommandLine).unwrap_err();
            assert_eq!(err.text, bad);
        }
        let errors = RuleList::parse(
            &["edit(a)".into(), "nope".into()],
            &[],
            &["x(y)".into()],
            &RuleSource::CommandLine,
        )
        .unwrap_err();
        assert_eq!(errors.len(), 2);
    }
}
