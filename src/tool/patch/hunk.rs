//! Applying a file's hunks: each hunk's old lines (context and removed) are
//! found after the previous hunk, exactly or loosened (trailing whitespace,
//! then typographic punctuation), and must be found once.

use std::fmt;

use super::grammar::{Hunk, HunkLine};
use super::normalize::{Loosen, loosen};
use super::replace::closest_lines;
use super::text::TextFile;

/// A hunk that does not apply; the message is for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkError {
    /// 1-based hunk number within its file.
    pub hunk: usize,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for HunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hunk {}: {}", self.hunk, self.message)
    }
}

/// One line of the file with its ending (`""` on a last line without one).
struct Line<'a> {
    body: &'a str,
    ending: &'a str,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    text.split_inclusive('\n')
        .map(|line| {
            let body = line
                .strip_suffix("\r\n")
                .or_else(|| line.strip_suffix('\n'))
                .unwrap_or(line);
            Line {
                body,
                ending: &line[body.len()..],
            }
        })
        .collect()
}

const STEPS: [Option<Loosen>; 3] = [
    None,
    Some(Loosen {
        trailing_whitespace: true,
        punctuation: false,
    }),
    Some(Loosen {
        trailing_whitespace: true,
        punctuation: true,
    }),
];

/// The file's lines as each matching step sees them, made on first use.
struct Views<'a> {
    lines: &'a [Line<'a>],
    loosened: [Option<Vec<String>>; 3],
}

impl<'a> Views<'a> {
    fn line(&mut self, step: usize, index: usize) -> &str {
        match STEPS[step] {
            None => self.lines[index].body,
            Some(how) => {
                let lines = self.lines;
                let view = self.loosened[step]
                    .get_or_insert_with(|| lines.iter().map(|l| loosen(l.body, how)).collect());
                &view[index]
            }
        }
    }

    /// Every start at or after `from` where `wanted` (already loosened for
    /// `step`) matches.
    fn find(&mut self, step: usize, from: usize, wanted: &[String]) -> Vec<usize> {
        let len = self.lines.len();
        if wanted.len() > len {
            return Vec::new();
        }
        (from..=len - wanted.len())
            .filter(|&start| (0..wanted.len()).all(|k| self.line(step, start + k) == wanted[k]))
            .collect()
    }
}

/// Applies `hunks` to `file` and returns the new text. Kept lines keep their
/// endings, added lines take the file's, and a missing final newline stays
/// missing.
pub fn apply_hunks(file: &TextFile, hunks: &[Hunk]) -> Result<String, HunkError> {
    let lines = split_lines(&file.text);
    let had_final_newline = lines.last().is_none_or(|l| !l.ending.is_empty());
    let mut views = Views {
        lines: &lines,
        loosened: [None, None, None],
    };
    let mut cursor = 0;
    let mut replacements: Vec<(usize, usize, Vec<&str>)> = Vec::new();
    for (i, hunk) in hunks.iter().enumerate() {
        let number = i + 1;
        let error = |message: String| HunkError {
            hunk: number,
            message,
        };
        if let Some(anchor) = &hunk.anchor {
            let at = find_anchor(&mut views, cursor, anchor).ok_or_else(|| {
                error(format!(
                    "the @@ line `{anchor}` was not found after line {cursor}{}",
                    hint(&file.text, anchor)
                ))
            })?;
            cursor = at + 1;
        }
        let old: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Remove(s) => Some(s.as_str()),
                HunkLine::Add(_) => None,
            })
            .collect();
        let new: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Add(s) => Some(s.as_str()),
                HunkLine::Remove(_) => None,
            })
            .collect();
        let start = if old.is_empty() {
            if hunk.anchor.is_some() {
                cursor
            } else {
                lines.len()
            }
        } else {
            locate(&mut views, cursor, &old, hunk.end_of_file).map_err(|found| {
                error(match found {
                    Found::None => format!(
                        "these lines were not found after line {cursor}:\n{}{}",
                        old.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"),
                        hint(&file.text, old.iter().find(|l| !l.trim().is_empty()).unwrap_or(&"")),
                    ),
                    Found::Many(starts) => format!(
                        "its lines match {} places (lines {}); add context or an @@ line naming the enclosing function",
                        starts.len(),
                        starts.iter().map(|s| (s + 1).to_string()).collect::<Vec<_>>().join(", ")
                    ),
                })
            })?
        };
        cursor = start + old.len();
        replacements.push((start, start + old.len(), new));
    }
    let eol = file.eol.as_str();
    let mut out = String::with_capacity(file.text.len() + 256);
    let mut at = 0;
    for (start, end, new) in &replacements {
        for line in &lines[at..*start] {
            out.push_str(line.body);
            out.push_str(line.ending);
        }
        for line in new {
            out.push_str(line);
            out.push_str(eol);
        }
        at = *end;
    }
    for line in &lines[at..] {
        out.push_str(line.body);
        out.push_str(line.ending);
    }
    if !had_final_newline && !file.text.is_empty() {
        let trimmed = out.strip_suffix(eol).map(str::len);
        if let Some(len) = trimmed {
            out.truncate(len);
        }
    }
    Ok(out)
}

