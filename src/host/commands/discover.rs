//! Finding prompt files: the project's folders, then the user's, each read
//! through the confined-open API — a folder leading out of its root is
//! refused and nothing in it read, no file is followed through a symlink or
//! waited on (a FIFO), and no file is read past [`MAX_BYTES`].

use std::ffi::OsStr;
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use super::parse::{self, Format, PromptFile};
use crate::protocol::{CommandOrigin, PromptCommand};
use crate::tool::fs::{FileKind, FsRefusalKind, OpenedDir, Root};

/// Larger prompt files are listed with the reason and never used.
pub const MAX_BYTES: usize = 256 * 1024;

/// The project's folders, in the order a name is looked up: ours first,
/// then the other agents' (read as they are).
pub const PROJECT_DIRS: [&str; 5] = [
    ".agents/commands",
    ".claude/commands",
    ".opencode/command",
    ".opencode/commands",
    ".gemini/commands",
];

/// The user's folder, in the config directory.
pub const USER_DIR: &str = "commands";

/// One prompt file found.
#[derive(Debug, Clone)]
pub struct Found {
    /// What a front end lists.
    pub info: PromptCommand,
    /// The parsed file (`None` when [`PromptCommand::problem`] says why).
    pub file: Option<PromptFile>,
    /// Its text, for the digest of what the user accepts.
    pub text: String,
}

/// Every prompt file found, and the files passed over.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// Project files first; one per name.
    pub found: Vec<Found>,
    /// One line per file or folder passed over.
    pub skipped: Vec<String>,
}

impl Listing {
    /// The command called `name`.
    pub fn get(&self, name: &str) -> Option<&Found> {
        self.found.iter().find(|f| f.info.name == name)
    }

    /// The digest of the project's files that run shell commands (what the
    /// user accepts); `None` when there are none.
    pub fn shell_digest(&self) -> Option<String> {
        let mut files: Vec<&Found> = self
            .found
            .iter()
            .filter(|f| f.info.origin == CommandOrigin::Project && f.info.runs_shell)
            .collect();
        if files.is_empty() {
            return None;
        }
        files.sort_by(|a, b| a.info.path.cmp(&b.info.path));
        let mut all = Vec::new();
        for f in files {
            for piece in [f.info.path.as_bytes(), &[0], f.text.as_bytes(), &[0]] {
                all.extend_from_slice(piece);
            }
        }
        Some(format!("{:016x}", xxh3_64(&all)))
    }

