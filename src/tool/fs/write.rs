//! The write half of [`Root`]: folders, atomic file replacement, removal.
//!
//! Every parent folder is resolved beneath the root like a read; the final
//! component is acted on relative to its parent's handle and never
//! followed: staging over a symlink replaces the link itself, removing one
//! removes the link.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{FileKind, FsRefusal, FsRefusalKind, RelPath, Root};

/// Mode of a file created where none is given and none existed.
const DEFAULT_FILE_MODE: u32 = 0o644;

/// Tells temporary files of one process apart.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file written to a temporary name in its target's folder and synced,
/// waiting to be renamed over the target by [`Staged::commit`]. Dropping it
/// uncommitted removes the temporary file.
#[derive(Debug)]
pub struct Staged {
    dir: Arc<OwnedFd>,
    temp: OsString,
    target: OsString,
    rel: RelPath,
    root_display: PathBuf,
    committed: bool,
}

impl Staged {
    /// The path the file will have once committed.
    pub fn path(&self) -> &RelPath {
        &self.rel
    }

    /// Renames the temporary file over the target (`renameat` in the one
    /// folder handle, atomic), then syncs the folder.
    pub fn commit(mut self) -> Result<(), FsRefusal> {
        rustix::fs::renameat(&*self.dir, &self.temp, &*self.dir, &self.target)
            .map_err(|e| FsRefusal::from_io(&e, &self.root_display, &self.rel.to_string()))?;
        self.committed = true;
        // Durability of the rename; the data itself was synced when staged.
        let _ = rustix::fs::fsync(&*self.dir);
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = rustix::fs::unlinkat(&*self.dir, &self.temp, AtFlags::empty());
        }
    }
}

