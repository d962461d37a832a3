//! Reasoning effort as each wire format sends it, and which models take it.
//!
//! | wire format | field | models |
//! |---|---|---|
//! | Chat Completions | `reasoning_effort` | `o1`, `o3`, `o4`, `gpt-5` families |
//! | Responses | `reasoning.effort` | the reasoning models ([`ResponsesOptions`](super::responses::ResponsesOptions)) |
//! | Anthropic | `thinking.budget_tokens` (and `max_tokens` raised by it) | Claude 3.7 and 4 families |
//! | Gemini | `generationConfig.thinkingConfig.thinkingBudget` | Gemini 2.5 and later |
//!
//! Any other model is sent no field: a server that does not know one may
//! reject the request.

use serde_json::{Value, json};

use crate::protocol::Effort;

/// The model's own name: after any `provider/` prefix, lower case.
fn bare(model: &str) -> String {
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase()
}

/// Whether a Chat Completions model takes `reasoning_effort`.
pub(crate) fn chat_takes_effort(model: &str) -> bool {
    let name = bare(model);
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|p| name.starts_with(p))
        && !name.contains("chat")
}

/// The level a Chat Completions or Responses model is sent: `minimal`
/// exists only for the `gpt-5` family; older reasoning models get `low`.
fn openai_level(model: &str, effort: Effort) -> &'static str {
    match effort {
        Effort::Minimal if !bare(model).starts_with("gpt-5") => "low",
        other => other.as_str(),
    }
}

/// Adds `reasoning_effort` to a Chat Completions body.
pub(crate) fn apply_chat(body: &mut Value, model: &str, effort: Option<Effort>) {
    if let Some(effort) = effort.filter(|_| chat_takes_effort(model)) {
        body["reasoning_effort"] = json!(openai_level(model, effort));
    }
}

/// Adds `reasoning.effort` to a Responses body of a reasoning model
/// (`reasoning` already holds its summary setting).
pub(crate) fn apply_responses(body: &mut Value, model: &str, effort: Option<Effort>) {
    if let Some(effort) = effort
        && body.get("reasoning").is_some_and(Value::is_object)
    {
        body["reasoning"]["effort"] = json!(openai_level(model, effort));
    }
}

/// The thinking budget of a Claude model that thinks; `None` for others.
pub(crate) fn anthropic_budget(model: &str, effort: Effort) -> Option<u32> {
    let name = bare(model);
    let thinks = [
        "claude-3-7",
        "claude-sonnet-4",
        "claude-opus-4",
        "claude-haiku-4",
        "claude-4",
    ]
    .iter()
    .any(|p| name.starts_with(p));
    thinks.then_some(match effort {
        Effort::Minimal => 1_024,
        Effort::Low => 4_096,
        Effort::Medium => 10_000,
        Effort::High => 32_000,
    })
}

/// Turns on extended thinking in an Anthropic body with the effort's
/// budget; `max_tokens` grows by the budget so the answer keeps its room.
pub(crate) fn apply_anthropic(body: &mut Value, model: &str, effort: Option<Effort>) {
    let Some(budget) = effort.and_then(|e| anthropic_budget(model, e)) else {
        return;
    };
    let max_tokens = body["max_tokens"].as_u64().unwrap_or(0);
    body["max_tokens"] = json!(max_tokens + u64::from(budget));
    body["thinking"] = json!({ "type": "enabled", "budget_tokens": budget });
}

/// The thinking budget of a Gemini model that takes one; `None` for
/// others. `minimal` turns thinking off where the model allows it (Flash)
/// and is the smallest budget elsewhere.
pub(crate) fn gemini_budget(model: &str, effort: Effort) -> Option<u32> {
    let name = bare(model);
    let takes = name.starts_with("gemini-2.5") || name.starts_with("gemini-3");
    takes.then_some(match effort {
        Effort::Minimal if name.contains("flash") => 0,
        Effort::Minimal => 128,
        Effort::Low => 1_024,
        Effort::Medium => 8_192,
        Effort::High => 24_576,
    })
}

/// Adds `thinkingConfig.thinkingBudget` to a Gemini body.
pub(crate) fn apply_gemini(body: &mut Value, model: &str, effort: Option<Effort>) {
    let Some(budget) = effort.and_then(|e| gemini_budget(model, e)) else {
        return;
    };
    if !body.get("generationConfig").is_some_and(Value::is_object) {
        body["generationConfig"] = json!({});
    }
    if !body["generationConfig"]
        .get("thinkingConfig")
        .is_some_and(Value::is_object)
    {
        body["generationConfig"]["thinkingConfig"] = json!({});
    }
    body["generationConfig"]["thinkingConfig"]["thinkingBudget"] = json!(budget);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_models_that_take_effort_get_a_field() {
        let mut body = json!({});
        apply_chat(&mut body, "gpt-4.1", Some(Effort::High));
        apply_anthropic(&mut body, "claude-3-5-sonnet-latest", Some(Effort::High));
        apply_gemini(&mut body, "gemini-2.0-flash", Some(Effort::High));
        apply_responses(&mut body, "gpt-4.1", Some(Effort::High));
        assert_eq!(body, json!({}));
    }

    #[test]
    fn levels_map_to_each_format() {
        let mut chat = json!({});
        apply_chat(&mut chat, "openrouter/o3-mini", Some(Effort::Minimal));
        assert_eq!(chat["reasoning_effort"], "low", "o3 has no minimal");
        apply_chat(&mut chat, "gpt-5", Some(Effort::Minimal));
        assert_eq!(chat["reasoning_effort"], "minimal");

        let mut claude = json!({ "max_tokens": 8192 });
        apply_anthropic(&mut claude, "claude-sonnet-4-5", Some(Effort::Low));
        assert_eq!(
            claude["thinking"],
            json!({ "type": "enabled", "budget_tokens": 4096 })
        );
        assert_eq!(claude["max_tokens"], 8192 + 4096);

        let mut gemini =
            json!({ "generationConfig": { "thinkingConfig": { "includeThoughts": true } } });
        apply_gemini(&mut gemini, "gemini-2.5-flash", Some(Effort::Minimal));
        assert_eq!(
            gemini["generationConfig"]["thinkingConfig"],
            json!({ "includeThoughts": true, "thinkingBudget": 0 })
        );
    }
}
