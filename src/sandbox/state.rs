//! [`SandboxState`]: what the sandbox enforced, as the helper reports it.

use std::fmt;

/// The first word of the helper's report line on stderr.
pub const STATUS_PREFIX: &str = "light-agent-sandbox:";

pub use crate::protocol::SandboxState;

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

    /// The first whole line of `stderr` that is a report, with the byte range
    /// of that line (its newline included). Lines before it are someone
    /// else's (a dynamic loader's warning, say) and do not hide it.
    pub fn find_report(stderr: &[u8]) -> Option<(SandboxState, std::ops::Range<usize>)> {
        let mut start = 0;
        while let Some(len) = memchr::memchr(b'\n', &stderr[start..]) {
            let end = start + len;
            let line = String::from_utf8_lossy(&stderr[start..end]);
            if let Some(state) = SandboxState::parse_report(&line) {
                return Some((state, start..end + 1));
            }
            start = end + 1;
        }
        None
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

    #[test]
    fn a_report_is_found_after_someone_elses_lines_and_not_in_a_partial_line() {
        let report = SandboxState::Enforced { abi: 6 }.report();
        let stderr = format!("ld.so: object 'x.so' cannot be preloaded\n{report}\nfrom bash\n");
        let (state, line) = SandboxState::find_report(stderr.as_bytes()).unwrap();
        assert_eq!(state, SandboxState::Enforced { abi: 6 });
        assert_eq!(&stderr[line], format!("{report}\n"));
        assert_eq!(SandboxState::find_report(report.as_bytes()), None);
        assert_eq!(SandboxState::find_report(b"just noise\n"), None);
    }
}
