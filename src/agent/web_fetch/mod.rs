//! `web_fetch`: a URL's content for the model, fetched through
//! [`crate::ai::web`] (addresses checked after resolution, redirects
//! followed here, each hop checked and its host asked about), HTML as
//! markdown, at most 5 MiB read. With `prompt` and a small model configured
//! the answer of one call to it over the page is returned instead.

mod convert;

use std::collections::HashSet;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::ai::web::{Hop, Page, WebClient, WebError, WebUrl};
use crate::ai::{Adaptor, TextRequest};
use crate::permission::GateRequest;
use crate::protocol::{ApprovalDetail, ApprovalRequest, ToolCall};
use crate::tool::{Tool, ToolContext, ToolOutput};

use convert::Kind;

/// Most redirects followed.
pub const MAX_REDIRECTS: usize = 5;
/// Most bytes of the page the small model reads to answer a `prompt`.
const PROMPT_TEXT_BYTES: usize = 200 * 1024;
/// The tool's name.
pub const NAME: &str = "web_fetch";

// Arguments of `web_fetch`. No doc comments on purpose: the schema is sent
// with every request (the description says what they are).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WebFetchArgs {
    pub url: String,
    #[serde(default)]
    pub prompt: Option<String>,
}

/// The `web_fetch` tool.
pub struct WebFetchTool {
    client: WebClient,
    small_model: Option<Arc<dyn Adaptor>>,
}

impl WebFetchTool {
    /// The tool over `client`; `small_model` answers a call's `prompt`
    /// (without one the prompt is ignored and the page returned).
    pub fn new(client: WebClient, small_model: Option<Arc<dyn Adaptor>>) -> Self {
        Self {
            client,
            small_model,
        }
    }
}

impl Tool for WebFetchTool {
    type Args = WebFetchArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "GET an http(s) URL (never one with secrets in it): HTML as markdown, at most 5 MB. prompt: a \
         question a small model answers from the page (ignored if none is set)."
    }

    async fn execute(&self, args: WebFetchArgs, ctx: ToolContext) -> ToolOutput {
        let first = match WebUrl::parse(&args.url) {
            Ok(url) => url,
            Err(e) => return refused(&e),
        };
        let mut url = first.clone();
        let mut visited = vec![url.clone()];
        let mut allowed: HashSet<String> = HashSet::new();
        loop {
            let host = url.host();
            if !allowed.contains(&host) {
                let approval = ApprovalRequest {
                    call_id: ctx.call_id.clone(),
                    tool: NAME.to_string(),
                    title: format!("fetch from {host}"),
                    detail: ApprovalDetail::Web {
                        url: url.to_string(),
                        host: host.clone(),
                    },
                };
                let gate = GateRequest::Web { host: host.clone() };
                if let Err(denied) = ctx.permits.request(gate, approval).await {
                    return ToolOutput::error(format!(
                        "[what]: {}\n[url]: {url}\n[how]: fetch nothing from {host} unless the user allows it",
                        denied.message
                    ));
                }
                allowed.insert(host);
            }
            match self.client.get(&url, &ctx.cancel).await {
                Err(e) => return failed(&e, &url, &visited),
                Ok(Hop::Redirect { status, to }) => {
                    if visited.contains(&to) {
                        return ToolOutput::error(format!(
                            "[what]: redirect loop: {to} was already visited\n[chain]: {}",
                            chain(&visited)
                        ));
                    }
                    if visited.len() > MAX_REDIRECTS {
                        return ToolOutput::error(format!(
                            "[what]: more than {MAX_REDIRECTS} redirects (the last, {status}, to {to})\n[chain]: {}",
                            chain(&visited)
                        ));
                    }
                    visited.push(to.clone());
                    url = to;
                }
                Ok(Hop::Page(page)) => {
                    return self.answer(page, &visited, args.prompt, &ctx).await;
                }
            }
        }
    }
}

