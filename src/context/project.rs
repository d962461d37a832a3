//! Project instructions: AGENTS.md files from the git root down to cwd.

use std::path::{Path, PathBuf};

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

/// Every AGENTS.md from the git root down to `cwd`, nearest last, each under
/// a heading naming its file. Over [`PROJECT_INSTRUCTIONS_CAP`] bytes the
/// farthest text is cut first, so the nearest instructions always survive.
/// `None` when there is no such file. Unreadable files are skipped.
pub fn load_agents_md(cwd: &Path) -> Option<String> {
    let mut text = String::new();
    for dir in dirs_from_git_root(cwd) {
        let path = dir.join("AGENTS.md");
        let Ok(body) = std::fs::read_to_string(&path) else {
            continue;
        };
        if body.trim().is_empty() {
            continue;
        }
        text.push_str(&format!("# {}\n{}\n\n", path.display(), body.trim_end()));
    }
    if text.is_empty() {
        return None;
    }
    Some(keep_tail(text.trim_end(), PROJECT_INSTRUCTIONS_CAP))
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

        let text = load_agents_md(&sub).unwrap();
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
        let text = load_agents_md(&sub).unwrap();
        assert!(text.len() <= PROJECT_INSTRUCTIONS_CAP);
        assert!(text.starts_with("[earlier project instructions truncated]"));
        assert!(text.ends_with("nearest rules"));
    }

    #[test]
    fn no_agents_md_gives_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_agents_md(dir.path()), None);
    }
}
