//! Shell commands as rules see them: a command line parsed with a real shell
//! parser (tree-sitter-bash) into the simple commands it runs — every
//! segment of `&&`, `||`, `;`, `|`, subshells, loops and functions — plus
//! what no allow rule may let through: command and process substitution,
//! `eval`, `sh -c`, `source`, syntax that does not parse, and redirects that
//! write outside the writable roots. Each simple command is also
//! classified as destructive or not ([`super::destructive`]), through
//! `sh -c`/`bash -c`/`eval` strings, `xargs` and `find -exec`.

use std::path::{Component, Path, PathBuf};

use tree_sitter::{Node, Parser};

use super::destructive::{self, Destructive, Findings, Overwrite, OverwriteBy};

/// How deep `sh -c` strings inside `sh -c` strings are followed.
const MAX_NESTING: usize = 4;

/// One simple command: its words, `None` where a word is only known when
/// it runs (`$VAR`, a glob-free expansion, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The command name and its arguments.
    pub words: Vec<Option<String>>,
}

impl Segment {
    /// The words as written, `?` for computed ones (for messages).
    pub fn display(&self) -> String {
        let words: Vec<&str> = self
            .words
            .iter()
            .map(|w| w.as_deref().unwrap_or("?"))
            .collect();
        words.join(" ")
    }

    /// The prefix "allow for the session" allows: the command name, and its
    /// subcommand when the second word is a plain one (`cargo test`,
    /// `git log`); `None` when the name is computed.
    pub fn session_prefix(&self) -> Option<String> {
        let name = self.words.first()?.as_deref()?;
        let sub = self.words.get(1).and_then(|w| w.as_deref()).filter(|w| {
            w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
                && w.starts_with(|c: char| c.is_ascii_lowercase())
        });
        Some(match sub {
            Some(sub) => format!("{name} {sub}"),
            None => name.to_string(),
        })
    }
}

/// What a command line does, for the policy.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandShape {
    /// Every simple command it runs, in source order.
    pub segments: Vec<Segment>,
    /// Why it must be asked about whatever the rules say (empty: nothing).
    pub always_ask: Vec<String>,
    /// Whether it writes (by redirect) outside the writable roots, so it
    /// cannot run inside the sandbox as meant.
    pub writes_outside: bool,
    /// Its destructive simple commands, also those inside `sh -c` and
    /// `eval` strings, `xargs` and `find -exec`.
    pub destructive: Vec<Destructive>,
    /// Files it would replace if they exist (`>` redirects, `mv`/`cp`
    /// destinations): destructive once the caller finds them.
    pub overwrites: Vec<Overwrite>,
}

impl CommandShape {
    /// Counts the overwrites whose path is among `existing` (absolute paths
    /// the caller found to be files that would be lost) as destructive.
    pub fn confirm_overwrites(&mut self, existing: &[String], dir: &Path) {
        for overwrite in &self.overwrites {
            if existing.iter().any(|e| Path::new(e) == overwrite.path) {
                let shown = overwrite
                    .path
                    .strip_prefix(dir)
                    .unwrap_or(&overwrite.path)
                    .display()
                    .to_string();
                let found = overwrite.confirmed(&shown);
                if !self.destructive.contains(&found) {
                    self.destructive.push(found);
                }
            }
        }
    }
}

/// Parses `command`, which runs in the absolute directory `dir` and may
/// write beneath `writable` (absolute directories).
pub fn analyse(command: &str, dir: &Path, writable: &[PathBuf]) -> CommandShape {
    analyse_nested(command, dir, writable, 0)
}

/// [`analyse`] of a string run by `sh -c` or `eval` at `depth` (0: the
/// command line itself). Inside such a string no allow rule applies.
fn analyse_nested(command: &str, dir: &Path, writable: &[PathBuf], depth: usize) -> CommandShape {
    let mut shape = CommandShape::default();
    let mut parser = Parser::new();
    let tree = parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()
        .and_then(|()| parser.parse(command, None));
    let Some(tree) = tree else {
        shape
            .always_ask
            .push("the command could not be parsed".into());
        return shape;
    };
    let walk = Walk {
        source: command.as_bytes(),
        dir,
        writable,
        depth,
    };
    walk.node(tree.root_node(), &mut shape);
    shape.always_ask.dedup();
    shape
}

struct Walk<'a> {
    source: &'a [u8],
    dir: &'a Path,
    writable: &'a [PathBuf],
    /// 0 for the command line, n inside n levels of `sh -c`/`eval`.
    depth: usize,
}

