//! Images as the request builders send them: the base64 text of each
//! image, made once when its bytes are first loaded and shared by every
//! request that carries the image (never re-encoded per request).

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;

/// One image, ready for any wire format. Cheap to clone.
#[derive(Clone, PartialEq, Eq)]
pub struct ImageData {
    /// Its media type, e.g. `image/png`.
    pub media_type: String,
    /// Its bytes in standard base64.
    pub base64: Arc<str>,
}

impl ImageData {
    /// Encodes `bytes` once.
    pub fn new(media_type: impl Into<String>, bytes: &[u8]) -> Self {
        Self {
            media_type: media_type.into(),
            base64: Arc::from(base64::engine::general_purpose::STANDARD.encode(bytes)),
        }
    }

    /// A `data:` URI (what the OpenAI formats take).
    pub fn data_uri(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.base64)
    }
}

impl std::fmt::Debug for ImageData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never megabytes of base64 in a debug line.
        f.debug_struct("ImageData")
            .field("media_type", &self.media_type)
            .field("base64_len", &self.base64.len())
            .finish()
    }
}

/// The images a request carries, by content hash (`ImageRef::hash`).
pub type Images = HashMap<String, ImageData>;
