//! An MCP `tools/call` result as the text the model reads.
//!
//! Works on the result's wire JSON (the spec's shape), so a content kind the
//! SDK adds later still reads as something rather than failing.

use serde_json::Value;

use crate::tool::ToolOutput;

/// Most bytes of one result given to the model; the rest is cut with a note.
pub const OUTPUT_BUDGET: usize = 16 * 1024;

/// The model's view of a `tools/call` result (`CallToolResult` as JSON):
/// text as text, images and audio as `[image: image/png, 1.2 KB]`
/// placeholders, embedded resources and resource links with their URI,
/// `structuredContent` as pretty JSON when the text blocks do not already
/// say it, `isError` as an error output; capped at [`OUTPUT_BUDGET`].
pub fn to_output(result: &Value) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    let blocks = result.get("content").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        parts.push(block_text(block));
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        let repeated = parts
            .iter()
            .any(|text| serde_json::from_str::<Value>(text).is_ok_and(|v| &v == structured));
        if !repeated {
            let pretty = serde_json::to_string_pretty(structured).unwrap_or_default();
            parts.push(pretty);
        }
    }
    let text = cap(parts.join("\n"));
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        ToolOutput::error(if text.is_empty() {
            "the MCP tool reported an error without a message".to_owned()
        } else {
            text
        })
    } else {
        ToolOutput::ok(text)
    }
}

fn block_text(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => field("text").to_owned(),
        kind @ ("image" | "audio") => {
            // base64: four characters carry three bytes.
            let bytes = field("data").len() / 4 * 3;
            format!("[{kind}: {}, {}]", field("mimeType"), size(bytes))
        }
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let get = |name: &str| resource.get(name).and_then(Value::as_str);
            let uri = get("uri").unwrap_or("");
            match (get("text"), get("blob")) {
                (Some(text), _) => format!("[resource: {uri}]\n{text}"),
                (None, Some(blob)) => format!("[resource: {uri}, {}]", size(blob.len() / 4 * 3)),
                (None, None) => format!("[resource: {uri}]"),
            }
        }
        "resource_link" => format!("[resource link: {}]", field("uri")),
        other => format!("[{other} content]"),
    }
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn cap(mut text: String) -> String {
    if text.len() <= OUTPUT_BUDGET {
        return text;
    }
    let total = text.len();
    let mut end = OUTPUT_BUDGET;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!("\n[output cut: {} of {total} bytes shown]", end));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_read_as_text() {
        let out = to_output(&json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "A".repeat(1640), "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
            {"type": "resource", "resource": {"uri": "mem://x", "text": "body"}},
        ]}));
        assert!(!out.is_error);
        assert_eq!(
            out.content,
            "hello\n[image: image/png, 1.2 KB]\n[resource link: file:///a.txt]\n[resource: mem://x]\nbody"
        );
    }

    #[test]
    fn structured_content_only_when_it_adds_something() {
        let same = to_output(
            &json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}),
        );
        assert_eq!(same.content, "{\"a\":1}");
        let new = to_output(&json!({"content": [], "structuredContent": {"a": 1}}));
        assert_eq!(new.content, "{\n  \"a\": 1\n}");
    }

    #[test]
    fn errors_and_budget() {
        let out = to_output(&json!({"content": [{"type": "text", "text": "no"}], "isError": true}));
        assert!(out.is_error);
        let big =
            to_output(&json!({"content": [{"type": "text", "text": "é".repeat(OUTPUT_BUDGET)}]}));
        assert!(big.content.len() < OUTPUT_BUDGET + 100);
        assert!(
            big.content
                .ends_with(&format!("of {} bytes shown]", OUTPUT_BUDGET * 2))
        );
    }
}
