//! Confined file access: every file a tool (or the context loader) touches is
//! opened beneath a directory handle, never by a path string.
//!
//! - [`Root`] is a directory opened once (the working directory at session
//!   start, a project root, a loaded skill's folder) and held as a handle.
//!   Renaming or replacing the directory's path afterwards changes nothing
//!   that can be reached through it.
//! - [`Root::relative`] turns a model-given spelling into a [`RelPath`]
//!   without touching the disk; escapes by spelling are refused there.
//! - Opens resolve beneath the handle: `openat2(RESOLVE_BENEATH |
//!   RESOLVE_NO_MAGICLINKS)` on Linux, an `O_NOFOLLOW` component walk
//!   elsewhere (see `resolve.rs`); symlinks are followed only while they
//!   stay inside. Every open is non-blocking and checked with `fstat` on the
//!   opened handle, so a FIFO, socket or device is refused, never waited on.
//! - [`OpenedDir`] lists a directory and opens its entries by name relative
//!   to its own handle, following no symlink — what walks (`tree`, `grep`)
//!   are built from.
//! - Writes (`write.rs`): [`Root::create_dir_all`], [`Root::stage`] +
//!   [`Staged::commit`] (temporary file in the same folder, then
//!   `renameat`), [`Root::remove_file`]; the final component is never
//!   followed.
//!
//! - A root may carry the read deny list ([`DeniedReads`], see
//!   [`Root::denying`]): whatever is opened is checked for where it really
//!   is (`/proc/self/fd`), so a denied path is refused however it was
//!   reached, and walks skip denied entries.
//!
//! Not guarded: hard links. A hard link inside the root to a file elsewhere
//! is, by inode, a file inside; see docs/SECURITY.md.

mod nearest;
mod path;
mod refusal;
mod resolve;
pub mod walk;
mod write;

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// The read deny list a root may carry (kept by the sandbox, which
/// enforces the same list on commands).
pub use crate::sandbox::DeniedReads;
pub use nearest::nearby;
pub use path::{MAX_PATH_BYTES, RelPath, Spelling};
pub use refusal::{FsRefusal, FsRefusalKind};
use resolve::Resolver;
pub use write::Staged;

/// A directory opened once and held as a handle; every access through it
/// stays beneath it. Cheap to clone (the handle is shared).
#[derive(Clone)]
pub struct Root {
    inner: Arc<RootInner>,
}

struct RootInner {
    fd: Arc<OwnedFd>,
    display: PathBuf,
    /// The canonical spelling at open time, also accepted for absolute input.
    canonical: PathBuf,
    identity: FileIdentity,
    resolver: Resolver,
    /// What may not be read through this root (empty: nothing denied).
    denied: Arc<DeniedReads>,
}

/// Two roots are equal when they hold the same directory (device and
/// inode), whatever path they were opened by.
impl PartialEq for Root {
    fn eq(&self, other: &Self) -> bool {
        self.inner.identity.same_file(&other.inner.identity)
    }
}

impl Eq for Root {}

impl std::fmt::Debug for Root {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Root")
            .field("display_path", &self.inner.display)
            .field("resolver", &self.inner.resolver)
            .finish()
    }
}

/// What an opened file or directory is, read with `fstat` from its handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// `st_mode`: file type and permission bits.
    pub mode: u32,
}

/// The type of a file, from its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link (seen only when not followed).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device (`/dev/zero`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// Anything else.
    Unknown,
}

impl FileKind {
    fn from_file_type(kind: FileType) -> Self {
        match kind {
            FileType::RegularFile => FileKind::Regular,
            FileType::Directory => FileKind::Directory,
            FileType::Symlink => FileKind::Symlink,
            FileType::Fifo => FileKind::Fifo,
            FileType::Socket => FileKind::Socket,
            FileType::CharacterDevice => FileKind::CharDevice,
            FileType::BlockDevice => FileKind::BlockDevice,
            _ => FileKind::Unknown,
        }
    }

    /// A few words naming the kind, for messages ("a named pipe (FIFO)").
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a named pipe (FIFO)",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Unknown => "a special file",
        }
    }
}

impl FileIdentity {
    // Stat field widths differ between platforms; these casts widen.
    #[allow(clippy::unnecessary_cast)]
    fn from_stat(stat: &rustix::fs::Stat) -> Self {
        Self {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            size: stat.st_size.max(0) as u64,
            mtime_ns: i128::from(stat.st_mtime as i64) * 1_000_000_000
                + i128::from(stat.st_mtime_nsec as i64),
            mode: stat.st_mode as u32,
        }
    }

