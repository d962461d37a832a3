//! The working directory as the `@` picker sees it: the listing behind
//! [`Op::ListFiles`](crate::protocol::Op::ListFiles) (the `tree` tool's
//! confined, gitignore-aware walk) and the answers to
//! [`Op::CheckMentions`](crate::protocol::Op::CheckMentions). Both run on
//! the blocking pool, never on the host's loop.

use std::collections::BTreeSet;
use std::path::Path;

use crate::protocol::{EntryKind, MentionCheck, WorkspaceEntry};
use crate::tool::fs::walk::{Flow, WalkOrder, walk_files_and_links};
use crate::tool::fs::{FileKind, RelPath, Root};

/// Most entries one listing holds; a larger tree is cut (and says so).
pub const MAX_ENTRIES: usize = 200_000;

/// The files beneath `cwd` the filters keep, in path order, then their
/// folders (`dir/`), then the symlinks: a link to a file or folder inside
/// is listed as that, one leading outside (or nowhere) as refused — never
/// followed out. `Err` when the directory cannot be opened.
pub fn list_files(cwd: &Path) -> Result<(Vec<WorkspaceEntry>, bool), String> {
    let root =
        Root::open(cwd).map_err(|e| format!("the working directory cannot be opened: {e}"))?;
    let mut files = Vec::new();
    let mut links = Vec::new();
    let mut record_link = |rel: RelPath| links.push(rel);
    let summary = walk_files_and_links(
        &root,
        &RelPath::root(),
        WalkOrder::Path,
        &|| false,
        |file| {
            files.push(file.rel.to_string());
            if files.len() >= MAX_ENTRIES {
                Flow::Stop
            } else {
                Flow::Continue
            }
        },
        Some(&mut record_link),
    )
    .map_err(|e| e.to_string())?;
    let folders: BTreeSet<String> = files
        .iter()
        .flat_map(|path| {
            path.match_indices('/')
                .map(move |(at, _)| format!("{}/", &path[..at]))
        })
        .collect();
    let mut entries: Vec<WorkspaceEntry> = files
        .into_iter()
        .map(|path| WorkspaceEntry {
            path,
            kind: EntryKind::File,
        })
        .collect();
    entries.extend(folders.into_iter().map(|path| WorkspaceEntry {
        path,
        kind: EntryKind::Directory,
    }));
    for rel in links {
        let kind = match root.stat(&rel) {
            Ok(Some(identity)) if identity.kind() == FileKind::Regular => EntryKind::File,
            Ok(Some(identity)) if identity.kind() == FileKind::Directory => EntryKind::Directory,
            _ => EntryKind::Refused,
        };
        let mut path = rel.to_string();
        if kind == EntryKind::Directory {
            path.push('/');
        }
        entries.push(WorkspaceEntry { path, kind });
    }
    entries.truncate(MAX_ENTRIES);
    Ok((entries, summary.stopped))
}

/// What each of `paths` is, through the confined-open API.
pub fn check_mentions(cwd: &Path, paths: &[String]) -> Vec<MentionCheck> {
    let root = Root::open(cwd);
    paths
        .iter()
        .map(|path| MentionCheck {
            path: path.clone(),
            state: match &root {
                Ok(root) => super::parts::mention_state(root, path),
                Err(_) => crate::protocol::MentionState::Unusable,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::MentionState;

    #[test]
    fn the_listing_names_files_folders_and_links_leading_out_as_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "do not read").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::write(dir.path().join("src/deep/a.rs"), "fn a() {}").unwrap();
        std::fs::write(dir.path().join("top.md"), "# top").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(dir.path().join("ignored.txt"), "x").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            dir.path().join("out.txt"),
        )
        .unwrap();
        std::os::unix::fs::symlink("top.md", dir.path().join("alias.md")).unwrap();
        let (entries, truncated) = list_files(dir.path()).unwrap();
        assert!(!truncated);
        let got: Vec<(&str, EntryKind)> =
            entries.iter().map(|e| (e.path.as_str(), e.kind)).collect();
        assert_eq!(
            got,
            [
                ("src/deep/a.rs", EntryKind::File),
                ("top.md", EntryKind::File),
                ("src/", EntryKind::Directory),
                ("src/deep/", EntryKind::Directory),
                ("alias.md", EntryKind::File),
                ("out.txt", EntryKind::Refused),
            ]
        );
    }

    #[test]
    fn mentions_are_classified_and_a_link_out_is_outside() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "do not read").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "text").unwrap();
        std::fs::write(dir.path().join("b.bin"), [1u8, 0, 2]).unwrap();
        std::fs::write(dir.path().join("big.txt"), "x".repeat(70 * 1024)).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            dir.path().join("out.txt"),
        )
        .unwrap();
        let paths: Vec<String> = [
            "a.txt", "b.bin", "big.txt", "sub", "gone", "out.txt", "../x",
        ]
        .map(String::from)
        .to_vec();
        let states: Vec<MentionState> = check_mentions(dir.path(), &paths)
            .into_iter()
            .map(|c| c.state)
            .collect();
        assert_eq!(
            states,
            [
                MentionState::Text,
                MentionState::Binary,
                MentionState::Large,
                MentionState::Directory,
                MentionState::Missing,
                MentionState::Outside,
                MentionState::Outside,
            ]
        );
    }
}
