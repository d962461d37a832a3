//! The destructive class: simple commands that destroy work a snapshot may
//! not hold (recursive or forced `rm`, `git reset --hard`, `git clean -f`,
//! `git checkout -- paths`, `git restore`, `git stash drop/clear`,
//! `git push --force`, `git branch -D`, `find -delete`, `truncate`,
//! `dd of=`, `mkfs`, `shred`), found through the wrappers that run another
//! command (`sudo`, `env`, `xargs`, `find -exec`, …), plus the files a
//! command would replace if they exist (`>` redirects, `mv`/`cp`
//! destinations), which only the caller can check.
//!
//! Decided on words, never on the text: `echo "rm -rf /"` is not
//! destructive, `xargs rm -rf` is.

use std::path::{Path, PathBuf};

/// Why one simple command is destructive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destructive {
    /// The simple command as written (`?` for computed words).
    pub command: String,
    /// What it destroys (`removes files recursively`).
    pub why: String,
    /// The allow rule that would let it run (`shell(rm *)`); `None` when no
    /// rule can (it runs through `sh -c` or `eval`).
    pub rule: Option<String>,
}

impl Destructive {
    /// `` `rm -rf src` removes files recursively or without asking``.
    pub fn describe(&self) -> String {
        format!("`{}` {}", self.command, self.why)
    }
}

/// How a command would replace a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverwriteBy {
    /// A `>` redirect (destructive when the file is one git tracks, or any
    /// existing file outside a git repository).
    Redirect,
    /// `mv` or `cp` onto it (destructive when it exists).
    MoveOrCopy,
}

/// A file a command would replace if it exists: the policy cannot look, so
/// the caller checks ([`crate::permission::GateRequest::Shell`]'s
/// `overwritten`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overwrite {
    /// Absolute, lexically normalised.
    pub path: PathBuf,
    /// How.
    pub by: OverwriteBy,
    /// The simple command as written.
    pub command: String,
    /// The allow rule that would let it run.
    pub rule: Option<String>,
}

impl Overwrite {
    /// The destructive finding once the caller found the file.
    pub fn confirmed(&self, shown: &str) -> Destructive {
        let why = match self.by {
            OverwriteBy::Redirect => format!("overwrites the existing file {shown}"),
            OverwriteBy::MoveOrCopy => format!("replaces the existing file {shown}"),
        };
        Destructive {
            command: self.command.clone(),
            why,
            rule: self.rule.clone(),
        }
    }
}

/// What the classification of one simple command found.
#[derive(Debug, Default)]
pub(super) struct Findings {
    pub destructive: Vec<Destructive>,
    pub overwrites: Vec<Overwrite>,
}

/// Classifies one simple command's `words` (computed words `None`), run in
/// `dir`; `shown` is the segment as written and `rule` the allow rule that
/// covers it.
pub(super) fn classify(
    words: &[Option<String>],
    dir: &Path,
    shown: &str,
    rule: Option<String>,
    found: &mut Findings,
) {
    let words = unwrap_runners(words);
    let Some(Some(name)) = words.first() else {
        return;
    };
    let name = name.rsplit('/').next().unwrap_or(name);
    let args = &words[1..];
    let mut flag = |why: &str| {
        found.destructive.push(Destructive {
            command: shown.to_string(),
            why: why.to_string(),
            rule: rule.clone(),
        })
    };
    match name {
        "rm" if has_short(args, &['r', 'R', 'f'])
            || has_long(args, &["--recursive", "--force"]) =>
        {
            flag("removes files recursively or without asking")
        }
        "git" => git(args, &mut flag),
        "find" => {
            if plain(args).any(|a| a == "-delete") {
                flag("deletes every file it finds");
            }
            for exec in find_execs(args) {
                classify(&exec, dir, shown, rule.clone(), found);
            }
        }
        "truncate" => flag("cuts files to a size"),
        "shred" => flag("overwrites files beyond recovery"),
        "dd" if plain(args).any(|a| a.starts_with("of=")) => flag("writes over its output file"),
        _ if name == "mkfs" || name.starts_with("mkfs.") => flag("formats a file system"),
        "mv" | "cp" => {
            for path in replaced(args, dir) {
                found.overwrites.push(Overwrite {
                    path,
                    by: OverwriteBy::MoveOrCopy,
                    command: shown.to_string(),
                    rule: rule.clone(),
                });
            }
        }
        _ => {}
    }
}

/// The words plain strings (computed ones dropped).
fn plain(args: &[Option<String>]) -> impl Iterator<Item = &str> {
    args.iter().filter_map(|a| a.as_deref())
}