    /// The type of the file.
    pub fn kind(&self) -> FileKind {
        FileKind::from_file_type(FileType::from_raw_mode(self.mode as _))
    }

    /// The permission bits (`mode & 0o7777`).
    pub fn permissions(&self) -> u32 {
        self.mode & 0o7777
    }

    /// Whether `other` is the same file (device and inode).
    pub fn same_file(&self, other: &FileIdentity) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// A regular file opened for reading beneath a root.
#[derive(Debug)]
pub struct OpenedFile {
    /// The open file (non-blocking, close-on-exec).
    pub file: File,
    /// What `fstat` said about it when it was opened.
    pub identity: FileIdentity,
}

impl OpenedFile {
    /// Reads at most `cap` bytes from the start; `true` when the file had
    /// more. Never reads more than `cap + 1` bytes.
    pub fn read_prefix(&mut self, cap: usize) -> std::io::Result<(Vec<u8>, bool)> {
        let mut bytes = Vec::with_capacity(cap.min(self.identity.size as usize) + 1);
        (&mut self.file)
            .take(cap as u64 + 1)
            .read_to_end(&mut bytes)?;
        let more = bytes.len() > cap;
        bytes.truncate(cap);
        Ok((bytes, more))
    }
}

/// A directory opened beneath a root, for listing and for opening its
/// entries relative to its own handle. Cheap to clone.
#[derive(Debug, Clone)]
pub struct OpenedDir {
    fd: Arc<OwnedFd>,
    /// What `fstat` said about it when it was opened.
    pub identity: FileIdentity,
    /// Entries on this list are neither opened nor descended into.
    denied: Arc<DeniedReads>,
}

/// One name in a directory listing.
#[derive(Debug, Clone)]
pub struct DirEntry {
    /// The entry's name (one component).
    pub name: std::ffi::OsString,
    /// Its type as the directory reports it (no symlink followed);
    /// `Unknown` on file systems that do not say.
    pub kind: FileKind,
}

impl OpenedDir {
    fn from_fd(fd: OwnedFd, denied: Arc<DeniedReads>) -> Result<Self, Errno> {
        let identity = FileIdentity::from_stat(&rustix::fs::fstat(&fd)?);
        if identity.kind() != FileKind::Directory {
            return Err(Errno::NOTDIR);
        }
        Ok(Self {
            fd: Arc::new(fd),
            identity,
            denied,
        })
    }

    /// Whether `identity` is a denied path itself (a walk meets a denied
    /// directory before anything beneath it).
    fn is_denied(&self, identity: &FileIdentity) -> bool {
        self.denied.is_denied_identity(identity.dev, identity.ino)
    }

    /// Every entry but `.` and `..`, in the order the file system gives.
    pub fn entries(&self) -> std::io::Result<Vec<DirEntry>> {
        let mut dir = rustix::fs::Dir::read_from(&*self.fd)?;
        let mut entries = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            entries.push(DirEntry {
                name: name.to_owned(),
                kind: FileKind::from_file_type(entry.file_type()),
            });
        }
        Ok(entries)
    }

