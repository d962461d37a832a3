//! Project instructions: AGENTS.md files from the git root down to cwd (in a
//! folder without one, its CLAUDE.md, else its GEMINI.md).

use std::path::{Path, PathBuf};

use crate::tool::fs::{FsRefusalKind, RelPath, Root};

/// Most bytes of project instructions put into the system prompt.
pub const PROJECT_INSTRUCTIONS_CAP: usize = 32 * 1024;

/// The directories from the enclosing git root (or `cwd` itself outside a
/// repository) down to `cwd`, outermost first.
pub fn dirs_from_git_root(cwd: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        dirs.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            dirs.reverse();
            return dirs;
        }
    }
    vec![cwd.to_path_buf()]
}

/// The project's root (git root, or `cwd` outside a repository) opened as a
/// [`Root`], and `cwd`'s path beneath it. `None` when it cannot be opened.
pub fn project_root(cwd: &Path) -> Option<(Root, RelPath)> {
    let dirs = dirs_from_git_root(cwd);
    let top = dirs.first()?;
    let below = cwd.strip_prefix(top).ok()?;
    let rel = RelPath::parse(&below.to_string_lossy()).unwrap_or_default();
    Some((Root::open(top).ok()?, rel))
}

/// Reads the file `rel` beneath `root` for the system prompt: a regular
/// file only (a FIFO, device or socket is never waited on), at most `cap`
/// bytes read. `Ok(None)` when absent; `Err` is a warning for the user
/// (a symlink leaving the project, a special file, an unreadable file).
pub fn read_capped(root: &Root, rel: &RelPath, cap: usize) -> Result<Option<String>, String> {
    let shown = || {
        root.display_path()
            .join(rel.to_os_path())
            .display()
            .to_string()
    };
    let mut opened = match root.open_file(rel) {
        Ok(opened) => opened,
        Err(refusal) if refusal.kind == FsRefusalKind::NotFound => return Ok(None),
        Err(refusal) => {
            let why = match refusal.kind {
                FsRefusalKind::Escape => "it is a symlink leading outside the project".to_owned(),
                FsRefusalKind::NotRegular => match root.stat(rel) {
                    Ok(Some(identity)) => format!("it is {}", identity.kind().describe()),
                    _ => "it is not a regular file".to_owned(),
                },
                _ => first_line(&refusal.message),
            };
            return Err(format!("skipped {}: {why}", shown()));
        }
    };
    match opened.read_prefix(cap) {
        Ok((bytes, _)) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) => Err(format!("skipped {}: {e}", shown())),
    }
}

fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message);
    line.trim_start_matches("[what]: ").to_owned()
}

/// The instruction files a folder may hold, the first present one read.
pub const INSTRUCTION_FILES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/// Every AGENTS.md from the git root down to `cwd` (where a folder has
/// none, its CLAUDE.md, else its GEMINI.md), nearest last, each under
/// a heading naming its file, read through the project's [`Root`] (regular
/// files only, at most [`PROJECT_INSTRUCTIONS_CAP`] bytes read of each).
/// Over [`PROJECT_INSTRUCTIONS_CAP`] bytes in all the farthest text is cut
/// first, so the nearest instructions always survive. The text is `None`
/// when there is no such file; files skipped (a symlink leaving the
/// project, a FIFO, a device, unreadable) are named in the warnings.
pub fn load_agents_md(cwd: &Path) -> (Option<String>, Vec<String>) {
    let Some((root, below)) = project_root(cwd) else {
        return (None, Vec::new());
    };
    let mut text = String::new();
    let mut warnings = Vec::new();
    let mut dir = RelPath::root();
    let mut levels = vec![dir.clone()];
    for name in below.components() {
        match dir.join(name) {
            Ok(next) => dir = next,
            Err(_) => break,
        }
        levels.push(dir.clone());
    }
    for level in levels {
        let Some((rel, body)) = instruction_file(&root, &level, &mut warnings) else {
            continue;
        };
        if body.trim().is_empty() {
            continue;
        }
        let path = root.display_path().join(rel.to_os_path());
        text.push_str(&format!("# {}\n{}\n\n", path.display(), body.trim_end()));
    }
    if text.is_empty() {
        return (None, warnings);
    }
    (
        Some(keep_tail(text.trim_end(), PROJECT_INSTRUCTIONS_CAP)),
        warnings,
    )
}

