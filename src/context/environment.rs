//! What the model is told about where it runs: the working directory, the
//! platform, the date, the shell, the git branch and how many files are
//! dirty, the project's test command and a bounded map of the project.
//!
//! Gathered once when an agent is made ([`Environment::gather`]) so that the
//! system prompt stays byte-identical across the requests of a session. The
//! map comes from the same confined, gitignore-aware walk the `tree` tool
//! uses; git facts come from `git status` run with the repository's code
//! paths turned off (see [`git_state`]).

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::checks::test_commands;
use crate::tool::fs::walk::{Flow, WalkOrder, walk_files};
use crate::tool::fs::{RelPath, Root};

/// Most characters of the project map.
pub const MAP_CHARS: usize = 1500;
/// Most files the map's walk visits; beyond them counts say "+".
const MAP_WALK_FILES: usize = 20_000;
/// Most file names listed in one folder of the map.
const MAP_FILES_PER_DIR: usize = 8;
/// Longest wait for `git status`.
const GIT_TIMEOUT: Duration = Duration::from_secs(3);

/// The branch and the count of changed or untracked files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitState {
    /// The checked-out branch, or `(detached)`.
    pub branch: String,
    /// Files `git status` lists (changed, staged, untracked, conflicted).
    pub dirty: usize,
}

/// Facts about the machine and the project, fixed for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// The working directory.
    pub cwd: PathBuf,
    /// Operating system and architecture, e.g. `linux x86_64`.
    pub platform: String,
    /// The shell commands run in.
    pub shell: String,
    /// Today's date (UTC), `YYYY-MM-DD`.
    pub date: String,
    /// Git facts, when `cwd` is in a repository and git answers.
    pub git: Option<GitState>,
    /// The commands that run the project's tests ([`test_commands`]).
    pub test_commands: Vec<String>,
    /// The project map (at most [`MAP_CHARS`] characters), empty when the
    /// directory cannot be walked.
    pub project_map: String,
}

impl Environment {
    /// Gathers the environment of `cwd`: the map through a [`Root`] opened
    /// on it, git facts through [`git_state`].
    pub fn gather(cwd: &Path) -> Self {
        let root = Root::open(cwd).ok();
        let project_map = root
            .as_ref()
            .map(|root| project_map(root, MAP_CHARS))
            .unwrap_or_default();
        Self {
            cwd: cwd.to_path_buf(),
            platform: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            shell: "bash".to_owned(),
            date: date_of(SystemTime::now()),
            git: git_state(cwd),
            test_commands: root.as_ref().map(test_commands).unwrap_or_default(),
            project_map,
        }
    }

    /// The part that holds for the whole session (cwd, platform, shell,
    /// test commands, map).
    pub fn render_stable(&self) -> String {
        let mut out = format!(
            "Working directory: {}\nPlatform: {}\nShell: {}\n",
            self.cwd.display(),
            self.platform,
            self.shell
        );
        if !self.test_commands.is_empty() {
            let _ = writeln!(out, "Tests: {}", self.test_commands.join("; "));
        }
        if !self.project_map.is_empty() {
            let _ = write!(out, "Project map:\n{}", self.project_map);
        }
        out
    }

    /// The part that may change between sessions or during one (date, git),
    /// sent after everything stable.
    pub fn render_changing(&self) -> String {
        let mut out = format!("Date: {}\n", self.date);
        match &self.git {
            Some(git) => {
                let _ = writeln!(
                    out,
                    "Git branch: {}; {} changed or untracked files at session start",
                    git.branch, git.dirty
                );
            }
            None => out.push_str("Not a git repository\n"),
        }
        out
    }
}