    /// Opens the entry `name` as a regular file for reading, following no
    /// symlink. `Ok(None)` when it is not a regular file (directory,
    /// symlink, FIFO, socket, device) — nothing is waited on — or is on the
    /// read deny list.
    pub fn open_file(&self, name: &OsStr) -> std::io::Result<Option<OpenedFile>> {
        let opened = rustix::fs::openat(
            &*self.fd,
            name,
            read_flags() | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        );
        let fd = match opened {
            Ok(fd) => fd,
            Err(Errno::LOOP | Errno::MLINK) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let opened = opened_regular(fd)?;
        Ok(opened.filter(|file| !self.is_denied(&file.identity)))
    }

    /// Opens the entry `name` as a directory, following no symlink.
    /// `Ok(None)` when it is not a directory or is on the read deny list.
    pub fn open_dir(&self, name: &OsStr) -> std::io::Result<Option<OpenedDir>> {
        let opened = rustix::fs::openat(
            &*self.fd,
            name,
            dir_flags() | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        );
        match opened {
            Ok(fd) => match OpenedDir::from_fd(fd, self.denied.clone()) {
                Ok(dir) if self.is_denied(&dir.identity) => Ok(None),
                Ok(dir) => Ok(Some(dir)),
                Err(e) => Err(e.into()),
            },
            Err(Errno::LOOP | Errno::MLINK | Errno::NOTDIR) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Metadata of the entry `name` itself (a symlink is described, not
    /// followed).
    pub fn stat_entry(&self, name: &OsStr) -> std::io::Result<FileIdentity> {
        let stat = rustix::fs::statat(&*self.fd, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(FileIdentity::from_stat(&stat))
    }
}

/// Flags of every open for reading: non-blocking so a FIFO or device never
/// waits, and never a controlling terminal.
fn read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK
}

/// Where the open file `fd` really is (symlinks resolved), where the system
/// says (`/proc/self/fd` on Linux); `None` elsewhere.
fn real_location(fd: &OwnedFd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd as _;
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()
}

/// `Some` when `fd` is a regular file; `None` for anything else.
fn opened_regular(fd: OwnedFd) -> Result<Option<OpenedFile>, Errno> {
    let identity = FileIdentity::from_stat(&rustix::fs::fstat(&fd)?);
    if identity.kind() != FileKind::Regular {
        return Ok(None);
    }
    Ok(Some(OpenedFile {
        file: File::from(fd),
        identity,
    }))
}

impl Root {
    /// Opens `dir` as a root, with the best resolver the system supports.
    /// `dir` itself may be reached through symlinks; from here on only the
    /// handle is used.
    pub fn open(dir: &Path) -> std::io::Result<Root> {
        Self::open_with(dir, None)
    }

    /// Opens `dir` as a root that resolves with the portable component walk
    /// even where `openat2` exists (what non-Linux systems use), so both
    /// resolvers can be exercised on one machine.
    pub fn open_with_component_walk(dir: &Path) -> std::io::Result<Root> {
        Self::open_with(dir, Some(Resolver::Walk))
    }

    fn open_with(dir: &Path, resolver: Option<Resolver>) -> std::io::Result<Root> {
        let fd = rustix::fs::open(dir, dir_flags() | OFlags::CLOEXEC, Mode::empty())?;
        let identity = FileIdentity::from_stat(&rustix::fs::fstat(&fd)?);
        let resolver = resolver.unwrap_or_else(|| Resolver::probe(fd.as_fd()));
        let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        Ok(Root {
            inner: Arc::new(RootInner {
                fd: Arc::new(fd),
                display: dir.to_path_buf(),
                canonical,
                identity,
                resolver,
                denied: Arc::default(),
            }),
        })
    }

    /// This root refusing to read what `denied` lists (the session's read
    /// deny list), wherever the path leads beneath it; subroots and opened
    /// directories keep the list.
    pub fn denying(&self, denied: Arc<DeniedReads>) -> Root {
        let inner = &self.inner;
        Root {
            inner: Arc::new(RootInner {
                fd: inner.fd.clone(),
                display: inner.display.clone(),
                canonical: inner.canonical.clone(),
                identity: inner.identity,
                resolver: inner.resolver,
                denied,
            }),
        }
    }

    /// Refuses `fd` (opened for `rel`) when it is, or lies beneath, a
    /// denied path: checked where it really is, so no symlink or `..`
    /// spelling inside the root gets around it.
    fn check_denied(&self, fd: &OwnedFd, rel: &RelPath) -> Result<(), FsRefusal> {
        let denied = &self.inner.denied;
        if denied.is_empty() {
            return Ok(());
        }
        let identity =
            FileIdentity::from_stat(&rustix::fs::fstat(fd).map_err(|e| self.io_refusal(e, rel))?);
        let by_identity = denied.is_denied_identity(identity.dev, identity.ino);
        let by_location = real_location(fd).is_some_and(|path| denied.covers(&path));
        if by_identity || by_location {
            return Err(self.refusal(FsRefusalKind::Denied, &rel.to_string(), None));
        }
        Ok(())
    }

    /// The path the directory had when opened — for messages only, never
    /// opened again.
    pub fn display_path(&self) -> &Path {
        &self.inner.display
    }

    /// The root directory's own identity (device and inode tell roots apart).
    pub fn identity(&self) -> FileIdentity {
        self.inner.identity
    }

    /// Validates a model-given path — relative, or absolute under the
    /// display path (or its canonical form) — into a [`RelPath`]. Escapes
    /// by spelling are refused here; the disk is not touched.
    pub fn relative(&self, input: &str) -> Result<RelPath, FsRefusal> {
        let refuse = |spelling| match spelling {
            Spelling::Escape => self.refusal(FsRefusalKind::Escape, input, None),
            Spelling::Invalid(reason) => self.refusal(FsRefusalKind::Invalid, input, Some(reason)),
        };
        path::check_spelling(input).map_err(refuse)?;
        let given = Path::new(input);
        if given.is_absolute() {
            let inside = [&self.inner.display, &self.inner.canonical]
                .into_iter()
                .find_map(|base| given.strip_prefix(base).ok());
            return match inside {
                Some(rest) => RelPath::from_relative(rest).map_err(refuse),
                None => Err(refuse(Spelling::Escape)),
            };
        }
        RelPath::from_relative(given).map_err(refuse)
    }

    /// A refusal of `kind` for `path`, naming this root.
    pub fn refusal(&self, kind: FsRefusalKind, path: &str, reason: Option<&str>) -> FsRefusal {
        FsRefusal::new(kind, &self.inner.display, path, reason)
    }

    fn io_refusal(&self, error: Errno, rel: &RelPath) -> FsRefusal {
        FsRefusal::from_io(&error, &self.inner.display, &rel.to_string())
    }

    /// Opens a regular file beneath the root for reading (non-blocking),
    /// checked with `fstat`: directories, FIFOs, sockets and devices are
    /// refused as [`FsRefusalKind::NotRegular`], naming what they are.
    pub fn open_file(&self, rel: &RelPath) -> Result<OpenedFile, FsRefusal> {
        let fd = resolve::open_beneath(
            self.fd(),
            &self.inner.canonical,
            self.inner.resolver,
            rel,
            read_flags(),
        )
        .map_err(|e| self.io_refusal(e, rel))?;
        self.check_denied(&fd, rel)?;
        let identity =
            FileIdentity::from_stat(&rustix::fs::fstat(&fd).map_err(|e| self.io_refusal(e, rel))?);
        if identity.kind() != FileKind::Regular {
            let reason = format!("it is {}", identity.kind().describe());
            return Err(self.refusal(FsRefusalKind::NotRegular, &rel.to_string(), Some(&reason)));
        }
        Ok(OpenedFile {
            file: File::from(fd),
            identity,
        })
    }

    /// Opens a directory beneath the root, for walks.
    pub fn open_dir(&self, rel: &RelPath) -> Result<OpenedDir, FsRefusal> {
        let opened = resolve::open_beneath(
            self.fd(),
            &self.inner.canonical,
            self.inner.resolver,
            rel,
            dir_flags(),
        );
        if let Ok(fd) = &opened {
            self.check_denied(fd, rel)?;
        }
        let opened = opened.and_then(|fd| OpenedDir::from_fd(fd, self.inner.denied.clone()));
        match opened {
            Ok(dir) => Ok(dir),
            Err(Errno::NOTDIR) => match self.stat(rel)? {
                Some(identity) => {
                    let reason = format!("it is {}", identity.kind().describe());
                    Err(self.refusal(FsRefusalKind::NotDirectory, &rel.to_string(), Some(&reason)))
                }
                None => Err(self.io_refusal(Errno::NOENT, rel)),
            },
            Err(e) => Err(self.io_refusal(e, rel)),
        }
    }

    /// Opens a directory beneath the root as a root of its own (a skill's
    /// folder inside the project), displayed under this root's path.
    pub fn open_subroot(&self, rel: &RelPath) -> Result<Root, FsRefusal> {
        let dir = self.open_dir(rel)?;
        let display = self.inner.display.join(rel.to_os_path());
        Ok(Root {
            inner: Arc::new(RootInner {
                fd: dir.fd,
                canonical: self.inner.canonical.join(rel.to_os_path()),
                display,
                identity: dir.identity,
                resolver: self.inner.resolver,
                denied: dir.denied,
            }),
        })
    }

    /// What `rel` names beneath the root (symlinks inside followed);
    /// `None` when nothing has that name.
    pub fn stat(&self, rel: &RelPath) -> Result<Option<FileIdentity>, FsRefusal> {
        match resolve::stat_beneath(self.fd(), &self.inner.canonical, self.inner.resolver, rel) {
            Ok(stat) => Ok(Some(FileIdentity::from_stat(&stat))),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(self.io_refusal(e, rel)),
        }
    }

    /// The directory handle, for the write half.
    fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.inner.fd.as_fd()
    }

    /// Opens `rel` as a directory handle (write half: parents of targets).
    fn dir_fd(&self, rel: &RelPath) -> Result<OwnedFd, Errno> {
        resolve::open_beneath(
            self.fd(),
            &self.inner.canonical,
            self.inner.resolver,
            rel,
            dir_flags(),
        )
    }
}

#[cfg(test)]
mod tests;
