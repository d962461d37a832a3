//! A prompt file's text: markdown with optional front matter
//! (`description`, `argument-hint`, `model`; Claude Code's and opencode's
//! format) or gemini-cli's TOML (`prompt`, `description`), and what a run
//! makes of its body — `$ARGUMENTS`, `$1`…`$9` and `{{args}}` replaced by
//! the arguments, shell spans (`` !`cmd` ``, gemini's `!{cmd}`) cut out to
//! be run.

use serde::Deserialize;

/// The two formats a prompt file comes in, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.md`: front matter between `---` lines, then the prompt.
    Markdown,
    /// `.toml`: `prompt = "…"`, `description = "…"`.
    Toml,
}

impl Format {
    /// The format of a file named `name` (`None`: not a prompt file).
    pub fn of(name: &str) -> Option<(Format, &str)> {
        if let Some(stem) = name.strip_suffix(".md") {
            Some((Format::Markdown, stem))
        } else {
            name.strip_suffix(".toml").map(|stem| (Format::Toml, stem))
        }
    }
}

/// A parsed prompt file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptFile {
    /// One line saying what it does.
    pub description: String,
    /// What arguments it takes, as shown after its name.
    pub argument_hint: String,
    /// The model its front matter names (listed, not switched to).
    pub model: Option<String>,
    /// The prompt, before expansion.
    pub body: String,
}

impl PromptFile {
    /// Whether its body runs shell commands before it is sent.
    pub fn runs_shell(&self) -> bool {
        segments(&self.body)
            .iter()
            .any(|s| matches!(s, Segment::Shell(_)))
    }
}

#[derive(Deserialize)]
struct GeminiFile {
    prompt: String,
    #[serde(default)]
    description: String,
}

/// Parses `text` as `format`; `Err` says why it cannot be used.
pub fn parse(format: Format, text: &str) -> Result<PromptFile, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        Format::Toml => {
            let file: GeminiFile = toml::from_str(text).map_err(|e| {
                let first = e.message().lines().next().unwrap_or("").to_owned();
                format!("is not a valid command file: {first}")
            })?;
            Ok(PromptFile {
                description: one_line(&file.description),
                body: file.prompt,
                ..PromptFile::default()
            })
        }
        Format::Markdown => Ok(markdown(text)),
    }
}

