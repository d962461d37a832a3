//! `ask_user`: the model asks the user one to three questions mid-turn and
//! reads the answers, instead of ending the turn to ask. Without a user
//! (`exec`) it answers at once that the model must decide.

use std::fmt::Write as _;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::protocol::{ASK_USER, Question, check_questions};
use crate::tool::{Tool, ToolContext, ToolOutput};

const DESCRIPTION: &str =
    "Ask the user 1-3 questions when you cannot decide alone; options optional (max 4).";

/// What the tool answers when nobody can.
pub const NO_USER: &str = "no user is present: decide and say what you assumed";

/// How the tool reaches the user (the host: a front-end overlay).
pub trait Asker: Send + Sync {
    /// Resolves with one answer per question ("" for one left open), or
    /// `None` when the user declined to answer.
    fn ask(&self, questions: Vec<Question>) -> BoxFuture<'static, Option<Vec<String>>>;
}

// Arguments of `ask_user`. No doc comments on purpose: the schema is sent
// with every request.
#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskUserArgs {
    pub questions: Vec<QuestionArgs>,
}

#[allow(missing_docs)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct QuestionArgs {
    pub question: String,
    #[serde(default)]
    pub options: Vec<String>,
}

/// The `ask_user` tool.
#[derive(Clone, Default)]
pub struct AskUserTool {
    asker: Option<Arc<dyn Asker>>,
}

impl AskUserTool {
    /// Asks through `asker`; without one, every call is told no user is
    /// present.
    pub fn new(asker: Option<Arc<dyn Asker>>) -> Self {
        Self { asker }
    }
}

impl Tool for AskUserTool {
    type Args = AskUserArgs;

    fn name(&self) -> &str {
        ASK_USER
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn asks_intent(&self) -> bool {
        false
    }

    async fn execute(&self, args: AskUserArgs, ctx: ToolContext) -> ToolOutput {
        let questions: Vec<Question> = args
            .questions
            .into_iter()
            .map(|q| Question {
                question: q.question,
                options: q.options,
            })
            .collect();
        if let Err(why) = check_questions(&questions) {
            return ToolOutput::error(format!("nothing asked: {why}"));
        }
        let Some(asker) = &self.asker else {
            return ToolOutput::ok(NO_USER);
        };
        let answers = tokio::select! {
            answers = asker.ask(questions.clone()) => answers,
            () = ctx.cancel.cancelled() => return ToolOutput::error("ask_user cancelled"),
        };
        match answers {
            Some(answers) if answers.iter().any(|a| !a.trim().is_empty()) => {
                ToolOutput::ok(render(&questions, &answers))
            }
            _ => ToolOutput::ok(format!("the user gave no answer; {NO_USER}")),
        }
    }
}

/// Each question with its answer.
fn render(questions: &[Question], answers: &[String]) -> String {
    let mut out = String::new();
    for (n, q) in questions.iter().enumerate() {
        let answer = answers.get(n).map(|a| a.trim()).unwrap_or("");
        let answer = if answer.is_empty() {
            "(no answer)"
        } else {
            answer
        };
        let _ = writeln!(out, "{}. {}\nanswer: {answer}", n + 1, q.question.trim());
    }
    out.trim_end().to_string()
}
