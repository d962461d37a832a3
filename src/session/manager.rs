//! [`SessionManager`]: opening the database and finding sessions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::actor::StoreHandle;
use super::id::new_session_id;
use super::schema::open_connection;
use super::store::{DraftRow, Store};
use super::{AgentSession, SessionError, SessionInfo, SessionStatus};

/// Handle to one session database. Cloning is cheap; all clones share one
/// store thread that owns the SQLite connection.
///
/// Several managers (also in other processes) may open the same file: the
/// database is in WAL mode with a busy timeout, and every write is its own
/// transaction.
#[derive(Clone, Debug)]
pub struct SessionManager {
    store: StoreHandle,
    db_path: Arc<Path>,
}

impl SessionManager {
    /// Opens (creating if needed, parent directories included) the database
    /// at `db_path` and brings its schema up to date.
    ///
    /// Fails with [`SessionError::Io`] when the directory cannot be created,
    /// [`SessionError::Corrupt`] when the file is not a SQLite database,
    /// [`SessionError::UnsupportedSchema`] when a newer build wrote it, and
    /// [`SessionError::Db`] for other SQLite failures. Blocks briefly on
    /// file I/O; call it before or outside hot async paths.
    pub fn open(db_path: &Path) -> Result<Self, SessionError> {
        if let Some(parent) = db_path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| SessionError::Io {
                action: "cannot create directory",
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let conn = open_connection(db_path)?;
        let store = StoreHandle::spawn(Store::new(conn)).map_err(|source| SessionError::Io {
            action: "cannot start the session store thread for",
            path: db_path.to_path_buf(),
            source,
        })?;
        Ok(Self {
            store,
            db_path: Arc::from(db_path),
        })
    }

    /// The database file this manager opened.
    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// Creates an idle session bound to the canonical form of `cwd`; it
    /// becomes the latest session of that cwd.
    ///
    /// Fails with [`SessionError::Io`] when `cwd` cannot be canonicalised
    /// (for example, it does not exist).
    pub async fn create(
        &self,
        cwd: &Path,
        title: Option<String>,
    ) -> Result<AgentSession, SessionError> {
        let cwd = tokio::fs::canonicalize(cwd)
            .await
            .map_err(|source| SessionError::Io {
                action: "cannot resolve session directory",
                path: cwd.to_path_buf(),
                source,
            })?;
        let cwd = path_text(&cwd);
        let id = new_session_id();
        let info = self
            .store
            .call(move |store| store.create(&id, &cwd, title.as_deref()))
            .await?;
        Ok(AgentSession::new(self.clone(), info.id))
    }

    /// A new session for `cwd` (canonicalised) that is written only with its
    /// first event, so nothing is stored if the user never prompts in it.
    ///
    /// Fails with [`SessionError::Io`] when `cwd` cannot be canonicalised.
    pub async fn draft(
        &self,
        cwd: &Path,
        title: Option<String>,
    ) -> Result<AgentSession, SessionError> {
        let cwd = tokio::fs::canonicalize(cwd)
            .await
            .map_err(|source| SessionError::Io {
                action: "cannot resolve session directory",
                path: cwd.to_path_buf(),
                source,
            })?;
        let row = DraftRow {
            cwd: path_text(&cwd),
            title,
            owner_pid: None,
        };
        Ok(AgentSession::new_draft(self.clone(), new_session_id(), row))
    }

    /// The id of the session `input` names: a full id, a prefix of one, or
    /// a prefix of a short id (see [`short_id`](super::short_id)).
    ///
    /// Fails with [`SessionError::NotFound`] when nothing matches and
    /// [`SessionError::Ambiguous`] (listing up to 10 candidates) when several do.
    pub async fn resolve(&self, input: &str) -> Result<String, SessionError> {
        let input = input.trim().to_owned();
        let valid = !input.is_empty()
            && input
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(SessionError::NotFound(input));
        }
        let query = input.to_ascii_lowercase();
        let mut found = self
            .store
            .call(move |store| store.find_by_prefix(&query, 10))
            .await?;
        match found.len() {
            0 => Err(SessionError::NotFound(input)),
            1 => Ok(found.remove(0).id),
            _ => Err(SessionError::Ambiguous {
                input,
                candidates: found,
            }),
        }
    }

