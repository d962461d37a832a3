//! Rewind and fork in the host: the prompts a rewind can go back to
//! (`Op::ListPrompts`), going back (`Op::Rewind`: the conversation as a
//! rewind row the context window honours, the code from the undo journal),
//! and copying the session into a new one (`Op::Fork`).

use crate::protocol::{HostEvent, NoticeLevel, OpId, PromptRow, RewindOutcome};
use crate::session::short_id;

use super::HostError;
use super::actor::Actor;
use super::build;

impl Actor {
    /// Whether the agent runs or holds a job; rewinding or forking then
    /// would race it, so the host says so instead.
    fn busy(&self) -> bool {
        self.agent()
            .is_some_and(|a| a.state().is_running || a.state().queued_prompts > 0)
    }

    /// Answers [`Op::ListPrompts`](crate::protocol::Op::ListPrompts).
    pub(super) async fn list_prompts(&self, op: OpId) -> Result<(), HostError> {
        let prompts = self.session.prompts().await?;
        if prompts.is_empty() {
            self.reply(
                op,
                NoticeLevel::Info,
                "no prompts to rewind to in this session",
            );
            return Ok(());
        }
        let prompts = prompts
            .into_iter()
            .map(|p| PromptRow {
                turn: p.turn,
                text: p.text,
                at: p.at,
                files: p.files,
            })
            .collect();
        self.send(HostEvent::Prompts { op, prompts });
        Ok(())
    }

    /// Goes back to before `turn`'s prompt: the code first (a failure
    /// leaves the conversation as it was), then the conversation, whose
    /// rewound history is shown again before the outcome.
    pub(super) async fn rewind(
        &mut self,
        op: OpId,
        turn: u64,
        conversation: bool,
        code: bool,
    ) -> Result<(), HostError> {
        if self.busy() {
            self.reply(
                op,
                NoticeLevel::Warn,
                "a turn is running; rewind once it ends (Esc interrupts it)",
            );
            return Ok(());
        }
        let prompt = self
            .session
            .prompts()
            .await?
            .into_iter()
            .find(|p| p.turn == turn);
        let Some(prompt) = prompt else {
            self.reply(
                op,
                NoticeLevel::Warn,
                format!("turn {turn} is not in this session's conversation"),
            );
            return Ok(());
        };
        let mut outcome = RewindOutcome {
            turn,
            conversation,
            code,
            ..RewindOutcome::default()
        };
        if code {
            let Some(agent) = self.agent().cloned() else {
                self.reply(op, NoticeLevel::Error, self.why_no_agent());
                return Ok(());
            };
            let report = agent.undo_from_turn(turn).await.map_err(HostError::from)?;
            outcome.restored = report.restored;
            outcome.skipped = report.skipped;
        }
        if conversation {
            self.session.rewind(turn).await?;
            outcome.prompt = prompt.text;
            if let Some(agent) = self.agent() {
                // The window is read again, now without the rewound turns.
                let _ = agent.submit_load();
            }
            match super::sessions::opened(&self.manager, &self.session, None).await {
                Ok((header, recent)) => self.send(HostEvent::SessionOpened { header, recent }),
                Err(e) => self.notice(NoticeLevel::Error, e.to_string()),
            }
            self.send_tokens().await;
            // A plan set in a rewound turn is gone with it.
            self.send_plan().await;
        }
        self.send(HostEvent::Rewound { op, outcome });
        Ok(())
    }

    /// Copies the session (the turns before `before_turn`, or all) into a
    /// new one and opens it.
    pub(super) async fn fork(
        &mut self,
        op: OpId,
        before_turn: Option<u64>,
    ) -> Result<(), HostError> {
        if !self.session.is_written() {
            self.notice(
                NoticeLevel::Info,
                "nothing to fork yet: this session has no turns",
            );
            return Ok(());
        }
        if self.busy() {
            self.reply(
                op,
                NoticeLevel::Warn,
                "a turn is running; fork once it ends (Esc interrupts it)",
            );
            return Ok(());
        }
        let original = self.session.id().to_string();
        let copy = self.manager.fork(&original, before_turn).await?;
        build::claim(&copy, build::FreshHint::Tui).await?;
        self.switch_to(copy).await;
        let what = match before_turn {
            Some(turn) => format!("the turns before {turn} of session"),
            None => "session".to_string(),
        };
        self.reply(
            op,
            NoticeLevel::Info,
            format!(
                "forked {what} {} into {}; the original is unchanged",
                short_id(&original),
                short_id(self.session.id())
            ),
        );
        Ok(())
    }
}
