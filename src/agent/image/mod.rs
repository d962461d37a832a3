//! Images a prompt carries, checked before anything is stored.
//!
//! An [`Image`] can only be made by checking bytes ([`Image::from_bytes`],
//! [`Image::read`]): a supported format by its magic bytes (PNG, JPEG, GIF,
//! WebP — whatever a file's name or a caller's media type claims), at most
//! [`MAX_IMAGE_BYTES`], whole (not cut short), and of sane dimensions
//! (each side from 1 to [`MAX_IMAGE_SIDE`] pixels). Each refusal is an
//! [`ImageError`] whose message names the image and says what is wrong.
//! The agent stores an image's bytes once, by their SHA-256, with the turn's
//! `input` event ([`crate::protocol::ImageRef`]).

mod format;

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::protocol::ImageRef;
use crate::tool::fs::Root;

pub use format::Format;

#[cfg(test)]
pub(crate) use format::samples;

/// Largest image accepted, in bytes (20 MiB: OpenAI's and Gemini's limit
/// for an inline image).
pub const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

/// Largest width or height accepted, in pixels (Anthropic refuses larger
/// images outright; the others scale them down).
pub const MAX_IMAGE_SIDE: u32 = 8_000;

/// Why an image cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// The file could not be opened or read.
    #[error("{name}: {reason}")]
    Unreadable {
        /// The image's name.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// Not PNG, JPEG, GIF or WebP.
    #[error("{name} is not a PNG, JPEG, GIF or WebP image")]
    NotAnImage {
        /// The image's name.
        name: String,
    },
    /// The bytes are another format than the media type sent with them.
    #[error("{name} was sent as {claimed} but is a {actual} image")]
    WrongType {
        /// The image's name.
        name: String,
        /// The media type it came with.
        claimed: String,
        /// The format its bytes are.
        actual: &'static str,
    },
    /// Over [`MAX_IMAGE_BYTES`].
    #[error("{name} is larger than the {} MB an image may have", MAX_IMAGE_BYTES / (1024 * 1024))]
    TooLarge {
        /// The image's name.
        name: String,
    },
    /// The file ends before its image does.
    #[error("{name} is a truncated {format} file (it ends before the image does)")]
    Truncated {
        /// The image's name.
        name: String,
        /// Its format.
        format: &'static str,
    },
    /// A side is 0 or over [`MAX_IMAGE_SIDE`].
    #[error("{name} is {width} x {height} pixels; each side must be 1 to {MAX_IMAGE_SIDE}")]
    Dimensions {
        /// The image's name.
        name: String,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// Inline bytes that are not valid base64.
    #[error("{name}: the image data is not valid base64")]
    BadBase64 {
        /// The image's name.
        name: String,
    },
}

/// A checked image: its reference (hash, media type, name, size) and its
/// bytes. Cheap to clone.
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    reference: ImageRef,
    data: Arc<[u8]>,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the bytes: a debug line of a prompt stays readable.
        f.debug_struct("Image")
            .field("reference", &self.reference)
            .finish_non_exhaustive()
    }
}

