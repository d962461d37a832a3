//! `old_string` → `new_string` edits: each edit must match once (or, with
//! `replace_all`, at least once) in the file as it was; edits may not
//! overlap; matching loosens step by step, each step requiring a unique
//! match, and never scores similarity.

use std::fmt;

use super::normalize::{Loosen, Loosened, loosen, strip_line_numbers};
use super::text::{TextFile, line_of};

/// One replacement the model asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The text to find.
    pub old: String,
    /// What replaces it.
    pub new: String,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
}

/// Why a set of edits cannot be applied; the message is for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplaceError {
    /// An edit's `old_string` is empty.
    EmptyOld {
        /// 1-based edit number.
        edit: usize,
    },
    /// An edit changes nothing.
    NoChange {
        /// 1-based edit number.
        edit: usize,
    },
    /// `old_string` was not found; the closest lines of the file, numbered.
    NotFound {
        /// 1-based edit number.
        edit: usize,
        /// Numbered lines of the file that look closest.
        closest: String,
    },
    /// `old_string` was found more than once.
    Ambiguous {
        /// 1-based edit number.
        edit: usize,
        /// Lines where the matches start.
        lines: Vec<usize>,
    },
    /// Two edits change overlapping text.
    Overlap {
        /// 1-based numbers of the two edits.
        edits: (usize, usize),
        /// The line where they overlap.
        line: usize,
    },
}

impl fmt::Display for ReplaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplaceError::EmptyOld { edit } => write!(
                f,
                "edit {edit}: old_string is empty; quote the text to replace (use write to create a file)"
            ),
            ReplaceError::NoChange { edit } => {
                write!(f, "edit {edit}: old_string and new_string are the same")
            }
            ReplaceError::NotFound { edit, closest } => {
                write!(f, "edit {edit}: old_string matched 0 times")?;
                if closest.is_empty() {
                    Ok(())
                } else {
                    write!(f, "; the closest lines are:\n{closest}")
                }
            }
            ReplaceError::Ambiguous { edit, lines } => {
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "edit {edit}: old_string matched {} times (lines {}); include more surrounding lines to make it unique, or set replace_all",
                    lines.len(),
                    lines.join(", ")
                )
            }
            ReplaceError::Overlap { edits, line } => write!(
                f,
                "edits {} and {} overlap at line {line}; merge them into one edit",
                edits.0, edits.1
            ),
        }
    }
}

/// A matched span of the original text and its replacement.
struct Span {
    start: usize,
    end: usize,
    new: String,
    edit: usize,
}

impl Replacement {
    /// Whether it changes nothing (`old` and `new` are the same).
    pub fn is_no_op(&self) -> bool {
        self.old == self.new
    }
}

