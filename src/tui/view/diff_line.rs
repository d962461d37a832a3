//! What one line of a unified diff is: the one reading of the format that
//! every view colouring a diff (the approval overlay, the transcript) uses.

/// A unified-diff line by its kind; the text is the line without its `+`,
/// `-` or ` ` marker (whole for the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLine<'a> {
    /// `--- a/…` or `+++ b/…`.
    File(&'a str),
    /// `@@ -12,3 +12,4 @@`.
    Hunk(&'a str),
    /// A line the change adds.
    Added(&'a str),
    /// A line the change removes.
    Removed(&'a str),
    /// An unchanged line around the change.
    Context(&'a str),
    /// Anything else (`\ No newline at end of file`, a summary).
    Note(&'a str),
}

impl DiffLine<'_> {
    /// Reads one line (without its newline).
    pub fn of(line: &str) -> DiffLine<'_> {
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            DiffLine::File(line)
        } else if line.starts_with("@@ ") {
            DiffLine::Hunk(line)
        } else if let Some(text) = line.strip_prefix('+') {
            DiffLine::Added(text)
        } else if let Some(text) = line.strip_prefix('-') {
            DiffLine::Removed(text)
        } else if let Some(text) = line.strip_prefix(' ') {
            DiffLine::Context(text)
        } else {
            DiffLine::Note(line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DiffLine;

    #[test]
    fn each_kind_of_line_is_told_apart() {
        assert_eq!(DiffLine::of("--- a/x.rs"), DiffLine::File("--- a/x.rs"));
        assert_eq!(DiffLine::of("+++ b/x.rs"), DiffLine::File("+++ b/x.rs"));
        assert_eq!(DiffLine::of("@@ -1 +1 @@"), DiffLine::Hunk("@@ -1 +1 @@"));
        assert_eq!(DiffLine::of("+new"), DiffLine::Added("new"));
        assert_eq!(DiffLine::of("---x"), DiffLine::Removed("--x"));
        assert_eq!(DiffLine::of(" same"), DiffLine::Context("same"));
        assert_eq!(
            DiffLine::of("\\ No newline at end of file"),
            DiffLine::Note("\\ No newline at end of file")
        );
    }
}
