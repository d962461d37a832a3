//! What a prompt is made of: text, images and references to files in the
//! working directory, as a front end sends them.
//!
//! A front end describes each part ([`PromptPart`]); the agent resolves it
//! before the turn starts (an image is read, checked and stored once by
//! content hash; a file reference is read through the confined-open API) and
//! refuses the prompt with a clear reason when a part cannot be used.

use serde::{Deserialize, Serialize};

/// One part of a prompt, as a front end sends it.
///
/// Serialised with a `type` tag in snake_case:
/// `{"type":"text","text":"…"}`, `{"type":"image","path":"shot.png"}`,
/// `{"type":"image","media_type":"image/png","data":"<base64>"}`,
/// `{"type":"file","path":"src/main.rs","lines":[20,45]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PromptPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (PNG, JPEG, GIF or WebP).
    Image {
        /// Where its bytes come from.
        #[serde(flatten)]
        source: ImageSource,
        /// A name to show for it (a file name); the path's name when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A file inside the working directory, or some of its lines.
    File {
        /// The path, relative to the working directory.
        path: String,
        /// First and last line (from 1, inclusive); the whole file when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lines: Option<(u32, u32)>,
    },
}

impl PromptPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

/// Where an image's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ImageSource {
    /// A file (absolute, or relative to the working directory).
    Path {
        /// Its path.
        path: String,
    },
    /// Bytes sent inline.
    Data {
        /// Its media type, e.g. `image/png` (checked against the bytes).
        media_type: String,
        /// The bytes, base64-encoded.
        data: String,
    },
}

/// The text of `parts` alone, joined by blank lines (what a text-only view
/// shows of a prompt).
pub fn parts_text(parts: &[PromptPart]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            PromptPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_their_documented_json_forms() {
        let json = r#"[{"type":"text","text":"look"},
            {"type":"image","path":"shot.png"},
            {"type":"image","media_type":"image/png","data":"iVBO","name":"clip.png"},
            {"type":"file","path":"src/main.rs","lines":[20,45]}]"#;
        let parts: Vec<PromptPart> = serde_json::from_str(json).unwrap();
        assert_eq!(
            parts,
            vec![
                PromptPart::text("look"),
                PromptPart::Image {
                    source: ImageSource::Path {
                        path: "shot.png".into()
                    },
                    name: None
                },
                PromptPart::Image {
                    source: ImageSource::Data {
                        media_type: "image/png".into(),
                        data: "iVBO".into()
                    },
                    name: Some("clip.png".into())
                },
                PromptPart::File {
                    path: "src/main.rs".into(),
                    lines: Some((20, 45))
                },
            ]
        );
        assert_eq!(parts_text(&parts), "look");
    }
}
