//! Walking a tree beneath a [`Root`] through directory handles only.
//!
//! Each folder is opened relative to its parent's handle with `O_NOFOLLOW`,
//! listed with `getdents`, and its files are handed out together with that
//! handle, so a caller opens a file relative to the folder it was listed
//! in — never by a path. Symlinks are neither followed nor listed; FIFOs,
//! sockets and devices are not listed. Whatever another process does to the
//! tree meanwhile, no name or byte from outside the root is reached.
//!
//! The filters are ripgrep's standard ones, applied the same way whether
//! or not the root is in a git repository: hidden names (so `.git`) are
//! skipped, and `.ignore`, `.gitignore` (each folder's, from the root down),
//! `.git/info/exclude` (when the root holds `.git`) and the global git
//! excludes are honoured, a deeper file overriding a shallower one and
//! `.ignore` overriding `.gitignore`. Ignore files are read through the
//! handles too (regular files only, at most [`MAX_IGNORE_FILE_BYTES`]).
//! Ignore files above the root are not read.

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::{DirEntry, FileKind, FsRefusal, OpenedDir, RelPath, Root};

/// Most bytes read of one ignore file.
pub const MAX_IGNORE_FILE_BYTES: usize = 1024 * 1024;

/// The order a walk hands out files in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkOrder {
    /// Byte order of the whole `/`-joined path (what grep sorts by): each
    /// folder's entries sorted by name, a folder's name with `/` appended.
    Path,
    /// The tree's display order: at each level folders before files, then
    /// by name (case-insensitive, ties by bytes).
    Display,
}

/// Whether a walk goes on after a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Hand out the next file.
    Continue,
    /// End the walk now.
    Stop,
}

/// One file a walk found: its folder's handle and its name there.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    /// The folder it was listed in; open it with `dir.open_file(&name)`.
    pub dir: OpenedDir,
    /// Its name in `dir`.
    pub name: OsString,
    /// Its path beneath the root.
    pub rel: RelPath,
}

/// What a finished walk counted besides the files it handed out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkSummary {
    /// Folders that could not be opened or listed (permission, I/O).
    pub unreadable: usize,
    /// Whether the visitor (or `stop`) ended the walk early.
    pub stopped: bool,
}

/// The ignore files of one folder on the way down.
struct Level {
    /// `.ignore` (wins over `.gitignore` at any depth).
    ignore: Option<Gitignore>,
    /// `.gitignore`.
    gitignore: Option<Gitignore>,
}

/// The ignore rules in force at a point of the walk.
struct Filters {
    levels: Vec<Level>,
    /// `.git/info/exclude` of the root, when the root holds `.git`.
    exclude: Option<Gitignore>,
}

impl Filters {
    /// Whether `rel` (a folder when `is_dir`) is ignored.
    fn ignored(&self, rel: &RelPath, is_dir: bool) -> bool {
        let path = virtual_path(rel);
        let first = |pick: fn(&Level) -> Option<&Gitignore>| {
            self.levels
                .iter()
                .rev()
                .filter_map(pick)
                .map(|gi| gi.matched(&path, is_dir))
                .find(|m| !m.is_none())
        };
        let decided = first(|level| level.ignore.as_ref())
            .or_else(|| first(|level| level.gitignore.as_ref()))
            .or_else(|| {
                self.exclude
                    .as_ref()
                    .map(|gi| gi.matched(&path, is_dir))
                    .filter(|m| !m.is_none())
            })
            .or_else(|| {
                global_excludes()
                    .map(|gi| gi.matched(&path, is_dir))
                    .filter(|m| !m.is_none())
            });
        matches!(decided, Some(Match::Ignore(_)))
    }
}

/// The path ignore matchers see: `/` + `rel` (matchers are rooted at `/` +
/// their folder's path, so no real path is ever needed).
fn virtual_path(rel: &RelPath) -> PathBuf {
    Path::new("/").join(rel.to_os_path())
}

/// The user's global git excludes (their own configuration, outside any
/// project), read once.
fn global_excludes() -> Option<&'static Gitignore> {
    static GLOBAL: OnceLock<Option<Gitignore>> = OnceLock::new();
    GLOBAL
        .get_or_init(|| {
            let (gi, _) = Gitignore::global();
            (!gi.is_empty()).then_some(gi)
        })
        .as_ref()
}

