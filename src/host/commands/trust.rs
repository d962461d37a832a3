//! Whether the project's prompt files may run their shell lines: offered
//! once per content like a `.mcp.json`, remembered in the session
//! database's `project_choices` under [`SUBJECT`] for the directory.

use std::path::Path;

use super::discover::Listing;
use crate::session::{Decision, SessionManager};

/// The subject of the choice in `project_choices`.
pub const SUBJECT: &str = "commands";

/// Where the project's shell-running prompt files stand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// None of the project's files runs a command.
    Nothing,
    /// Accepted in this content.
    Accepted,
    /// Offered in this content and not accepted.
    Declined,
    /// Never decided on in this content.
    Undecided,
}

/// What was decided about the listing's project files as they are now.
pub async fn trust(manager: &SessionManager, cwd: &Path, listing: &Listing) -> Trust {
    let Some(digest) = listing.shell_digest() else {
        return Trust::Nothing;
    };
    match manager.decision(cwd, SUBJECT, &digest).await {
        Ok(Decision::Accepted) => Trust::Accepted,
        Ok(Decision::Declined) => Trust::Declined,
        Ok(Decision::Undecided) => Trust::Undecided,
        Err(e) => {
            tracing::warn!("reading the choice about the project's commands: {e}");
            Trust::Undecided
        }
    }
}

/// Remembers the choice for the listing's project files as they are now;
/// `Ok(false)` when none of them runs a command.
pub async fn decide(
    manager: &SessionManager,
    cwd: &Path,
    listing: &Listing,
    accepted: bool,
) -> Result<bool, String> {
    let Some(digest) = listing.shell_digest() else {
        return Ok(false);
    };
    manager
        .decide(cwd, SUBJECT, &digest, accepted)
        .await
        .map_err(|e| format!("the choice about the project's commands could not be saved: {e}"))?;
    Ok(true)
}

/// The offer shown once: which commands would run what, and how to accept.
pub fn offer(listing: &Listing) -> String {
    format!(
        "this project's prompt files run shell commands before their prompt is sent: {}. They run only after `/commands accept` (remembered for this directory and this content); `/commands decline` keeps them off",
        listing.shell_lines().join("; ")
    )
}
