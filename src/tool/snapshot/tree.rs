//! Reading the work tree for a snapshot, through the root's handles and
//! without following symlinks: one file's identity or content, every
//! regular file of the directory.

use std::ffi::OsStr;
use std::io::Read as _;

use crate::tool::fs::{FileIdentity, FileKind, OpenedDir, RelPath, Root};

/// A regular file read whole.
pub(super) struct Read {
    /// What `fstat` said when it was opened.
    pub identity: FileIdentity,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The folder holding `path` and the file's name in it.
fn parent(root: &Root, path: &str) -> Option<(OpenedDir, std::ffi::OsString)> {
    let rel = root.relative(path).ok()?;
    let name = rel.file_name()?.to_os_string();
    let dir = root
        .open_dir(&rel.parent().unwrap_or_else(RelPath::root))
        .ok()?;
    Some((dir, name))
}

/// The identity of the regular file at `path`; `None` when there is none
/// (absent, a symlink, a folder, a device).
pub(super) fn identity(root: &Root, path: &str) -> Option<FileIdentity> {
    let (dir, name) = parent(root, path)?;
    dir.stat_entry(&name)
        .ok()
        .filter(|id| id.kind() == FileKind::Regular)
}

/// The regular file at `path`, read whole; `None` when there is none.
pub(super) fn read(root: &Root, path: &str) -> Option<Read> {
    let (dir, name) = parent(root, path)?;
    let mut opened = dir.open_file(&name).ok()??;
    let mut bytes = Vec::with_capacity(opened.identity.size as usize);
    opened.file.read_to_end(&mut bytes).ok()?;
    Some(Read {
        identity: opened.identity,
        bytes,
    })
}

/// Every regular file beneath the root (`.git` folders left out), with its
/// identity, in path order; folders that cannot be read are skipped.
pub(super) fn list(root: &Root) -> Vec<(String, FileIdentity)> {
    let mut out = Vec::new();
    if let Ok(dir) = root.open_dir(&RelPath::root()) {
        walk(&dir, "", &mut out);
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn walk(dir: &OpenedDir, prefix: &str, out: &mut Vec<(String, FileIdentity)>) {
    let Ok(entries) = dir.entries() else { return };
    for entry in entries {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        let path = format!("{prefix}{name}");
        let kind = match entry.kind {
            FileKind::Unknown => dir.stat_entry(&entry.name).map(|id| id.kind()).ok(),
            kind => Some(kind),
        };
        match kind {
            Some(FileKind::Directory) if name != ".git" => {
                if let Ok(Some(sub)) = dir.open_dir(OsStr::new(name)) {
                    walk(&sub, &format!("{path}/"), out);
                }
            }
            Some(FileKind::Regular) => {
                if let Ok(identity) = dir.stat_entry(&entry.name) {
                    out.push((path, identity));
                }
            }
            _ => {}
        }
    }
}
