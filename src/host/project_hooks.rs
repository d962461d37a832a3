//! A project's hooks — the `hooks` block of its `.claude/settings.json`
//! and `.claude/settings.local.json`, and its `.agents/hooks.toml` — read as they are through the
//! confined-open API (no symlink followed, no FIFO waited on, at most
//! [`MAX_BYTES`] a file) and offered once per content: none of them runs
//! before the user accepted them (`/hooks accept` in the TUI; the choice is
//! remembered in the session database for this directory and this set of
//! hooks). `exec` runs only accepted ones and says on stderr why it did
//! not run the others.

use std::ffi::OsStr;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use crate::config::HookSetting;
use crate::config::project_hooks::{ProjectHookFile, parse_claude_settings, parse_hooks_toml};
use crate::session::{Decision, SessionManager};
use crate::tool::fs::{OpenedDir, RelPath, Root};

/// Claude Code's project settings, whose `hooks` block is read.
pub const CLAUDE_SETTINGS: [&str; 2] = [".claude", "settings.json"];
/// Claude Code's personal project settings (usually not committed), read
/// the same way after the shared ones.
pub const CLAUDE_LOCAL_SETTINGS: [&str; 2] = [".claude", "settings.local.json"];
/// Our own project hook file, `config.toml`'s `[[hooks.EVENT]]` format.
pub const HOOKS_TOML: [&str; 2] = [".agents", "hooks.toml"];
/// The subject the decision is remembered under.
const SUBJECT: &str = "hooks";
/// Larger files are refused.
pub const MAX_BYTES: usize = 1 << 20;

/// The hooks a project brings, from one or both files.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectHooks {
    /// Each file that brings any, by its path, with what it holds.
    pub files: Vec<(String, ProjectHookFile)>,
    /// The digest of the hooks (not of the rest of the files): a decision
    /// holds for exactly these.
    pub digest: String,
}

impl ProjectHooks {
    /// Every hook, the files' in order.
    pub fn entries(&self) -> impl Iterator<Item = &HookSetting> {
        self.files.iter().flat_map(|(_, file)| &file.hooks)
    }

    /// One line per hook: `EVENT [matcher]: command (file)`, then the
    /// entries that are not used.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (path, file) in &self.files {
            for hook in &file.hooks {
                lines.push(describe_hook(hook, path));
            }
            for ignored in &file.ignored {
                lines.push(format!("not used: {ignored} ({path})"));
            }
        }
        lines
    }
}

/// `EVENT [matcher]: command (origin)`, the command's control characters
/// made visible.
pub fn describe_hook(hook: &HookSetting, origin: &str) -> String {
    let matcher = match hook.matcher.trim() {
        "" | "*" => String::new(),
        m => format!(" [{m}]"),
    };
    format!(
        "{}{matcher}: {} ({origin})",
        hook.event,
        crate::agent::hooks::printable(&hook.command)
    )
}

/// Parses one kind of hook file.
type Parser = fn(&[u8]) -> Result<ProjectHookFile, String>;

/// Reads `dir`'s project hook files: `Ok(None)` when neither brings a hook,
/// `Err` with a line for the user when one cannot be used (a symlink, not a
/// regular file, too large, not valid).
pub fn read(dir: &Path) -> Result<Option<ProjectHooks>, String> {
    let root =
        Root::open(dir).map_err(|e| format!("the project's hook files cannot be read: {e}"))?;
    let top = root
        .open_dir(&RelPath::root())
        .map_err(|e| format!("the project's hook files cannot be read: {e}"))?;
    let mut files = Vec::new();
    let mut digest = Xxh3::new();
    let sources: [(&[&str; 2], Parser); 3] = [
        (&CLAUDE_SETTINGS, parse_claude_settings),
        (&CLAUDE_LOCAL_SETTINGS, parse_claude_settings),
        (&HOOKS_TOML, parse_hooks_toml),
    ];
    for (path, parse) in sources {
        let shown = path.join("/");
        let Some(bytes) = read_beneath(&top, path, &shown)? else {
            continue;
        };
        let file = parse(&bytes).map_err(|e| format!("{shown} is {e}"))?;
        if file.hooks.is_empty() && file.ignored.is_empty() {
            continue;
        }
        for hook in &file.hooks {
            for part in [
                shown.as_str(),
                &hook.event,
                &hook.matcher,
                &hook.command,
                &hook.timeout_sec.to_string(),
            ] {
                digest.update(&(part.len() as u64).to_le_bytes());
                digest.update(part.as_bytes());
            }
        }
        files.push((shown, file));
    }
    if files.iter().all(|(_, file)| file.hooks.is_empty()) {
        return Ok(None);
    }
    Ok(Some(ProjectHooks {
        files,
        digest: format!("{:016x}", digest.digest()),
    }))
}