impl Walk<'_> {
    fn node(&self, node: Node<'_>, shape: &mut CommandShape) {
        if node.is_error() || node.is_missing() {
            shape
                .always_ask
                .push("shell syntax that does not parse".into());
        }
        match node.kind() {
            "command_substitution" => shape.always_ask.push("command substitution".into()),
            "process_substitution" => shape.always_ask.push("process substitution".into()),
            "command" => self.command(node, shape),
            "declaration_command" | "unset_command" => {
                let mut words = vec![node.child(0).map(|k| self.text(k).to_string())];
                let mut cursor = node.walk();
                words.extend(
                    node.named_children(&mut cursor)
                        .filter(|c| c.kind() != "variable_assignment")
                        .map(|c| self.literal(c)),
                );
                shape.segments.push(Segment { words });
            }
            "file_redirect" => self.redirect(node, shape),
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.node(child, shape);
        }
    }

    /// The words of a `command` node (assignments and redirects left out).
    fn words(&self, node: Node<'_>) -> Vec<Option<String>> {
        let mut words = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" | "file_redirect" | "herestring_redirect" => {}
                "command_name" => {
                    words.push(child.named_child(0).and_then(|w| self.literal(w)));
                }
                _ => words.push(self.literal(child)),
            }
        }
        words
    }

    /// The allow rule that covers `segment` (none inside `sh -c`, where no
    /// rule applies).
    fn rule_for(&self, segment: &Segment) -> Option<String> {
        if self.depth > 0 {
            return None;
        }
        segment.session_prefix().map(|p| format!("shell({p} *)"))
    }

    fn command(&self, node: Node<'_>, shape: &mut CommandShape) {
        let words = self.words(node);
        let name = words.first().cloned().flatten();
        match name.as_deref().map(|n| n.rsplit('/').next().unwrap_or(n)) {
            Some("eval") => {
                shape.always_ask.push("eval".into());
                let script: Option<Vec<&str>> = words[1..].iter().map(|w| w.as_deref()).collect();
                if let Some(script) = script {
                    self.nested(&script.join(" "), shape);
                }
            }
            Some("source" | ".") => shape.always_ask.push("source".into()),
            Some("sh" | "bash" | "zsh" | "dash" | "ksh" | "fish") => {
                let option = words[1..].iter().position(|w| {
                    w.as_deref().is_none_or(|w| {
                        w.starts_with('-') && !w.starts_with("--") && w.contains('c')
                    })
                });
                if let Some(at) = option {
                    shape.always_ask.push("sh -c".into());
                    if let Some(Some(script)) = words.get(at + 2) {
                        self.nested(script, shape);
                    }
                }
            }
            _ => {}
        }
        if !words.is_empty() {
            let segment = Segment { words };
            let mut found = Findings::default();
            destructive::classify(
                &segment.words,
                self.dir,
                &segment.display(),
                self.rule_for(&segment),
                &mut found,
            );
            shape.destructive.extend(found.destructive);
            shape.overwrites.extend(found.overwrites);
            shape.segments.push(segment);
        }
    }

    /// Classifies the script a `sh -c` or `eval` runs.
    fn nested(&self, script: &str, shape: &mut CommandShape) {
        if self.depth >= MAX_NESTING {
            shape
                .always_ask
                .push("shell strings nested too deep to read".into());
            return;
        }
        let inner = analyse_nested(script, self.dir, self.writable, self.depth + 1);
        shape.destructive.extend(inner.destructive);
        shape.overwrites.extend(inner.overwrites);
        shape.writes_outside |= inner.writes_outside;
    }

    /// The command a redirect belongs to, as written, and its rule.
    fn redirected(&self, redirect: Node<'_>) -> (String, Option<String>) {
        let Some(statement) = redirect.parent() else {
            return (self.text(redirect).to_string(), None);
        };
        let body = statement
            .child_by_field_name("body")
            .filter(|b| b.kind() == "command");
        let rule = body.and_then(|b| {
            self.rule_for(&Segment {
                words: self.words(b),
            })
        });
        (self.text(statement).to_string(), rule)
    }

    fn redirect(&self, node: Node<'_>, shape: &mut CommandShape) {
        let mut operator = "";
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                operator = self.text(child);
            }
        }
        let writes = matches!(operator, ">" | ">>" | "&>" | "&>>" | ">|" | "<>" | ">&");
        if !writes {
            return;
        }
        let truncates = matches!(operator, ">" | "&>" | ">|" | ">&");
        let destination = node
            .child_by_field_name("destination")
            .map(|d| (d.kind(), self.literal(d)));
        match destination {
            // `2>&1`, `>&2`, `>&-`: descriptors, not files.
            Some(("number", _)) => {}
            Some((_, Some(text)))
                if operator == ">&" && (text == "-" || text.parse::<u32>().is_ok()) => {}
            Some((_, Some(path))) if self.is_writable(&path) => {
                let target = (!path.starts_with('~'))
                    .then(|| normalize(&self.dir.join(&path)))
                    .flatten()
                    .filter(|t| !t.starts_with("/dev"));
                if let (true, Some(target)) = (truncates, target) {
                    let (command, rule) = self.redirected(node);
                    shape.overwrites.push(Overwrite {
                        path: target,
                        by: OverwriteBy::Redirect,
                        command,
                        rule,
                    });
                }
            }
            Some((_, Some(path))) => {
                shape.writes_outside = true;
                shape
                    .always_ask
                    .push(format!("a redirect to {path}, outside the writable roots"));
            }
            _ => {
                shape.writes_outside = true;
                shape
                    .always_ask
                    .push("a redirect to a computed path".into());
            }
        }
    }

    fn is_writable(&self, path: &str) -> bool {
        if matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr") {
            return true;
        }
        if path.starts_with('~') {
            return false;
        }
        let Some(target) = normalize(&self.dir.join(path)) else {
            return false;
        };
        self.writable.iter().any(|root| target.starts_with(root))
    }

    fn text(&self, node: Node<'_>) -> &str {
        node.utf8_text(self.source).unwrap_or("")
    }

    /// The word's value when it is known before running (quotes removed).
    fn literal(&self, node: Node<'_>) -> Option<String> {
        match node.kind() {
            "word" | "number" => Some(unescape(self.text(node))),
            "raw_string" => {
                let text = self.text(node);
                Some(text.get(1..text.len().saturating_sub(1))?.to_string())
            }
            "string" => {
                let mut cursor = node.walk();
                let plain = node
                    .named_children(&mut cursor)
                    .all(|c| c.kind() == "string_content");
                let text = self.text(node);
                plain.then(|| {
                    text.get(1..text.len().saturating_sub(1))
                        .map(str::to_string)
                })?
            }
            "concatenation" => {
                let mut cursor = node.walk();
                let parts: Option<Vec<String>> = node
                    .named_children(&mut cursor)
                    .map(|c| self.literal(c))
                    .collect();
                Some(parts?.concat())
            }
            _ => None,
        }
    }
}

