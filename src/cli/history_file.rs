//! Where a directory's prompt history lives: `history/<hash>.jsonl` in the
//! data directory, named by a hash that never changes between builds.

use std::path::{Path, PathBuf};

/// The prompt history file for `cwd`. A file left under the name earlier
/// builds used (std's `DefaultHasher`, whose output may change between Rust
/// releases) is moved to the stable name the first time it is asked for.
pub fn history_path(data_dir: &Path, cwd: &Path) -> PathBuf {
    let dir = data_dir.join("history");
    let path = dir.join(format!("{:016x}.jsonl", fnv1a(cwd)));
    if !path.exists() {
        let legacy = dir.join(format!("{:016x}.jsonl", legacy_hash(cwd)));
        if legacy.is_file() {
            // Best effort: a failed move leaves an empty history, nothing lost.
            let _ = std::fs::rename(&legacy, &path);
        }
    }
    path
}

/// 64-bit FNV-1a over the path's bytes: fixed by its definition, so the same
/// directory maps to the same file in every build.
fn fnv1a(path: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt as _;
    path.as_os_str()
        .as_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// The name earlier builds gave the file.
fn legacy_hash(path: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_fixed_by_the_path_alone() {
        // FNV-1a's published test value for "a", and a path's name pinned.
        assert_eq!(fnv1a(Path::new("a")), 0xaf63_dc4c_8601_ec8c);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            history_path(dir.path(), Path::new("/home/u/repo")),
            dir.path()
                .join("history")
                .join(format!("{:016x}.jsonl", fnv1a(Path::new("/home/u/repo"))))
        );
    }

    #[test]
    fn a_history_under_the_old_name_is_moved_to_the_new_one() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cwd = Path::new("/home/u/repo");
        let history = dir.path().join("history");
        std::fs::create_dir_all(&history).unwrap_or_else(|e| panic!("{e}"));
        let legacy = history.join(format!("{:016x}.jsonl", legacy_hash(cwd)));
        std::fs::write(&legacy, "{\"text\":\"old prompt\"}\n").unwrap_or_else(|e| panic!("{e}"));
        let path = history_path(dir.path(), cwd);
        assert_ne!(path, legacy);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap_or_default(),
            "{\"text\":\"old prompt\"}\n"
        );
        assert!(!legacy.exists());
    }
}