    /// The project commands that run shell commands, with their commands,
    /// one line each (what the offer shows).
    pub fn shell_lines(&self) -> Vec<String> {
        self.found
            .iter()
            .filter(|f| f.info.origin == CommandOrigin::Project && f.info.runs_shell)
            .map(|f| {
                let commands: Vec<String> = f
                    .file
                    .as_ref()
                    .map(|file| {
                        parse::segments(&file.body)
                            .into_iter()
                            .filter_map(|s| match s {
                                parse::Segment::Shell(cmd) => Some(format!("`{}`", cmd.trim())),
                                parse::Segment::Text(_) => None,
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                format!(
                    "/{} ({}): {}",
                    f.info.name,
                    f.info.path,
                    commands.join(", ")
                )
            })
            .collect()
    }
}

/// The prompt files of the project in `cwd` and of the user's config
/// directory `config_dir` (when given).
pub fn discover(cwd: &Path, config_dir: Option<&Path>) -> Listing {
    let mut listing = Listing::default();
    match Root::open(cwd) {
        Ok(root) => {
            for dir in PROJECT_DIRS {
                read_folder(&root, dir, CommandOrigin::Project, &mut listing);
            }
        }
        Err(e) => listing
            .skipped
            .push(format!("the project's commands cannot be read: {e}")),
    }
    if let Some(config_dir) = config_dir
        && let Ok(root) = Root::open(config_dir)
    {
        read_folder(&root, USER_DIR, CommandOrigin::User, &mut listing);
    }
    listing
}

/// Whether `name` can be a command: letters, digits, `-`, `_`, `.` and
/// `:`, starting with a letter or digit (so `../x` or `.hidden` never is).
pub fn valid_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// Most prompt files read in one folder (its subfolders included).
const MAX_FILES: usize = 500;

/// Subfolders are read this deep (`git/commit.md` is `/git:commit`).
const MAX_DEPTH: usize = 3;

fn read_folder(root: &Root, dir: &str, origin: CommandOrigin, listing: &mut Listing) {
    let opened = root.relative(dir).and_then(|rel| root.open_dir(&rel));
    let folder = match opened {
        Ok(folder) => folder,
        Err(e)
            if matches!(
                e.kind,
                FsRefusalKind::NotFound | FsRefusalKind::NotDirectory
            ) =>
        {
            return;
        }
        Err(e) if e.kind == FsRefusalKind::Escape => {
            listing.skipped.push(format!(
                "{dir} leads outside {}: its commands are not read",
                root.display_path().display()
            ));
            return;
        }
        Err(e) => {
            listing
                .skipped
                .push(format!("{dir} cannot be read: {}", e.message));
            return;
        }
    };
    let mut budget = MAX_FILES;
    read_entries(&folder, dir, "", origin, listing, &mut budget, 1);
}

/// The prompt files of `folder` (shown as `shown`), named with `prefix`
/// (`git:` inside `git/`); subfolders are opened without following a
/// symlink, down to [`MAX_DEPTH`], and at most `budget` files are read.
fn read_entries(
    folder: &OpenedDir,
    shown: &str,
    prefix: &str,
    origin: CommandOrigin,
    listing: &mut Listing,
    budget: &mut usize,
    depth: usize,
) {
    let mut entries = match folder.entries() {
        Ok(entries) => entries,
        Err(e) => {
            listing
                .skipped
                .push(format!("{shown} cannot be listed: {e}"));
            return;
        }
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in entries {
        let Some(file_name) = entry.name.to_str() else {
            continue;
        };
        if entry.kind == FileKind::Directory {
            let inner = format!("{prefix}{file_name}:");
            if depth < MAX_DEPTH
                && valid_name(&format!("{inner}x"))
                && let Ok(Some(sub)) = folder.open_dir(OsStr::new(file_name))
            {
                let sub_shown = format!("{shown}/{file_name}");
                read_entries(&sub, &sub_shown, &inner, origin, listing, budget, depth + 1);
            }
            continue;
        }
        let Some((format, stem)) = Format::of(file_name) else {
            continue;
        };
        let name = format!("{prefix}{stem}");
        let path = format!("{shown}/{file_name}");
        if !valid_name(&name) {
            listing.skipped.push(format!(
                "{path}: `{name}` is not a usable command name (letters, digits, - _ . :)"
            ));
            continue;
        }
        if let Some(first) = listing.get(&name) {
            listing.skipped.push(format!(
                "{path} is not used: /{name} is {}",
                first.info.path
            ));
            continue;
        }
        if *budget == 0 {
            listing.skipped.push(format!(
                "{shown}: more than {MAX_FILES} prompt files; the rest are not read"
            ));
            return;
        }
        *budget -= 1;
        let found = read_file(folder, file_name, &name, path, format, origin);
        listing.found.push(found);
    }
}

fn read_file(
    folder: &OpenedDir,
    file_name: &str,
    name: &str,
    path: String,
    format: Format,
    origin: CommandOrigin,
) -> Found {
    let mut info = PromptCommand {
        name: name.to_owned(),
        description: String::new(),
        argument_hint: String::new(),
        origin,
        path,
        runs_shell: false,
        problem: None,
    };
    let read = read_text(folder, OsStr::new(file_name));
    let parsed = read.and_then(|text| parse::parse(format, &text).map(|file| (file, text)));
    match parsed {
        Ok((file, text)) => {
            info.description = file.description.clone();
            info.argument_hint = file.argument_hint.clone();
            info.runs_shell = file.runs_shell();
            Found {
                info,
                file: Some(file),
                text,
            }
        }
        Err(why) => {
            info.problem = Some(format!("{} {why}", info.path));
            Found {
                info,
                file: None,
                text: String::new(),
            }
        }
    }
}

/// The entry's text: a regular file (no symlink followed), at most
/// [`MAX_BYTES`], UTF-8.
fn read_text(folder: &OpenedDir, name: &OsStr) -> Result<String, String> {
    let mut file = match folder.open_file(name) {
        Ok(Some(file)) => file,
        Ok(None) => {
            let what = folder
                .stat_entry(name)
                .map_or("a special file", |found| found.kind().describe());
            return Err(format!("is not a regular file (it is {what}): not read"));
        }
        Err(e) => return Err(format!("cannot be read: {e}")),
    };
    let (bytes, more) = file
        .read_prefix(MAX_BYTES)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if more {
        return Err(format!(
            "is larger than {} KiB: a prompt file is not used past that",
            MAX_BYTES / 1024
        ));
    }
    String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn project_folders_come_first_in_order_and_a_name_is_taken_once() {
        let project = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        write(
            project.path(),
            ".claude/commands/fix.md",
            "---\ndescription: claude fix\n---\nfix",
        );
        write(project.path(), ".agents/commands/fix.md", "ours");
        write(
            project.path(),
            ".gemini/commands/plan.toml",
            "prompt = \"plan\"",
        );
        write(
            project.path(),
            ".opencode/command/note.txt",
            "not a command",
        );
        write(config.path(), "commands/plan.md", "mine");
        write(config.path(), "commands/mine.md", "!`date`");
        let listing = discover(project.path(), Some(config.path()));
        let rows: Vec<(&str, &str, CommandOrigin)> = listing
            .found
            .iter()
            .map(|f| (f.info.name.as_str(), f.info.path.as_str(), f.info.origin))
            .collect();
        assert_eq!(
            rows,
            [
                ("fix", ".agents/commands/fix.md", CommandOrigin::Project),
                ("plan", ".gemini/commands/plan.toml", CommandOrigin::Project),
                ("mine", "commands/mine.md", CommandOrigin::User),
            ]
        );
        assert_eq!(
            listing.skipped,
            [
                ".claude/commands/fix.md is not used: /fix is .agents/commands/fix.md",
                "commands/plan.md is not used: /plan is .gemini/commands/plan.toml",
            ]
        );
        // A user file running commands needs no acceptance: no digest.
        assert_eq!(listing.shell_digest(), None);
    }

    #[test]
    fn the_digest_follows_the_content_of_project_files_that_run_commands() {
        let project = tempfile::tempdir().unwrap();
        write(project.path(), ".claude/commands/st.md", "!`git status`");
        write(project.path(), ".claude/commands/plain.md", "plain");
        let first = discover(project.path(), None).shell_digest().unwrap();
        write(
            project.path(),
            ".claude/commands/plain.md",
            "plain, changed",
        );
        assert_eq!(
            discover(project.path(), None).shell_digest().unwrap(),
            first
        );
        write(
            project.path(),
            ".claude/commands/st.md",
            "!`git status --short`",
        );
        assert_ne!(
            discover(project.path(), None).shell_digest().unwrap(),
            first
        );
    }

    #[test]
    fn hostile_files_are_listed_with_their_problem_and_never_followed() {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret.md", "SECRET");
        write(
            project.path(),
            ".claude/commands/big.md",
            &"x".repeat(MAX_BYTES + 1),
        );
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            project.path().join(".claude/commands/link.md"),
        )
        .unwrap();
        write(project.path(), ".claude/commands/.hidden.md", "x");
        std::os::unix::fs::symlink(outside.path(), project.path().join(".agents")).unwrap();
        let listing = discover(project.path(), None);
        let problem = |name: &str| listing.get(name).and_then(|f| f.info.problem.clone());
        assert_eq!(
            problem("big").as_deref(),
            Some(
                ".claude/commands/big.md is larger than 256 KiB: a prompt file is not used past that"
            )
        );
        assert_eq!(
            problem("link").as_deref(),
            Some(
                ".claude/commands/link.md is not a regular file (it is a symbolic link): not read"
            )
        );
        assert!(listing.get("secret").is_none());
        assert!(
            listing
                .skipped
                .iter()
                .any(|s| s.starts_with(".agents/commands leads outside")),
            "{:?}",
            listing.skipped
        );
        assert!(listing.skipped.iter().any(|s| s.contains("`.hidden`")));
        assert!(listing.found.iter().all(|f| !f.text.contains("SECRET")));
    }

    #[test]
    fn subfolders_name_their_commands_with_a_colon_and_never_follow_a_link() {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(project.path(), ".claude/commands/git/commit.md", "commit");
        write(
            project.path(),
            ".gemini/commands/a/b/c.toml",
            "prompt = \"deep\"",
        );
        write(
            project.path(),
            ".claude/commands/a/b/c/d/too-deep.md",
            "deep",
        );
        write(outside.path(), "leak.md", "LEAK");
        std::os::unix::fs::symlink(outside.path(), project.path().join(".claude/commands/out"))
            .unwrap();
        let listing = discover(project.path(), None);
        let names: Vec<(&str, &str)> = listing
            .found
            .iter()
            .map(|f| (f.info.name.as_str(), f.info.path.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("git:commit", ".claude/commands/git/commit.md"),
                ("a:b:c", ".gemini/commands/a/b/c.toml"),
            ]
        );
    }

    #[test]
    fn a_folder_of_thousands_of_files_is_read_up_to_its_cap() {
        let project = tempfile::tempdir().unwrap();
        for i in 0..=MAX_FILES {
            write(project.path(), &format!(".agents/commands/c{i:04}.md"), "x");
        }
        let listing = discover(project.path(), None);
        assert_eq!(listing.found.len(), MAX_FILES);
        assert_eq!(
            listing.skipped,
            [".agents/commands: more than 500 prompt files; the rest are not read"]
        );
    }

    #[test]
    fn names_never_spell_a_path() {
        for bad in ["../x", ".x", "", "a/b", "a b", "-x"] {
            assert!(!valid_name(bad), "{bad}");
        }
        for good in ["fix", "fix-it", "ns:cmd", "v1.2", "a_b"] {
            assert!(valid_name(good), "{good}");
        }
    }
}
