//! A change's unified diff (what the writing tools show the user) as ACP
//! `diff` contents: one per file, with its absolute path and the old and
//! new text of the changed hunks (context included), which editors render
//! as a diff view.

use std::path::Path;

use agent_client_protocol_schema::v1::Diff;

/// The files of `unified` (paths relative to `cwd`) as ACP diffs. A new
/// file has no old text; a deleted one an empty new text.
pub fn of_unified(cwd: &Path, unified: &str) -> Vec<Diff> {
    let mut diffs = Vec::new();
    let mut current: Option<FileDiff> = None;
    let mut lines = unified.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(old) = line.strip_prefix("--- ")
            && let Some(new) = lines.peek().and_then(|l| l.strip_prefix("+++ "))
        {
            lines.next();
            diffs.extend(current.take().map(|file| file.finish(cwd)));
            current = Some(FileDiff::new(label(old), label(new)));
            continue;
        }
        let Some(file) = current.as_mut() else {
            continue;
        };
        if line.starts_with("@@") {
            file.hunks += 1;
            if file.hunks > 1 {
                file.old.push(String::new());
                file.new.push(String::new());
            }
        } else if let Some(text) = line.strip_prefix('-') {
            file.old.push(text.to_string());
        } else if let Some(text) = line.strip_prefix('+') {
            file.new.push(text.to_string());
        } else if let Some(text) = line.strip_prefix(' ') {
            file.old.push(text.to_string());
            file.new.push(text.to_string());
        }
    }
    diffs.extend(current.map(|file| file.finish(cwd)));
    diffs
}

/// `a/path` / `b/path` without the prefix; `None` for `/dev/null`.
fn label(text: &str) -> Option<String> {
    let text = text.trim_end();
    if text == "/dev/null" {
        return None;
    }
    let path = text
        .strip_prefix("a/")
        .or_else(|| text.strip_prefix("b/"))
        .unwrap_or(text);
    Some(path.to_string())
}

struct FileDiff {
    old_path: Option<String>,
    new_path: Option<String>,
    old: Vec<String>,
    new: Vec<String>,
    hunks: usize,
}

impl FileDiff {
    fn new(old_path: Option<String>, new_path: Option<String>) -> Self {
        Self {
            old_path,
            new_path,
            old: Vec::new(),
            new: Vec::new(),
            hunks: 0,
        }
    }

    fn finish(self, cwd: &Path) -> Diff {
        let path = self.new_path.or(self.old_path.clone()).unwrap_or_default();
        let new_text = self.new.join("\n");
        let diff = Diff::new(cwd.join(path), new_text);
        match self.old_path {
            Some(_) => diff.old_text(self.old.join("\n")),
            None => diff,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_becomes_a_diff_with_its_absolute_path() {
        let unified = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello\n";
        let diffs = of_unified(Path::new("/w"), unified);
        assert_eq!(diffs.len(), 2);
        assert_eq!(diffs[0].path, Path::new("/w/src/a.rs"));
        assert_eq!(diffs[0].old_text.as_deref(), Some("one\ntwo\nthree"));
        assert_eq!(diffs[0].new_text, "one\nTWO\nthree");
        assert_eq!(diffs[1].path, Path::new("/w/new.txt"));
        assert_eq!(diffs[1].old_text, None);
        assert_eq!(diffs[1].new_text, "hello");
    }

    #[test]
    fn a_deleted_file_has_an_empty_new_text() {
        let diffs = of_unified(
            Path::new("/w"),
            "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
        );
        assert_eq!(diffs[0].path, Path::new("/w/gone.txt"));
        assert_eq!(diffs[0].old_text.as_deref(), Some("bye"));
        assert_eq!(diffs[0].new_text, "");
    }
}
