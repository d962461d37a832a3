//! What git says about the work tree, asked with the `git` program: which
//! files it does not hold unchanged, which commit `HEAD` is, and the
//! contents it holds at a commit.
//!
//! Every call runs with `GIT_OPTIONAL_LOCKS=0` (a status never takes the
//! index lock a command may need), stdin closed and the shell's scrubbed
//! environment; paths are read as git prints them with `-z`.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A work tree directory inside a git repository.
#[derive(Debug, Clone)]
pub(super) struct Repo {
    /// The directory (the root's path), where git runs.
    dir: PathBuf,
    /// The directory's path below the repository's top, `/`-terminated
    /// (`""` at the top): git prints paths from the top.
    prefix: String,
    env: Vec<(OsString, OsString)>,
}

/// One `git status`.
#[derive(Debug, Clone, Default)]
pub(super) struct Status {
    /// `HEAD`'s commit; `None` before the first commit.
    pub head: Option<String>,
    /// Files below the directory that git does not hold unchanged
    /// (modified, staged, deleted, untracked and not ignored), relative to
    /// the directory.
    pub dirty: Vec<String>,
}

/// A file as a commit holds it.
#[derive(Debug, Clone)]
pub(super) struct Held {
    /// Permission bits (git records 644 or 755).
    pub mode: u32,
    /// Its content.
    pub bytes: Vec<u8>,
}

impl Repo {
    /// The repository `dir` is in; `None` when it is in none (or git is
    /// missing).
    pub fn find(dir: &Path, env: &[(OsString, OsString)]) -> Option<Repo> {
        let repo = Repo {
            dir: dir.to_path_buf(),
            prefix: String::new(),
            env: env.to_vec(),
        };
        let out = repo.run(&["rev-parse", "--show-prefix"], None).ok()?;
        let prefix = String::from_utf8(out)
            .ok()?
            .trim_end_matches('\n')
            .to_string();
        Some(Repo { prefix, ..repo })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(&self.dir)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("GIT_OPTIONAL_LOCKS", "0")
            .args(["-c", "core.quotepath=false"])
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        cmd
    }

    /// Runs git with `args`; its stdout when it exits 0 (with `input` on
    /// stdin when given).
    fn run(&self, args: &[&str], input: Option<Vec<u8>>) -> std::io::Result<Vec<u8>> {
        let mut cmd = self.command(args);
        cmd.stdout(Stdio::piped());
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn()?;
        // Written from another thread, so a full stdout pipe cannot stall it.
        let writer = match (input, child.stdin.take()) {
            (Some(input), Some(mut stdin)) => {
                Some(std::thread::spawn(move || stdin.write_all(&input)))
            }
            _ => None,
        };
        let mut out = Vec::new();
        if let Some(stdout) = child.stdout.as_mut() {
            stdout.read_to_end(&mut out)?;
        }
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        let status = child.wait()?;
        if !status.success() {
            return Err(std::io::Error::other(format!(
                "git {} failed: {status}",
                args[0]
            )));
        }
        Ok(out)
    }

    /// `path` from the top, relative to the directory; `None` outside it.
    fn below(&self, path: &str) -> Option<String> {
        path.strip_prefix(self.prefix.as_str())
            .filter(|p| !p.is_empty())
            .map(str::to_string)
    }

    /// The files git does not hold unchanged, and `HEAD`.
    pub fn status(&self) -> std::io::Result<Status> {
        let out = self.run(
            &[
                "status",
                "--porcelain=v2",
                "-z",
                "--branch",
                "--untracked-files=all",
                "--no-renames",
                "--ignore-submodules=all",
                "--",
                ".",
            ],
            None,
        )?;
        let mut status = Status::default();
        let mut fields = out.split(|b| *b == 0).map(String::from_utf8_lossy);
        while let Some(field) = fields.next() {
            let path = match field.split_at_checked(2) {
                Some(("# ", header)) => {
                    if let Some(oid) = header.strip_prefix("branch.oid ") {
                        status.head = (oid != "(initial)").then(|| oid.to_string());
                    }
                    continue;
                }
                Some(("1 ", rest)) => rest.splitn(8, ' ').nth(7).map(str::to_string),
                Some(("2 ", rest)) => {
                    // Renames are off; were one printed, its origin follows.
                    fields.next();
                    rest.splitn(9, ' ').nth(8).map(str::to_string)
                }
                Some(("u ", rest)) => rest.splitn(10, ' ').nth(9).map(str::to_string),
                Some(("? ", path)) => Some(path.to_string()),
                _ => None,
            };
            if let Some(path) = path.and_then(|p| self.below(&p)) {
                status.dirty.push(path);
            }
        }
        Ok(status)
    }

    /// The files below the directory that differ between commits `from`
    /// and `to` (every file of `to` when `from` is `None`).
    pub fn changed_between(&self, from: Option<&str>, to: &str) -> std::io::Result<Vec<String>> {
        let out = match from {
            Some(from) => self.run(
                &[
                    "diff",
                    "--name-only",
                    "-z",
                    "--no-renames",
                    from,
                    to,
                    "--",
                    ".",
                ],
                None,
            )?,
            None => self.run(
                &["ls-tree", "-r", "--name-only", "-z", "--full-tree", to],
                None,
            )?,
        };
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .filter_map(|p| self.below(&String::from_utf8_lossy(p)))
            .collect())
    }

    /// What commit `commit` holds at each of `paths` (relative to the
    /// directory) that is a regular file there; the others are missing.
    pub fn held_at(&self, commit: &str, paths: &[String]) -> std::io::Result<Vec<(String, Held)>> {
        let listing = self.run(&["ls-tree", "-r", "-z", "--full-tree", commit], None)?;
        let wanted: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
        let mut found: Vec<(String, u32, String)> = Vec::new();
        for entry in listing.split(|b| *b == 0).map(String::from_utf8_lossy) {
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let mut meta = meta.split(' ');
            let (Some(mode), Some("blob"), Some(oid)) = (meta.next(), meta.next(), meta.next())
            else {
                continue;
            };
            let mode = match mode {
                "100755" => 0o755,
                "100644" => 0o644,
                // Links and submodules are not files undo can put back.
                _ => continue,
            };
            if let Some(rel) = self.below(path).filter(|rel| wanted.contains(rel.as_str())) {
                found.push((rel, mode, oid.to_string()));
            }
        }
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let input: String = found.iter().map(|(_, _, oid)| format!("{oid}\n")).collect();
        let out = self.run(&["cat-file", "--batch"], Some(input.into_bytes()))?;
        let mut reader = BufReader::new(out.as_slice());
        let mut held = Vec::with_capacity(found.len());
        for (rel, mode, _) in found {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            let size: usize = header
                .split(' ')
                .nth(2)
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| std::io::Error::other(format!("git cat-file said {header:?}")))?;
            let mut bytes = vec![0; size];
            reader.read_exact(&mut bytes)?;
            let mut newline = [0u8; 1];
            reader.read_exact(&mut newline)?;
            held.push((rel, Held { mode, bytes }));
        }
        Ok(held)
    }
}

impl Repo {
    /// Which of `paths` (relative to the directory) git tracks.
    pub fn tracked(&self, paths: &[String]) -> std::io::Result<Vec<String>> {
        let mut args = vec!["ls-files", "-z", "--"];
        args.extend(paths.iter().map(String::as_str));
        let out = self.run(&args, None)?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }
}
