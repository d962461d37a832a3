//! Snapshots around a command, so undo can put back what it did.
//!
//! Before a command that can write, [`Snapshots::take`] stores in the
//! journal, by content hash, every file it could lose that nothing else
//! holds: in a git repository the files git does not hold unchanged
//! (modified, staged, untracked and not ignored — the others are in
//! `HEAD`); elsewhere every file of the directory, up to a byte budget.
//! A content stored once is not stored again, and a file whose identity
//! (inode, size, modification time) is unchanged since it was last read is
//! not read again. After the command [`Snapshots::changes`] compares and
//! returns the files it changed, added or deleted as one call's change set
//! (prior content by hash, or from `HEAD` for files git held unchanged).
//!
//! Every file is read through [`Root`] without following symlinks;
//! symlinks, sockets and devices are neither stored nor restored.
//!
//! | file | job |
//! |---|---|
//! | `git.rs` | asking git: status, `HEAD`, contents at a commit |
//! | `tree.rs` | reading files through the root: one file, a whole directory |

mod git;
mod tree;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::sync::{Arc, Mutex};

use super::fs::{FileIdentity, Root};
use super::journal::{BlobHash, Journal, PriorContent, PriorFile};
use super::seen::content_hash;
use git::Repo;
use tree::Read;

/// Bytes a snapshot outside git stores before it is partial (64 MiB).
pub const DEFAULT_BUDGET: u64 = 64 * 1024 * 1024;

/// Files modified this recently (nanoseconds) before a snapshot are read
/// again after the command even when their identity did not change: a
/// write in the same clock tick keeps the modification time.
const RACY_NS: i128 = 2_000_000_000;

/// Takes snapshots for one session's commands and remembers what it read
/// and stored. Cheap to clone.
#[derive(Clone)]
pub struct Snapshots {
    inner: Arc<Inner>,
}

struct Inner {
    budget: u64,
    env: Vec<(OsString, OsString)>,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    /// The repository of the root last snapshotted (by its identity).
    repo: Option<(FileIdentity, Option<Repo>)>,
    /// Per path: the identity it had when read and its content's hash.
    read: HashMap<String, (FileIdentity, BlobHash)>,
    /// Hashes the journal holds already.
    stored: HashSet<BlobHash>,
}

/// Contents a scan found that the journal does not hold yet.
#[derive(Default)]
struct Pending {
    list: Vec<(BlobHash, Vec<u8>)>,
    queued: HashSet<BlobHash>,
}

/// The state before one command.
pub struct Before {
    repo: Option<(Repo, Option<String>)>,
    /// Every file held: its identity and content hash; `None` for a file
    /// git knows that was absent.
    files: BTreeMap<String, Option<(FileIdentity, BlobHash)>>,
    /// Files seen but not stored (over the budget): their changes cannot be
    /// undone.
    unheld: BTreeSet<String>,
    /// When it was taken, nanoseconds since the epoch.
    taken_ns: i128,
    /// Bytes of the files outside git; more than the budget when partial.
    total: u64,
    budget: u64,
}

impl Before {
    /// Whether files were left out (outside git, over the budget): undo of
    /// this command would be partial.
    pub fn partial(&self) -> bool {
        !self.unheld.is_empty()
    }

    /// One line for a question or a result when [`Before::partial`].
    pub fn partial_note(&self) -> String {
        format!(
            "the files to keep come to {} MiB, more than the {} MiB a snapshot keeps; undo of this command would be partial",
            self.total.div_ceil(1024 * 1024),
            self.budget / (1024 * 1024)
        )
    }
}

