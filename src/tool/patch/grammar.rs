//! The `*** Begin Patch` format: parsing a patch into file operations.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path          (every line of the new file prefixed with +)
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path        (optional, right after Update File)
//! @@ optional context line    (starts a hunk; a bare @@ too)
//!  context line               (space)
//! -removed line
//! +added line
//! *** End of File             (optional: the hunk ends the file)
//! *** End Patch
//! ```

use std::fmt;

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// Unchanged, must be in the file.
    Context(String),
    /// Must be in the file; removed.
    Remove(String),
    /// Inserted.
    Add(String),
}

/// A change to one region of a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The text after `@@`, a line to find before the hunk (often a
    /// function's signature).
    pub anchor: Option<String>,
    /// The hunk's lines in order.
    pub lines: Vec<HunkLine>,
    /// `*** End of File` followed: the hunk's old lines end the file.
    pub end_of_file: bool,
}

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create a file (it must not exist).
    Add {
        /// Where.
        path: String,
        /// The whole content.
        content: String,
    },
    /// Remove a file.
    Delete {
        /// Which.
        path: String,
    },
    /// Change a file, maybe moving it.
    Update {
        /// Which.
        path: String,
        /// Where it goes, if it moves.
        move_to: Option<String>,
        /// The changes, in file order.
        hunks: Vec<Hunk>,
    },
}

impl FileOp {
    /// The path the operation starts from.
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// A patch that does not parse: the 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarError {
    /// The patch line at fault.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "patch line {}: {}", self.line, self.message)
    }
}

/// Parses a patch. Leading and trailing blank lines, and a heredoc wrapper
/// (`<<'EOF'` … `EOF`) that models sometimes copy from shell usage, are
/// tolerated.
pub fn parse_patch(patch: &str) -> Result<Vec<FileOp>, GrammarError> {
    let all: Vec<&str> = patch
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut first = all
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(all.len());
    let mut last = all
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(first, |i| i + 1);
    if first < last && all[first].trim_start().starts_with("<<") && all[last - 1].trim() == "EOF" {
        first += 1;
        last -= 1;
    }
    let error = |line: usize, message: &str| GrammarError {
        line: line + 1,
        message: message.to_string(),
    };
    if all.get(first).map(|l| l.trim()) != Some("*** Begin Patch") {
        return Err(error(first, "a patch starts with `*** Begin Patch`"));
    }
    if last <= first + 1 || all[last - 1].trim() != "*** End Patch" {
        return Err(error(
            last.saturating_sub(1),
            "a patch ends with `*** End Patch`",
        ));
    }
    let lines = &all[first + 1..last - 1];
    let offset = first + 1;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(path) = header(line, "*** Add File:") {
            i += 1;
            let mut content = String::new();
            while i < lines.len() && !lines[i].starts_with("*** ") {
                let Some(added) = lines[i].strip_prefix('+') else {
                    return Err(error(
                        offset + i,
                        "every line of an added file starts with `+`",
                    ));
                };
                content.push_str(added);
                content.push('\n');
                i += 1;
            }
            ops.push(FileOp::Add { path, content });
        } else if let Some(path) = header(line, "*** Delete File:") {
            ops.push(FileOp::Delete { path });
            i += 1;
        } else if let Some(path) = header(line, "*** Update File:") {
            i += 1;
            let mut move_to = None;
            if let Some(to) = lines.get(i).and_then(|l| header(l, "*** Move to:")) {
                move_to = Some(to);
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            while i < lines.len() {
                let line = lines[i];
                if line.trim() == "*** End of File" {
                    match hunks.last_mut() {
                        Some(hunk) => hunk.end_of_file = true,
                        None => return Err(error(offset + i, "`*** End of File` before any hunk")),
                    }
                    i += 1;
                    continue;
                }
                if line.starts_with("*** ") {
                    break;
                }
                if let Some(anchor) = line.strip_prefix("@@") {
                    let anchor = anchor.trim();
                    let anchor = anchor.strip_suffix("@@").map_or(anchor, str::trim);
                    hunks.push(Hunk {
                        anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                        ..Hunk::default()
                    });
                    i += 1;
                    continue;
                }
                if hunks.is_empty() {
                    // The first hunk of a file may omit its `@@`.
                    hunks.push(Hunk::default());
                }
                let hunk = hunks
                    .last_mut()
                    .ok_or_else(|| error(offset + i, "no hunk"))?;
                let parsed = match line.chars().next() {
                    Some('+') => HunkLine::Add(line[1..].to_string()),
                    Some('-') => HunkLine::Remove(line[1..].to_string()),
                    Some(' ') => HunkLine::Context(line[1..].to_string()),
                    None => HunkLine::Context(String::new()),
                    Some(_) => {
                        return Err(error(
                            offset + i,
                            "hunk lines start with ` ` (context), `-` (remove) or `+` (add)",
                        ));
                    }
                };
                hunk.lines.push(parsed);
                i += 1;
            }
            if hunks.iter().all(|h| h.lines.is_empty()) && move_to.is_none() {
                return Err(error(
                    offset + i - 1,
                    &format!("`*** Update File: {path}` has no changes"),
                ));
            }
            if let Some(empty) = hunks.iter().position(|h| h.lines.is_empty()) {
                return Err(error(
                    offset + i - 1,
                    &format!("hunk {} of {path} is empty", empty + 1),
                ));
            }
            ops.push(FileOp::Update {
                path,
                move_to,
                hunks,
            });
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            return Err(error(
                offset + i,
                "expected `*** Add File:`, `*** Delete File:` or `*** Update File:`",
            ));
        }
    }
    if ops.is_empty() {
        return Err(error(first, "the patch changes no file"));
    }
    Ok(ops)
}

