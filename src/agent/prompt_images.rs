//! A turn's images on their way through the worker: stored with the turn's
//! `input` event, then read back (from memory, else from the session) for
//! every request whose window still holds that event.

use std::collections::HashSet;

use super::image::Image;
use super::worker::Worker;
use crate::ai::{ImageData, Images};
use crate::protocol::AgentEvent;
use crate::session::StoredImage;

impl Worker {
    /// Shows, records and persists a turn's `input` event together with the
    /// bytes of its images (one transaction), and keeps each image's base64
    /// for the requests that follow. Persisting failed → the message for the
    /// `agent_stop(runtime)` that must follow.
    pub(super) async fn commit_input(
        &mut self,
        input: AgentEvent,
        images: Vec<Image>,
    ) -> Result<(), String> {
        if images.is_empty() {
            return self.commit(input).await;
        }
        for image in &images {
            let reference = image.reference();
            self.images
                .entry(reference.hash.clone())
                .or_insert_with(|| ImageData::new(&reference.media_type, image.data()));
        }
        let stored = images
            .iter()
            .map(|image| StoredImage {
                hash: image.reference().hash.clone(),
                media_type: image.reference().media_type.clone(),
                data: image.data().clone(),
            })
            .collect();
        let persisted = match &self.session {
            Some(session) => session
                .append_with_images(&input, stored)
                .await
                .map_err(|e| format!("saving the session failed, so the turn was stopped: {e}")),
            None => Ok(()),
        };
        self.shared.hub.emit(input.clone());
        self.recall.remember(&input);
        self.window.push(input);
        persisted
    }

    /// The base64 of every image `events` reference: kept in memory once
    /// made, else read from the session (after a resume). Images no longer
    /// referenced are dropped from memory; one that cannot be found is left
    /// out (the request carries its placeholder text only).
    pub(super) async fn request_images(&mut self, events: &[AgentEvent]) -> Images {
        let wanted: HashSet<&str> = events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::Input { images, .. } => Some(images),
                _ => None,
            })
            .flatten()
            .map(|image| image.hash.as_str())
            .collect();
        self.images.retain(|hash, _| wanted.contains(hash.as_str()));
        for hash in wanted {
            if self.images.contains_key(hash) {
                continue;
            }
            let Some(session) = &self.session else {
                continue;
            };
            match session.image(hash).await {
                Ok(Some(stored)) => {
                    let data = ImageData::new(stored.media_type, &stored.data);
                    self.images.insert(hash.to_string(), data);
                }
                Ok(None) => tracing::warn!(hash, "an image of the window is not stored"),
                Err(e) => tracing::warn!(hash, "reading an image failed: {e}"),
            }
        }
        self.images.clone()
    }
}
