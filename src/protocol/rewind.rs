//! Rewind and fork in the host's vocabulary: the prompts a front end lists
//! (answer to [`Op::ListPrompts`](super::Op::ListPrompts)) and what a rewind
//! did (answer to [`Op::Rewind`](super::Op::Rewind)).

use serde::{Deserialize, Serialize};

/// One prompt of the open session a rewind can go back to before.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PromptRow {
    /// Its turn (what [`Op::Rewind`](super::Op::Rewind) names).
    pub turn: u64,
    /// What the user typed.
    pub text: String,
    /// When it was sent, ms since the Unix epoch.
    pub at: u64,
    /// Files its turn changed (by tools or the user's commands before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RewindOutcome {
    /// The turn rewound to before.
    pub turn: u64,
    /// Whether the conversation was rewound: its prompt's text is then in
    /// `prompt`, to edit and send again.
    pub conversation: bool,
    /// The prompt's text (when the conversation was rewound).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    /// Whether the code was restored.
    pub code: bool,
    /// Files put back as they were before the turn (or removed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
    /// Files left alone, each with why (changed since by someone else, or
    /// the restore failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<(String, String)>,
}

impl RewindOutcome {
    /// A few lines for the user.
    pub fn describe(&self) -> String {
        let what = match (self.conversation, self.code) {
            (true, true) => "conversation and code",
            (true, false) => "conversation",
            (false, true) => "code",
            (false, false) => "nothing",
        };
        let mut out = format!("rewound the {what} to before turn {}", self.turn);
        if self.code && self.restored.is_empty() && self.skipped.is_empty() {
            out.push_str("\n  no file was changed since");
        }
        for path in &self.restored {
            out.push_str(&format!("\n  restored {path}"));
        }
        for (path, why) in &self.skipped {
            out.push_str(&format!("\n  left alone {path}: {why}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Op, Submission};
    use super::*;

    #[test]
    fn the_rewind_ops_read_their_stream_json_forms() {
        let read = |line: &str| serde_json::from_str::<Submission>(line).unwrap().op;
        assert_eq!(read(r#"{"type":"list_prompts"}"#), Op::ListPrompts);
        assert_eq!(
            read(r#"{"type":"rewind","to_turn":2,"conversation":true,"code":true}"#),
            Op::Rewind {
                to_turn: 2,
                conversation: true,
                code: true
            }
        );
        assert_eq!(
            read(r#"{"type":"rewind","to_turn":3,"code":true}"#),
            Op::Rewind {
                to_turn: 3,
                conversation: false,
                code: true
            }
        );
        assert_eq!(read(r#"{"type":"fork"}"#), Op::Fork { before_turn: None });
        assert_eq!(
            read(r#"{"type":"fork","before_turn":4}"#),
            Op::Fork {
                before_turn: Some(4)
            }
        );
    }

    #[test]
    fn an_outcome_names_what_was_restored_and_what_was_left_alone() {
        let outcome = RewindOutcome {
            turn: 2,
            conversation: false,
            prompt: String::new(),
            code: true,
            restored: vec!["a.txt".into()],
            skipped: vec![("b.txt".into(), "changed since by someone else".into())],
        };
        assert_eq!(
            outcome.describe(),
            "rewound the code to before turn 2\n  restored a.txt\n  left alone b.txt: changed since by someone else"
        );
    }
}
