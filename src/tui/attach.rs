//! Images attached in the composer: `-i FILE` at start, a pasted or
//! dropped path to an image file, and Ctrl+V with an image on the
//! clipboard (read in the background by [`super::clipboard`]). Each becomes
//! an `[Image #N name]` chip; its part goes with the prompt while the chip
//! is in the text. The host reads and checks every image (type by its
//! bytes, size, sides) before anything is stored, and refuses the prompt
//! with the reason when one fails.

use base64::Engine as _;

use super::app::App;
use crate::protocol::{ImageSource, NoticeLevel, PromptPart};

/// File name endings taken as images.
const IMAGE_ENDINGS: [&str; 5] = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/// Whether `path` ends like an image file's name.
pub fn is_image_name(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    IMAGE_ENDINGS.iter().any(|end| lower.ends_with(end))
}

/// The image path a pasted text is, when it is one: a single path (quoted,
/// a `file://` URI, or with backslash-escaped spaces, as terminals paste a
/// dropped file) whose name ends like an image's.
pub fn pasted_image_path(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || text.contains('\n') {
        return None;
    }
    let unquoted = ['\'', '"']
        .iter()
        .find_map(|q| text.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)));
    let path = match unquoted {
        Some(inner) => inner.to_string(),
        None => {
            // Unquoted: spaces only when escaped.
            if text.replace("\\ ", "").contains(char::is_whitespace) {
                return None;
            }
            text.replace("\\ ", " ")
        }
    };
    let path = match path.strip_prefix("file://") {
        Some(rest) => rest.replace("%20", " "),
        None => path,
    };
    is_image_name(&path).then_some(path)
}

/// The name a chip shows for `path`: its last component.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl App {
    /// Attaches the image file at `path` as a chip.
    pub(crate) fn attach_image_path(&mut self, path: &str) {
        let part = PromptPart::Image {
            source: ImageSource::Path {
                path: path.to_string(),
            },
            name: None,
        };
        self.composer.attach_image(file_name(path), part);
    }

    /// A paste: a path to an image file becomes a chip, anything else goes
    /// into the composer.
    pub(crate) fn paste_into_composer(&mut self, text: &str) {
        match pasted_image_path(text) {
            Some(path) => self.attach_image_path(&path),
            None => self.composer.paste(text),
        }
    }

    /// What the clipboard gave for Ctrl+V: an image becomes a chip, a
    /// failure a notice naming the reason.
    pub(crate) fn on_clipboard(&mut self, read: Result<Vec<u8>, String>) {
        match read {
            Ok(bytes) => {
                self.clipboard_images += 1;
                let name = format!("clipboard-{}.png", self.clipboard_images);
                let part = PromptPart::Image {
                    source: ImageSource::Data {
                        media_type: "image/png".into(),
                        data: base64::engine::general_purpose::STANDARD.encode(bytes),
                    },
                    name: Some(name.clone()),
                };
                self.composer.attach_image(&name, part);
            }
            Err(why) => self.notice(NoticeLevel::Warn, &why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_or_dropped_image_path_is_recognised() {
        assert_eq!(
            pasted_image_path("/tmp/shot.png"),
            Some("/tmp/shot.png".into())
        );
        assert_eq!(
            pasted_image_path("'/tmp/my shot.PNG'"),
            Some("/tmp/my shot.PNG".into())
        );
        assert_eq!(
            pasted_image_path("/tmp/my\\ shot.jpg "),
            Some("/tmp/my shot.jpg".into())
        );
        assert_eq!(
            pasted_image_path("file:///tmp/a%20b.webp"),
            Some("/tmp/a b.webp".into())
        );
        assert_eq!(pasted_image_path("see /tmp/shot.png"), None);
        assert_eq!(pasted_image_path("/tmp/notes.txt"), None);
        assert_eq!(pasted_image_path("a.png\nb.png"), None);
    }
}
