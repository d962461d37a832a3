//! Subagent sessions: a child session (run by the `task` tool) linked to the
//! session and the tool call that started it.

use std::path::Path;

use rusqlite::params;

use super::store::Store;
use super::{AgentSession, SessionError, SessionManager};

/// A child session and the call of its parent session that started it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildLink {
    /// The child's session id.
    pub child_id: String,
    /// The parent's `task` call id.
    pub parent_call_id: String,
    /// The agent definition it ran (`general`, or a file's `name`).
    pub agent: String,
}

impl Store {
    fn link_child(
        &self,
        child: &str,
        parent: &str,
        call: &str,
        agent: &str,
    ) -> Result<(), SessionError> {
        let sql =
            "INSERT OR REPLACE INTO session_children (child_id, parent_id, parent_call_id, agent)
             VALUES (?1, ?2, ?3, ?4)";
        self.conn
            .prepare_cached(sql)?
            .execute(params![child, parent, call, agent])?;
        Ok(())
    }

    fn children(&self, parent: &str) -> Result<Vec<ChildLink>, SessionError> {
        let sql = "SELECT child_id, parent_call_id, agent FROM session_children
             WHERE parent_id = ?1 ORDER BY rowid";
        let mut statement = self.conn.prepare_cached(sql)?;
        let rows = statement
            .query_map([parent], |row| {
                Ok(ChildLink {
                    child_id: row.get(0)?,
                    parent_call_id: row.get(1)?,
                    agent: row.get(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}

impl SessionManager {
    /// A new session in `cwd` for a subagent started by call `call_id` of
    /// session `parent`: written at once with its link (so `show` finds it
    /// under the call) and left out of session lists.
    ///
    /// Fails with [`SessionError::Io`] when `cwd` cannot be canonicalised.
    pub async fn create_child(
        &self,
        cwd: &Path,
        parent: &str,
        call_id: &str,
        agent: &str,
        title: String,
    ) -> Result<AgentSession, SessionError> {
        let session = self.create(cwd, Some(title)).await?;
        let (child, parent, call, agent) = (
            session.id().to_owned(),
            parent.to_owned(),
            call_id.to_owned(),
            agent.to_owned(),
        );
        self.store()
            .call(move |store| store.link_child(&child, &parent, &call, &agent))
            .await?;
        Ok(session)
    }

    /// The child sessions `parent`'s calls started, oldest first.
    pub async fn children(&self, parent: &str) -> Result<Vec<ChildLink>, SessionError> {
        let parent = parent.to_owned();
        self.store()
            .call(move |store| store.children(&parent))
            .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn a_child_is_found_under_its_parent_and_left_out_of_lists() {
        let dir = tempfile::tempdir().unwrap();
        let manager = SessionManager::open(&dir.path().join("db.sqlite3")).unwrap();
        let parent = manager.create(dir.path(), None).await.unwrap();
        parent
            .append(&crate::protocol::AgentEvent::Output {
                text: "go".into(),
                meta: crate::protocol::Meta::default(),
            })
            .await
            .unwrap();
        let child = manager
            .create_child(dir.path(), parent.id(), "call_1", "general", "look".into())
            .await
            .unwrap();
        child
            .append(&crate::protocol::AgentEvent::Output {
                text: "look".into(),
                meta: crate::protocol::Meta::default(),
            })
            .await
            .unwrap();
        let links = manager.children(parent.id()).await.unwrap();
        assert_eq!(
            links,
            vec![ChildLink {
                child_id: child.id().to_owned(),
                parent_call_id: "call_1".into(),
                agent: "general".into(),
            }]
        );
        let listed: Vec<String> = manager
            .list(Some(dir.path()), 10)
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(listed, vec![parent.id().to_owned()]);
        // Still resolvable by id: a child can be resumed and shown.
        assert_eq!(manager.resolve(child.id()).await.unwrap(), child.id());
    }
}
