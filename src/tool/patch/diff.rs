//! Unified diffs of one file's change, with `+added −removed` counts and the
//! numbered excerpt the model gets back. Only the changed middle of the two
//! texts (common leading and trailing lines cut off first) is handed to the
//! diff algorithm, so a small edit of a large file costs little.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileDiff {
    /// The unified diff (`---`, `+++`, `@@ -a,b +c,d @@` hunks), lines
    /// without carriage returns. Empty when nothing changed.
    pub unified: String,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The new text around each change, numbered `N | line`, hunks apart
    /// by `…`.
    pub excerpt: String,
}

/// The diff from `old` (at `old_label`, `None` for a new file) to `new`
/// (at `new_label`, `None` for a deleted file).
pub fn diff_texts(
    old_label: Option<&str>,
    new_label: Option<&str>,
    old: &str,
    new: &str,
) -> FileDiff {
    let (start, old_mid, new_mid) = changed_middle(old, new);
    if old_mid.is_empty() && new_mid.is_empty() {
        return FileDiff::default();
    }
    let first_line = text_line_count(&old[..start]);
    let diff = TextDiff::from_lines(old_mid, new_mid);
    let mut out = FileDiff::default();
    let _ = writeln!(
        out.unified,
        "--- {}",
        old_label.map_or("/dev/null".to_string(), |p| format!("a/{p}"))
    );
    let _ = writeln!(
        out.unified,
        "+++ {}",
        new_label.map_or("/dev/null".to_string(), |p| format!("b/{p}"))
    );
    let mut excerpts = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let _ = writeln!(
            out.unified,
            "@@ -{} +{} @@",
            range_label(first_line + old_range.start, old_range.len()),
            range_label(first_line + new_range.start, new_range.len())
        );
        let mut excerpt = String::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let line = change.value();
                let body = line.strip_suffix('\n').unwrap_or(line);
                let body = body.strip_suffix('\r').unwrap_or(body);
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => {
                        out.removed += 1;
                        '-'
                    }
                    ChangeTag::Insert => {
                        out.added += 1;
                        '+'
                    }
                };
                let _ = writeln!(out.unified, "{sign}{body}");
                if !line.ends_with('\n') {
                    out.unified.push_str("\\ No newline at end of file\n");
                }
                if let (Some(n), true) = (change.new_index(), change.tag() != ChangeTag::Delete) {
                    let _ = writeln!(excerpt, "{} | {body}", first_line + n + 1);
                }
            }
        }
        if !excerpt.is_empty() {
            excerpts.push(excerpt.trim_end().to_string());
        }
    }
    out.excerpt = excerpts.join("\n…\n");
    out
}

fn range_label(start0: usize, len: usize) -> String {
    // Unified diffs number an empty range by the line before it.
    if len == 0 {
        format!("{start0},0")
    } else if len == 1 {
        format!("{}", start0 + 1)
    } else {
        format!("{},{len}", start0 + 1)
    }
}

fn text_line_count(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// The byte offset where the differing lines start, and the differing
/// middles of `old` and `new` widened by [`CONTEXT`] lines each side.
fn changed_middle<'a>(old: &'a str, new: &'a str) -> (usize, &'a str, &'a str) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = common_prefix(a, b);
    // Back to the start of the line the first difference is on.
    let mut start = memchr::memrchr(b'\n', &a[..prefix]).map_or(0, |i| i + 1);
    let max_suffix = a.len().min(b.len()) - start;
    let suffix = common_suffix(&a[start..], &b[start..]).min(max_suffix);
    // Forward to the end of the line the last difference is on.
    let mut old_end = a.len() - suffix;
    let mut new_end = b.len() - suffix;
    if let Some(i) = memchr::memchr(b'\n', &a[old_end..]) {
        let extend = (i + 1).min(b.len() - new_end);
        if b[new_end..new_end + extend] == a[old_end..old_end + extend] {
            old_end += extend;
            new_end += extend;
        }
    } else {
        (old_end, new_end) = (a.len(), b.len());
    }
    if old_end - start == 0 && new_end - start == 0 {
        return (start, "", "");
    }
    for _ in 0..CONTEXT {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &a[..start - 1]).map_or(0, |i| i + 1);
    }
    for _ in 0..CONTEXT {
        match memchr::memchr(b'\n', &a[old_end..]) {
            Some(i) => {
                old_end += i + 1;
                new_end += i + 1;
            }
            None => {
                (old_end, new_end) = (a.len(), b.len());
                break;
            }
        }
    }
    (start, &old[start..old_end], &new[start..new_end])
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 4096;
    let len = a.len().min(b.len());
    let mut at = 0;
    while at + CHUNK <= len && a[at..at + CHUNK] == b[at..at + CHUNK] {
        at += CHUNK;
    }
    at + a[at..len]
        .iter()
        .zip(&b[at..len])
        .take_while(|(x, y)| x == y)
        .count()
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 4096;
    let len = a.len().min(b.len());
    let mut n = 0;
    while n + CHUNK <= len
        && a[a.len() - n - CHUNK..a.len() - n] == b[b.len() - n - CHUNK..b.len() - n]
    {
        n += CHUNK;
    }
    n + a[..a.len() - n]
        .iter()
        .rev()
        .zip(b[..b.len() - n].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
        .min(len - n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_change_in_a_large_text_is_numbered_right() {
        let old: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 500\n", "line five hundred\nextra\n");
        let d = diff_texts(Some("f"), Some("f"), &old, &new);
        assert_eq!((d.added, d.removed), (2, 1));
        assert!(
            d.unified
                .starts_with("--- a/f\n+++ b/f\n@@ -497,7 +497,8 @@\n line 497\n"),
            "{}",
            d.unified
        );
        assert!(
            d.unified
                .contains("-line 500\n+line five hundred\n+extra\n line 501\n")
        );
        assert!(d.excerpt.starts_with("497 | line 497\n"), "{}", d.excerpt);
        assert!(d.excerpt.contains("501 | extra"));
    }

    #[test]
    fn new_and_deleted_files() {
        let d = diff_texts(None, Some("n"), "", "a\nb\n");
        assert_eq!((d.added, d.removed), (2, 0));
        assert!(
            d.unified
                .starts_with("--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n"),
            "{}",
            d.unified
        );
        let d = diff_texts(Some("o"), None, "a\n", "");
        assert_eq!((d.added, d.removed), (0, 1));
        assert!(
            d.unified.contains("+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"),
            "{}",
            d.unified
        );
    }

    #[test]
    fn no_final_newline_is_marked_and_identical_texts_give_nothing() {
        let d = diff_texts(Some("f"), Some("f"), "a\nb", "a\nc");
        assert!(
            d.unified
                .ends_with("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"),
            "{}",
            d.unified
        );
        assert_eq!(
            diff_texts(Some("f"), Some("f"), "same\n", "same\n"),
            FileDiff::default()
        );
    }

    #[test]
    fn changes_at_both_ends_and_crlf() {
        let d = diff_texts(Some("f"), Some("f"), "a\r\nb\r\nc\r\n", "A\r\nb\r\nC\r\n");
        assert_eq!((d.added, d.removed), (2, 2));
        assert!(!d.unified.contains('\r'));
        let d = diff_texts(Some("f"), Some("f"), "x\n", "x\ny\n");
        assert_eq!((d.added, d.removed), (1, 0));
    }
}
