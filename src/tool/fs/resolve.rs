//! Resolving a [`RelPath`] beneath a directory handle without ever leaving it.
//!
//! Two resolvers with one meaning — symlinks are followed only while they
//! stay beneath the handle; an absolute target or a `..` above it is
//! `EXDEV`:
//! - Linux: one `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` call, the
//!   kernel enforcing it atomically. The kernel refuses every absolute
//!   symlink; on that refusal the walk below retries, which accepts an
//!   absolute target spelled under the root's own path (see below).
//! - Elsewhere (or where `openat2` is missing or filtered): a walk opening one
//!   component at a time with `O_NOFOLLOW` from directory handles it holds;
//!   a symlink is read with `readlinkat` and its target spliced into the
//!   remaining components, `..` pops back to a handle already held. An
//!   absolute target under the root's path as it was opened (`anchor`) goes
//!   on from the root handle with the rest of the target — reinterpreted
//!   beneath the handle, so it cannot lead out even if that path now names
//!   something else; any other absolute target is `EXDEV`. Nothing is ever
//!   looked up by a name outside the handles, so renames during the walk
//!   cannot lead it out.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::path::RelPath;

/// Most symlinks followed in one resolution (Linux's limit).
const MAX_SYMLINKS: u32 = 40;
/// How often an `openat2` that raced with a rename (`EAGAIN`) is retried.
const OPENAT2_RETRIES: u32 = 16;

/// How paths are resolved beneath a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolver {
    /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (Linux).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    Openat2,
    /// The portable `O_NOFOLLOW` component walk.
    Walk,
}

impl Resolver {
    /// The best resolver `root` supports: `openat2` when the kernel (and any
    /// seccomp filter) allows it, else the walk.
    pub(super) fn probe(root: BorrowedFd<'_>) -> Self {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if openat2_beneath(root, &RelPath::root(), OFlags::PATH | OFlags::DIRECTORY).is_ok() {
            return Resolver::Openat2;
        }
        let _ = root;
        Resolver::Walk
    }
}

/// Opens `rel` beneath `root` with `flags` (`O_CLOEXEC` is added).
pub(super) fn open_beneath(
    root: BorrowedFd<'_>,
    anchor: &Path,
    resolver: Resolver,
    rel: &RelPath,
    flags: OFlags,
) -> Result<OwnedFd, Errno> {
    let walk = || {
        walk_beneath(root, anchor, rel, |dir, name| {
            rustix::fs::openat(
                dir,
                name,
                flags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
        })
    };
    match resolver {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        Resolver::Openat2 => match openat2_beneath(root, rel, flags) {
            Err(Errno::XDEV) => walk(),
            other => other,
        },
        Resolver::Walk => walk(),
    }
}

/// Metadata of what `rel` names beneath `root`, symlinks inside followed.
pub(super) fn stat_beneath(
    root: BorrowedFd<'_>,
    anchor: &Path,
    resolver: Resolver,
    rel: &RelPath,
) -> Result<rustix::fs::Stat, Errno> {
    let walk = || {
        walk_beneath(root, anchor, rel, |dir, name| {
            let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
            if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink {
                // Makes the walk read the link and go on with its target.
                return Err(Errno::LOOP);
            }
            Ok(stat)
        })
    };
    match resolver {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        Resolver::Openat2 => match openat2_beneath(root, rel, OFlags::PATH) {
            Ok(fd) => rustix::fs::fstat(fd),
            Err(Errno::XDEV) => walk(),
            Err(e) => Err(e),
        },
        Resolver::Walk => walk(),
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn openat2_beneath(root: BorrowedFd<'_>, rel: &RelPath, flags: OFlags) -> Result<OwnedFd, Errno> {
    use rustix::fs::ResolveFlags;
    let path = rel.to_os_path();
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    let mut result = Err(Errno::AGAIN);
    for _ in 0..OPENAT2_RETRIES {
        result = rustix::fs::openat2(
            root,
            path.as_os_str(),
            flags | OFlags::CLOEXEC,
            Mode::empty(),
            resolve,
        );
        if !matches!(result, Err(Errno::AGAIN | Errno::INTR)) {
            break;
        }
    }
    result
}

/// The component walk. `last` acts on the final name in its directory and
/// must not follow a symlink there: it fails with `ELOOP`, `EMLINK` or
/// `ENOTDIR` on one (what `O_NOFOLLOW` gives), and the walk then reads the
/// link and continues with its target.
pub(super) fn walk_beneath<T>(
    root: BorrowedFd<'_>,
    anchor: &Path,
    rel: &RelPath,
    mut last: impl FnMut(BorrowedFd<'_>, &OsStr) -> Result<T, Errno>,
) -> Result<T, Errno> {
    let mut held: Vec<OwnedFd> = Vec::new();
    let mut pending: VecDeque<OsString> = rel.components().map(OsStr::to_owned).collect();
    let mut links = 0;
    while let Some(name) = pending.pop_front() {
        match name.as_bytes() {
            b"" | b"." => continue,
            b".." => {
                if held.pop().is_none() {
                    return Err(Errno::XDEV);
                }
                continue;
            }
            _ => {}
        }
        let dir = held.last().map_or(root, |fd| fd.as_fd());
        let step = if pending.is_empty() {
            last(dir, &name).map(Step::Done)
        } else {
            rustix::fs::openat(
                dir,
                name.as_os_str(),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map(Step::Descend)
        };
        match step {
            Ok(Step::Done(value)) => return Ok(value),
            Ok(Step::Descend(fd)) => held.push(fd),
            Err(error @ (Errno::LOOP | Errno::MLINK | Errno::NOTDIR)) => {
                let target = symlink_target(dir, &name).ok_or(error)?;
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(Errno::LOOP);
                }
                let target = if target.first() == Some(&b'/') {
                    // Only a target spelled under the root's own path, and
                    // only as a path beneath the handle.
                    let rest = Path::new(OsStr::from_bytes(&target))
                        .strip_prefix(anchor)
                        .map_err(|_| Errno::XDEV)?
                        .as_os_str()
                        .as_bytes()
                        .to_vec();
                    held.clear();
                    rest
                } else {
                    target
                };
                for part in target.split(|b| *b == b'/').rev() {
                    pending.push_front(OsStr::from_bytes(part).to_owned());
                }
            }
            Err(error) => return Err(error),
        }
    }
    // Every name was used up by `.` or `..`: act on the folder reached.
    let dir = held.last().map_or(root, |fd| fd.as_fd());
    last(dir, OsStr::new("."))
}

enum Step<T> {
    Done(T),
    Descend(OwnedFd),
}

/// The target of `name` in `dir` if it is a symlink.
fn symlink_target(dir: BorrowedFd<'_>, name: &OsStr) -> Option<Vec<u8>> {
    let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Symlink {
        return None;
    }
    let target = rustix::fs::readlinkat(dir, name, Vec::new()).ok()?;
    Some(target.into_bytes())
}