/// Applies `edits` to `file`, all matched against the text as it was, and
/// returns the new text (line endings of added lines follow the file). An
/// edit that changes nothing is passed over when another one changes
/// something: weak models pad a real edit with such copies, and refusing
/// the call for them would throw the real edit away.
pub fn apply_replacements(file: &TextFile, edits: &[Replacement]) -> Result<String, ReplaceError> {
    let mut views: [Option<Loosened<'_>>; 2] = [None, None];
    let mut spans = Vec::new();
    let changes_something = edits.iter().any(|e| !e.is_no_op());
    for (i, edit) in edits.iter().enumerate() {
        let number = i + 1;
        if edit.old.is_empty() {
            return Err(ReplaceError::EmptyOld { edit: number });
        }
        if edit.is_no_op() {
            if changes_something {
                continue;
            }
            return Err(ReplaceError::NoChange { edit: number });
        }
        spans.extend(find(file, edit, number, &mut views)?);
    }
    spans.sort_by_key(|s| (s.start, s.end));
    for pair in spans.windows(2) {
        if pair[1].start < pair[0].end {
            let (a, b) = (
                pair[0].edit.min(pair[1].edit),
                pair[0].edit.max(pair[1].edit),
            );
            return Err(ReplaceError::Overlap {
                edits: (a, b),
                line: line_of(&file.text, pair[1].start),
            });
        }
    }
    let grown: usize = spans.iter().map(|s| s.new.len()).sum();
    let mut out = String::with_capacity(file.text.len() + grown);
    let mut at = 0;
    for span in &spans {
        out.push_str(&file.text[at..span.start]);
        out.push_str(&span.new);
        at = span.end;
    }
    out.push_str(&file.text[at..]);
    Ok(out)
}

/// The spans of one edit, trying each matching step in turn.
fn find<'t>(
    file: &'t TextFile,
    edit: &Replacement,
    number: usize,
    views: &mut [Option<Loosened<'t>>; 2],
) -> Result<Vec<Span>, ReplaceError> {
    let text = file.text.as_str();
    let stripped_old = strip_line_numbers(&edit.old);
    let stripped_new = strip_line_numbers(&edit.new);
    let plain = (file.with_file_eol(&edit.old), file.with_file_eol(&edit.new));
    let numbered = stripped_old.map(|old| {
        let new = stripped_new.unwrap_or_else(|| edit.new.clone());
        (file.with_file_eol(&old), file.with_file_eol(&new))
    });
    let exact_steps = std::iter::once(&plain).chain(numbered.as_ref());
    for (old, new) in exact_steps {
        let starts: Vec<usize> = text.match_indices(old.as_str()).map(|(at, _)| at).collect();
        if let Some(spans) = decide(file, edit, number, &starts, |at| (at, at + old.len()), new)? {
            return Ok(spans);
        }
    }
    let (old, new) = numbered.as_ref().unwrap_or(&plain);
    let loosenings = [
        Loosen {
            trailing_whitespace: true,
            punctuation: false,
        },
        Loosen {
            trailing_whitespace: true,
            punctuation: true,
        },
    ];
    for (slot, how) in loosenings.into_iter().enumerate() {
        let needle = loosen(old, how);
        if needle.is_empty() {
            continue;
        }
        let view = views[slot].get_or_insert_with(|| Loosened::new(text, how));
        let starts: Vec<usize> = view
            .text
            .match_indices(needle.as_str())
            .map(|(at, _)| at)
            .collect();
        let view = &*view;
        let range = |at: usize| view.original_range(at, at + needle.len());
        if let Some(spans) = decide(file, edit, number, &starts, range, new)? {
            return Ok(spans);
        }
    }
    Err(ReplaceError::NotFound {
        edit: number,
        closest: closest_lines(text, old),
    })
}

/// The spans for one step's matches: `None` to try the next step.
fn decide(
    file: &TextFile,
    edit: &Replacement,
    number: usize,
    starts: &[usize],
    range: impl Fn(usize) -> (usize, usize),
    new: &str,
) -> Result<Option<Vec<Span>>, ReplaceError> {
    match starts.len() {
        0 => Ok(None),
        1 => Ok(Some(spans(starts, range, new, number))),
        _ if edit.replace_all => Ok(Some(spans(starts, range, new, number))),
        _ => Err(ReplaceError::Ambiguous {
            edit: number,
            lines: starts
                .iter()
                .map(|&at| line_of(&file.text, range(at).0))
                .collect(),
        }),
    }
}

fn spans(
    starts: &[usize],
    range: impl Fn(usize) -> (usize, usize),
    new: &str,
    edit: usize,
) -> Vec<Span> {
    starts
        .iter()
        .map(|&at| {
            let (start, end) = range(at);
            Span {
                start,
                end,
                new: new.to_string(),
                edit,
            }
        })
        .collect()
}

/// Up to five numbered lines of `text` around the line that looks most
/// like the first non-blank line of `needle` (a hint for the model, not a
/// match: words in common decide).
pub fn closest_lines(text: &str, needle: &str) -> String {
    let Some(first) = needle.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return String::new();
    };
    let wanted: Vec<&str> = words(first).collect();
    let mut best: Option<(usize, usize)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let score = if trimmed == first {
            usize::MAX
        } else {
            words(trimmed).filter(|w| wanted.contains(w)).count()
        };
        if score > 0 && best.is_none_or(|(_, s)| score > s) {
            best = Some((index, score));
        }
    }
    let Some((index, _)) = best else {
        return String::new();
    };
    let from = index.saturating_sub(2);
    text.lines()
        .enumerate()
        .skip(from)
        .take(5)
        .map(|(i, line)| format!("{} | {}", i + 1, line.trim_end_matches('\r')))
        .collect::<Vec<_>>()
        .join("\n")
}

fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Replacement {
        Replacement {
            old: old.into(),
            new: new.into(),
            replace_all: false,
        }
    }

    fn apply(text: &str, edits: &[Replacement]) -> Result<String, ReplaceError> {
        apply_replacements(&TextFile::decode(text.as_bytes().to_vec()).unwrap(), edits)
    }

    #[test]
    fn exact_edits_apply_against_the_original() {
        let out = apply("a\nb\nc\n", &[edit("a", "b"), edit("b\n", "x\n")]).unwrap();
        assert_eq!(out, "b\nx\nc\n");
    }

    #[test]
    fn crlf_files_keep_crlf_in_added_lines() {
        let out = apply("one\r\ntwo\r\nthree", &[edit("two\n", "2\nzwei\n")]).unwrap();
        assert_eq!(out, "one\r\n2\r\nzwei\r\nthree");
    }

    #[test]
    fn numbered_lines_from_read_file_are_matched() {
        let out = apply(
            "fn a() {\n    b();\n}\n",
            &[edit("2 |     b();", "2 |     c();")],
        )
        .unwrap();
        assert_eq!(out, "fn a() {\n    c();\n}\n");
    }

    #[test]
    fn trailing_whitespace_is_ignored_and_kept() {
        let out = apply(
            "x = 1;   \ny = 2;\n",
            &[edit("x = 1;\ny = 2;", "x = 3;\ny = 4;")],
        )
        .unwrap();
        assert_eq!(out, "x = 3;\ny = 4;\n");
        let out = apply("keep  \t\nz\n", &[edit("keep \nz", "kept\nz")]).unwrap();
        assert_eq!(out, "kept\nz\n");
    }

    #[test]
    fn typographic_punctuation_matches_ascii() {
        let out = apply(
            "say(“hi” — now)\n",
            &[edit("say(\"hi\" - now)", "say(\"bye\")")],
        )
        .unwrap();
        assert_eq!(out, "say(\"bye\")\n");
    }

    #[test]
    fn two_matches_are_refused_with_their_lines() {
        let err = apply("a\nx\na\n", &[edit("a", "b")]).unwrap_err();
        assert_eq!(
            err,
            ReplaceError::Ambiguous {
                edit: 1,
                lines: vec![1, 3]
            }
        );
        assert!(err.to_string().contains("matched 2 times (lines 1, 3)"));
        let all = Replacement {
            replace_all: true,
            ..edit("a", "b")
        };
        assert_eq!(apply("a\nx\na\n", &[all]).unwrap(), "b\nx\nb\n");
    }

    #[test]
    fn a_looser_step_is_never_tried_after_an_ambiguous_one() {
        // Exact: 2 matches → refused, even though nothing else would match.
        assert!(matches!(
            apply("v = 1;\nv = 1;  \n", &[edit("v = 1;", "v = 2;")]),
            Err(ReplaceError::Ambiguous { .. })
        ));
    }

    #[test]
    fn zero_matches_show_the_closest_lines() {
        let err = apply(
            "fn main() {\n    let total = 1;\n}\n",
            &[edit("let totl = 1;", "x")],
        )
        .unwrap_err();
        let ReplaceError::NotFound { closest, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(closest.contains("2 |     let total = 1;"), "{closest}");
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let err = apply("abcdef\n", &[edit("abcd", "x"), edit("cdef", "y")]).unwrap_err();
        assert_eq!(
            err,
            ReplaceError::Overlap {
                edits: (1, 2),
                line: 1
            }
        );
    }

    #[test]
    fn empty_and_no_op_edits_are_refused() {
        assert_eq!(
            apply("a", &[edit("", "b")]),
            Err(ReplaceError::EmptyOld { edit: 1 })
        );
        assert_eq!(
            apply("a", &[edit("a", "a")]),
            Err(ReplaceError::NoChange { edit: 1 })
        );
    }

    #[test]
    fn a_no_op_beside_a_real_edit_is_passed_over() {
        // `greet` matches twice, which would refuse it were it applied.
        let text = "def greet():\n    return 'Hello'\nprint(greet())\n";
        assert_eq!(
            apply(text, &[edit("greet", "greet"), edit("Hello", "Welcome")]).unwrap(),
            "def greet():\n    return 'Welcome'\nprint(greet())\n"
        );
        assert_eq!(
            apply(text, &[edit("greet", "greet"), edit("x", "x")]),
            Err(ReplaceError::NoChange { edit: 1 })
        );
    }

    #[test]
    fn a_missing_final_newline_stays_missing() {
        assert_eq!(apply("a\nlast", &[edit("last", "end")]).unwrap(), "a\nend");
    }
}
