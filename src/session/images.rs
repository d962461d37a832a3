//! The images prompts carried: stored once per content hash in the append
//! transaction of the `input` event that references them, read back by hash
//! for each request that sends them.

use std::sync::Arc;

use rusqlite::{OptionalExtension, Transaction, params};

use super::store::{Store, to_sql_int};
use super::{AgentSession, SessionError};
use crate::protocol::now_millis;

/// An image's bytes as the database keeps them. Cheap to clone.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredImage {
    /// SHA-256 of `data`, lowercase hex (the `ImageRef::hash` of the event).
    pub hash: String,
    /// Its media type, e.g. `image/png`.
    pub media_type: String,
    /// The bytes.
    pub data: Arc<[u8]>,
}

impl std::fmt::Debug for StoredImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredImage")
            .field("hash", &self.hash)
            .field("media_type", &self.media_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// Writes `images` inside `tx`; an image already stored (same hash) is
/// left as it is.
pub(super) fn store_images(tx: &Transaction<'_>, images: &[StoredImage]) -> rusqlite::Result<()> {
    let now = to_sql_int(now_millis());
    let mut insert = tx.prepare_cached(
        "INSERT OR IGNORE INTO images (hash, media_type, data, created_at) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for image in images {
        insert.execute(params![image.hash, image.media_type, &image.data[..], now])?;
    }
    Ok(())
}

impl Store {
    fn image(&self, hash: &str) -> Result<Option<StoredImage>, SessionError> {
        Ok(self
            .conn
            .prepare_cached("SELECT media_type, data FROM images WHERE hash = ?1")?
            .query_row([hash], |row| {
                Ok(StoredImage {
                    hash: hash.to_string(),
                    media_type: row.get(0)?,
                    data: Arc::from(row.get::<_, Vec<u8>>(1)?),
                })
            })
            .optional()?)
    }

    /// How many images are stored (for tests: nothing stored on refusal).
    fn image_count(&self) -> Result<u64, SessionError> {
        let count: i64 = self
            .conn
            .prepare_cached("SELECT COUNT(*) FROM images")?
            .query_row([], |row| row.get(0))?;
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

impl AgentSession {
    /// The stored image with content hash `hash`, if any.
    pub async fn image(&self, hash: &str) -> Result<Option<StoredImage>, SessionError> {
        let hash = hash.to_string();
        self.manager()
            .store()
            .call(move |store| store.image(&hash))
            .await
    }
}

impl super::SessionManager {
    /// How many distinct images the database holds.
    pub async fn image_count(&self) -> Result<u64, SessionError> {
        self.store().call(|store| store.image_count()).await
    }
}
