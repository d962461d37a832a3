//! What exists near a path that does not: the listing of its deepest
//! existing folder and the paths whose names match its missing parts, so a
//! model that guessed `src/relay` learns that `relay/` is at the top.
//!
//! Read through the [`Root`] like everything else; the name search is the
//! ignore-aware walk, bounded to [`SEARCH_FILES`] files.

use std::ffi::OsStr;

use super::walk::{Flow, WalkOrder, name_order, walk_files};
use super::{FileKind, FsRefusal, FsRefusalKind, RelPath, Root};

/// Most names of the existing folder listed.
const LISTED: usize = 15;
/// Most paths offered by name.
const CLOSEST: usize = 5;
/// Most files the name search visits.
const SEARCH_FILES: usize = 20_000;

impl FsRefusal {
    /// This refusal, when it says `rel` does not exist, with what exists
    /// near it: `[closest]` paths by name and the `[existing]` listing of
    /// its deepest existing folder. Other refusals are returned unchanged.
    pub fn guided(mut self, root: &Root, rel: &RelPath) -> FsRefusal {
        if self.kind == FsRefusalKind::NotFound {
            self.message.push_str(&nearby(root, rel));
        }
        self
    }
}

/// Lines naming what exists near the missing `rel` (each starting with a
/// newline): `[closest]` paths by name, `[existing]` names of its deepest
/// existing folder. Empty when `rel` exists.
pub fn nearby(root: &Root, rel: &RelPath) -> String {
    let Some((folder, missing)) = deepest_existing(root, rel) else {
        return String::new();
    };
    let mut out = String::new();
    let closest = closest_by_name(root, &missing);
    if !closest.is_empty() {
        out.push_str(&format!("\n[closest]: {}", closest.join(", ")));
    }
    if let Some(listing) = listing(root, &folder) {
        out.push_str(&format!("\n[existing]: {listing}"));
    }
    out
}

/// The deepest folder on `rel`'s way that exists, and the names after it
/// (the missing part). `None` when the whole path exists.
fn deepest_existing(root: &Root, rel: &RelPath) -> Option<(RelPath, Vec<String>)> {
    let names: Vec<&OsStr> = rel.components().collect();
    let mut folder = RelPath::root();
    for (i, name) in names.iter().enumerate() {
        let next = folder.join(name).ok()?;
        match root.stat(&next) {
            Ok(Some(id)) if id.kind() == FileKind::Directory => folder = next,
            _ => {
                let missing = names[i..]
                    .iter()
                    .map(|n| n.to_string_lossy().into_owned())
                    .collect();
                return Some((folder, missing));
            }
        }
    }
    None
}

/// `folder`'s names (folders with `/`), hidden ones left out, at most
/// [`LISTED`] of them.
fn listing(root: &Root, folder: &RelPath) -> Option<String> {
    let dir = root.open_dir(folder).ok()?;
    let mut names: Vec<String> = dir
        .entries()
        .ok()?
        .into_iter()
        .filter(|e| !e.name.to_string_lossy().starts_with('.'))
        .map(|e| {
            let kind = match e.kind {
                FileKind::Unknown => dir
                    .stat_entry(&e.name)
                    .map_or(FileKind::Unknown, |i| i.kind()),
                kind => kind,
            };
            let name = e.name.to_string_lossy().into_owned();
            if kind == FileKind::Directory {
                name + "/"
            } else {
                name
            }
        })
        .collect();
    // Folders first, as `tree` shows them.
    names.sort_by(|a, b| {
        b.ends_with('/')
            .cmp(&a.ends_with('/'))
            .then_with(|| name_order(a, b))
    });
    let shown = if folder.is_root() {
        ".".to_owned()
    } else {
        folder.to_string()
    };
    if names.is_empty() {
        return Some(format!("`{shown}` is empty"));
    }
    let more = names.len().saturating_sub(LISTED);
    names.truncate(LISTED);
    let mut text = format!("`{shown}` holds {}", names.join(", "));
    if more > 0 {
        text.push_str(&format!(" … and {more} more"));
    }
    Some(text)
}

/// Paths whose file or folder name equals one of `missing`'s names (case
/// ignored), the last name first: `relay/` for a missing `src/relay`.
fn closest_by_name(root: &Root, missing: &[String]) -> Vec<String> {
    let wanted: Vec<String> = missing.iter().rev().map(|n| n.to_lowercase()).collect();
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut seen = 0usize;
    let _ = walk_files(root, &RelPath::root(), WalkOrder::Path, &|| false, |file| {
        seen += 1;
        if seen > SEARCH_FILES {
            return Flow::Stop;
        }
        let parts: Vec<String> = file
            .rel
            .components()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        for (depth, part) in parts.iter().enumerate() {
            let Some(rank) = wanted.iter().position(|w| *w == part.to_lowercase()) else {
                continue;
            };
            let mut path = parts[..=depth].join("/");
            if depth + 1 < parts.len() {
                path.push('/');
            }
            if !found.iter().any(|(_, p)| *p == path) {
                found.push((rank, path));
            }
        }
        Flow::Continue
    });
    found.sort_by_key(|(rank, _)| *rank);
    found.into_iter().take(CLOSEST).map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guessed_folder_points_at_the_real_one_and_lists_what_exists() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("relay")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("relay/settings.py"), "PORT = 1").unwrap();
        std::fs::write(dir.path().join("README.md"), "").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let rel = RelPath::parse("src/relay").unwrap();
        let refusal = root
            .refusal(FsRefusalKind::NotFound, "src/relay", None)
            .guided(&root, &rel);
        assert!(
            refusal.message.contains("\n[closest]: relay/"),
            "{}",
            refusal.message
        );
        assert!(
            refusal.message.contains("\n[existing]: `src` is empty"),
            "{}",
            refusal.message
        );

        let rel = RelPath::parse("settings.py").unwrap();
        let refusal = root
            .refusal(FsRefusalKind::NotFound, "settings.py", None)
            .guided(&root, &rel);
        assert!(
            refusal.message.contains("[closest]: relay/settings.py"),
            "{}",
            refusal.message
        );
        assert!(
            refusal
                .message
                .contains("[existing]: `.` holds relay/, src/, README.md"),
            "{}",
            refusal.message
        );
    }
}