/// Whether a short-option cluster (`-rf`) holds one of `letters`; stops at
/// `--`.
fn has_short(args: &[Option<String>], letters: &[char]) -> bool {
    plain(args)
        .take_while(|a| *a != "--")
        .filter(|a| a.starts_with('-') && !a.starts_with("--"))
        .any(|a| a[1..].chars().any(|c| letters.contains(&c)))
}

/// Whether one of the long options `names` is given (also as `--name=…`).
fn has_long(args: &[Option<String>], names: &[&str]) -> bool {
    plain(args).take_while(|a| *a != "--").any(|a| {
        names
            .iter()
            .any(|n| a == *n || a.strip_prefix(n).is_some_and(|r| r.starts_with('=')))
    })
}

/// The command a runner runs: `sudo`, `env`, `nice`, `nohup`, `time`,
/// `command`, `exec`, `timeout`, `stdbuf` and `xargs` stripped with their
/// options.
fn unwrap_runners(words: &[Option<String>]) -> &[Option<String>] {
    let mut rest = words;
    loop {
        let Some(Some(first)) = rest.first() else {
            return rest;
        };
        let name = first.rsplit('/').next().unwrap_or(first);
        // Options of each runner that take a separate value.
        let valued: &[&str] = match name {
            "sudo" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
            "env" => &["-u", "-C", "-S"],
            "nice" => &["-n"],
            "xargs" => &["-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"],
            "timeout" => &["-s", "-k"],
            "stdbuf" | "nohup" | "time" | "command" | "exec" => &[],
            _ => return rest,
        };
        let mut i = 1;
        while let Some(word) = rest.get(i) {
            let Some(word) = word.as_deref() else { break };
            if word == "--" {
                i += 1;
                break;
            }
            if word.starts_with('-') {
                i += if valued.contains(&word) { 2 } else { 1 };
            } else if name == "env" && word.contains('=') {
                i += 1;
            } else {
                break;
            }
        }
        // `timeout` takes its duration before the command.
        if name == "timeout" && rest.get(i).is_some() {
            i += 1;
        }
        rest = rest.get(i..).unwrap_or(&[]);
    }
}

