//! The permission mode.

use std::fmt;
use std::str::FromStr;

/// How much the agent may do without asking (the protocol's
/// [`PermissionMode`](crate::protocol::PermissionMode), named for this module).
pub use crate::protocol::PermissionMode as Mode;

impl Mode {
    /// Every mode, in order of growing freedom.
    pub const ALL: [Mode; 4] = [Mode::ReadOnly, Mode::Ask, Mode::Auto, Mode::Full];

    /// The name used on the command line and in config.toml.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only",
            Mode::Ask => "ask",
            Mode::Auto => "auto",
            Mode::Full => "full",
        }
    }

    /// Whether writing tools are registered at all in this mode.
    pub fn offers_writes(self) -> bool {
        self != Mode::ReadOnly
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is none of `read-only`, `ask`, `auto`, `full`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown permission mode `{0}` (expected read-only, ask, auto or full)")]
pub struct ParseModeError(pub String);

impl FromStr for Mode {
    type Err = ParseModeError;

    /// Accepts the names of [`Mode::as_str`], any case, `_` for `-`, and
    /// `readonly`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "read-only" | "readonly" => Ok(Mode::ReadOnly),
            "ask" => Ok(Mode::Ask),
            "auto" => Ok(Mode::Auto),
            "full" => Ok(Mode::Full),
            _ => Err(ParseModeError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in Mode::ALL {
            assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
        }
        assert_eq!("READ_ONLY".parse::<Mode>(), Ok(Mode::ReadOnly));
        assert!("yolo".parse::<Mode>().is_err());
    }

    #[test]
    fn only_read_only_hides_writing_tools() {
        assert!(!Mode::ReadOnly.offers_writes());
        assert!(Mode::Ask.offers_writes() && Mode::Auto.offers_writes());
    }
}
