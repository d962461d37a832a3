//! Sessions in the interactive host: which one to start in, what is shown
//! when one opens, switching to another, and the picker's rows.

use crate::protocol::AgentEvent;
use crate::protocol::{
    HostEvent, NoticeLevel, Plan, SessionHeader, SessionRow, TokenTotals, UPDATE_PLAN,
};
use crate::session::{AgentSession, CallQuery, SessionInfo, SessionManager, short_id};

use super::HostError;

type Result<T, E = HostError> = std::result::Result<T, E>;

use super::HostConfig;
use super::actor::Actor;
use super::build::{self, SessionChoice};

/// Events of the latest session printed into scrollback at start.
const RECENT_EVENTS: usize = 400;
/// Most sessions a picker or report lists.
const LISTED: usize = 200;

/// The session to start in, claimed for this process. A session busy in
/// another live process (or that cannot be opened) is left alone and a
/// fresh one is started, with a note saying so. Fails only when not even a
/// fresh session can be made (the directory vanished).
pub(super) async fn start_session(
    manager: &SessionManager,
    config: &HostConfig,
) -> Result<(AgentSession, Option<String>)> {
    if let Some(session) = &config.session {
        return Ok((session.clone(), None));
    }
    let opened = build::open_session(
        manager,
        &config.cwd,
        &config.choice,
        None,
        build::FreshHint::Interactive,
    )
    .await;
    match opened {
        Ok((session, _)) => Ok((session, None)),
        Err(e) => {
            let note = match &config.choice {
                SessionChoice::Latest => {
                    format!("the latest session is not available ({e}); started a new one")
                }
                _ => format!("{e}; started a new session"),
            };
            let fresh = manager.draft(&config.cwd, None).await?;
            fresh.claim().await?;
            Ok((fresh, Some(note)))
        }
    }
}

/// The header and recent events shown when `session` opens.
pub(super) async fn opened(
    manager: &SessionManager,
    session: &AgentSession,
    note: Option<String>,
) -> Result<(SessionHeader, Vec<AgentEvent>)> {
    if !session.is_written() {
        let header = SessionHeader {
            id: session.id().to_string(),
            note,
            ..SessionHeader::default()
        };
        return Ok((header, Vec::new()));
    }
    let info = manager.info(session.id()).await?;
    let recent = session.load_tail(RECENT_EVENTS).await?;
    let header = SessionHeader {
        id: info.id.clone(),
        title: info.title.clone().unwrap_or_default(),
        updated_at: info.updated_at,
        turns: info.turns,
        note,
    };
    Ok((header, recent))
}

/// The tokens `session` used so far. It reads every event of the log (about
/// 150 ms for 100 000 events), so it runs after the session is shown and
/// its load is queued.
pub(super) async fn tokens(session: &AgentSession) -> Result<TokenTotals> {
    let mut tokens = TokenTotals::default();
    for turn in session.usage_by_turn().await? {
        tokens.add(turn.input, turn.output, turn.cached);
    }
    Ok(tokens)
}

/// The plan the session's latest accepted `update_plan` call set, in a
/// turn no rewind hid. Only a session that ever called it is read whole.
pub(super) async fn plan(session: &AgentSession) -> Result<Plan> {
    if !session.is_written() {
        return Ok(Plan::default());
    }
    let calls = session
        .search_calls(CallQuery {
            tool: Some(UPDATE_PLAN.into()),
            limit: 1,
            ..CallQuery::default()
        })
        .await?;
    if calls.total == 0 {
        return Ok(Plan::default());
    }
    let rewinds = session.rewinds().await?;
    let mut events = session.load_all().await?;
    events.retain(|e| !rewinds.iter().any(|r| r.hides(e.meta().turn)));
    Ok(Plan::latest(&events).unwrap_or_default())
}

/// A picker or report row for a session.
pub(super) fn row(s: SessionInfo) -> SessionRow {
    SessionRow {
        id: s.id,
        title: s.title.unwrap_or_default(),
        cwd: s.cwd.display().to_string(),
        updated_at: s.updated_at,
        turns: s.turns,
    }
}

/// Sessions of `cwd` (or of every directory), newest first.
pub(super) async fn rows(
    manager: &SessionManager,
    cwd: Option<&std::path::Path>,
) -> Result<Vec<SessionRow>> {
    Ok(manager
        .list(cwd, LISTED)
        .await?
        .into_iter()
        .map(row)
        .collect())
}

impl Actor {
    /// Opens the session `input` names (full id or short-id prefix) if it
    /// belongs to this directory and no other process runs it.
    pub(super) async fn resume(&mut self, input: &str) -> Result<()> {
        let id = self.manager.resolve(input).await?;
        if id == self.session.id() {
            self.notice(NoticeLevel::Info, "this session is already open");
            return Ok(());
        }
        let info = self.manager.info(&id).await?;
        if info.cwd != self.config.cwd {
            // Its tools and files belong to that directory.
            let text = format!(
                "session {short} belongs to {dir}; continue it there: cd {dir} && light-agent resume {short}",
                short = short_id(&id),
                dir = info.cwd.display()
            );
            self.notice(NoticeLevel::Warn, text);
            return Ok(());
        }
        let session = self.manager.open_session(&id).await?;
        build::claim(&session, build::FreshHint::Tui).await?;
        self.switch_to(session).await;
        Ok(())
    }

    /// Opens the picker over this directory's sessions.
    pub(super) async fn offer_sessions(&mut self) {
        match rows(&self.manager, Some(&self.config.cwd)).await {
            Ok(rows) if rows.is_empty() => {
                self.notice(NoticeLevel::Info, "no earlier sessions in this directory")
            }
            Ok(rows) => self.send(HostEvent::Sessions { rows }),
            Err(e) => self.notice(NoticeLevel::Error, e.to_string()),
        }
    }
}
