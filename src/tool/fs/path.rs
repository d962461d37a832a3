//! [`RelPath`]: a path proven, by its spelling alone, to stay beneath a root.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// Longest input accepted, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// A relative path beneath a root: no `..`, no `.`, no empty or absolute
/// component. The empty path is the root itself.
///
/// Lexically safe only — whether it stays beneath the root on disk (through
/// symlinks) is decided when it is opened, by [`Root`](super::Root).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelPath {
    parts: Vec<OsString>,
}

/// Why a spelling is not a [`RelPath`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// Empty, blank, with a NUL byte or longer than [`MAX_PATH_BYTES`].
    Invalid(&'static str),
    /// `..` climbs above the root, or the path is absolute elsewhere.
    Escape,
}

impl RelPath {
    /// The root itself.
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses a relative spelling: `a/./b/../c` → `a/c`, `a/` → `a`, `.` →
    /// the root. `..` above the start and absolute paths are escapes.
    /// `..foo` and `~` are ordinary names.
    pub fn parse(input: &str) -> Result<Self, Spelling> {
        check_spelling(input)?;
        Self::from_relative(Path::new(input))
    }

    pub(super) fn from_relative(path: &Path) -> Result<Self, Spelling> {
        let mut parts: Vec<OsString> = Vec::new();
        for component in path.components() {
            match component {
                Component::Normal(name) => parts.push(name.to_owned()),
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(Spelling::Escape);
                    }
                }
                Component::RootDir | Component::Prefix(_) => return Err(Spelling::Escape),
            }
        }
        Ok(Self { parts })
    }

    /// Whether this is the root itself.
    pub fn is_root(&self) -> bool {
        self.parts.is_empty()
    }

    /// The components, outermost first.
    pub fn components(&self) -> impl ExactSizeIterator<Item = &OsStr> {
        self.parts.iter().map(OsString::as_os_str)
    }

    /// The last component; `None` for the root.
    pub fn file_name(&self) -> Option<&OsStr> {
        self.parts.last().map(OsString::as_os_str)
    }

    /// The folder holding this path; `None` for the root.
    pub fn parent(&self) -> Option<RelPath> {
        let (_, parent) = self.parts.split_last()?;
        Some(Self {
            parts: parent.to_vec(),
        })
    }

    /// This path with one more component. `name` must be a single normal
    /// component (no `/`, not `.` or `..`), as directory entries are.
    pub fn join(&self, name: &OsStr) -> Result<RelPath, Spelling> {
        let bytes = name.as_bytes();
        if bytes.is_empty() || bytes.contains(&b'/') || bytes.contains(&0) {
            return Err(Spelling::Invalid("not a single file name"));
        }
        if bytes == b"." || bytes == b".." {
            return Err(Spelling::Escape);
        }
        let mut parts = self.parts.clone();
        parts.push(name.to_owned());
        Ok(Self { parts })
    }

    /// Whether `self` is `other` or lies inside it.
    pub fn starts_with(&self, other: &RelPath) -> bool {
        self.parts.starts_with(&other.parts)
    }

    /// The path as the kernel takes it relative to a directory handle
    /// (`.` for the root).
    pub fn to_os_path(&self) -> OsString {
        if self.parts.is_empty() {
            return OsString::from(".");
        }
        let mut out = OsString::new();
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push("/");
            }
            out.push(part);
        }
        out
    }
}

/// `/`-separated, lossy for non-UTF-8 names; `.` for the root.
impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.parts.is_empty() {
            return f.write_str(".");
        }
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write!(f, "{}", part.to_string_lossy())?;
        }
        Ok(())
    }
}

impl fmt::Debug for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RelPath({self})")
    }
}

/// The checks every spelling passes before it is looked at as a path.
pub(super) fn check_spelling(input: &str) -> Result<(), Spelling> {
    if input.trim().is_empty() {
        return Err(Spelling::Invalid("the path is empty"));
    }
    if input.contains('\0') {
        return Err(Spelling::Invalid("the path contains a NUL byte"));
    }
    if input.len() > MAX_PATH_BYTES {
        return Err(Spelling::Invalid("the path is longer than 4096 bytes"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_normalise_and_dot_dot_names_stay_names() {
        let shown = |s: &str| RelPath::parse(s).map(|p| p.to_string());
        assert_eq!(shown("a/./b/../c"), Ok("a/c".into()));
        assert_eq!(shown("a/"), Ok("a".into()));
        assert_eq!(shown("."), Ok(".".into()));
        assert_eq!(shown("..foo/~"), Ok("..foo/~".into()));
        assert_eq!(shown("a/../.."), Err(Spelling::Escape));
        assert_eq!(shown("../x"), Err(Spelling::Escape));
        assert_eq!(shown("/etc/passwd"), Err(Spelling::Escape));
        assert!(matches!(shown(" "), Err(Spelling::Invalid(_))));
        assert!(matches!(shown("a\0b"), Err(Spelling::Invalid(_))));
        assert!(matches!(
            shown(&"a/".repeat(3000)),
            Err(Spelling::Invalid(_))
        ));
    }

    #[test]
    fn join_takes_single_names_only() {
        let base = RelPath::parse("src").unwrap();
        assert_eq!(
            base.join(OsStr::new("main.rs")).unwrap().to_string(),
            "src/main.rs"
        );
        assert!(base.join(OsStr::new("a/b")).is_err());
        assert_eq!(base.join(OsStr::new("..")), Err(Spelling::Escape));
        assert_eq!(base.parent(), Some(RelPath::root()));
        assert_eq!(RelPath::root().to_os_path(), OsString::from("."));
    }
}
