//! [`DeniedReads`]: the paths no sandboxed command and no file tool may
//! read — the user's secrets and light-agent's own data. The one place the
//! list is kept: the helper's Landlock rules and `tool::fs` both read it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Entries of the home directory that hold secrets: keys, cloud and registry
/// credentials, password stores and keyrings, shell histories, and
/// light-agent's own config, database and logs (every conversation of every
/// project). Toolchains beside them (`.cargo`, `.rustup`, `.npm`, `.cache`,
/// `.local/bin`, `.pyenv`) stay readable.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".config/gh",
    ".config/hub",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".password-store",
    ".local/share/keyrings",
    ".gnome2/keyrings",
    ".bash_history",
    ".zsh_history",
    ".history",
    ".sh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".lesshst",
    ".local/share/fish/fish_history",
    ".config/light-agent",
    ".local/share/light-agent",
    ".local/state/light-agent",
];

/// The resolved deny list: absolute paths (and, for those reached through a
/// symlink, where they really are), with the identity of each that exists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeniedReads {
    paths: Vec<PathBuf>,
    identities: HashSet<(u64, u64)>,
}

impl DeniedReads {
    /// [`HOME_SECRETS`] beneath `home` plus `extra` (`[sandbox] deny_read`
    /// and light-agent's own directories): absolute entries as they are,
    /// `~/`-entries beneath `home`; anything else is ignored.
    pub fn resolve(home: Option<&Path>, extra: &[String]) -> DeniedReads {
        let mut spelled: Vec<PathBuf> = Vec::new();
        if let Some(home) = home.filter(|h| h.is_absolute()) {
            spelled.extend(HOME_SECRETS.iter().map(|entry| home.join(entry)));
        }
        for entry in extra {
            if let Some(rest) = entry.strip_prefix("~/") {
                if let Some(home) = home.filter(|h| h.is_absolute()) {
                    spelled.push(home.join(rest));
                }
            } else if Path::new(entry).is_absolute() {
                spelled.push(PathBuf::from(entry));
            }
        }
        DeniedReads::from_paths(&spelled)
    }

    /// The list for exactly `paths` (absolute), with their real locations.
    pub fn from_paths(paths: &[PathBuf]) -> DeniedReads {
        let mut denied = DeniedReads::default();
        for path in paths.iter().filter(|p| p.is_absolute()) {
            denied.push(path.clone());
            // Landlock and `/proc/self/fd` see where a file really is.
            if let Ok(real) = std::fs::canonicalize(path) {
                denied.push(real);
            }
            if let Ok(meta) = std::fs::metadata(path) {
                use std::os::unix::fs::MetadataExt as _;
                denied.identities.insert((meta.dev(), meta.ino()));
            }
        }
        denied
    }

    fn push(&mut self, path: PathBuf) {
        if !self.paths.contains(&path) {
            self.paths.push(path);
        }
    }

    /// Every denied path, as spelled and as really located.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Whether nothing is denied.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Whether `path` (absolute, symlinks resolved) is a denied path or
    /// beneath one.
    pub fn covers(&self, path: &Path) -> bool {
        self.paths.iter().any(|denied| path.starts_with(denied))
    }

    /// Whether the file with device `dev` and inode `ino` is one of the
    /// denied paths itself (what a walk meets before anything beneath it).
    pub fn is_denied_identity(&self, dev: u64, ino: u64) -> bool {
        self.identities.contains(&(dev, ino))
    }
}

/// The directories to grant an access beneath so that it covers everything
/// beneath `root` except the denied paths: `root` itself when nothing
/// denied lies beneath it, nothing when it is itself denied, else the same
/// split for each of its entries. A directory on the way to a denied path
/// is therefore not listable itself (Landlock grants whole subtrees), but
/// every other entry in it is reachable. Denied paths that do not exist
/// split nothing (`~/.cargo` stays whole without `~/.cargo/credentials`).
pub fn grants_beneath(root: &Path, denied: &DeniedReads) -> Vec<PathBuf> {
    let existing = DeniedReads {
        paths: denied
            .paths
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .cloned()
            .collect(),
        identities: HashSet::new(),
    };
    let mut grants = Vec::new();
    split(root, &existing, &mut grants, 0);
    grants
}

/// Deep enough for any deny entry; guards against a symlink loop in how a
/// path was spelled.
const MAX_DEPTH: usize = 32;

fn split(dir: &Path, denied: &DeniedReads, grants: &mut Vec<PathBuf>, depth: usize) {
    if denied.covers(dir) {
        return;
    }
    let holds_denied = denied
        .paths()
        .iter()
        .any(|d| d.starts_with(dir) && d != dir);
    if !holds_denied || depth > MAX_DEPTH {
        grants.push(dir.to_path_buf());
        return;
    }
    // A directory we cannot list: none of its entries can be granted, and
    // granting it whole would grant the secret inside.
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        split(&entry.path(), denied, grants, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_entries_and_extras_resolve_against_home() {
        let denied = DeniedReads::resolve(
            Some(Path::new("/home/u")),
            &["~/secrets".into(), "/srv/keys".into(), "relative".into()],
        );
        assert!(denied.covers(Path::new("/home/u/.ssh/id_ed25519")));
        assert!(denied.covers(Path::new("/home/u/secrets/x")));
        assert!(denied.covers(Path::new("/srv/keys")));
        assert!(!denied.covers(Path::new("/home/u/.cargo/bin/cargo")));
        assert!(!denied.covers(Path::new("/home/u/.sshx")));
        assert!(!denied.paths().iter().any(|p| p.ends_with("relative")));
    }

    #[test]
    fn grants_split_around_denied_paths_only() {
        let home = tempfile::tempdir().unwrap();
        for dir in [".ssh", ".cargo/bin", ".config/gh", ".config/git", "proj"] {
            std::fs::create_dir_all(home.path().join(dir)).unwrap();
        }
        std::fs::write(home.path().join(".netrc"), "x").unwrap();
        let denied = DeniedReads::resolve(Some(home.path()), &[]);
        let mut grants = grants_beneath(home.path(), &denied);
        grants.sort();
        let rel: Vec<_> = grants
            .iter()
            .map(|g| g.strip_prefix(home.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            rel,
            [".cargo", ".config/git", "proj"]
                .map(PathBuf::from)
                .to_vec()
        );
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(
            grants_beneath(elsewhere.path(), &denied),
            vec![elsewhere.path().to_path_buf()]
        );
    }
}
