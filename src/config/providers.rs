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
/// `Debug` is safe to log: the key is a [`Secret`] and the base URL is shown
/// with its userinfo and query values redacted.
#[derive(Clone)]
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

impl ProviderProfile {
    /// Whether the model runs on this machine or network: the `ollama`
    /// profile, or a base URL whose host is `localhost`, a loopback,
    /// private (RFC 1918, IPv6 unique-local) or link-local address.
    pub fn is_local(&self) -> bool {
        self.name == OLLAMA || is_local_url(&self.base_url)
    }
}

/// Whether `url`'s host is local (see [`ProviderProfile::is_local`]).
pub fn is_local_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    };
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => {
            let first = ip.segments()[0];
            ip.is_loopback() || first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfe80
        }
        Err(_) => false,
    }
}

impl std::fmt::Debug for ProviderProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderProfile")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &crate::protocol::redact_url(&self.base_url))
            .field("api_key_env", &self.api_key_env)
            .field("api_key", &self.api_key)
            .field("default_model", &self.default_model)
            .finish()
    }
}

/// How a built-in profile reads the environment: one row of
/// [`BUILTIN_PROFILES`], shown by `config show` and in the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinProfile {
    /// The profile's name.
    pub name: &'static str,
    /// The wire format.
    pub kind: ProviderKind,
    /// The variable the key is read from; `None` for servers without keys.
    pub key_env: Option<&'static str>,
    /// The variable that replaces [`BuiltinProfile::default_url`]. Every
    /// profile has one, so a user behind a proxy or gateway can point any
    /// profile there and its key goes nowhere else.
    pub base_url_env: &'static str,
    /// Where the profile calls when neither its base-URL variable nor the
    /// config file says otherwise.
    pub default_url: &'static str,
    /// The model used when none is named.
    pub default_model: Option<&'static str>,
}

/// Every built-in profile and its environment rules. Two profiles that send
/// the same key (`openai`, `openai-responses`) read the same base-URL
/// variable, so setting it moves both.
pub const BUILTIN_PROFILES: [BuiltinProfile; 6] = [
    BuiltinProfile {
        name: "openai",
        kind: ProviderKind::OpenAi,
        key_env: Some("OPENAI_API_KEY"),
        base_url_env: "OPENAI_BASE_URL",
        default_url: "https://api.openai.com/v1",
        default_model: Some("gpt-4.1"),
    },
    BuiltinProfile {
        name: "anthropic",
        kind: ProviderKind::Anthropic,
        key_env: Some("ANTHROPIC_API_KEY"),
        base_url_env: "ANTHROPIC_BASE_URL",
        default_url: "https://api.anthropic.com",
        default_model: Some("claude-sonnet-4-5"),
    },
    BuiltinProfile {
        name: "deepseek",
        kind: ProviderKind::OpenAi,
        key_env: Some("DEEPSEEK_API_KEY"),
        base_url_env: "DEEPSEEK_BASE_URL",
        default_url: "https://api.deepseek.com",
        default_model: Some("deepseek-chat"),
    },
    BuiltinProfile {
        name: OLLAMA,
        kind: ProviderKind::OpenAi,
        key_env: None,
        base_url_env: "OLLAMA_BASE_URL",
        default_url: "http://127.0.0.1:11434/v1",
        default_model: None,
    },
    BuiltinProfile {
        name: "openai-responses",
        kind: ProviderKind::OpenAiResponses,
        key_env: Some("OPENAI_API_KEY"),
        base_url_env: "OPENAI_BASE_URL",
        default_url: "https://api.openai.com/v1",
        default_model: Some("o4-mini"),
    },
    BuiltinProfile {
        name: "gemini",
        kind: ProviderKind::Gemini,
        key_env: Some("GEMINI_API_KEY"),
        base_url_env: "GOOGLE_GEMINI_BASE_URL",
        default_url: "https://generativelanguage.googleapis.com/v1beta",
        default_model: Some("gemini-2.5-pro"),
    },
];

/// The environment variable that overrides a built-in profile's base URL.
pub(crate) fn base_url_env(profile: &str) -> Option<&'static str> {
    BUILTIN_PROFILES
        .iter()
        .find(|p| p.name == profile)
        .map(|p| p.base_url_env)
}

/// Name of the built-in profile that talks to a local Ollama.
pub(crate) const OLLAMA: &str = "ollama";

/// Name given to the profile made up when only a base URL is given.
pub(crate) const CUSTOM: &str = "custom";

/// Built-in profiles whose key, when set, makes them the default, in order.
pub(crate) const KEYED_DEFAULT_ORDER: [&str; 4] = ["openai", "anthropic", "deepseek", "gemini"];

/// The profiles that exist without any config file.
pub(crate) fn builtin_profiles() -> Vec<ProviderProfile> {
    BUILTIN_PROFILES
        .iter()
        .map(|p| ProviderProfile {
            name: p.name.to_string(),
            kind: p.kind,
            base_url: p.default_url.to_string(),
            api_key_env: p.key_env.map(str::to_string),
            api_key: None,
            default_model: p.default_model.map(str::to_string),
        })
        .collect()
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
    fn loopback_private_and_link_local_hosts_are_local_and_others_not() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://user:pw@192.168.1.20:8000/v1",
            "http://10.0.0.5/v1",
            "http://172.20.1.1:1234",
            "http://[::1]:8080/v1",
            "http://[fd12::1]/v1",
            "http://169.254.3.4/v1",
        ] {
            assert!(is_local_url(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://8.8.8.8/v1",
            "https://172.32.0.1/v1",
            "https://localhost.example.com/v1",
            "https://example.com/v1?host=127.0.0.1",
        ] {
            assert!(!is_local_url(url), "{url}");
        }
    }

    #[test]
    fn debug_shows_neither_the_key_nor_url_credentials() {
        let profile = ProviderProfile {
            name: "local".into(),
            kind: ProviderKind::OpenAi,
            base_url: "http://u:sk-pass-123@h/v1?key=sk-query-456".into(),
            api_key_env: None,
            api_key: Some(Secret::new("sk-key-789")),
            default_model: None,
        };
        let shown = format!("{profile:?}");
        assert!(!shown.contains("sk-"), "{shown}");
        assert!(shown.contains("h/v1?key=[redacted]"), "{shown}");
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in ProviderKind::ALL {
            assert_eq!(kind.as_str().parse::<ProviderKind>(), Ok(kind));
        }
        let err = "grok".parse::<ProviderKind>().unwrap_err();
        assert!(err.contains("openai-responses"), "{err}");
    }

    #[test]
    fn every_profile_has_its_own_row_and_a_base_url_variable() {
        let mut names: Vec<&str> = BUILTIN_PROFILES.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BUILTIN_PROFILES.len());
        for profile in BUILTIN_PROFILES {
            assert_eq!(base_url_env(profile.name), Some(profile.base_url_env));
            assert!(profile.base_url_env.ends_with("_BASE_URL"), "{profile:?}");
        }
        // Profiles that send the same key move together.
        for a in BUILTIN_PROFILES {
            for b in BUILTIN_PROFILES {
                if a.key_env.is_some() && a.key_env == b.key_env {
                    assert_eq!(a.base_url_env, b.base_url_env, "{} / {}", a.name, b.name);
                }
            }
        }
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