/// Reads `name` in `dir` as ignore rules rooted at `rel`; `None` when it is
/// absent, not a regular file, unreadable or empty.
fn ignore_file(dir: &OpenedDir, name: &str, rel: &RelPath) -> Option<Gitignore> {
    let mut opened = dir.open_file(OsStr::new(name)).ok()??;
    let (bytes, _) = opened.read_prefix(MAX_IGNORE_FILE_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut builder = GitignoreBuilder::new(virtual_path(rel));
    for line in text.lines() {
        // A bad glob is skipped, as git does.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().filter(|gi| !gi.is_empty())
}

fn level(dir: &OpenedDir, rel: &RelPath) -> Level {
    Level {
        ignore: ignore_file(dir, ".ignore", rel),
        gitignore: ignore_file(dir, ".gitignore", rel),
    }
}

/// `.git/info/exclude` beneath the root, through the handle.
fn exclude_file(root_dir: &OpenedDir) -> Option<Gitignore> {
    let git = root_dir.open_dir(OsStr::new(".git")).ok()??;
    let info = git.open_dir(OsStr::new("info")).ok()??;
    ignore_file(&info, "exclude", &RelPath::root())
}

/// An entry's kind, asking the file system when the listing did not say.
fn entry_kind(dir: &OpenedDir, entry: &DirEntry) -> FileKind {
    match entry.kind {
        FileKind::Unknown => dir
            .stat_entry(&entry.name)
            .map_or(FileKind::Unknown, |id| id.kind()),
        kind => kind,
    }
}

fn sort_entries(entries: &mut [(DirEntry, FileKind)], order: WalkOrder) {
    match order {
        WalkOrder::Path => entries.sort_by(|(a, ak), (b, bk)| {
            let key = |e: &DirEntry, k: &FileKind| {
                let mut key = e.name.as_bytes().to_vec();
                if *k == FileKind::Directory {
                    key.push(b'/');
                }
                key
            };
            key(a, ak).cmp(&key(b, bk))
        }),
        WalkOrder::Display => entries.sort_by(|(a, ak), (b, bk)| {
            let a_dir = *ak == FileKind::Directory;
            let b_dir = *bk == FileKind::Directory;
            b_dir
                .cmp(&a_dir)
                .then_with(|| name_order(&a.name.to_string_lossy(), &b.name.to_string_lossy()))
        }),
    }
}

/// Case-insensitive name order, ties broken by bytes.
pub fn name_order(x: &str, y: &str) -> Ordering {
    let folded_x = x.chars().flat_map(char::to_lowercase);
    let folded_y = y.chars().flat_map(char::to_lowercase);
    folded_x.cmp(folded_y).then_with(|| x.cmp(y))
}

/// Walks the folder `start` beneath `root`, handing every regular file
/// that the filters keep to `visit`, in `order`. `stop` is asked between
/// entries; when it says so the walk ends (reported in the summary).
/// Refused when `start` cannot be opened as a folder beneath the root.
pub fn walk_files(
    root: &Root,
    start: &RelPath,
    order: WalkOrder,
    stop: &dyn Fn() -> bool,
    visit: impl FnMut(WalkedFile) -> Flow,
) -> Result<WalkSummary, FsRefusal> {
    walk_files_and_links(root, start, order, stop, visit, None)
}

/// [`walk_files`], also naming every symlink the filters keep to
/// `on_link` (by path only: a link is never followed by the walk; what it
/// leads to is the caller's question, asked through the [`Root`]).
pub fn walk_files_and_links(
    root: &Root,
    start: &RelPath,
    order: WalkOrder,
    stop: &dyn Fn() -> bool,
    mut visit: impl FnMut(WalkedFile) -> Flow,
    on_link: Option<&mut dyn FnMut(RelPath)>,
) -> Result<WalkSummary, FsRefusal> {
    let root_dir = root.open_dir(&RelPath::root())?;
    let mut filters = Filters {
        levels: vec![level(&root_dir, &RelPath::root())],
        exclude: exclude_file(&root_dir),
    };
    // The ignore files of the folders between the root and `start`.
    let mut dir = root_dir;
    let mut at = RelPath::root();
    for name in start.components() {
        at = at
            .join(name)
            .map_err(|_| root.refusal(super::FsRefusalKind::Invalid, &start.to_string(), None))?;
        dir = root.open_dir(&at)?;
        filters.levels.push(level(&dir, &at));
    }
    // `start` was opened by its whole path beneath the root; from here on
    // only through handles.
    let start_dir = dir;
    let mut summary = WalkSummary::default();
    let mut walker = Walker {
        order,
        stop,
        filters,
        summary: &mut summary,
        on_link,
    };
    // The start's own level is already loaded (root or the loop above).
    walker.walk_dir(&start_dir, start, &mut visit, false);
    Ok(summary)
}

struct Walker<'a, 'l> {
    order: WalkOrder,
    stop: &'a dyn Fn() -> bool,
    filters: Filters,
    summary: &'a mut WalkSummary,
    on_link: Option<&'l mut dyn FnMut(RelPath)>,
}

impl Walker<'_, '_> {
    /// Walks one folder; `false` once the walk must end.
    fn walk_dir(
        &mut self,
        dir: &OpenedDir,
        rel: &RelPath,
        visit: &mut impl FnMut(WalkedFile) -> Flow,
        push_level: bool,
    ) -> bool {
        let Ok(listed) = dir.entries() else {
            self.summary.unreadable += 1;
            return true;
        };
        if push_level {
            self.filters.levels.push(level(dir, rel));
        }
        let mut entries: Vec<(DirEntry, FileKind)> = listed
            .into_iter()
            .filter(|e| !e.name.as_bytes().starts_with(b"."))
            .map(|e| {
                let kind = entry_kind(dir, &e);
                (e, kind)
            })
            .filter(|(_, kind)| match kind {
                FileKind::Regular | FileKind::Directory => true,
                FileKind::Symlink => self.on_link.is_some(),
                _ => false,
            })
            .collect();
        sort_entries(&mut entries, self.order);
        let mut going = true;
        for (entry, kind) in entries {
            if (self.stop)() {
                self.summary.stopped = true;
                going = false;
                break;
            }
            let Ok(child) = rel.join(&entry.name) else {
                continue;
            };
            let is_dir = kind == FileKind::Directory;
            if self.filters.ignored(&child, is_dir) {
                continue;
            }
            if kind == FileKind::Symlink {
                if let Some(on_link) = self.on_link.as_mut() {
                    on_link(child);
                }
                continue;
            }
            if is_dir {
                match dir.open_dir(&entry.name) {
                    Ok(Some(sub)) => {
                        if !self.walk_dir(&sub, &child, visit, true) {
                            going = false;
                            break;
                        }
                    }
                    // Replaced by something else since it was listed.
                    Ok(None) => {}
                    Err(_) => self.summary.unreadable += 1,
                }
                continue;
            }
            let file = WalkedFile {
                dir: dir.clone(),
                name: entry.name,
                rel: child,
            };
            if visit(file) == Flow::Stop {
                self.summary.stopped = true;
                going = false;
                break;
            }
        }
        if push_level {
            self.filters.levels.pop();
        }
        going
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn collect(root: &Root, start: &str, order: WalkOrder) -> Vec<String> {
        let mut seen = Vec::new();
        walk_files(
            root,
            &RelPath::parse(start).unwrap(),
            order,
            &|| false,
            |f| {
                seen.push(f.rel.to_string());
                Flow::Continue
            },
        )
        .unwrap();
        seen
    }

    #[test]
    fn path_order_is_the_byte_order_of_whole_paths() {
        let dir = tempfile::tempdir().unwrap();
        for path in ["a/b", "a-c", "a.d", "b", "a0/x", "A"] {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
        let root = Root::open(dir.path()).unwrap();
        let mut expected: Vec<String> = collect(&root, ".", WalkOrder::Path);
        let walked = expected.clone();
        expected.sort();
        assert_eq!(walked, expected);
        assert_eq!(
            collect(&root, ".", WalkOrder::Display),
            ["a/b", "a0/x", "A", "a-c", "a.d", "b"]
        );
    }

    #[test]
    fn ignore_rules_nest_and_whitelists_win() {
        let dir = tempfile::tempdir().unwrap();
        let write = |p: &str, t: &str| {
            let p = dir.path().join(p);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, t).unwrap();
        };
        write(".gitignore", "*.log\ntarget/\n");
        write(".ignore", "notes.md\n");
        write("keep/.gitignore", "!keep.log\n");
        write("keep/keep.log", "");
        write("keep/other.log", "");
        write("run.log", "");
        write("notes.md", "");
        write("target/x.rs", "");
        write("src/target", "a file named target stays");
        write(".git/info/exclude", "excluded.txt\n");
        write("excluded.txt", "");
        write(".hidden/x", "");
        write("main.rs", "");
        let root = Root::open(dir.path()).unwrap();
        assert_eq!(
            collect(&root, ".", WalkOrder::Path),
            ["keep/keep.log", "main.rs", "src/target"]
        );
        assert_eq!(collect(&root, "keep", WalkOrder::Path), ["keep/keep.log"]);
    }
}
