//! The registry name of a server's tool: `mcp__SERVER__TOOL`, within
//! `^[a-zA-Z0-9_-]{1,64}$`.

use xxhash_rust::xxh3::xxh3_64;

/// What every registered MCP tool's name starts with.
pub const TOOL_PREFIX: &str = "mcp__";

/// The system prompt's section on MCP tools, for while one is offered.
pub const PROMPT: &str = include_str!("../../assets/prompts/mcp_tools.md");

/// Longest name the registry accepts.
const MAX_LEN: usize = 64;

/// `mcp__SERVER__TOOL` with every character outside `[a-zA-Z0-9_-]` turned
/// into `_`. A name longer than 64 characters keeps its first part and ends
/// in a hash of the unsanitised pair, so it is stable across runs and two
/// long names that share a prefix still differ.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("{TOOL_PREFIX}{}__{}", sanitise(server), sanitise(tool));
    if full.len() <= MAX_LEN {
        return full;
    }
    let hash = format!("{:016x}", xxh3_64(format!("{server}\0{tool}").as_bytes()));
    // `full` is ASCII after sanitising, so any byte index is a char boundary.
    format!("{}_{hash}", &full[..MAX_LEN - hash.len() - 1])
}

fn sanitise(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_sanitised() {
        assert_eq!(
            tool_name("git hub", "list.issues"),
            "mcp__git_hub__list_issues"
        );
    }

    #[test]
    fn long_names_are_shortened_stably_and_distinctly() {
        let a = tool_name("server", &"x".repeat(80));
        let b = tool_name("server", &format!("{}y", "x".repeat(80)));
        assert_eq!(a.len(), 64);
        assert_eq!(a, tool_name("server", &"x".repeat(80)));
        assert_ne!(a, b);
    }
}