enum Found {
    None,
    Many(Vec<usize>),
}

fn locate(
    views: &mut Views<'_>,
    from: usize,
    old: &[&str],
    end_of_file: bool,
) -> Result<usize, Found> {
    for (step, how) in STEPS.iter().enumerate() {
        let wanted: Vec<String> = old
            .iter()
            .map(|l| match how {
                None => l.to_string(),
                Some(how) => loosen(l, *how),
            })
            .collect();
        let mut starts = views.find(step, from, &wanted);
        if end_of_file {
            let last = views.lines.len().saturating_sub(old.len());
            starts.retain(|&s| s == last);
        }
        match starts.len() {
            0 => continue,
            1 => return Ok(starts[0]),
            _ => return Err(Found::Many(starts)),
        }
    }
    Err(Found::None)
}

/// The first line at or after `from` that is `anchor` (trimmed, loosening
/// step by step).
fn find_anchor(views: &mut Views<'_>, from: usize, anchor: &str) -> Option<usize> {
    STEPS.iter().enumerate().find_map(|(step, how)| {
        let wanted = match how {
            None => anchor.trim().to_string(),
            Some(how) => loosen(anchor, *how).trim().to_string(),
        };
        (from..views.lines.len()).find(|&i| views.line(step, i).trim() == wanted)
    })
}

fn hint(text: &str, needle: &str) -> String {
    let closest = closest_lines(text, needle);
    if closest.is_empty() {
        String::new()
    } else {
        format!("\nthe closest lines are:\n{closest}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::patch::grammar::{FileOp, parse_patch};

    fn apply(text: &str, patch_body: &str) -> Result<String, HunkError> {
        let patch = format!("*** Begin Patch\n*** Update File: f\n{patch_body}\n*** End Patch");
        let ops = parse_patch(&patch).unwrap();
        let FileOp::Update { hunks, .. } = &ops[0] else {
            panic!()
        };
        apply_hunks(&TextFile::decode(text.as_bytes().to_vec()).unwrap(), hunks)
    }

    #[test]
    fn hunks_apply_in_order_with_context() {
        let out = apply("a\nb\nc\nd\nb\n", "@@\n c\n d\n-b\n+B").unwrap();
        assert_eq!(out, "a\nb\nc\nd\nB\n");
    }

    #[test]
    fn anchors_narrow_the_search() {
        let text = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
        let out = apply(text, "@@ fn b() {\n-    x();\n+    y();").unwrap();
        assert_eq!(out, "fn a() {\n    x();\n}\nfn b() {\n    y();\n}\n");
        let err = apply(text, "-    x();\n+    y();").unwrap_err();
        assert!(err.message.contains("match 2 places (lines 2, 5)"), "{err}");
    }

    #[test]
    fn crlf_and_missing_final_newline_are_kept() {
        assert_eq!(
            apply("a\r\nb\r\nc", "-c\n+C\n+D").unwrap(),
            "a\r\nb\r\nC\r\nD"
        );
        assert_eq!(apply("a\r\nb\r\n", " a\n+x").unwrap(), "a\r\nx\r\nb\r\n");
    }

    #[test]
    fn loosened_lines_match() {
        assert_eq!(
            apply("say “hi”   \n", "-say \"hi\"\n+say bye").unwrap(),
            "say bye\n"
        );
    }

    #[test]
    fn a_failing_hunk_is_named() {
        let err = apply("a\nb\nc\n", "@@\n-a\n+A\n@@\n-b\n+B\n@@\n-zzz\n+Z").unwrap_err();
        assert_eq!(err.hunk, 3);
        assert!(err.message.contains("zzz"), "{err}");
    }

    #[test]
    fn end_of_file_hunks_match_the_end() {
        assert_eq!(
            apply("x\ny\nx\n", "-x\n+z\n*** End of File").unwrap(),
            "x\ny\nz\n"
        );
    }
}
