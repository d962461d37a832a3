//! One pane per tool call: name, short arguments, the model's intent, a
//! spinner while running, ✓/✗ with the duration, and the first lines of the
//! result.

use std::time::Duration;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::diff_line::DiffLine;
use super::format_duration;
use super::notice::truncate;
use crate::protocol::{ToolCall, ToolOutcome};
use crate::tui::wrap::wrap_line;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// A tool call and, once it finished, its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolPane {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The outcome, once the call finished.
    pub outcome: Option<ToolOutcome>,
    /// How long the call took (None when unknown, e.g. replayed history).
    pub took: Option<Duration>,
    /// The call's live output while it runs (its last lines).
    pub live: Option<String>,
}

impl ToolPane {
    /// A pane for a call that has not finished.
    pub fn new(call: ToolCall) -> Self {
        Self {
            call,
            outcome: None,
            took: None,
            live: None,
        }
    }

    /// Renders the pane. `running_for` is the time since the call started
    /// (shown while running); `tick` animates the spinner.
    pub fn lines(
        &self,
        running_for: Option<Duration>,
        tick: u64,
        preview: usize,
        width: u16,
    ) -> Vec<Line<'static>> {
        let (mark, mark_style) = match &self.outcome {
            None => (
                SPINNER[(tick as usize) % SPINNER.len()],
                Style::new().fg(Color::Cyan),
            ),
            Some(o) if o.is_error => ("✗", Style::new().fg(Color::Red)),
            Some(_) => ("✓", Style::new().fg(Color::Green)),
        };
        let mut head = vec![
            Span::styled(format!("{mark} "), mark_style.add_modifier(Modifier::BOLD)),
            Span::styled(
                self.call.name.clone(),
                Style::new().add_modifier(Modifier::BOLD),
            ),
        ];
        let args = short_args(&self.call);
        if !args.is_empty() {
            head.push(Span::raw(format!(" {args}")));
        }
        if let Some(counts) = self
            .outcome
            .as_ref()
            .filter(|o| !o.is_error)
            .and_then(|o| change_counts(&self.call.name, &o.result))
        {
            head.push(Span::styled(
                format!(" {counts}"),
                Style::new().fg(Color::Green),
            ));
        }
        let time = match (&self.outcome, self.took, running_for) {
            (Some(_), Some(d), _) | (None, _, Some(d)) => Some(format_duration(d)),
            _ => None,
        };
        if let Some(t) = time {
            // No-break spaces while wrapping: the time stays on the row of
            // the last word before it instead of standing alone on a row.
            head.push(Span::styled(
                format!("\u{a0}·\u{a0}{t}"),
                Style::new().fg(Color::DarkGray),
            ));
        }
        let w = width as usize;
        let mut out = plain_spaces(wrap_line(&Line::from(head), w, &[Span::raw("  ")]));
        let gutter = Style::new().fg(Color::DarkGray);
        if let Some(intent) = self.call.intent() {
            let line = Line::from(vec![
                Span::styled("  ↳ ", gutter),
                Span::styled(
                    intent.to_string(),
                    Style::new()
                        .fg(Color::DarkGray)
                        .add_modifier(Modifier::ITALIC),
                ),
            ]);
            out.extend(wrap_line(&line, w, &[Span::raw("    ")]));
        }
        if let (None, Some(live)) = (&self.outcome, &self.live) {
            let lines: Vec<&str> = live.lines().collect();
            let skip = lines.len().saturating_sub(preview);
            for l in &lines[skip..] {
                out.push(Line::from(vec![
                    Span::styled("  ┆ ", gutter),
                    Span::styled(
                        truncate(l, w.saturating_sub(4)),
                        Style::new().fg(Color::DarkGray),
                    ),
                ]));
            }
        }
        if let Some(outcome) = &self.outcome {
            let rows = preview_rows(&self.call.name, outcome);
            for (text, style) in rows.iter().take(preview) {
                out.push(Line::from(vec![
                    Span::styled("  │ ", gutter),
                    Span::styled(truncate(text, w.saturating_sub(4)), *style),
                ]));
            }
            if rows.len() > preview {
                out.push(Line::from(Span::styled(
                    format!("  │ +{} lines", rows.len() - preview),
                    gutter,
                )));
            }
        }
        out
    }
}

