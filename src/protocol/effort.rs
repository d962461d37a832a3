//! How hard a reasoning model thinks before it answers.

use serde::{Deserialize, Serialize};

/// Reasoning effort: `--effort`, `[models.NAME] effort`. Each wire format
/// sends it as its own field; models that take none are sent nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// As little thinking as the model allows.
    Minimal,
    /// A little.
    Low,
    /// The providers' usual default.
    Medium,
    /// The most.
    High,
}

impl Effort {
    /// Every level, lowest first.
    pub const ALL: [Effort; 4] = [Effort::Minimal, Effort::Low, Effort::Medium, Effort::High];

    /// The level's name, as written in flags and config.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

impl std::str::FromStr for Effort {
    type Err = String;

    /// `minimal`, `low`, `medium` or `high`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Effort::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| format!("effort must be minimal, low, medium or high, not {s:?}"))
    }
}

impl std::fmt::Display for Effort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