/// Front matter (`key: value` lines between `---` lines; other YAML is
/// passed over) and the body after it.
fn markdown(text: &str) -> PromptFile {
    let mut file = PromptFile::default();
    let mut lines = text.split_inclusive('\n');
    let opens = lines.next().is_some_and(|l| l.trim_end() == "---");
    if !opens {
        file.body = text.to_owned();
        return file;
    }
    let mut consumed = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut closed = false;
    for line in lines {
        consumed += line.len();
        let line = line.trim_end();
        if line == "---" {
            closed = true;
            break;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = unquote(value.trim());
        match key.trim() {
            "description" => file.description = one_line(value),
            "argument-hint" | "argument_hint" => file.argument_hint = one_line(value),
            "model" if !value.is_empty() => file.model = Some(value.to_owned()),
            _ => {}
        }
    }
    if !closed {
        // No closing line: it was never front matter.
        return PromptFile {
            body: text.to_owned(),
            ..PromptFile::default()
        };
    }
    file.body = text[consumed.min(text.len())..].to_owned();
    file
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// Control characters out, one line (a description is shown in a popup).
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// A piece of a prompt's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Text sent as it is (after argument expansion).
    Text(String),
    /// A shell command whose output takes its place.
    Shell(String),
}

/// The body cut into text and shell spans: `` !`cmd` `` (Claude Code) and
/// `!{cmd}` with balanced braces (gemini-cli). An unclosed span is text.
pub fn segments(body: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = body;
    while let Some(at) = rest.find('!') {
        let after = &rest[at + 1..];
        let span = if let Some(inner) = after.strip_prefix('`') {
            inner
                .find('`')
                .filter(|&end| end > 0)
                .map(|end| (&inner[..end], at + 2 + end + 1))
        } else if let Some(inner) = after.strip_prefix('{') {
            balanced(inner).map(|end| (&inner[..end], at + 2 + end + 1))
        } else {
            None
        };
        match span {
            Some((command, used)) if !command.trim().is_empty() => {
                text.push_str(&rest[..at]);
                if !text.is_empty() {
                    out.push(Segment::Text(std::mem::take(&mut text)));
                }
                out.push(Segment::Shell(command.to_owned()));
                rest = &rest[used..];
            }
            _ => {
                text.push_str(&rest[..=at]);
                rest = after;
            }
        }
    }
    text.push_str(rest);
    if !text.is_empty() {
        out.push(Segment::Text(text));
    }
    out
}

/// Where the brace closing an opened `{` is in `inner` (nested pairs
/// counted).
fn balanced(inner: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The arguments as words: whitespace-separated, `"…"` or `'…'` keeping
/// spaces inside one word.
pub fn words(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut started = false;
    for c in args.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                started = true;
            }
            None if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            None => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// Whether `text` holds a place for the arguments.
fn has_placeholder(text: &str) -> bool {
    text.contains("$ARGUMENTS")
        || text.contains("{{args}}")
        || (1..=9).any(|n| text.contains(&format!("${n}")))
}

/// `text` with `$ARGUMENTS` / `{{args}}` replaced by `args` and `$1`…`$9`
/// by its words (empty where there are fewer); `quote` wraps each value
/// (shell quoting inside a shell span, so arguments stay arguments).
fn substitute(text: &str, args: &str, words: &[String], quote: fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len() + args.len());
    let mut rest = text;
    while let Some(at) = rest.find(['$', '{']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("$ARGUMENTS") {
            out.push_str(&quote(args));
            rest = after;
        } else if let Some(after) = tail.strip_prefix("{{args}}") {
            out.push_str(&quote(args));
            rest = after;
        } else if let Some(digit) = tail[1..].chars().next().filter(|c| ('1'..='9').contains(c))
            && tail.starts_with('$')
        {
            let n = digit as usize - '1' as usize;
            out.push_str(&quote(words.get(n).map_or("", String::as_str)));
            rest = &tail[2..];
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A value as one shell word (`'…'`, inner quotes escaped).
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// The body's segments with the arguments in place: in text as typed, in
/// shell spans quoted. When the body has no place for them, non-empty
/// arguments follow it as `ARGUMENTS: …` (as Claude Code does).
pub fn expand(body: &str, args: &str) -> Vec<Segment> {
    let args = args.trim();
    let words = words(args);
    let mut out: Vec<Segment> = segments(body)
        .into_iter()
        .map(|segment| match segment {
            Segment::Text(text) => Segment::Text(substitute(&text, args, &words, str::to_owned)),
            Segment::Shell(cmd) => Segment::Shell(substitute(&cmd, args, &words, shell_quote)),
        })
        .collect();
    if !args.is_empty() && !has_placeholder(body) {
        out.push(Segment::Text(format!("\n\nARGUMENTS: {args}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_gives_description_hint_and_model_and_the_rest_is_the_body() {
        let text = "---\ndescription: \"Fix an issue\"\nargument-hint: [issue]\nallowed-tools:\n  - Bash\nmodel: 'gpt-x'\n---\nFix $ARGUMENTS now.\n";
        let file = parse(Format::Markdown, text).unwrap();
        assert_eq!(file.description, "Fix an issue");
        assert_eq!(file.argument_hint, "[issue]");
        assert_eq!(file.model.as_deref(), Some("gpt-x"));
        assert_eq!(file.body, "Fix $ARGUMENTS now.\n");
    }

    #[test]
    fn markdown_without_or_with_unclosed_front_matter_is_all_body() {
        let plain = parse(Format::Markdown, "Review this.\n").unwrap();
        assert_eq!(plain.body, "Review this.\n");
        assert_eq!(plain.description, "");
        let unclosed = parse(Format::Markdown, "---\ndescription: x\nno end").unwrap();
        assert_eq!(unclosed.body, "---\ndescription: x\nno end");
        assert_eq!(unclosed.description, "");
        let crlf = parse(
            Format::Markdown,
            "\u{feff}---\r\ndescription: y\r\n---\r\nbody",
        )
        .unwrap();
        assert_eq!(
            (crlf.description.as_str(), crlf.body.as_str()),
            ("y", "body")
        );
    }

    #[test]
    fn gemini_toml_gives_prompt_and_description_and_a_bad_file_says_why() {
        let file = parse(
            Format::Toml,
            "description = \"Plan it\"\nprompt = \"\"\"\nPlan {{args}}\n\"\"\"\n",
        )
        .unwrap();
        assert_eq!(file.description, "Plan it");
        assert_eq!(file.body, "Plan {{args}}\n");
        let bad = parse(Format::Toml, "description = 3").unwrap_err();
        assert!(bad.starts_with("is not a valid command file"), "{bad}");
    }

    #[test]
    fn arguments_fill_their_places_and_positions() {
        let text = |segments: Vec<Segment>| match segments.as_slice() {
            [Segment::Text(t)] => t.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text(expand("Fix $ARGUMENTS.", "issue-12 fast")),
            "Fix issue-12 fast."
        );
        assert_eq!(
            text(expand("$2 then $1, not $9; cost $0 {{args}}", "a \"b c\"")),
            "b c then a, not ; cost $0 a \"b c\""
        );
        assert_eq!(text(expand("Just do it.", "")), "Just do it.");
        assert_eq!(
            expand("Do it.", "now"),
            [
                Segment::Text("Do it.".into()),
                Segment::Text("\n\nARGUMENTS: now".into())
            ]
        );
    }

    #[test]
    fn shell_spans_are_cut_out_and_their_arguments_quoted() {
        let segments = expand(
            "Status: !`git status` and !{ls {a,b}} but not !this or !`` or !`open",
            "x'y",
        );
        assert_eq!(
            segments,
            [
                Segment::Text("Status: ".into()),
                Segment::Shell("git status".into()),
                Segment::Text(" and ".into()),
                Segment::Shell("ls {a,b}".into()),
                Segment::Text(" but not !this or !`` or !`open".into()),
                Segment::Text("\n\nARGUMENTS: x'y".into()),
            ]
        );
        assert_eq!(
            expand("!`git log $1 $2`", "\"a; rm -rf b\" x"),
            [Segment::Shell("git log 'a; rm -rf b' 'x'".into())]
        );
        assert_eq!(
            expand("!`echo $ARGUMENTS`", "it's"),
            [Segment::Shell(r"echo 'it'\''s'".into())]
        );
        assert!(parse(Format::Markdown, "run !`date`").unwrap().runs_shell());
        assert!(!parse(Format::Markdown, "no shell!").unwrap().runs_shell());
    }
}