/// The rows a finished call's pane previews, each with its style: an
/// applied change's diff (`-`/`+` lines coloured as in the approval
/// overlay, not the numbered excerpt the model gets), else the result's
/// body — a file list without the sizes meant for the model. Rows borrow
/// from the outcome: a live pane is drawn every frame.
fn preview_rows<'a>(tool: &str, outcome: &'a ToolOutcome) -> Vec<(&'a str, Style)> {
    if outcome.is_error {
        let style = Style::new().fg(Color::Red);
        return outcome.result.lines().map(|l| (l, style)).collect();
    }
    if let Some(diff) = &outcome.display {
        return diff
            .lines()
            .filter_map(|line| diff_style(line).map(|style| (line, style)))
            .collect();
    }
    let body = Style::new().fg(Color::Gray);
    preview_lines(&outcome.result)
        .into_iter()
        .map(|l| match tool {
            "tree" => without_size(l),
            _ => l,
        })
        .map(|l| (l, body))
        .collect()
}

/// How a diff line is previewed; the file headers are left out (the
/// pane's head names the file).
fn diff_style(line: &str) -> Option<Style> {
    let style = match DiffLine::of(line) {
        DiffLine::File(_) => return None,
        DiffLine::Hunk(_) => Style::new().fg(Color::Cyan),
        DiffLine::Added(_) => Style::new().fg(Color::Green),
        DiffLine::Removed(_) => Style::new().fg(Color::Red),
        DiffLine::Context(_) => Style::new().fg(Color::Gray),
        DiffLine::Note(_) => Style::new().fg(Color::DarkGray),
    };
    Some(style)
}

/// A `tree` entry without its ` | size: N bytes`.
fn without_size(line: &str) -> &str {
    match line.rsplit_once(" | size: ") {
        Some((entry, size)) if size.ends_with(" bytes") => entry,
        _ => line,
    }
}

/// `rows` with the no-break spaces that held words together while wrapping
/// turned back into plain spaces (terminals and copy-paste expect those).
fn plain_spaces(mut rows: Vec<Line<'static>>) -> Vec<Line<'static>> {
    for span in rows.iter_mut().flat_map(|row| row.spans.iter_mut()) {
        if span.content.contains('\u{a0}') {
            span.content = span.content.replace('\u{a0}', " ").into();
        }
    }
    rows
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// A short form of a call's arguments: grep strings and scope, read_file
/// path and line range, tree path; other tools show their arguments as
/// compact JSON (without `_intent`), cut to 80 columns.
pub fn short_args(call: &ToolCall) -> String {
    let args = &call.args;
    match call.name.as_str() {
        "shell" | "!" => str_arg(args, "command").unwrap_or("?").to_string(),
        "grep" => {
            let strs: Vec<String> = args
                .get("search_strs")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(|s| format!("{s:?}"))
                        .collect()
                })
                .unwrap_or_default();
            let mut out = strs.join(", ");
            if let Some(scope) = str_arg(args, "scope") {
                out.push_str(&format!(" in {scope}"));
            }
            out
        }
        "read_file" => {
            let mut out = str_arg(args, "path").unwrap_or("?").to_string();
            let start = args.get("start_line").and_then(Value::as_u64);
            let end = args.get("end_line").and_then(Value::as_u64);
            match (start, end) {
                (Some(s), Some(e)) => out.push_str(&format!(":{s}-{e}")),
                (Some(s), None) => out.push_str(&format!(":{s}-")),
                (None, Some(e)) => out.push_str(&format!(":1-{e}")),
                (None, None) => {}
            }
            out
        }
        "tree" => str_arg(args, "path").unwrap_or(".").to_string(),
        "edit" | "write" => str_arg(args, "path")
            .or_else(|| str_arg(args, "file_path"))
            .unwrap_or("?")
            .to_string(),
        "apply_patch" => {
            let patch = str_arg(args, "patch")
                .or_else(|| str_arg(args, "input"))
                .unwrap_or("");
            let files: Vec<&str> = patch
                .lines()
                .filter_map(|l| {
                    ["*** Add File:", "*** Update File:", "*** Delete File:"]
                        .iter()
                        .find_map(|p| l.strip_prefix(p))
                })
                .map(str::trim)
                .collect();
            truncate(&files.join(", "), 80)
        }
        "recall_indexed" => str_arg(args, "id").unwrap_or("").to_string(),
        "load_skill" => str_arg(args, "name").unwrap_or("").to_string(),
        _ => match args {
            Value::Object(map) => {
                let rest: serde_json::Map<String, Value> = map
                    .iter()
                    .filter(|(k, _)| k.as_str() != crate::protocol::INTENT_FIELD)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if rest.is_empty() {
                    String::new()
                } else {
                    truncate(&Value::Object(rest).to_string(), 80)
                }
            }
            other => truncate(&other.to_string(), 80),
        },
    }
}

