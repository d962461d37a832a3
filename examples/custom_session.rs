//! A `SessionManager` round trip: create a session for a directory, append
//! events, find it again as the directory's latest, and read it back.
//!
//! ```sh
//! cargo run --example custom_session
//! ```

use light_agent::protocol::{AgentEvent, InputSource, Meta, StopCause};
use light_agent::session::SessionManager;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("light-agent-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let manager = SessionManager::open(&dir.join("sessions.sqlite3"))?;

    let session = manager.create(&dir, Some("example".into())).await?;
    let meta = Meta::new(1, 1);
    session
        .append(&AgentEvent::Input {
            images: Vec::new(),
            text: "hello".into(),
            source: InputSource::User,
            meta,
        })
        .await?;
    session
        .append(&AgentEvent::Output {
            text: "hi there".into(),
            meta,
        })
        .await?;
    session
        .append(&AgentEvent::AgentStop {
            cause: StopCause::Done,
            message: String::new(),
            meta,
        })
        .await?;

    let latest = manager
        .open_latest(&dir)
        .await?
        .ok_or_else(|| anyhow::anyhow!("no session found"))?;
    assert_eq!(latest.id(), session.id());
    for event in latest.load_all().await? {
        println!("{}", serde_json::to_string(&event)?);
    }
    for info in manager.list(Some(&dir), 10).await? {
        println!(
            "{} {:?} {} turns, {} events",
            info.id, info.title, info.turns, info.events
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