/// `git`'s subcommand and its arguments, after the global options.
fn git(args: &[Option<String>], flag: &mut impl FnMut(&str)) {
    let mut i = 0;
    while let Some(Some(word)) = args.get(i) {
        match word.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            w if w.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(Some(sub)) = args.get(i) else {
        return;
    };
    let rest = &args[i + 1..];
    match sub.as_str() {
        "reset" if has_long(rest, &["--hard"]) => {
            flag("discards uncommitted changes (reset --hard)")
        }
        "clean" if has_short(rest, &['f']) || has_long(rest, &["--force"]) => {
            flag("deletes untracked files (clean -f)")
        }
        "checkout" => {
            let paths = rest.iter().position(|w| w.as_deref() == Some("--"));
            let discards = paths.is_some_and(|at| at + 1 < rest.len())
                || plain(rest).any(|w| w == ".")
                || has_short(rest, &['f'])
                || has_long(rest, &["--force"]);
            if discards {
                flag("discards uncommitted changes to the paths (checkout --)");
            }
        }
        "restore" => {
            let staged_only = (has_short(rest, &['S']) || has_long(rest, &["--staged"]))
                && !(has_short(rest, &['W']) || has_long(rest, &["--worktree"]));
            if !staged_only {
                flag("discards uncommitted changes in the work tree (restore)");
            }
        }
        "stash" => {
            if matches!(rest.first(), Some(Some(s)) if s == "drop" || s == "clear") {
                flag("deletes stashed changes (stash drop/clear)");
            }
        }
        "push" if has_short(rest, &['f']) || has_long(rest, &["--force"]) => {
            flag("overwrites the remote branch (push --force)")
        }
        "branch" => {
            let force_delete = has_short(rest, &['D'])
                || (has_long(rest, &["--delete"]) || has_short(rest, &['d']))
                    && (has_long(rest, &["--force"]) || has_short(rest, &['f']));
            if force_delete {
                flag("deletes a branch whatever it holds (branch -D)");
            }
        }
        _ => {}
    }
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir`
/// actions (up to `;` or `+`).
fn find_execs(args: &[Option<String>]) -> Vec<Vec<Option<String>>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = matches!(
            args[i].as_deref(),
            Some("-exec" | "-execdir" | "-ok" | "-okdir")
        );
        i += 1;
        if !is_exec {
            continue;
        }
        let start = i;
        while i < args.len() && !matches!(args[i].as_deref(), Some(";" | "+")) {
            i += 1;
        }
        out.push(args[start..i].to_vec());
    }
    out
}

/// The paths `mv`/`cp` with `args` would replace if they exist as files:
/// the destination and, in case it is a directory, each source's name in
/// it. None with `-n`, `--no-clobber`, `-i` or `--update=none`.
fn replaced(args: &[Option<String>], dir: &Path) -> Vec<PathBuf> {
    let mut target_dir: Option<String> = None;
    let mut operands: Vec<String> = Vec::new();
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let Some(word) = args[i].as_deref() else {
            // A computed operand: the destination may be anything.
            return Vec::new();
        };
        i += 1;
        if !options_done && word == "--" {
            options_done = true;
        } else if !options_done && (word == "-t" || word == "--target-directory") {
            target_dir = args.get(i).cloned().flatten();
            i += 1;
        } else if !options_done && word.starts_with("--target-directory=") {
            target_dir = word.split_once('=').map(|(_, v)| v.to_string());
        } else if !options_done && word.starts_with('-') && word.len() > 1 {
            let keeps = word == "--no-clobber"
                || word == "--update=none"
                || word == "--interactive"
                || (!word.starts_with("--") && word[1..].chars().any(|c| c == 'n' || c == 'i'));
            if keeps {
                return Vec::new();
            }
        } else {
            operands.push(word.to_string());
        }
    }
    let (sources, destination) = match target_dir {
        Some(d) => (operands, d),
        None => match operands.pop() {
            Some(d) if !operands.is_empty() => (operands, d),
            _ => return Vec::new(),
        },
    };
    let destination = dir.join(&destination);
    let mut paths = vec![destination.clone()];
    for source in sources {
        if let Some(name) = Path::new(&source).file_name() {
            paths.push(destination.join(name));
        }
    }
    paths
        .iter()
        .filter_map(|p| super::command::normalize(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(command: &str) -> Findings {
        let words: Vec<Option<String>> = command
            .split_whitespace()
            .map(|w| (w != "?").then(|| w.to_string()))
            .collect();
        let mut found = Findings::default();
        classify(&words, Path::new("/p"), command, None, &mut found);
        found
    }

    #[test]
    fn the_listed_commands_are_destructive() {
        for command in [
            "rm -rf src",
            "rm -r src",
            "rm -f a",
            "rm --recursive x",
            "/bin/rm -Rv x",
            "sudo rm -rf /",
            "env A=1 rm -fr x",
            "xargs -0 -n 1 rm -f",
            "git reset --hard",
            "git -C sub reset --hard HEAD~1",
            "git clean -fd",
            "git clean -xdf",
            "git checkout -- .",
            "git checkout -- src/a.rs",
            "git checkout .",
            "git checkout -f main",
            "git restore src/a.rs",
            "git restore --staged --worktree a",
            "git stash drop",
            "git stash clear",
            "git push --force",
            "git push -f origin main",
            "git branch -D topic",
            "git branch --delete --force topic",
            "find . -name *.rs -delete",
            "find . -exec rm -rf {} ;",
            "truncate -s 0 a",
            "dd if=/dev/zero of=disk.img",
            "mkfs.ext4 /dev/sda1",
            "shred -u secret",
            "timeout 5 rm -rf x",
        ] {
            assert!(!found(command).destructive.is_empty(), "{command}");
        }
    }

    #[test]
    fn the_harmless_neighbours_are_not() {
        for command in [
            "rm a.txt",
            "rm -- -rf",
            "ls -rf",
            "echo rm -rf /",
            "git status",
            "git reset --soft HEAD~1",
            "git reset",
            "git clean -n",
            "git checkout main",
            "git checkout -b topic",
            "git restore --staged a",
            "git stash",
            "git stash pop",
            "git push",
            "git push --force-with-lease",
            "git branch -d topic",
            "find . -name *.rs",
            "find . -exec cat {} ;",
            "dd if=a",
            "cargo test",
        ] {
            assert!(found(command).destructive.is_empty(), "{command}");
        }
    }

    #[test]
    fn mv_and_cp_name_the_files_they_would_replace() {
        let paths = |c: &str| {
            found(c)
                .overwrites
                .into_iter()
                .map(|o| o.path.display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(paths("mv a.txt b.txt"), ["/p/b.txt", "/p/b.txt/a.txt"]);
        assert_eq!(
            paths("cp -r x/one.rs two.rs -t dest"),
            ["/p/dest", "/p/dest/one.rs", "/p/dest/two.rs"]
        );
        assert!(paths("mv -n a b").is_empty());
        assert!(paths("cp --no-clobber a b").is_empty());
        assert!(paths("mv a").is_empty());
        assert!(paths("mv a ?").is_empty(), "a computed destination");
    }
}