/// A word with its backslash escapes applied.
fn unescape(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `path` with `.` and `..` applied lexically; `None` above the root.
pub(super) fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(command: &str) -> CommandShape {
        analyse(
            command,
            Path::new("/work/p"),
            &[PathBuf::from("/work/p"), PathBuf::from("/tmp")],
        )
    }

    fn words(command: &str) -> Vec<String> {
        shape(command)
            .segments
            .iter()
            .map(Segment::display)
            .collect()
    }

    #[test]
    fn every_segment_of_lists_pipes_and_subshells_is_found() {
        assert_eq!(
            words("cargo build && (cd x; cargo test -q) || echo 'failed twice' | tee -a log"),
            [
                "cargo build",
                "cd x",
                "cargo test -q",
                "echo failed twice",
                "tee -a log"
            ]
        );
        assert_eq!(words("for f in *.rs; do wc -l \"$f\"; done"), ["wc -l ?"]);
        assert_eq!(words("FOO=1 make \"all\""), ["make all"]);
        assert_eq!(words("export A=1"), ["export"]);
    }

    #[test]
    fn substitution_eval_and_sh_c_always_ask() {
        for (command, reason) in [
            ("echo $(rm -rf ~)", "command substitution"),
            ("echo `id`", "command substitution"),
            ("diff <(ls a) <(ls b)", "process substitution"),
            ("eval \"$X\"", "eval"),
            ("sh -c 'rm x'", "sh -c"),
            ("/bin/bash -lc 'rm x'", "sh -c"),
            ("source env.sh", "source"),
            ("echo 'unclosed", "shell syntax that does not parse"),
        ] {
            let found = shape(command);
            assert!(
                found.always_ask.iter().any(|r| r == reason),
                "{command}: {:?}",
                found.always_ask
            );
        }
        assert!(shape("bash script.sh").always_ask.is_empty());
    }

    #[test]
    fn redirects_outside_the_writable_roots_always_ask() {
        assert!(shape("cargo test > out.txt 2>&1").always_ask.is_empty());
        assert!(
            shape("echo x >> /tmp/log; echo y > /dev/null")
                .always_ask
                .is_empty()
        );
        assert!(shape("echo x >&2").always_ask.is_empty());
        for command in [
            "echo x > /etc/passwd",
            "echo x > ../sibling.txt",
            "echo x > ~/.bashrc",
            "echo x > \"$OUT\"",
            "cat a &> /var/log/x",
        ] {
            let found = shape(command);
            assert!(found.writes_outside, "{command}");
            assert!(!found.always_ask.is_empty(), "{command}");
        }
        assert!(!shape("sort < /etc/passwd").writes_outside);
    }

    #[test]
    fn session_prefixes_stop_at_the_first_option_or_path() {
        let prefix = |c: &str| shape(c).segments[0].session_prefix();
        assert_eq!(prefix("cargo test -q"), Some("cargo test".into()));
        assert_eq!(prefix("ls -la"), Some("ls".into()));
        assert_eq!(prefix("cat src/main.rs"), Some("cat".into()));
        assert_eq!(prefix("$CMD x"), None);
    }
}