/// `time` as a UTC date, `YYYY-MM-DD`.
pub fn date_of(time: SystemTime) -> String {
    let days = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// git in `cwd` with a cleared environment (no secret reaches it), no
/// system configuration, no optional locks, and the file-system monitor and
/// untracked cache off — the repository settings that would run a program
/// or write during a read. Its stdin is `/dev/null`, its stderr discarded;
/// the caller adds the subcommand and stdout.
pub fn git_command(cwd: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.args([
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.untrackedCache=false",
        "--no-optional-locks",
    ])
    .current_dir(cwd)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .env("LC_ALL", "C")
    .stdin(Stdio::null())
    .stderr(Stdio::null());
    cmd
}

/// The branch and dirty count of the repository holding `cwd`; `None`
/// outside a repository, without git, or when it does not answer within
/// [`GIT_TIMEOUT`]. git runs as [`git_command`] makes it.
pub fn git_state(cwd: &Path) -> Option<GitState> {
    let mut child = git_command(cwd)
        .args([
            "status",
            "--porcelain=v2",
            "--branch",
            "-z",
            "--no-renames",
            "--untracked-files=normal",
            "--ignore-submodules=all",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    // Read on a thread so a long listing never blocks git on a full pipe.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let out = reader.join().ok()?;
    status.success().then(|| parse_status(&out))
}

/// Branch and dirty count from `git status --porcelain=v2 --branch -z`.
fn parse_status(out: &[u8]) -> GitState {
    let mut branch = String::from("(unknown)");
    let mut dirty = 0;
    for record in out.split(|b| *b == 0) {
        if let Some(name) = record.strip_prefix(b"# branch.head ") {
            branch = String::from_utf8_lossy(name).into_owned();
        } else if matches!(record.first(), Some(b'1' | b'2' | b'u' | b'?')) {
            dirty += 1;
        }
    }
    GitState { branch, dirty }
}

/// One folder of the map: its folders (in display order) and file names.
#[derive(Debug, Default)]
struct Folder {
    dirs: Vec<(String, Folder)>,
    files: Vec<String>,
    /// Files beneath it, at any depth.
    total: usize,
}

impl Folder {
    fn add(&mut self, parts: &[String]) {
        self.total += 1;
        match parts {
            [] => {}
            [file] => self.files.push(file.clone()),
            [dir, rest @ ..] => {
                // The walk hands out a folder's files together, so only the
                // last folder can be the one this file belongs to.
                if self.dirs.last().is_none_or(|(name, _)| name != dir) {
                    self.dirs.push((dir.clone(), Folder::default()));
                }
                if let Some((_, sub)) = self.dirs.last_mut() {
                    sub.add(rest);
                }
            }
        }
    }

    fn depth(&self) -> usize {
        self.dirs
            .iter()
            .map(|(_, d)| d.depth() + 1)
            .max()
            .unwrap_or(0)
    }

    /// Lines of the map expanded `levels` deep below this folder.
    fn render(&self, indent: usize, levels: usize, cut: bool, out: &mut Vec<String>) {
        let plus = if cut { "+" } else { "" };
        let pad = "  ".repeat(indent);
        for (name, dir) in &self.dirs {
            if levels == 0 {
                out.push(format!("{pad}{name}/ ({}{plus} files)", dir.total));
            } else {
                out.push(format!("{pad}{name}/"));
                dir.render(indent + 1, levels - 1, cut, out);
            }
        }
        for file in self.files.iter().take(MAP_FILES_PER_DIR) {
            out.push(format!("{pad}{file}"));
        }
        if self.files.len() > MAP_FILES_PER_DIR {
            let more = self.files.len() - MAP_FILES_PER_DIR;
            out.push(format!("{pad}… {more}{plus} more files"));
        }
    }
}

/// A map of the files beneath `root` that the ignore rules keep, at most
/// `limit` characters: as many levels expanded as fit, deeper folders shown
/// as `name/ (N files)`, at most a few file names a folder. The walk stops
/// after a fixed number of files, so a huge tree costs no more than a
/// large one (its counts then end in `+`).
pub fn project_map(root: &Root, limit: usize) -> String {
    let mut top = Folder::default();
    let mut seen = 0usize;
    let walked = walk_files(
        root,
        &RelPath::root(),
        WalkOrder::Display,
        &|| false,
        |file| {
            if seen >= MAP_WALK_FILES {
                return Flow::Stop;
            }
            seen += 1;
            let parts: Vec<String> = file
                .rel
                .components()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            top.add(&parts);
            Flow::Continue
        },
    );
    let Ok(summary) = walked else {
        return String::new();
    };
    if top.total == 0 {
        return "(no files)".to_owned();
    }
    let cut = summary.stopped;
    let fits = |text: &str| text.chars().count() <= limit;
    let mut best = None;
    for levels in 0..=top.depth() {
        let mut lines = Vec::new();
        top.render(0, levels, cut, &mut lines);
        let text = lines.join("\n");
        if fits(&text) {
            best = Some(text);
        } else {
            break;
        }
    }
    if let Some(text) = best {
        return text;
    }
    // Even the top level is too long: as many of its lines as fit.
    let mut lines = Vec::new();
    top.render(0, 0, cut, &mut lines);
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        let note = format!("… {} more entries", lines.len() - i);
        if text.chars().count() + line.chars().count() + 1 + note.chars().count() + 1 > limit {
            text.push_str(&note);
            return text;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_utc_days() {
        assert_eq!(date_of(UNIX_EPOCH), "1970-01-01");
        let leap_day = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(date_of(leap_day), "2000-02-29");
    }

    #[test]
    fn porcelain_records_are_counted_and_the_branch_read() {
        let out = b"# branch.oid abc\0# branch.head main\x001 .M N... 100644 100644 100644 a b src/x.rs\0? new.txt\0u UU N... 1 2 3 4 a b c conflict.rs\0";
        assert_eq!(
            parse_status(out),
            GitState {
                branch: "main".into(),
                dirty: 3
            }
        );
    }

    #[test]
    fn a_small_tree_is_shown_whole_and_a_deep_one_elided_with_counts() {
        let dir = tempfile::tempdir().unwrap();
        for path in [
            "relay/settings.py",
            "relay/app.py",
            "README.md",
            ".gitignore",
        ] {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let root = Root::open(dir.path()).unwrap();
        assert_eq!(
            project_map(&root, MAP_CHARS),
            "relay/\n  app.py\n  settings.py\nREADME.md"
        );
        assert_eq!(project_map(&root, 30), "relay/ (2 files)\nREADME.md");
        assert_eq!(project_map(&root, 20), "… 2 more entries");
    }
}
