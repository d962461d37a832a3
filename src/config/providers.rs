//! Provider profiles: which wire format to speak, where, and with which key.

use std::fmt;
use std::str::FromStr;

use super::Secret;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI Chat Completions, and every server compatible with it
    /// (DeepSeek, Ollama, llama.cpp, vLLM, OpenRouter). Written `openai`.
    OpenAi,
    /// Anthropic Messages. Written `anthropic`.
    Anthropic,
    /// Google Gemini `generateContent`. Written `gemini`.
    Gemini,
    /// OpenAI Responses API. Written `openai-responses`.
    OpenAiResponses,
}

impl ProviderKind {
    /// Every kind, in the order they are listed to users.
    pub const ALL: [ProviderKind; 4] = [
        ProviderKind::OpenAi,
        ProviderKind::Anthropic,
        ProviderKind::Gemini,
        ProviderKind::OpenAiResponses,
    ];

    /// The name used in config files and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Gemini => "gemini",
            ProviderKind::OpenAiResponses => "openai-responses",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderKind {
    type Err = String;

    /// Parses a kind name; the error lists the accepted names.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ProviderKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = ProviderKind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown provider kind `{text}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// One named way to reach a model provider.
///
/// `Debug` is safe to log: the key is a [`Secret`].
#[derive(Debug, Clone)]
pub struct ProviderProfile {
    /// The profile's name (`openai`, `ollama`, or a user's own).
    pub name: String,
    /// The wire format.
    pub kind: ProviderKind,
    /// The API root, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The environment variable the key is read from; `None` for servers that
    /// need no key.
    pub api_key_env: Option<String>,
    /// The resolved key: from `api_key_env` if set there, else the file's
    /// `api_key`.
    pub api_key: Option<Secret>,
    /// The model used when the profile is chosen and no model is named.
    /// `None` means "ask the server" (Ollama) or "the user must say".
    pub default_model: Option<String>,
}

/// The environment variable that overrides a built-in profile's base URL.
pub(crate) fn base_url_env(profile: &str) -> Option<&'static str> {
    match profile {
        "openai" => Some("OPENAI_BASE_URL"),
        "anthropic" => Some("ANTHROPIC_BASE_URL"),
        "gemini" => Some("GOOGLE_GEMINI_BASE_URL"),
        _ => None,
    }
}

/// Name of the built-in profile that talks to a local Ollama.
pub(crate) const OLLAMA: &str = "ollama";

/// Name given to the profile made up when only a base URL is given.
pub(crate) const CUSTOM: &str = "custom";

/// Built-in profiles whose key, when set, makes them the default, in order.
pub(crate) const KEYED_DEFAULT_ORDER: [&str; 4] = ["openai", "anthropic", "deepseek", "gemini"];

/// The profiles that exist without any config file.
pub(crate) fn builtin_profiles() -> Vec<ProviderProfile> {
    let profile = |name: &str, kind, base_url: &str, key_env: Option<&str>, model: Option<&str>| {
        ProviderProfile {
            name: name.to_string(),
            kind,
            base_url: base_url.to_string(),
            api_key_env: key_env.map(str::to_string),
            api_key: None,
            default_model: model.map(str::to_string),
        }
    };
    vec![
        profile(
            "openai",
            ProviderKind::OpenAi,
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
            Some("gpt-4.1"),
        ),
        profile(
            "anthropic",
            ProviderKind::Anthropic,
            "https://api.anthropic.com",
            Some("ANTHROPIC_API_KEY"),
            Some("claude-sonnet-4-5"),
        ),
        profile(
            "deepseek",
            ProviderKind::OpenAi,
            "https://api.deepseek.com",
            Some("DEEPSEEK_API_KEY"),
            Some("deepseek-chat"),
        ),
        profile(
            OLLAMA,
            ProviderKind::OpenAi,
            "http://127.0.0.1:11434/v1",
            None,
            None,
        ),
        profile(
            "openai-responses",
            ProviderKind::OpenAiResponses,
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
            Some("o4-mini"),
        ),
        profile(
            "gemini",
            ProviderKind::Gemini,
            "https://generativelanguage.googleapis.com/v1beta",
            Some("GEMINI_API_KEY"),
            Some("gemini-2.5-pro"),
        ),
    ]
}

/// The built-in profile a model name obviously belongs to, if any.
pub(crate) fn provider_for_model(model: &str) -> Option<&'static str> {
    let model = model.rsplit('/').next().unwrap_or(model);
    let starts = |prefix: &str| model.starts_with(prefix);
    if starts("gpt-") || starts("o1") || starts("o3") || starts("o4") || starts("chatgpt-") {
        Some("openai")
    } else if starts("claude-") {
        Some("anthropic")
    } else if starts("deepseek-") {
        Some("deepseek")
    } else if starts("gemini-") {
        Some("gemini")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in ProviderKind::ALL {
            assert_eq!(kind.as_str().parse::<ProviderKind>(), Ok(kind));
        }
        let err = "grok".parse::<ProviderKind>().unwrap_err();
        assert!(err.contains("openai-responses"), "{err}");
    }

    #[test]
    fn models_map_to_their_vendor() {
        assert_eq!(provider_for_model("gpt-4.1"), Some("openai"));
        assert_eq!(provider_for_model("o4-mini"), Some("openai"));
        assert_eq!(provider_for_model("claude-opus-4-1"), Some("anthropic"));
        assert_eq!(provider_for_model("deepseek-reasoner"), Some("deepseek"));
        assert_eq!(provider_for_model("gemini-2.5-flash"), Some("gemini"));
        assert_eq!(provider_for_model("qwen3:8b"), None);
    }
}
