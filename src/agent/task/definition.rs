//! Agent definitions: markdown files with front matter (`name`,
//! `description`, `tools`, `model`, and our `permissions`), the body added
//! to the child's system prompt — Claude Code's `.claude/agents/*.md` format.

use crate::permission::Mode;

/// The agent `task` runs when the call names none.
pub const GENERAL: &str = "general";

/// One kind of subagent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// What `task`'s `agent` argument names it by.
    pub name: String,
    /// One line for the model choosing an agent.
    pub description: String,
    /// The tools it is offered (our names; Claude Code's `Read`, `Grep`,
    /// `Glob`, `Bash`, `Edit`, `Write` are mapped); `None`: every tool its
    /// permission mode offers.
    pub tools: Option<Vec<String>>,
    /// Another model of the same provider; `None` (or `inherit`): the parent's.
    pub model: Option<String>,
    /// The widest mode it runs in; never wider than the parent's
    /// (default `read-only`).
    pub permissions: Mode,
    /// Added to the child's system prompt.
    pub prompt: String,
}

impl AgentDefinition {
    /// The default agent: the parent's model and tools, read-only.
    pub fn general() -> Self {
        Self {
            name: GENERAL.into(),
            description: "researches and reports; reads, never writes".into(),
            tools: None,
            model: None,
            permissions: Mode::ReadOnly,
            prompt: String::new(),
        }
    }

    /// Parses one definition file; `Err` says why it is skipped.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim_start_matches('\u{feff}').trim_start();
        let rest = text
            .strip_prefix("---")
            .ok_or("it does not start with a `---` front-matter line")?;
        let (front, body) = rest
            .split_once("\n---")
            .ok_or("front matter is missing its closing `---`")?;
        let mut definition = Self {
            name: String::new(),
            description: String::new(),
            tools: None,
            model: None,
            permissions: Mode::ReadOnly,
            prompt: body
                .split_once('\n')
                .map_or("", |(_, body)| body)
                .trim()
                .to_string(),
        };
        for line in front.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim().trim_matches('"').trim_matches('\'');
            match key.trim() {
                "name" => definition.name = value.to_string(),
                "description" => definition.description = value.to_string(),
                "tools" if !value.is_empty() => definition.tools = Some(tool_names(value)),
                "model" if !value.is_empty() && value != "inherit" => {
                    definition.model = Some(value.to_string());
                }
                "permissions" if !value.is_empty() => {
                    definition.permissions = value.parse().map_err(|e| format!("{e}"))?;
                }
                _ => {}
            }
        }
        let valid_name = !definition.name.is_empty()
            && definition
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid_name || definition.description.is_empty() {
            return Err(
                "front matter needs a `name` (letters, digits, - and _) and a `description`".into(),
            );
        }
        Ok(definition)
    }

    /// Whether the child keeps tool `name` (its `tools` list, our names).
    pub fn offers(&self, name: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|tools| tools.iter().any(|t| t == name))
    }
}

/// `Read, Grep` or `[read_file, grep]` as our tool names.
fn tool_names(value: &str) -> Vec<String> {
    value
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|t| t.trim().trim_matches('"').trim_matches('\''))
        .filter(|t| !t.is_empty())
        .flat_map(|t| match t {
            "Read" => vec!["read_file"],
            "Grep" => vec!["grep"],
            "Glob" | "LS" => vec!["tree"],
            "Bash" => vec!["shell", "shell_output", "shell_kill"],
            "Edit" | "MultiEdit" => vec!["edit", "apply_patch"],
            "Write" => vec!["write"],
            "WebFetch" => vec!["web_fetch"],
            "TodoWrite" => vec!["update_plan"],
            other => vec![other],
        })
        .map(str::to_string)
        .collect()
}

/// The narrower of two modes.
pub fn narrower(a: Mode, b: Mode) -> Mode {
    let rank = |m: Mode| Mode::ALL.iter().position(|x| *x == m).unwrap_or(0);
    if rank(a) <= rank(b) { a } else { b }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_claude_code_agent_file_is_read_as_it_is() {
        let text = "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Bash\nmodel: inherit\n---\n\nYou review code.\n";
        let d = AgentDefinition::parse(text).unwrap();
        assert_eq!(d.name, "code-reviewer");
        assert_eq!(d.description, "Reviews code");
        assert_eq!(d.model, None);
        assert_eq!(d.permissions, Mode::ReadOnly);
        assert_eq!(d.prompt, "You review code.");
        assert!(d.offers("read_file") && d.offers("shell") && !d.offers("write"));
    }

    #[test]
    fn a_file_without_name_or_front_matter_is_refused_with_why() {
        assert!(AgentDefinition::parse("no front matter").is_err());
        assert!(AgentDefinition::parse("---\ndescription: x\n---\nbody").is_err());
        assert!(AgentDefinition::parse("---\nname: a b\ndescription: x\n---\n").is_err());
        assert!(
            AgentDefinition::parse("---\nname: a\ndescription: x\npermissions: root\n---\n")
                .is_err()
        );
    }

    #[test]
    fn the_narrower_mode_wins_whichever_side_it_is_on() {
        assert_eq!(narrower(Mode::Full, Mode::ReadOnly), Mode::ReadOnly);
        assert_eq!(narrower(Mode::Ask, Mode::Auto), Mode::Ask);
        assert_eq!(narrower(Mode::Auto, Mode::Full), Mode::Auto);
    }
}