impl WebFetchTool {
    /// The page as text, with a header naming where it came from, or the
    /// small model's answer to `prompt` over it.
    async fn answer(
        &self,
        page: Page,
        visited: &[WebUrl],
        prompt: Option<String>,
        ctx: &ToolContext,
    ) -> ToolOutput {
        let kind = convert::kind_of(page.content_type.as_deref(), &page.body);
        let shown_type = page.content_type.as_deref().unwrap_or("no Content-Type");
        if kind == Kind::Binary {
            return ToolOutput::error(format!(
                "[what]: {shown_type} content is not text and was not shown ({} bytes read)\n[url]: {}",
                page.body.len(),
                chain(visited)
            ));
        }
        let Page {
            status,
            body,
            cut,
            length,
            ..
        } = page;
        let converted = tokio::task::spawn_blocking(move || {
            let text = String::from_utf8_lossy(&body);
            match kind {
                Kind::Html => convert::html_to_markdown(&text),
                _ => text.into_owned(),
            }
        });
        let text = tokio::select! {
            () = ctx.cancel.cancelled() => return ToolOutput::error("interrupted"),
            done = converted => match done {
                Ok(text) => text,
                Err(_) => return ToolOutput::error("[what]: the page could not be converted"),
            },
        };
        let mut header = format!(
            "[url]: {}\n[status]: {status}\n[type]: {shown_type}",
            chain(visited)
        );
        if kind == Kind::Html {
            header.push_str(", as markdown");
        }
        if cut {
            let max = self.client.options().max_bytes;
            let of = length
                .map(|n| format!(" of {}", size(n as usize)))
                .unwrap_or_default();
            header.push_str(&format!(
                "\n[cut]: only the first {}{of} were read; the rest of the page is not here",
                size(max)
            ));
        }
        if !(200..300).contains(&status) {
            return ToolOutput::error(format!("{header}\n[what]: HTTP {status}\n\n{text}"));
        }
        let question = prompt.as_deref().map(str::trim).filter(|p| !p.is_empty());
        if let (Some(question), Some(model)) = (question, &self.small_model) {
            return ask_small_model(model.as_ref(), question, &header, &text, ctx).await;
        }
        ToolOutput::ok(format!("{header}\n\n{text}"))
    }
}

/// One call of the small model over the page's text.
async fn ask_small_model(
    model: &dyn Adaptor,
    question: &str,
    header: &str,
    text: &str,
    ctx: &ToolContext,
) -> ToolOutput {
    let mut end = text.len().min(PROMPT_TEXT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let request = TextRequest {
        system_prompt: "Answer the question from the web page below only, briefly, quoting exact code, names and numbers. Say so when the page does not answer it.".into(),
        prompt: format!("<page>\n{}\n</page>\n\nQuestion: {question}", &text[..end]),
    };
    let answer = tokio::select! {
        () = ctx.cancel.cancelled() => return ToolOutput::error("interrupted"),
        answer = model.generate_text(request) => answer,
    };
    match answer {
        Ok(answer) => ToolOutput::ok(format!(
            "{header}\n[answered by]: {} (the page itself: fetch it without prompt)\n\n{}",
            model.model(),
            answer.text.trim()
        )),
        Err(e) => ToolOutput::error(format!(
            "{header}\n[what]: the small model could not answer: {}\n[how]: fetch again without prompt",
            e.message
        )),
    }
}

/// Replaces the `user:pass@` of a `web_fetch` call's URL with `***@`
/// before the call is recorded, so a model's credentials reach neither the
/// session store, nor the log of the next request, nor any screen; the tool
/// then refuses the URL as one with credentials.
pub(crate) fn scrub_call(call: &mut ToolCall) {
    if call.name != NAME {
        return;
    }
    let Some(url) = call.args.get_mut("url") else {
        return;
    };
    if let Some(text) = url.as_str()
        && let Some(scrubbed) = without_userinfo(text)
    {
        *url = serde_json::Value::String(scrubbed);
    }
}

/// `text` with the userinfo of its authority replaced by `***`; `None`
/// when it has none.
fn without_userinfo(text: &str) -> Option<String> {
    let (scheme, rest) = text.split_once("://")?;
    let authority_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let (_, host) = rest[..authority_end].rsplit_once('@')?;
    Some(format!("{scheme}://***@{host}{}", &rest[authority_end..]))
}

/// The error for a URL refused before any request; credentials are never
/// repeated.
fn refused(error: &WebError) -> ToolOutput {
    ToolOutput::error(format!("[what]: {error}"))
}

fn failed(error: &WebError, url: &WebUrl, visited: &[WebUrl]) -> ToolOutput {
    let how = match error {
        WebError::Private(_) => {
            "\n[how]: private and local addresses are not fetched; ask the user"
        }
        _ => "",
    };
    ToolOutput::error(format!(
        "[what]: {error}\n[url]: {url}\n[chain]: {}{how}",
        chain(visited)
    ))
}

/// The URLs of a fetch, the first to the last: `a → b`.
fn chain(visited: &[WebUrl]) -> String {
    visited
        .iter()
        .map(WebUrl::as_str)
        .collect::<Vec<_>>()
        .join(" → ")
}

/// `n` bytes as MB or KB.
fn size(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    } else {
        format!("{} KB", n.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrubbed(name: &str, url: &str) -> serde_json::Value {
        let mut call = ToolCall {
            id: "c".into(),
            name: name.into(),
            args: serde_json::json!({ "url": url }),
        };
        scrub_call(&mut call);
        call.args["url"].clone()
    }

    #[test]
    fn credentials_are_scrubbed_from_the_call_before_it_is_recorded() {
        assert_eq!(
            scrubbed(NAME, "https://admin:hunter2@example.org/a@b?x=1"),
            "https://***@example.org/a@b?x=1"
        );
        assert_eq!(
            scrubbed(NAME, "https://example.org/a@b"),
            "https://example.org/a@b"
        );
        assert_eq!(
            scrubbed("shell", "https://u:p@example.org/"),
            "https://u:p@example.org/",
            "other tools untouched"
        );
    }
}
