//! Turning a prompt's parts into what the agent receives: each file
//! reference is read through the confined-open API and added to the text
//! as a fenced block; each image is read (a path) or decoded (inline data)
//! and checked, nothing stored yet.

use std::path::Path;

use crate::agent::image::Image;
use crate::protocol::{ImageSource, MentionState, PromptPart};
use crate::tool::fs::{FileKind, FsRefusalKind, Root};

/// Largest file (or line range) a reference inlines; a larger one becomes a
/// hint to read it with `read_file`.
const INLINE_CAP: usize = 64 * 1024;

/// `text` followed by every text and file part, and the checked images in
/// order; or why a part cannot be used.
pub(super) fn with_parts(
    cwd: &Path,
    text: &str,
    parts: &[PromptPart],
) -> Result<(String, Vec<Image>), String> {
    if parts.is_empty() {
        return Ok((text.to_string(), Vec::new()));
    }
    let root =
        Root::open(cwd).map_err(|e| format!("the working directory cannot be opened: {e}"))?;
    let mut out = text.to_string();
    let mut images = Vec::new();
    for part in parts {
        match part {
            PromptPart::Text { text } => {
                out.push_str("\n\n");
                out.push_str(text);
            }
            PromptPart::Image { source, name } => {
                let image = match source {
                    ImageSource::Path { path } => Image::read(cwd, path, name.clone()),
                    ImageSource::Data { media_type, data } => {
                        let name = name.clone().unwrap_or_else(|| "pasted image".into());
                        Image::from_base64(name, data, media_type)
                    }
                };
                images.push(image.map_err(|e| e.to_string())?);
            }
            PromptPart::File { path, lines } => out.push_str(&file_block(&root, path, *lines)?),
        }
    }
    Ok((out, images))
}

/// Most bytes read of a file to find a line range in it (a range is cut
/// from a file of any size up to this; the range itself must fit
/// [`INLINE_CAP`]).
const RANGE_READ_CAP: usize = 32 * 1024 * 1024;

/// Whether bytes read from the start of a file say it is binary (a NUL
/// byte, as git and ripgrep decide).
fn looks_binary(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// A referenced file (or its lines) as a fenced block under its name.
fn file_block(root: &Root, path: &str, lines: Option<(u32, u32)>) -> Result<String, String> {
    let refused = |e: &dyn std::fmt::Display| format!("@{path}: {e}");
    let rel = root.relative(path).map_err(|e| refused(&e))?;
    let mut file = root.open_file(&rel).map_err(|e| refused(&e))?;
    let cap = if lines.is_some() {
        RANGE_READ_CAP
    } else {
        INLINE_CAP
    };
    let (bytes, cut) = file.read_prefix(cap).map_err(|e| refused(&e))?;
    if looks_binary(&bytes[..bytes.len().min(INLINE_CAP)]) {
        return Err(format!("@{path}: a binary file is not sent as text"));
    }
    let content = String::from_utf8_lossy(&bytes);
    let too_large = |what: String| {
        Ok(format!(
            "\n\n[{what} is larger than {} KiB: read it with read_file]",
            INLINE_CAP / 1024
        ))
    };
    let (label, body) = match lines {
        Some((first, last)) => {
            let (first, last) = (first.max(1), last.max(first.max(1)));
            let body: Vec<&str> = content
                .lines()
                .skip(first as usize - 1)
                .take((last - first + 1) as usize)
                .collect();
            let body = body.join("\n");
            if body.len() > INLINE_CAP {
                return too_large(format!("{path}#L{first}-{last}"));
            }
            (format!("{path}#L{first}-{last}"), body)
        }
        None if cut => return too_large(path.to_string()),
        None => (path.to_string(), content.trim_end().to_string()),
    };
    Ok(format!("\n\n[file {label}]\n```\n{body}\n```"))
}

/// What `path` (relative to the working directory) is for a prompt, found
/// through the confined-open API: a path leading outside is refused before
/// anything is opened, so it is never read.
pub(crate) fn mention_state(root: &Root, path: &str) -> MentionState {
    let by_refusal = |kind: FsRefusalKind| match kind {
        FsRefusalKind::Escape => MentionState::Outside,
        FsRefusalKind::NotFound | FsRefusalKind::Invalid => MentionState::Missing,
        FsRefusalKind::NotRegular => MentionState::Directory,
        _ => MentionState::Unusable,
    };
    let rel = match root.relative(path) {
        Ok(rel) => rel,
        Err(e) => return by_refusal(e.kind),
    };
    let identity = match root.stat(&rel) {
        Ok(Some(identity)) => identity,
        Ok(None) => return MentionState::Missing,
        Err(e) => return by_refusal(e.kind),
    };
    match identity.kind() {
        FileKind::Directory => return MentionState::Directory,
        FileKind::Regular => {}
        _ => return MentionState::Unusable,
    }
    let mut file = match root.open_file(&rel) {
        Ok(file) => file,
        Err(e) => return by_refusal(e.kind),
    };
    match file.read_prefix(INLINE_CAP) {
        Ok((bytes, _)) if looks_binary(&bytes) => MentionState::Binary,
        Ok((_, true)) => MentionState::Large,
        Ok((_, false)) => MentionState::Text,
        Err(_) => MentionState::Unusable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::image::samples;

    fn image_part(path: &str) -> PromptPart {
        PromptPart::Image {
            source: ImageSource::Path { path: path.into() },
            name: None,
        }
    }

    #[test]
    fn image_parts_are_read_and_checked_in_order_and_a_bad_one_refuses_the_prompt() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shot.png"), samples::png(2, 2)).unwrap();
        std::fs::write(dir.path().join("fake.png"), "text").unwrap();
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(samples::gif(1, 1));
        let pasted = PromptPart::Image {
            source: ImageSource::Data {
                media_type: "image/gif".into(),
                data,
            },
            name: None,
        };
        let (text, images) =
            with_parts(dir.path(), "look", &[image_part("shot.png"), pasted]).unwrap();
        assert_eq!(text, "look");
        let names: Vec<(&str, &str)> = images
            .iter()
            .map(|i| {
                (
                    i.reference().name.as_str(),
                    i.reference().media_type.as_str(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [("shot.png", "image/png"), ("pasted image", "image/gif")]
        );

        let refused = with_parts(dir.path(), "look", &[image_part("fake.png")]).unwrap_err();
        assert_eq!(refused, "fake.png is not a PNG, JPEG, GIF or WebP image");
        let missing = with_parts(dir.path(), "look", &[image_part("gone.png")]).unwrap_err();
        assert!(missing.starts_with("gone.png: "), "{missing}");
    }
}