/// The first of [`INSTRUCTION_FILES`] present in `dir`, with its text; a
/// file that cannot be used is a warning and the next name is tried.
fn instruction_file(
    root: &Root,
    dir: &RelPath,
    warnings: &mut Vec<String>,
) -> Option<(RelPath, String)> {
    for name in INSTRUCTION_FILES {
        let Ok(rel) = dir.join(std::ffi::OsStr::new(name)) else {
            continue;
        };
        match read_capped(root, &rel, PROJECT_INSTRUCTIONS_CAP) {
            Ok(Some(body)) => return Some((rel, body)),
            Ok(None) => {}
            Err(warning) => warnings.push(warning),
        }
    }
    None
}

fn keep_tail(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_string();
    }
    const NOTE: &str = "[earlier project instructions truncated]\n";
    let mut start = text.len() - (cap - NOTE.len());
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("{NOTE}{}", &text[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_agents_md_comes_last_and_outside_files_are_ignored() {
        let outer = tempfile::tempdir().unwrap();
        std::fs::write(outer.path().join("AGENTS.md"), "ABOVE THE REPO").unwrap();
        let root = outer.path().join("repo");
        let sub = root.join("crates/core");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join("AGENTS.md"), "root rules").unwrap();
        std::fs::write(sub.join("AGENTS.md"), "core rules").unwrap();

        let text = load_agents_md(&sub).0.unwrap();
        let root_at = text.find("root rules").unwrap();
        let core_at = text.find("core rules").unwrap();
        assert!(root_at < core_at);
        assert!(!text.contains("ABOVE THE REPO"));
    }

    #[test]
    fn the_cap_cuts_the_farthest_text_first() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(".git")).unwrap();
        let sub = root.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(root.path().join("AGENTS.md"), "é".repeat(40_000)).unwrap();
        std::fs::write(sub.join("AGENTS.md"), "nearest rules").unwrap();
        let text = load_agents_md(&sub).0.unwrap();
        assert!(text.len() <= PROJECT_INSTRUCTIONS_CAP);
        assert!(text.starts_with("[earlier project instructions truncated]"));
        assert!(text.ends_with("nearest rules"));
    }

    #[test]
    fn claude_md_is_read_where_agents_md_is_absent_and_not_beside_it() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(".git")).unwrap();
        let sub = root.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(root.path().join("CLAUDE.md"), "claude rules").unwrap();
        std::fs::write(root.path().join("GEMINI.md"), "gemini rules").unwrap();
        std::fs::write(sub.join("AGENTS.md"), "agents rules").unwrap();
        std::fs::write(sub.join("CLAUDE.md"), "shadowed claude rules").unwrap();
        std::fs::write(sub.join("GEMINI.md"), "shadowed gemini rules").unwrap();
        let text = load_agents_md(&sub).0.unwrap();
        assert!(text.contains("claude rules") && text.contains("agents rules"));
        assert!(!text.contains("gemini rules"), "{text}");
        assert!(!text.contains("shadowed"), "{text}");
        std::fs::remove_file(root.path().join("CLAUDE.md")).unwrap();
        assert!(load_agents_md(&sub).0.unwrap().contains("gemini rules"));
    }

    #[test]
    fn a_claude_md_symlink_leaving_the_project_is_skipped_with_a_warning() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "OUTSIDE").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(".git")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.path().join("CLAUDE.md"))
            .unwrap();
        let (text, warnings) = load_agents_md(root.path());
        assert_eq!(text, None);
        assert!(warnings[0].contains("CLAUDE.md"), "{warnings:?}");
    }

    #[test]
    fn no_agents_md_gives_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_agents_md(dir.path()), (None, Vec::new()));
    }
}
