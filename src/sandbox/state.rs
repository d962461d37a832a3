//! [`SandboxState`]: what the sandbox enforced, as the helper reports it.

use std::fmt;

/// The first word of the helper's report line on stderr.
pub const STATUS_PREFIX: &str = "light-agent-sandbox:";

/// What confinement a command ran under (or would run under).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxState {
    /// Landlock enforces the whole policy.
    Enforced {
        /// The Landlock ABI version of the kernel (as far as we use it).
        abi: u32,
    },
    /// Landlock enforces part of the policy (an older kernel).
    Partial {
        /// The Landlock ABI version of the kernel.
        abi: u32,
        /// What is not enforced, e.g. "network".
        missing: String,
    },
    /// No confinement could be applied; the command runs unconfined.
    Unavailable {
        /// Why, e.g. "Landlock is not enabled in this kernel".
        reason: String,
    },
    /// No sandbox by configuration (`mode = "off"`, or `full` permissions).
    Off,
}

impl SandboxState {
    /// Whether the whole policy is enforced.
    pub fn is_enforced(&self) -> bool {
        matches!(self, SandboxState::Enforced { .. })
    }

    /// A word or two for the status line.
    pub fn label(&self) -> &'static str {
        match self {
            SandboxState::Enforced { .. } => "sandboxed",
            SandboxState::Partial { .. } => "partly sandboxed",
            SandboxState::Unavailable { .. } => "NOT sandboxed",
            SandboxState::Off => "no sandbox",
        }
    }

    /// The helper's report line (without the newline).
    pub fn report(&self) -> String {
        match self {
            SandboxState::Enforced { abi } => format!("{STATUS_PREFIX} enforced {abi}"),
            SandboxState::Partial { abi, missing } => {
                format!("{STATUS_PREFIX} partial {abi} {missing}")
            }
            SandboxState::Unavailable { reason } => {
                format!("{STATUS_PREFIX} unavailable {reason}")
            }
            SandboxState::Off => format!("{STATUS_PREFIX} off"),
        }
    }

    /// Parses a report line; `None` when `line` is not one.
    pub fn parse_report(line: &str) -> Option<SandboxState> {
        let rest = line.strip_prefix(STATUS_PREFIX)?.trim_start();
        let (word, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        match word {
            "enforced" => Some(SandboxState::Enforced {
                abi: rest.trim().parse().ok()?,
            }),
            "partial" => {
                let (abi, missing) = rest.split_once(' ').unwrap_or((rest, ""));
                Some(SandboxState::Partial {
                    abi: abi.parse().ok()?,
                    missing: missing.to_string(),
                })
            }
            "unavailable" => Some(SandboxState::Unavailable {
                reason: rest.to_string(),
            }),
            "off" => Some(SandboxState::Off),
            _ => None,
        }
    }
}

impl fmt::Display for SandboxState {
    /// A short phrase for the status line and approval prompts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxState::Enforced { abi } => write!(f, "sandboxed (Landlock v{abi})"),
            SandboxState::Partial { abi, missing } => {
                write!(f, "partly sandboxed (Landlock v{abi}, no {missing})")
            }
            SandboxState::Unavailable { reason } => write!(f, "NOT sandboxed: {reason}"),
            SandboxState::Off => write!(f, "no sandbox"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_round_trip() {
        for state in [
            SandboxState::Enforced { abi: 7 },
            SandboxState::Partial {
                abi: 3,
                missing: "network, signal scoping".into(),
            },
            SandboxState::Unavailable {
                reason: "Landlock is not enabled".into(),
            },
            SandboxState::Off,
        ] {
            assert_eq!(SandboxState::parse_report(&state.report()), Some(state));
        }
        assert_eq!(SandboxState::parse_report("hello"), None);
        assert_eq!(
            SandboxState::parse_report("light-agent-sandbox: enforced x"),
            None
        );
    }
}