/// The file at `folder/name` beneath `top`, neither a symlink: `Ok(None)`
/// when it (or its folder) does not exist.
fn read_beneath(
    top: &OpenedDir,
    [folder, name]: &[&str; 2],
    shown: &str,
) -> Result<Option<Vec<u8>>, String> {
    let unreadable = |e: &dyn std::fmt::Display| format!("{shown} cannot be read: {e}");
    let refused = |dir: &OpenedDir, name: &str| {
        let what = dir
            .stat_entry(OsStr::new(name))
            .map_or("a special file", |found| found.kind().describe());
        format!("{shown} cannot be used: {name} is {what}")
    };
    let dir = match top.open_dir(OsStr::new(folder)) {
        Ok(Some(dir)) => dir,
        Ok(None) => return Err(refused(top, folder)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(&e)),
    };
    let mut file = match dir.open_file(OsStr::new(name)) {
        Ok(Some(file)) => file,
        Ok(None) => return Err(refused(&dir, name)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(&e)),
    };
    let (bytes, more) = file.read_prefix(MAX_BYTES).map_err(|e| unreadable(&e))?;
    if more {
        return Err(format!("{shown} is larger than {} KiB", MAX_BYTES / 1024));
    }
    Ok(Some(bytes))
}

/// Where a directory's project hooks stand.
#[derive(Debug)]
pub enum Standing {
    /// There are none.
    Absent,
    /// Accepted as they are: they run.
    Accepted(ProjectHooks),
    /// Never decided on as they are: to be offered.
    Undecided(ProjectHooks),
    /// Offered as they are and not accepted.
    Declined(ProjectHooks),
    /// They cannot be used; the line says why.
    Unusable(String),
}

/// Reads `cwd`'s project hooks and what was decided about them.
pub async fn standing(manager: &SessionManager, cwd: &Path) -> Standing {
    let hooks = {
        let cwd = cwd.to_path_buf();
        tokio::task::spawn_blocking(move || read(&cwd))
            .await
            .unwrap_or_else(|e| Err(format!("reading the project's hooks failed: {e}")))
    };
    let hooks = match hooks {
        Ok(None) => return Standing::Absent,
        Ok(Some(hooks)) => hooks,
        Err(why) => return Standing::Unusable(why),
    };
    match manager.decision(cwd, SUBJECT, &hooks.digest).await {
        Ok(Decision::Accepted) => Standing::Accepted(hooks),
        Ok(Decision::Declined) => Standing::Declined(hooks),
        Ok(Decision::Undecided) => Standing::Undecided(hooks),
        Err(e) => Standing::Unusable(format!(
            "what was decided about this project's hooks cannot be read: {e}"
        )),
    }
}

/// Remembers that `hooks` (these hooks of `cwd`) were accepted or not.
pub async fn decide(
    manager: &SessionManager,
    cwd: &Path,
    hooks: &ProjectHooks,
    accepted: bool,
) -> Result<(), String> {
    manager
        .decide(cwd, SUBJECT, &hooks.digest, accepted)
        .await
        .map_err(|e| format!("the choice about this project's hooks could not be saved: {e}"))
}

/// The offer shown once: what would run, and how to accept.
pub fn offer(hooks: &ProjectHooks) -> String {
    format!(
        "this project defines hooks, not run: {}. `/hooks accept` runs them and remembers it for this directory; `/hooks decline` keeps them off",
        hooks.describe().join("; ")
    )
}

/// Why `exec` did not run a project's hooks (`None`: it runs them, or there
/// are none).
pub fn not_run(standing: &Standing) -> Option<String> {
    match standing {
        Standing::Absent | Standing::Accepted(_) => None,
        Standing::Undecided(hooks) => Some(format!(
            "this project's hooks were not run ({}): accept them once in the TUI with /hooks accept",
            hooks.describe().join("; ")
        )),
        Standing::Declined(_) => Some(
            "this project's hooks were not run: they were declined in this directory (/hooks accept in the TUI runs them)".into(),
        ),
        Standing::Unusable(why) => Some(format!("this project's hooks were not run: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_files_are_read_and_the_digest_follows_the_hooks_only() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), Ok(None));
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        let settings = |extra: &str| {
            format!(
                r#"{{"model": "{extra}", "hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "say done"}}]}}]}}}}"#
            )
        };
        std::fs::write(dir.path().join(".claude/settings.json"), settings("a")).unwrap();
        let first = read(dir.path()).unwrap().unwrap();
        assert_eq!(first.describe(), ["Stop: say done (.claude/settings.json)"]);
        std::fs::write(dir.path().join(".claude/settings.json"), settings("b")).unwrap();
        assert_eq!(read(dir.path()).unwrap().unwrap().digest, first.digest);

        std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
        std::fs::write(
            dir.path().join(".agents/hooks.toml"),
            "[[hooks.PreToolUse]]\nmatcher = \"shell\"\ncommand = \"check\"\n",
        )
        .unwrap();
        let both = read(dir.path()).unwrap().unwrap();
        assert_eq!(both.entries().count(), 2);
        assert_ne!(both.digest, first.digest);

        let local = r#"{"hooks": {"Stop": [{"hooks": [{"command": "mine"}]}]}}"#;
        std::fs::write(dir.path().join(".claude/settings.local.json"), local).unwrap();
        let all = read(dir.path()).unwrap().unwrap();
        assert_eq!(
            all.describe()[1],
            "Stop: mine (.claude/settings.local.json)"
        );
        assert_ne!(all.digest, both.digest);
    }

    #[test]
    fn a_symlinked_settings_file_or_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(
            elsewhere.path().join("settings.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".claude")).unwrap();
        assert!(read(dir.path()).unwrap_err().contains("symbolic link"));
    }
}