impl Root {
    /// Creates `rel` and every missing folder above it, each beneath the
    /// root; folders that exist (also through symlinks inside) are kept.
    /// Refused when a component exists and is not a directory.
    pub fn create_dir_all(&self, rel: &RelPath) -> Result<(), FsRefusal> {
        let mut current = RelPath::root();
        let mut parent = self.dir_fd(&current).map_err(|e| self.io_refusal(e, rel))?;
        for name in rel.components() {
            current = current
                .join(name)
                .map_err(|_| self.refusal(FsRefusalKind::Invalid, &rel.to_string(), None))?;
            parent = match self.dir_fd(&current) {
                Ok(fd) => fd,
                Err(Errno::NOENT) => {
                    match rustix::fs::mkdirat(&parent, name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(self.io_refusal(e, &current)),
                    }
                    rustix::fs::openat(
                        &parent,
                        name,
                        super::dir_flags() | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                    .map_err(|e| self.not_a_dir(e, &current))?
                }
                Err(e) => return Err(self.not_a_dir(e, &current)),
            };
        }
        Ok(())
    }

    /// Writes `bytes` to a temporary file in the folder of `rel` (which must
    /// exist), with `mode` if given, else the existing file's permissions,
    /// else 0644; syncs it and returns it staged. Nothing is visible at
    /// `rel` until [`Staged::commit`]. Refused when `rel` is a directory.
    /// All-or-nothing multi-file writes stage every file, then commit each.
    pub fn stage(
        &self,
        rel: &RelPath,
        bytes: &[u8],
        mode: Option<u32>,
    ) -> Result<Staged, FsRefusal> {
        let (dir, name) = self.parent_of(rel)?;
        let kept = match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
                FileType::Directory => {
                    return Err(self.refusal(
                        FsRefusalKind::NotRegular,
                        &rel.to_string(),
                        Some("it is a directory"),
                    ));
                }
                FileType::RegularFile => Some(super::FileIdentity::from_stat(&stat).permissions()),
                _ => None,
            },
            Err(Errno::NOENT) => None,
            Err(e) => return Err(self.io_refusal(e, rel)),
        };
        let mode = mode.or(kept).unwrap_or(DEFAULT_FILE_MODE);
        let temp = OsString::from(format!(
            ".light-agent-{}-{}.tmp",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let fd = rustix::fs::openat(
            &dir,
            temp.as_os_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| self.io_refusal(e, rel))?;
        let staged = Staged {
            dir: Arc::new(dir),
            temp,
            target: name.to_owned(),
            rel: rel.clone(),
            root_display: self.display_path().to_path_buf(),
            committed: false,
        };
        // From here on, dropping `staged` removes the temporary file.
        let mut file = std::fs::File::from(fd);
        let written = file
            .write_all(bytes)
            .map_err(|e| e.raw_os_error().map_or(Errno::IO, Errno::from_raw_os_error))
            .and_then(|()| rustix::fs::fchmod(file.as_fd(), Mode::from_raw_mode(mode as _)))
            .and_then(|()| rustix::fs::fsync(file.as_fd()));
        written.map_err(|e| self.io_refusal(e, rel))?;
        Ok(staged)
    }

    /// Removes the file (or symlink) `rel`; refused for directories.
    pub fn remove_file(&self, rel: &RelPath) -> Result<(), FsRefusal> {
        let (dir, name) = self.parent_of(rel)?;
        let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| self.io_refusal(e, rel))?;
        if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
            return Err(self.refusal(
                FsRefusalKind::NotRegular,
                &rel.to_string(),
                Some("it is a directory"),
            ));
        }
        rustix::fs::unlinkat(&dir, name, AtFlags::empty()).map_err(|e| self.io_refusal(e, rel))
    }

    /// The absolute path by which another process (an editor) may open
    /// `rel` without leaving the root: its folder resolved beneath the root
    /// and read back from that handle (so no symlink is in it), joined with
    /// the final name, which must be absent or a regular file — a symlink
    /// there is refused, never followed. Refused when the path is denied or,
    /// read back, not beneath the root.
    pub fn located(&self, rel: &RelPath) -> Result<PathBuf, FsRefusal> {
        let (dir, name) = self.parent_of(rel)?;
        match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
            Ok(stat) => {
                let kind = super::FileIdentity::from_stat(&stat).kind();
                let reason = format!("it is {}", kind.describe());
                return Err(self.refusal(
                    FsRefusalKind::NotRegular,
                    &rel.to_string(),
                    Some(&reason),
                ));
            }
            Err(Errno::NOENT) => {}
            Err(e) => return Err(self.io_refusal(e, rel)),
        }
        let folder = match super::real_location(&dir) {
            Some(folder) => folder,
            None => {
                let parent = rel.parent().unwrap_or_else(RelPath::root);
                self.inner.canonical.join(parent.to_os_path())
            }
        };
        let path = folder.join(name);
        if !path.starts_with(&self.inner.canonical) {
            return Err(self.refusal(FsRefusalKind::Escape, &rel.to_string(), None));
        }
        if self.inner.denied.covers(&path) {
            return Err(self.refusal(FsRefusalKind::Denied, &rel.to_string(), None));
        }
        Ok(path)
    }

    /// The handle of the folder holding `rel`, and `rel`'s last name.
    fn parent_of<'a>(&self, rel: &'a RelPath) -> Result<(OwnedFd, &'a OsStr), FsRefusal> {
        let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
            return Err(self.refusal(
                FsRefusalKind::NotRegular,
                &rel.to_string(),
                Some("the working directory itself"),
            ));
        };
        let dir = self
            .dir_fd(&parent)
            .map_err(|e| self.not_a_dir(e, &parent))?;
        Ok((dir, name))
    }

    /// `ENOTDIR` on a folder on the way is "not a directory", not "absent".
    fn not_a_dir(&self, error: Errno, rel: &RelPath) -> FsRefusal {
        if error == Errno::NOTDIR
            && let Ok(Some(identity)) = self.stat(rel)
            && identity.kind() != FileKind::Directory
        {
            let reason = format!("{rel} is {}", identity.kind().describe());
            return self.refusal(FsRefusalKind::NotDirectory, &rel.to_string(), Some(&reason));
        }
        self.io_refusal(error, rel)
    }
}
