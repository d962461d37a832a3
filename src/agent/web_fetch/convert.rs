//! A fetched body as text for the model: HTML as markdown (links kept),
//! text, JSON and markdown as they are, anything else refused.

use std::rc::Rc;

use htmd::{HtmlToMarkdown, Node};

/// Deepest element nesting converted. html5ever's scope checks walk the
/// open elements (quadratic in the depth: 50 000 nested `<div>`s take
/// minutes) and htmd walks the tree recursively (a deep one would overflow
/// the stack), so a page nested deeper (a hostile one) is given as its text
/// without its tags instead.
const MAX_DEPTH: usize = 256;

/// How a body is turned into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Converted to markdown.
    Html,
    /// Kept as it is (text, markdown, JSON, XML, source code).
    Text,
    /// Not shown (images, archives, PDFs, …).
    Binary,
}

/// What `content_type` (the header, parameters allowed) says the body is;
/// without a header the body is sniffed.
pub(super) fn kind_of(content_type: Option<&str>, body: &[u8]) -> Kind {
    let Some(header) = content_type else {
        let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
        let head = head.trim_start();
        if head.starts_with("<!doctype html") || head.starts_with("<html") {
            return Kind::Html;
        }
        return if std::str::from_utf8(&body[..body.len().min(4096)]).is_ok()
            || body.len() > 4096 && body[..4096].iter().all(|b| *b != 0)
        {
            Kind::Text
        } else {
            Kind::Binary
        };
    };
    let mime = header
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        m if m.starts_with("text/") => Kind::Text,
        "application/json"
        | "application/xml"
        | "application/javascript"
        | "application/x-yaml"
        | "application/yaml"
        | "application/toml"
        | "application/x-sh"
        | "application/sql" => Kind::Text,
        m if m.ends_with("+json") || m.ends_with("+xml") => Kind::Text,
        _ => Kind::Binary,
    }
}

/// `html` as markdown: links as `[text](href)`, scripts and styles left out.
/// Runs on the calling thread; call it off the async runtime.
pub(super) fn html_to_markdown(html: &str) -> String {
    let converter = HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "head", "iframe",
        ])
        .build();
    if tag_depth(html) > MAX_DEPTH {
        return strip_tags(html);
    }
    let Ok(tree) = converter.html_to_tree(html) else {
        return html.to_string();
    };
    if depth(&tree) > MAX_DEPTH {
        return strip_tags(html);
    }
    converter.tree_to_markdown(&tree)
}

/// How deeply the tree nests, walked without recursion.
fn depth(tree: &Rc<Node>) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(tree.clone(), 0usize)];
    while let Some((node, level)) = stack.pop() {
        deepest = deepest.max(level);
        for child in node.children.borrow().iter() {
            stack.push((child.clone(), level + 1));
        }
    }
    deepest
}

/// Elements whose end tag may be left out or that have none: not counted
/// by [`tag_depth`], which would otherwise see every `<li>` as a level.
const UNCOUNTED: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen", "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup",
    "thead", "tbody", "tfoot", "colgroup", "caption", "rb", "rt", "rtc", "rp", "html", "head",
    "body",
];

/// The deepest nesting of start and end tags in `html`, read in one pass
/// without parsing (tags that close themselves or need no end tag are not
/// counted); a bound the parse cannot exceed by much.
fn tag_depth(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + offset + 1;
        let closing = bytes.get(start) == Some(&b'/');
        let name_start = start + usize::from(closing);
        let name_len = bytes[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'!')
            .count();
        at = name_start + name_len;
        // A tag name starts with a letter (`a < b`, `<3` are text).
        if name_len == 0 || bytes[name_start].is_ascii_digit() {
            continue;
        }
        let name = html[name_start..name_start + name_len].to_ascii_lowercase();
        // `<!doctype>`, `<!-- -->`, `<![CDATA[`: no element.
        if name.starts_with('!') || UNCOUNTED.contains(&name.as_str()) {
            continue;
        }
        let end = memchr::memchr(b'>', &bytes[at..]).map_or(bytes.len(), |e| at + e);
        let self_closing = end > at && bytes[end - 1] == b'/';
        if closing {
            depth = depth.saturating_sub(1);
        } else if !self_closing {
            depth += 1;
            deepest = deepest.max(depth);
        }
    }
    deepest
}

/// `html` without its tags (what lies between `<` and `>`), for a page
/// too deeply nested to convert.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_markdown_with_its_links() {
        let md = html_to_markdown(
            "<html><head><title>t</title><style>p{}</style></head><body><h1>Guide</h1><p>See <a href=\"https://docs.rs/x\">the docs</a>.</p><script>alert(1)</script><ul><li>one</li></ul></body></html>",
        );
        assert!(md.contains("# Guide"), "{md}");
        assert!(md.contains("[the docs](https://docs.rs/x)"), "{md}");
        assert!(md.contains("one"), "{md}");
        assert!(!md.contains("alert") && !md.contains("p{}"), "{md}");
    }

    #[test]
    fn a_page_nested_too_deeply_gives_its_text_without_overflowing() {
        let html = format!(
            "{}deep text{}",
            "<div>".repeat(50_000),
            "</div>".repeat(50_000)
        );
        let text = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || html_to_markdown(&html))
            .unwrap()
            .join()
            .unwrap();
        assert!(text.contains("deep text"));
        assert_eq!(text.trim(), "deep text");
    }

    #[test]
    fn depth_counts_nesting_not_lists_or_void_elements() {
        assert_eq!(tag_depth("<div><span>a</span><br><img src=x/></div>"), 2);
        assert_eq!(tag_depth(&"<li>item".repeat(1000)), 0);
        assert_eq!(tag_depth(&"<p>para<br>".repeat(1000)), 0);
        assert_eq!(tag_depth("<div/><svg/>"), 0);
        assert_eq!(tag_depth(&"<div>".repeat(300)), 300);
        assert_eq!(tag_depth("a < b and <3"), 0);
        assert_eq!(tag_depth(&"<!-- c --><!doctype html>".repeat(500)), 0);
    }

    #[test]
    fn kinds_follow_the_header_then_the_bytes() {
        assert_eq!(kind_of(Some("text/html; charset=utf-8"), b""), Kind::Html);
        assert_eq!(kind_of(Some("text/markdown"), b""), Kind::Text);
        assert_eq!(kind_of(Some("application/json"), b""), Kind::Text);
        assert_eq!(kind_of(Some("application/vnd.api+json"), b""), Kind::Text);
        assert_eq!(kind_of(Some("image/png"), b""), Kind::Binary);
        assert_eq!(kind_of(None, b"  <!DOCTYPE html><p>x"), Kind::Html);
        assert_eq!(kind_of(None, b"plain words"), Kind::Text);
        assert_eq!(kind_of(None, b"\x89PNG\r\n\x1a\n\0\0\xff"), Kind::Binary);
    }
}