/// `(+5 −2)` from a writing tool's result (`Edited src/a.rs (+5 −2)`).
fn change_counts(tool: &str, result: &str) -> Option<String> {
    if !matches!(tool, "edit" | "write" | "apply_patch") {
        return None;
    }
    let first = result.lines().next()?;
    let at = first.rfind("(+")?;
    first.ends_with(')').then(|| first[at..].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: name.into(),
            args,
        }
    }

    #[test]
    fn writing_tools_show_their_files_and_counts() {
        let edit = call("edit", json!({"path": "src/a.rs", "edits": []}));
        let mut pane = ToolPane::new(edit);
        pane.outcome = Some(ToolOutcome {
            id: "c1".into(),
            name: "edit".into(),
            result: "Edited src/a.rs (+5 −2)\n\n1 | x".into(),
            is_error: false,
            display: None,
        });
        let head: String = pane.lines(None, 0, 3, 80)[0]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(head, "✓ edit src/a.rs (+5 −2)");
        let patch = call(
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** End Patch"}),
        );
        assert_eq!(short_args(&patch), "a, b");
    }

    #[test]
    fn short_args_name_what_each_builtin_looks_at() {
        assert_eq!(
            short_args(&call(
                "grep",
                json!({"search_strs": ["fn main", "x"], "scope": "src"})
            )),
            "\"fn main\", \"x\" in src"
        );
        assert_eq!(
            short_args(&call(
                "read_file",
                json!({"path": "a.rs", "start_line": 3, "end_line": 9})
            )),
            "a.rs:3-9"
        );
        assert_eq!(short_args(&call("tree", json!({}))), ".");
        assert_eq!(
            short_args(&call("other", json!({"_intent": "x", "k": 1}))),
            "{\"k\":1}"
        );
    }
}

/// The lines of a result worth previewing: for the built-in tools' layouts
/// the body after their header (matches, file lines, the file list), else
/// every line.
fn preview_lines(result: &str) -> Vec<&str> {
    let lines: Vec<&str> = result.lines().collect();
    let body_start = lines
        .iter()
        .position(|l| *l == "[content]:" || l.starts_with("Scope: `") || l.starts_with("Files: "));
    match body_start {
        Some(at) => lines[at + 1..]
            .iter()
            .skip_while(|l| l.trim().is_empty())
            .copied()
            .collect(),
        None => lines,
    }
}

#[cfg(test)]
mod preview_tests {
    use super::{preview_lines, preview_rows};
    use crate::protocol::ToolOutcome;

    fn outcome(result: &str, display: Option<&str>) -> ToolOutcome {
        ToolOutcome {
            id: "c1".into(),
            name: "x".into(),
            result: result.into(),
            is_error: false,
            display: display.map(str::to_string),
        }
    }

    fn texts(tool: &str, outcome: &ToolOutcome) -> Vec<String> {
        preview_rows(tool, outcome)
            .into_iter()
            .map(|(t, _)| t.to_string())
            .collect()
    }

    #[test]
    fn an_applied_change_previews_its_diff_not_the_models_excerpt() {
        let applied = outcome(
            "[what]: edit applied\n[content]:\n15 | a\n16 | b\n17 | c\n+1 lines",
            Some("--- a/x.rs\n+++ b/x.rs\n@@ -16,1 +16,1 @@\n-old\n+new\n"),
        );
        assert_eq!(
            texts("edit", &applied),
            ["@@ -16,1 +16,1 @@", "-old", "+new"]
        );
    }

    #[test]
    fn a_tree_previews_its_entries_without_sizes() {
        let tree = outcome("Files: 2\n\n- src/\n  - main.rs | size: 67 bytes", None);
        assert_eq!(texts("tree", &tree), ["- src/", "  - main.rs"]);
        // Another tool's line that merely looks so is left alone.
        let other = outcome("x | size: 3 bytes", None);
        assert_eq!(texts("grep", &other), ["x | size: 3 bytes"]);
    }

    #[test]
    fn built_in_results_preview_their_body_not_their_header() {
        let grep = "## grep match results\n\nSearched for:\n- `fn main`\n\nScope: `.`\n\n- src/main.rs:1\n  fn main() {}";
        assert_eq!(preview_lines(grep), ["- src/main.rs:1", "  fn main() {}"]);
        let read = "[what]: file_content\n[path]: a.rs\n[content]:\n1 | x";
        assert_eq!(preview_lines(read), ["1 | x"]);
        assert_eq!(preview_lines("plain\nresult"), ["plain", "result"]);
        let failed = ToolOutcome {
            is_error: true,
            ..outcome("[what]: bad\nScope: `x`", None)
        };
        assert_eq!(
            texts("grep", &failed),
            ["[what]: bad", "Scope: `x`"],
            "errors from the top"
        );
    }
}
