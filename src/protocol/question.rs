//! Questions the agent asks the user mid-turn (`ask_user`) instead of
//! ending the turn to ask.

use serde::{Deserialize, Serialize};

/// The tool that asks.
pub const ASK_USER: &str = "ask_user";
/// Most questions in one call.
pub const MAX_QUESTIONS: usize = 3;
/// Most options of one question (free text is always possible).
pub const MAX_OPTIONS: usize = 4;

/// One question, with the answers offered (the user may write another).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The question.
    pub question: String,
    /// Answers to pick from by number, at most [`MAX_OPTIONS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// Checks a call's questions: one to [`MAX_QUESTIONS`], each with text and
/// at most [`MAX_OPTIONS`] options. The error says what to fix.
pub fn check_questions(questions: &[Question]) -> Result<(), String> {
    if questions.is_empty() || questions.len() > MAX_QUESTIONS {
        return Err(format!(
            "ask 1 to {MAX_QUESTIONS} questions, not {}",
            questions.len()
        ));
    }
    for (n, q) in questions.iter().enumerate() {
        if q.question.trim().is_empty() {
            return Err(format!("question {} has no text", n + 1));
        }
        if q.options.len() > MAX_OPTIONS {
            return Err(format!(
                "question {} has {} options: at most {MAX_OPTIONS}",
                n + 1,
                q.options.len()
            ));
        }
    }
    Ok(())
}