impl Image {
    /// Checks `bytes` as an image called `name`; `claimed` is the media type
    /// it came with, if any, which the bytes must match.
    pub fn from_bytes(
        name: impl Into<String>,
        bytes: Vec<u8>,
        claimed: Option<&str>,
    ) -> Result<Image, ImageError> {
        let name = name.into();
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge { name });
        }
        let header = match format::read(&bytes) {
            Ok(header) => header,
            Err(format::Problem::NotAnImage) => return Err(ImageError::NotAnImage { name }),
            Err(format::Problem::Truncated(format)) => {
                return Err(ImageError::Truncated {
                    name,
                    format: format.name(),
                });
            }
        };
        if let Some(claimed) = claimed
            && Format::from_media_type(claimed) != Some(header.format)
        {
            return Err(ImageError::WrongType {
                name,
                claimed: claimed.to_string(),
                actual: header.format.name(),
            });
        }
        let sides = 1..=MAX_IMAGE_SIDE;
        if !sides.contains(&header.width) || !sides.contains(&header.height) {
            return Err(ImageError::Dimensions {
                name,
                width: header.width,
                height: header.height,
            });
        }
        let hash = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Image {
            reference: ImageRef {
                hash,
                media_type: header.format.media_type().to_string(),
                name,
                bytes: bytes.len() as u64,
            },
            data: Arc::from(bytes),
        })
    }

    /// Checks base64 `data` sent inline with `media_type`.
    pub fn from_base64(
        name: impl Into<String>,
        data: &str,
        media_type: &str,
    ) -> Result<Image, ImageError> {
        use base64::Engine as _;
        let name = name.into();
        // Four base64 characters carry three bytes: refuse before decoding.
        if data.len() / 4 * 3 > MAX_IMAGE_BYTES + 3 {
            return Err(ImageError::TooLarge { name });
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|_| ImageError::BadBase64 { name: name.clone() })?;
        Image::from_bytes(name, bytes, Some(media_type))
    }

    /// Reads and checks the image at `path` (absolute, or relative to
    /// `cwd`), named by its file name unless `name` is given. The file is
    /// opened through the confined-open API beneath its own folder (no
    /// symlink as its last component, no FIFO or device) and read up to one
    /// byte past the cap.
    pub fn read(cwd: &Path, path: &str, name: Option<String>) -> Result<Image, ImageError> {
        let full = cwd.join(path);
        let file_name = full.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name
            .or(file_name.clone())
            .unwrap_or_else(|| path.to_string());
        let unreadable = |reason: String| ImageError::Unreadable {
            name: name.clone(),
            reason,
        };
        let (Some(dir), Some(file_name)) = (full.parent(), file_name) else {
            return Err(unreadable("not a file path".into()));
        };
        let root = Root::open(dir).map_err(|e| unreadable(e.to_string()))?;
        let rel = root
            .relative(&file_name)
            .map_err(|e| unreadable(e.to_string()))?;
        let mut file = root
            .open_file(&rel)
            .map_err(|e| unreadable(e.to_string()))?;
        let (bytes, cut) = file
            .read_prefix(MAX_IMAGE_BYTES)
            .map_err(|e| unreadable(e.to_string()))?;
        if cut {
            return Err(ImageError::TooLarge { name });
        }
        Image::from_bytes(name, bytes, None)
    }

    /// What the `input` event records of it.
    pub fn reference(&self) -> &ImageRef {
        &self.reference
    }

    /// Its bytes.
    pub fn data(&self) -> &Arc<[u8]> {
        &self.data
    }
}

#[cfg(test)]
mod tests {
    use super::format::samples;
    use super::*;

    fn refused(bytes: Vec<u8>, claimed: Option<&str>) -> String {
        match Image::from_bytes("shot.png", bytes, claimed) {
            Err(e) => e.to_string(),
            Ok(image) => panic!("accepted: {image:?}"),
        }
    }

    #[test]
    fn a_good_image_is_referenced_by_its_content_hash() {
        let image = Image::from_bytes("a.png", samples::png(2, 2), Some("image/png")).unwrap();
        let again = Image::from_bytes("b.png", samples::png(2, 2), None).unwrap();
        assert_eq!(image.reference().hash, again.reference().hash);
        assert_eq!(image.reference().hash.len(), 64);
        assert_eq!(image.reference().media_type, "image/png");
        assert_eq!(image.reference().bytes, samples::png(2, 2).len() as u64);
        let other = Image::from_bytes("c.png", samples::png(2, 3), None).unwrap();
        assert_ne!(image.reference().hash, other.reference().hash);
    }

    #[test]
    fn each_bad_image_is_refused_with_a_message_saying_why() {
        assert_eq!(
            refused(b"just text".to_vec(), None),
            "shot.png is not a PNG, JPEG, GIF or WebP image"
        );
        assert_eq!(
            refused(samples::jpeg(2, 2), Some("image/png")),
            "shot.png was sent as image/png but is a JPEG image"
        );
        let whole = samples::png(2, 2);
        assert_eq!(
            refused(whole[..whole.len() - 6].to_vec(), None),
            "shot.png is a truncated PNG file (it ends before the image does)"
        );
        assert_eq!(
            refused(samples::png(1, 100_000), None),
            "shot.png is 1 x 100000 pixels; each side must be 1 to 8000"
        );
        assert_eq!(
            refused(samples::gif(0, 5), None),
            "shot.png is 0 x 5 pixels; each side must be 1 to 8000"
        );
        let mut huge = samples::png(2, 2);
        huge.resize(MAX_IMAGE_BYTES + 1, 0);
        assert_eq!(
            refused(huge, None),
            "shot.png is larger than the 20 MB an image may have"
        );
    }

    #[test]
    fn inline_data_is_decoded_and_checked_against_its_media_type() {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(samples::webp(3, 3));
        let image = Image::from_base64("clip", &data, "image/webp").unwrap();
        assert_eq!(image.reference().media_type, "image/webp");
        assert_eq!(
            Image::from_base64("clip", "not base64!", "image/png")
                .unwrap_err()
                .to_string(),
            "clip: the image data is not valid base64"
        );
    }
}