    /// Marks the session running, owned by this process, unless another
    /// live process owns it ([`SessionError::Busy`]). One conditional
    /// UPDATE: of two processes claiming at once, exactly one wins.
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn claim(&self, id: &str) -> Result<(), SessionError> {
        let id = id.to_owned();
        let pid = std::process::id();
        self.store.call(move |store| store.claim(&id, pid)).await
    }

    /// A handle to an existing session (no history is read).
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn open_session(&self, id: &str) -> Result<AgentSession, SessionError> {
        let info = self.info(id).await?;
        Ok(AgentSession::new(self.clone(), info.id))
    }

    /// The session of `cwd` (canonicalised) that was most recently created,
    /// appended to or updated; `None` when the cwd has none.
    pub async fn open_latest(&self, cwd: &Path) -> Result<Option<AgentSession>, SessionError> {
        let latest = self.list(Some(cwd), 1).await?.into_iter().next();
        Ok(latest.map(|info| AgentSession::new(self.clone(), info.id)))
    }

    /// Up to `limit` sessions, most recently updated first: those of `cwd`
    /// (canonicalised), or of every cwd when `cwd` is `None`.
    ///
    /// A cwd that no longer exists is matched as given.
    pub async fn list(
        &self,
        cwd: Option<&Path>,
        limit: usize,
    ) -> Result<Vec<SessionInfo>, SessionError> {
        let cwd = match cwd {
            Some(cwd) => Some(path_text(&canonical_or_given(cwd).await)),
            None => None,
        };
        self.store
            .call(move |store| store.list(cwd.as_deref(), limit))
            .await
    }

    /// What is known about one session.
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn info(&self, id: &str) -> Result<SessionInfo, SessionError> {
        let id = id.to_owned();
        self.store.call(move |store| store.require_info(&id)).await
    }

    /// Marks the session running, owned by this process. If the process dies
    /// without [`mark_idle`](Self::mark_idle), readers see it idle again.
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn mark_running(&self, id: &str) -> Result<(), SessionError> {
        let id = id.to_owned();
        let pid = std::process::id();
        self.store
            .call(move |store| store.set_status(&id, SessionStatus::Running, Some(pid)))
            .await
    }

    /// Marks the session idle and clears its owner.
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn mark_idle(&self, id: &str) -> Result<(), SessionError> {
        let id = id.to_owned();
        self.store
            .call(move |store| store.set_status(&id, SessionStatus::Idle, None))
            .await
    }

    /// Replaces the session's title.
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn set_title(&self, id: &str, title: &str) -> Result<(), SessionError> {
        let id = id.to_owned();
        let title = title.to_owned();
        self.store
            .call(move |store| store.set_title(&id, &title))
            .await
    }

    /// Copies session `id` into a new idle session of the same directory
    /// and title: its history (only the turns before `before_turn`, when
    /// given) with its rewinds. The original is not changed; the undo
    /// journal stays with it.
    ///
    /// Fails with [`SessionError::NotFound`] for an unknown id.
    pub async fn fork(
        &self,
        id: &str,
        before_turn: Option<u64>,
    ) -> Result<AgentSession, SessionError> {
        let (id, new_id) = (id.to_owned(), new_session_id());
        let info = self
            .store
            .call(move |store| store.fork(&id, &new_id, before_turn))
            .await?;
        Ok(AgentSession::new(self.clone(), info.id))
    }

    pub(super) fn store(&self) -> &StoreHandle {
        &self.store
    }
}

async fn canonical_or_given(path: &Path) -> PathBuf {
    tokio::fs::canonicalize(path)
        .await
        .unwrap_or_else(|_| path.to_path_buf())
}

/// SQLite text is UTF-8; a non-UTF-8 cwd is stored lossily, the same way on
/// every write and lookup, so it still matches itself.
fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
