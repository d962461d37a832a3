//! Built-in facts about common models: context windows and image input.

use super::ProviderKind;

/// Window assumed for a model that is neither built in nor configured.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// Known windows by model-name prefix. The longest matching prefix wins, so
/// specific entries (`gpt-4o`) can sit beside general ones (`gpt-4`).
const WINDOWS: &[(&str, u64)] = &[
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-5", 400_000),
    ("gpt-3.5-turbo", 16_385),
    ("chatgpt-4o", 128_000),
    ("o1-mini", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-", 200_000),
    ("deepseek-chat", 128_000),
    ("deepseek-reasoner", 128_000),
    ("gemini-2.5-", 1_048_576),
    ("gemini-2.0-", 1_048_576),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-1.5-flash", 1_048_576),
];

/// The built-in context window (in tokens) of `model`, if known.
///
/// A routing prefix such as `openai/` (OpenRouter) is ignored.
pub fn builtin_context_window(model: &str) -> Option<u64> {
    let bare = model.rsplit('/').next().unwrap_or(model);
    WINDOWS
        .iter()
        .filter(|(prefix, _)| bare.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, window)| window)
}

/// Model-name prefixes of the OpenAI family that take images.
const OPENAI_IMAGE_MODELS: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-4.5",
    "gpt-5",
    "chatgpt-4o",
    "o1",
    "o3",
    "o4",
];

/// Model-name prefixes of the OpenAI family that do not, though a shorter
/// prefix above would say they do.
const OPENAI_TEXT_MODELS: &[&str] = &["o1-mini", "o1-preview", "o3-mini", "gpt-5-codex-mini"];

/// Words in an open model's name that mark it as taking images (Ollama,
/// vLLM, OpenRouter names).
const OPEN_VISION_WORDS: &[&str] = &[
    "vision",
    "llava",
    "-vl",
    "vl-",
    "qwen2.5vl",
    "gemma3",
    "llama4",
    "pixtral",
    "minicpm-v",
    "moondream",
    "mistral-small3",
    "bakllava",
    "granite3.2-vision",
];

/// Whether `model`, reached with a `kind` provider, takes image input, by a
/// small table: every Gemini model, Claude 3 and later, the OpenAI models
/// listed above, and open models whose name says so (a routing prefix such
/// as `openai/` is ignored). Unknown models are taken as text-only, so a
/// prompt with images gets a clear refusal rather than a provider's 400;
/// `[models.NAME] images = true` overrides it.
pub fn builtin_image_input(kind: ProviderKind, model: &str) -> bool {
    let bare = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| bare.starts_with(p));
    match kind {
        ProviderKind::Gemini => true,
        ProviderKind::Anthropic => !starts(&["claude-2", "claude-instant"]),
        ProviderKind::OpenAi | ProviderKind::OpenAiResponses => {
            if bare.starts_with("claude-") && !starts(&["claude-2", "claude-instant"])
                || bare.starts_with("gemini-")
            {
                return true;
            }
            (starts(OPENAI_IMAGE_MODELS) && !starts(OPENAI_TEXT_MODELS))
                || OPEN_VISION_WORDS.iter().any(|w| bare.contains(w))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_input_is_known_for_common_models_and_unknown_ones_are_text_only() {
        use ProviderKind::*;
        assert!(builtin_image_input(OpenAi, "gpt-4o-mini"));
        assert!(builtin_image_input(OpenAiResponses, "gpt-5"));
        assert!(builtin_image_input(OpenAi, "openai/gpt-4.1"));
        assert!(builtin_image_input(Anthropic, "claude-sonnet-4-5"));
        assert!(builtin_image_input(Gemini, "gemini-2.5-flash"));
        assert!(builtin_image_input(OpenAi, "llava:13b"));
        assert!(builtin_image_input(OpenAi, "qwen2.5vl:7b"));
        assert!(!builtin_image_input(OpenAi, "o3-mini"));
        assert!(!builtin_image_input(OpenAi, "gpt-3.5-turbo"));
        assert!(!builtin_image_input(OpenAi, "deepseek-chat"));
        assert!(!builtin_image_input(OpenAi, "qwen2.5-coder:7b"));
        assert!(!builtin_image_input(Anthropic, "claude-2.1"));
    }

    #[test]
    fn longest_prefix_wins() {
        assert_eq!(builtin_context_window("gpt-4.1"), Some(1_047_576));
        assert_eq!(builtin_context_window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(builtin_context_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(builtin_context_window("gpt-4"), Some(8_192));
        assert_eq!(builtin_context_window("o4-mini"), Some(200_000));
        assert_eq!(builtin_context_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(builtin_context_window("gemini-2.5-pro"), Some(1_048_576));
        assert_eq!(builtin_context_window("openai/gpt-4o"), Some(128_000));
        assert_eq!(builtin_context_window("llama3.2"), None);
    }
}
