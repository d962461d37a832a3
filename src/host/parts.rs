//! Turning a prompt's parts into the text the agent receives: each file
//! reference is read through the confined-open API and added as a fenced
//! block; images are refused until the agent takes them.

use std::path::Path;

use crate::protocol::PromptPart;
use crate::tool::fs::Root;

/// Largest file (or line range) a reference inlines; a larger one becomes a
/// hint to read it with `read_file`.
const INLINE_CAP: usize = 64 * 1024;

/// `text` followed by every part, or why a part cannot be used.
pub(super) fn with_parts(cwd: &Path, text: &str, parts: &[PromptPart]) -> Result<String, String> {
    if parts.is_empty() {
        return Ok(text.to_string());
    }
    let root =
        Root::open(cwd).map_err(|e| format!("the working directory cannot be opened: {e}"))?;
    let mut out = text.to_string();
    for part in parts {
        match part {
            PromptPart::Text { text } => {
                out.push_str("\n\n");
                out.push_str(text);
            }
            PromptPart::Image { .. } => {
                return Err("images are not supported by this build yet".into());
            }
            PromptPart::File { path, lines } => out.push_str(&file_block(&root, path, *lines)?),
        }
    }
    Ok(out)
}

/// A referenced file (or its lines) as a fenced block under its name.
fn file_block(root: &Root, path: &str, lines: Option<(u32, u32)>) -> Result<String, String> {
    let refused = |e: &dyn std::fmt::Display| format!("@{path}: {e}");
    let rel = root.relative(path).map_err(|e| refused(&e))?;
    let mut file = root.open_file(&rel).map_err(|e| refused(&e))?;
    let (bytes, cut) = file.read_prefix(INLINE_CAP).map_err(|e| refused(&e))?;
    if bytes.contains(&0) {
        return Err(format!("@{path}: a binary file is not sent as text"));
    }
    let content = String::from_utf8_lossy(&bytes);
    let (label, body) = match lines {
        Some((first, last)) => {
            let (first, last) = (first.max(1), last.max(first.max(1)));
            let body: Vec<&str> = content
                .lines()
                .skip(first as usize - 1)
                .take((last - first + 1) as usize)
                .collect();
            (format!("{path}#L{first}-{last}"), body.join("\n"))
        }
        None if cut => {
            return Ok(format!(
                "\n\n[{path} is larger than {} KiB: read it with read_file]",
                INLINE_CAP / 1024
            ));
        }
        None => (path.to_string(), content.trim_end().to_string()),
    };
    Ok(format!("\n\n[file {label}]\n```\n{body}\n```"))
}