impl Snapshots {
    /// Snapshots that run git with `env` and keep at most `budget` bytes of
    /// a directory outside git.
    pub fn new(env: Vec<(OsString, OsString)>, budget: u64) -> Snapshots {
        Snapshots {
            inner: Arc::new(Inner {
                budget,
                env,
                cache: Mutex::new(Cache::default()),
            }),
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        // The cache is only a shortcut; a poisoned one is still consistent.
        self.inner.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stores what `root` holds that a command could destroy, before it
    /// runs; resolves once the journal holds it.
    pub async fn take(&self, root: &Root, journal: &Journal) -> Result<Before, String> {
        // The previous command's change set is read from the tree as it
        // is now: this command must not run before it is.
        journal.caught_up().await;
        let (this, root) = (self.clone(), root.clone());
        let (before, blobs) = tokio::task::spawn_blocking(move || this.scan(&root))
            .await
            .map_err(|e| format!("the snapshot failed: {e}"))??;
        if !blobs.is_empty() {
            let hashes: Vec<BlobHash> = blobs.iter().map(|(h, _)| *h).collect();
            journal.store(blobs).await?;
            self.cache().stored.extend(hashes);
        }
        Ok(before)
    }

    /// The state before, and the contents to store.
    #[allow(clippy::type_complexity)]
    fn scan(&self, root: &Root) -> Result<(Before, Vec<(BlobHash, Vec<u8>)>), String> {
        let taken_ns = now_ns();
        let repo = self.repo(root);
        let mut before = Before {
            repo: None,
            files: BTreeMap::new(),
            unheld: BTreeSet::new(),
            taken_ns,
            total: 0,
            budget: self.inner.budget,
        };
        let mut blobs = Pending::default();
        // A repository git cannot read is snapshotted as a directory.
        let repo = repo.and_then(|repo| repo.status().ok().map(|status| (repo, status)));
        match repo {
            Some((repo, status)) => {
                let mut kept = 0u64;
                for path in &status.dirty {
                    let held = match tree::identity(root, path) {
                        // The budget holds here too: a huge untracked file
                        // would make undo partial, not the database huge.
                        Some(identity) if kept + identity.size > self.inner.budget => {
                            before.total = before.total.max(kept + identity.size);
                            before.unheld.insert(path.clone());
                            continue;
                        }
                        Some(identity) => {
                            kept += identity.size;
                            self.hold(root, path, identity, taken_ns, &mut blobs)
                        }
                        None => None,
                    };
                    before.files.insert(path.clone(), held);
                }
                before.repo = Some((repo, status.head));
            }
            None => {
                let files = tree::list(root);
                before.total = files.iter().map(|(_, id)| id.size).sum();
                let mut kept = 0u64;
                for (path, identity) in files {
                    if kept + identity.size > self.inner.budget {
                        before.unheld.insert(path);
                        continue;
                    }
                    kept += identity.size;
                    let held = self.hold(root, &path, identity, taken_ns, &mut blobs);
                    before.files.insert(path, held);
                }
            }
        }
        Ok((before, blobs.list))
    }

    /// The repository `root` is in (asked of git once per root).
    fn repo(&self, root: &Root) -> Option<Repo> {
        let id = root.identity();
        if let Some((known, repo)) = &self.cache().repo
            && *known == id
        {
            return repo.clone();
        }
        let repo = Repo::find(root.display_path(), &self.inner.env);
        self.cache().repo = Some((id, repo.clone()));
        repo
    }

    /// The identity and hash of the file at `path` (whose identity was just
    /// read), its content queued for storing unless the journal has it.
    fn hold(
        &self,
        root: &Root,
        path: &str,
        identity: FileIdentity,
        taken_ns: i128,
        blobs: &mut Pending,
    ) -> Option<(FileIdentity, BlobHash)> {
        {
            let cache = self.cache();
            if let Some((seen, hash)) = cache.read.get(path)
                && *seen == identity
                && identity.mtime_ns < taken_ns - RACY_NS
                && cache.stored.contains(hash)
            {
                return Some((identity, *hash));
            }
        }
        let Read { identity, bytes } = tree::read(root, path)?;
        let hash = BlobHash::of(&bytes);
        let mut cache = self.cache();
        cache.read.insert(path.to_string(), (identity, hash));
        if !cache.stored.contains(&hash) && blobs.queued.insert(hash) {
            blobs.list.push((hash, bytes));
        }
        Some((identity, hash))
    }

    /// Of the files at `paths` (relative to the root, each with whether it
    /// is a redirect's target), those whose replacement would lose work: a
    /// redirect's target that git tracks (any file outside git), any file
    /// `mv` or `cp` would replace. Symlinks and folders are not counted.
    pub async fn worth_keeping(&self, root: &Root, paths: Vec<(String, bool)>) -> Vec<String> {
        let (this, root) = (self.clone(), root.clone());
        let found = tokio::task::spawn_blocking(move || {
            let existing: Vec<(String, bool)> = paths
                .into_iter()
                .filter(|(path, _)| tree::identity(&root, path).is_some())
                .collect();
            let redirected: Vec<String> = existing
                .iter()
                .filter(|(_, redirect)| *redirect)
                .map(|(p, _)| p.clone())
                .collect();
            let tracked = match redirected.is_empty() {
                true => None,
                false => this
                    .repo(&root)
                    .map(|repo| repo.tracked(&redirected).unwrap_or_default()),
            };
            existing
                .into_iter()
                .filter(|(path, redirect)| {
                    !redirect || tracked.as_ref().is_none_or(|t| t.contains(path))
                })
                .map(|(p, _)| p)
                .collect()
        });
        found.await.unwrap_or_default()
    }

    /// The files the command changed, added or deleted since `before`, as
    /// prior states for the journal (in path order).
    pub async fn changes(&self, root: &Root, before: Before) -> Vec<PriorFile> {
        let (this, root) = (self.clone(), root.clone());
        tokio::task::spawn_blocking(move || this.compare(&root, before))
            .await
            .unwrap_or_default()
    }

    fn compare(&self, root: &Root, before: Before) -> Vec<PriorFile> {
        let mut candidates: BTreeSet<String> = before.files.keys().cloned().collect();
        let mut head_before: Option<Option<String>> = None;
        let mut repo_now: Option<Repo> = None;
        match &before.repo {
            Some((repo, head)) => {
                if let Ok(status) = repo.status() {
                    candidates.extend(status.dirty);
                    if let Some(now) = status.head.as_deref()
                        && status.head != *head
                    {
                        candidates.extend(
                            repo.changed_between(head.as_deref(), now)
                                .unwrap_or_default(),
                        );
                    }
                }
                head_before = Some(head.clone());
                repo_now = Some(repo.clone());
            }
            None => {
                candidates.extend(
                    tree::list(root)
                        .into_iter()
                        .map(|(p, _)| p)
                        .filter(|p| !before.unheld.contains(p)),
                );
            }
        }
        let mut changes = Vec::new();
        // Files git held unchanged before: their prior content is in `HEAD`.
        let mut from_head: Vec<(String, Option<Read>)> = Vec::new();
        for path in candidates {
            if before.unheld.contains(&path) {
                continue;
            }
            let held = before.files.get(&path);
            // Unchanged identity, not written in the snapshot's clock tick:
            // the same content.
            let now_identity = tree::identity(root, &path);
            if let (Some(Some((identity, _))), Some(now)) = (held, now_identity)
                && *identity == now
                && identity.mtime_ns < before.taken_ns - RACY_NS
            {
                continue;
            }
            let now = now_identity.and_then(|_| tree::read(root, &path));
            match held {
                Some(prior) => {
                    let same = match (prior, &now) {
                        (Some((identity, hash)), Some(now)) => {
                            *hash == BlobHash::of(&now.bytes)
                                && identity.permissions() == now.identity.permissions()
                        }
                        (None, None) => true,
                        _ => false,
                    };
                    if !same {
                        changes.push(PriorFile {
                            path,
                            content: prior
                                .map_or(PriorContent::Absent, |(_, h)| PriorContent::Stored(h)),
                            mode: prior.map(|(identity, _)| identity.permissions()),
                            after_hash: now.as_ref().map(|n| content_hash(&n.bytes)),
                        });
                    }
                }
                None if repo_now.is_some() => from_head.push((path, now)),
                // Outside git, a file not in the snapshot is new.
                None => {
                    if let Some(now) = &now {
                        changes.push(PriorFile {
                            path,
                            content: PriorContent::Absent,
                            mode: None,
                            after_hash: Some(content_hash(&now.bytes)),
                        });
                    }
                }
            }
        }
        if let (Some(repo), Some(head), false) = (repo_now, head_before, from_head.is_empty()) {
            let paths: Vec<String> = from_head.iter().map(|(p, _)| p.clone()).collect();
            let held: HashMap<String, git::Held> = match head.as_deref() {
                Some(head) => repo
                    .held_at(head, &paths)
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                None => HashMap::new(),
            };
            for (path, now) in from_head {
                let prior = held.get(&path);
                let same = match (prior, &now) {
                    (Some(prior), Some(now)) => {
                        prior.bytes == now.bytes
                            && prior.mode & 0o100 == now.identity.permissions() & 0o100
                    }
                    (None, None) => true,
                    _ => false,
                };
                if same {
                    continue;
                }
                changes.push(PriorFile {
                    path,
                    content: prior.map_or(PriorContent::Absent, |p| {
                        PriorContent::Bytes(p.bytes.clone())
                    }),
                    mode: prior.map(|p| p.mode),
                    after_hash: now.as_ref().map(|n| content_hash(&n.bytes)),
                });
            }
        }
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes
    }
}

/// Now, nanoseconds since the epoch (the clock file times use).
fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::future::BoxFuture;
    use std::path::Path;

    /// Counts what it is asked to store.
    #[derive(Default)]
    struct Counting(Mutex<Vec<BlobHash>>);

    impl crate::tool::journal::ChangeJournal for Counting {
        fn record(&self, _: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
            async { Ok(()) }.boxed()
        }
        fn store(&self, blobs: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
            self.0
                .lock()
                .unwrap()
                .extend(blobs.into_iter().map(|(h, _)| h));
            async { Ok(()) }.boxed()
        }
    }

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    fn env() -> Vec<(OsString, OsString)> {
        std::env::vars_os()
            .filter(|(n, _)| n == "PATH" || n == "HOME")
            .collect()
    }

    #[tokio::test]
    async fn in_a_subfolder_of_a_repository_only_what_git_does_not_hold_is_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let pkg = top.join("pkg");
        std::fs::create_dir_all(&pkg).unwrap();
        for (path, text) in [
            ("pkg/a.txt", "a\n"),
            ("pkg/b.txt", "b\n"),
            ("top.txt", "t\n"),
            (".gitignore", "*.log\n"),
        ] {
            std::fs::write(top.join(path), text).unwrap();
        }
        git(top, &["init", "-q"]);
        git(top, &["add", "."]);
        git(top, &["commit", "-qm", "base"]);
        std::fs::write(pkg.join("a.txt"), "a changed\n").unwrap();
        std::fs::write(pkg.join("new file.txt"), "new\n").unwrap();
        std::fs::write(pkg.join("build.log"), "ignored\n").unwrap();
        std::fs::write(top.join("top.txt"), "outside the root\n").unwrap();

        let root = Root::open(&pkg).unwrap();
        let counting = Arc::new(Counting::default());
        let journal = Journal::new(counting.clone());
        let snapshots = Snapshots::new(env(), DEFAULT_BUDGET);
        let before = snapshots.take(&root, &journal).await.unwrap();
        let held: Vec<&String> = before.files.keys().collect();
        assert_eq!(held, ["a.txt", "new file.txt"]);
        assert_eq!(counting.0.lock().unwrap().len(), 2);
        // The same contents again: nothing more is stored.
        let again = snapshots.take(&root, &journal).await.unwrap();
        assert_eq!(counting.0.lock().unwrap().len(), 2);
        assert!(snapshots.changes(&root, again).await.is_empty());

        std::fs::write(pkg.join("b.txt"), "b changed\n").unwrap();
        std::fs::write(pkg.join("a.txt"), "").unwrap();
        std::fs::write(pkg.join("build.log"), "still ignored\n").unwrap();
        let changes = snapshots.changes(&root, before).await;
        let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "b.txt"]);
        assert_eq!(
            changes[0].content,
            PriorContent::Stored(BlobHash::of(b"a changed\n"))
        );
        assert_eq!(changes[1].content, PriorContent::Bytes(b"b\n".to_vec()));
        assert_eq!(changes[1].mode, Some(0o644));
        assert_eq!(changes[1].after_hash, Some(content_hash(b"b changed\n")));
    }
}
