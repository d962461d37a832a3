//! What the user decided about a project's own settings (a `.mcp.json` that
//! would start programs, say), remembered per directory and per content.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use super::store::{Store, to_sql_int};
use super::{SessionError, SessionManager};
use crate::protocol::now_millis;

/// What was decided about one content of a project's subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The user accepted this content.
    Accepted,
    /// It was offered in this content and not accepted.
    Declined,
    /// Nothing was decided about this content (perhaps about another).
    Undecided,
}

/// A decision about one subject of one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectChoice {
    /// The digest of the content decided on.
    pub digest: String,
    /// Whether the user accepted it.
    pub accepted: bool,
}

impl Store {
    fn project_choice(
        &self,
        project: &str,
        subject: &str,
    ) -> Result<Option<ProjectChoice>, SessionError> {
        let sql =
            "SELECT digest, accepted FROM project_choices WHERE project = ?1 AND subject = ?2";
        Ok(self
            .conn
            .prepare_cached(sql)?
            .query_row(params![project, subject], |row| {
                Ok(ProjectChoice {
                    digest: row.get(0)?,
                    accepted: row.get::<_, i64>(1)? != 0,
                })
            })
            .optional()?)
    }

    fn set_project_choice(
        &self,
        project: &str,
        subject: &str,
        choice: &ProjectChoice,
    ) -> Result<(), SessionError> {
        let sql = "INSERT INTO project_choices (project, subject, digest, accepted, decided_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (project, subject) DO UPDATE SET
                 digest = excluded.digest, accepted = excluded.accepted,
                 decided_at = excluded.decided_at";
        self.conn.prepare_cached(sql)?.execute(params![
            project,
            subject,
            choice.digest,
            i64::from(choice.accepted),
            to_sql_int(now_millis())
        ])?;
        Ok(())
    }
}

impl SessionManager {
    /// What was decided about `subject` of the project in `project` (a
    /// directory, taken in its canonical form), if anything.
    pub async fn project_choice(
        &self,
        project: &Path,
        subject: &str,
    ) -> Result<Option<ProjectChoice>, SessionError> {
        let (project, subject) = (canonical(project).await, subject.to_owned());
        self.store()
            .call(move |store| store.project_choice(&project, &subject))
            .await
    }

    /// What was decided about `subject` of the project in `project` in the
    /// content whose digest is `digest`: a choice about another content
    /// counts for nothing.
    pub async fn decision(
        &self,
        project: &Path,
        subject: &str,
        digest: &str,
    ) -> Result<Decision, SessionError> {
        Ok(match self.project_choice(project, subject).await? {
            Some(choice) if choice.digest == digest && choice.accepted => Decision::Accepted,
            Some(choice) if choice.digest == digest => Decision::Declined,
            _ => Decision::Undecided,
        })
    }

    /// Remembers that the content `digest` of `subject` of the project in
    /// `project` was `accepted` or not, replacing an earlier decision.
    pub async fn decide(
        &self,
        project: &Path,
        subject: &str,
        digest: &str,
        accepted: bool,
    ) -> Result<(), SessionError> {
        let digest = digest.to_owned();
        let choice = ProjectChoice { digest, accepted };
        let (project, subject) = (canonical(project).await, subject.to_owned());
        self.store()
            .call(move |store| store.set_project_choice(&project, &subject, &choice))
            .await
    }
}

async fn canonical(path: &Path) -> String {
    tokio::fs::canonicalize(path)
        .await
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_choice_is_remembered_per_project_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let manager = SessionManager::open(&dir.path().join("db.sqlite")).unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        assert_eq!(manager.project_choice(&a, ".mcp.json").await.unwrap(), None);
        manager.decide(&a, ".mcp.json", "d1", false).await.unwrap();
        let declined = ProjectChoice {
            digest: "d1".into(),
            accepted: false,
        };
        assert_eq!(
            manager.project_choice(&a, ".mcp.json").await.unwrap(),
            Some(declined)
        );
        assert_eq!(manager.project_choice(&b, ".mcp.json").await.unwrap(), None);
        // The same directory by another spelling is the same project.
        manager
            .decide(&a.join("."), ".mcp.json", "d2", true)
            .await
            .unwrap();
        let accepted = ProjectChoice {
            digest: "d2".into(),
            accepted: true,
        };
        assert_eq!(
            manager.project_choice(&a, ".mcp.json").await.unwrap(),
            Some(accepted)
        );
    }
}