fn header(line: &str, prefix: &str) -> Option<String> {
    let path = line.strip_prefix(prefix)?.trim();
    (!path.is_empty()).then(|| path.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_parses() {
        let ops = parse_patch(
            "*** Begin Patch\n*** Add File: new.txt\n+one\n+two\n*** Delete File: old.txt\n*** Update File: a.rs\n*** Move to: b.rs\n@@ fn main() {\n a\n-b\n+c\n*** End of File\n*** End Patch\n",
        )
        .unwrap();
        assert_eq!(
            ops,
            vec![
                FileOp::Add {
                    path: "new.txt".into(),
                    content: "one\ntwo\n".into()
                },
                FileOp::Delete {
                    path: "old.txt".into()
                },
                FileOp::Update {
                    path: "a.rs".into(),
                    move_to: Some("b.rs".into()),
                    hunks: vec![Hunk {
                        anchor: Some("fn main() {".into()),
                        lines: vec![
                            HunkLine::Context("a".into()),
                            HunkLine::Remove("b".into()),
                            HunkLine::Add("c".into())
                        ],
                        end_of_file: true,
                    }],
                },
            ]
        );
    }

    #[test]
    fn heredoc_wrappers_and_missing_first_anchor_are_tolerated() {
        let ops =
            parse_patch("<<'EOF'\n*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End Patch\nEOF")
                .unwrap();
        assert!(matches!(&ops[0], FileOp::Update { hunks, .. } if hunks.len() == 1));
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_patch("*** Begin Patch\n*** Update File: a\n@@\nnope\n*** End Patch")
            .unwrap_err();
        assert_eq!(err.line, 4);
        assert!(
            parse_patch("*** Update File: a")
                .unwrap_err()
                .message
                .contains("Begin Patch")
        );
        assert!(
            parse_patch("*** Begin Patch\n*** Add File: a\n+x")
                .unwrap_err()
                .message
                .contains("End Patch")
        );
        assert!(parse_patch("*** Begin Patch\n*** Add File: a\nx\n*** End Patch").is_err());
        assert!(parse_patch("*** Begin Patch\n*** End Patch").is_err());
    }
}
