//! Built-in context windows for common models.

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

#[cfg(test)]
mod tests {
    use super::*;

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
