//! A `session/prompt`'s content blocks as the host's prompt: its text and
//! parts. Files are named only inside the session's directory; a link or
//! an embedded resource elsewhere refuses the whole prompt.

use std::path::{Component, Path, PathBuf};

use agent_client_protocol_schema::v1::{ContentBlock, EmbeddedResourceResource};
use light_agent::protocol::{ImageSource, PromptPart};

/// The prompt's text (its first text block) and its other parts, in order;
/// or why it cannot be sent.
pub fn to_parts(cwd: &Path, blocks: &[ContentBlock]) -> Result<(String, Vec<PromptPart>), String> {
    let mut text: Option<String> = None;
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(block) => match text {
                None => text = Some(block.text.clone()),
                Some(_) => parts.push(PromptPart::text(block.text.clone())),
            },
            ContentBlock::Image(image) => parts.push(PromptPart::Image {
                source: ImageSource::Data {
                    media_type: image.mime_type.clone(),
                    data: image.data.clone(),
                },
                name: image.uri.as_deref().map(file_name),
            }),
            ContentBlock::ResourceLink(link) => parts.push(PromptPart::File {
                path: inside(cwd, &link.uri)?,
                lines: None,
            }),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(resource) => {
                    let path = inside(cwd, &resource.uri)?;
                    // The editor's own copy (maybe unsaved): sent as it is.
                    parts.push(PromptPart::text(format!(
                        "[file {path}]\n```\n{}\n```",
                        resource.text.trim_end()
                    )));
                }
                EmbeddedResourceResource::BlobResourceContents(resource) => {
                    inside(cwd, &resource.uri)?;
                    match resource.mime_type.as_deref() {
                        Some(media) if media.starts_with("image/") => {
                            parts.push(PromptPart::Image {
                                source: ImageSource::Data {
                                    media_type: media.to_string(),
                                    data: resource.blob.clone(),
                                },
                                name: Some(file_name(&resource.uri)),
                            });
                        }
                        _ => {
                            return Err(format!(
                                "{}: only text and image resources can be sent",
                                resource.uri
                            ));
                        }
                    }
                }
                _ => return Err("an unknown kind of embedded resource".into()),
            },
            ContentBlock::Audio(_) => return Err("audio prompts are not supported".into()),
            _ => return Err("an unknown kind of content block".into()),
        }
    }
    let text = text.unwrap_or_default();
    if text.trim().is_empty() && parts.is_empty() {
        return Err("the prompt is empty".into());
    }
    Ok((text, parts))
}

/// `uri` (a `file://` URI or a path) as a path relative to `cwd`, when it
/// names something inside it (lexically; the host opens it beneath `cwd`
/// without following links out).
fn inside(cwd: &Path, uri: &str) -> Result<String, String> {
    let raw = uri.strip_prefix("file://").unwrap_or(uri);
    let decoded = percent_decode(raw);
    let path = Path::new(&decoded);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    match normal.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => Ok(rel.to_string_lossy().into_owned()),
        _ => Err(format!(
            "{uri} is outside the session's directory {}",
            cwd.display()
        )),
    }
}

/// `%XX` escapes of a URI path decoded (invalid ones kept as they are).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn file_name(uri: &str) -> String {
    uri.rsplit('/').next().unwrap_or(uri).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol_schema::v1::ResourceLink;

    #[test]
    fn links_inside_the_directory_become_file_parts_and_others_refuse() {
        let cwd = Path::new("/work/repo");
        let link = |uri: &str| ContentBlock::ResourceLink(ResourceLink::new("f", uri));
        let (text, parts) = to_parts(
            cwd,
            &[
                ContentBlock::from("look"),
                link("file:///work/repo/src/main%20x.rs"),
            ],
        )
        .unwrap();
        assert_eq!(text, "look");
        assert_eq!(
            parts,
            vec![PromptPart::File {
                path: "src/main x.rs".into(),
                lines: None
            }]
        );
        for outside in [
            "file:///etc/passwd",
            "file:///work/repo/../secret",
            "file:///work/repo2/a",
            "../x",
        ] {
            let refused = to_parts(cwd, &[ContentBlock::from("x"), link(outside)]);
            assert!(refused.is_err(), "{outside}");
        }
    }
}
