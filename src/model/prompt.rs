//! How the prompter presents a question (RFD 082 "Secret questions", RFD 083
//! Phase 1 step 4), as a value: no terminal I/O.
//!
//! [`present`] is `ToolPrompter::prompt_question`'s decision about *what* to
//! show, taking the in-flight question and the label the coordinator
//! resolved from `questions.<id>.prompt_label`. The label is display-only
//! (rule `PROMPT-LABEL`); secret questions get no-echo input (rule
//! `PROMPT-ECHO`); only boolean questions whose persistence is `turn` offer
//! the `Y`/`N` "remember for turn" choice (rule `PROMPT-REMEMBER`). Both
//! are decided in [`routing`] ([`routing::is_secret`],
//! [`routing::remember_offered`]), not here.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::model::routing;
use crate::model::tool::{AnswerType, Question};
use crate::profile::Rules;

/// The input widget the prompter uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// Yes/no.
    Boolean,
    /// Pick one of the options.
    Select,
    /// Free text, echoed.
    Text,
    /// Free text, not echoed (RFD 082 `inquire::Password`).
    Password,
}

/// What the prompter shows for one question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Presentation {
    /// The "who's asking" header; `None` renders no header (today's visual).
    pub label: Option<String>,
    /// Shown above the question.
    pub context: Option<String>,
    /// The question line.
    pub question: String,
    /// The input widget.
    pub input: InputKind,
    /// The options of a select, in order; empty otherwise.
    pub options: Vec<String>,
    /// The pre-populated answer; never shown for a no-echo input.
    pub default: Option<Value>,
    /// Whether typed input is echoed; `false` exactly for `Secret`.
    pub echo: bool,
    /// Whether the `y`/`Y`/`n`/`N` choice offers "remember for the turn":
    /// [`routing::remember_offered`] (under RFD 083, exactly `Boolean` with
    /// persistence `turn`).
    pub remember_affordance: bool,
}

/// The presentation of `question` under `rules` with the
/// coordinator-resolved `prompt_label`.
///
/// A label that is empty or only whitespace renders no header, like `None`:
/// an empty header line says nothing about who is asking. The default of a
/// `Secret` question is not shown: a no-echo field displays no value.
pub(crate) fn present(
    question: &Question,
    rules: &Rules,
    prompt_label: Option<&str>,
) -> Presentation {
    let remember_affordance = routing::remember_offered(question, rules);
    let (input, options) = match &question.answer_type {
        AnswerType::Secret if routing::is_secret(question, rules) => {
            (InputKind::Password, Vec::new())
        }
        AnswerType::Boolean => (InputKind::Boolean, Vec::new()),
        AnswerType::Select { options } => (InputKind::Select, options.clone()),
        // A `Secret` where the type does not exist reads as text.
        AnswerType::Text | AnswerType::Secret => (InputKind::Text, Vec::new()),
    };
    let echo = match input {
        InputKind::Password => false,
        InputKind::Boolean | InputKind::Select | InputKind::Text => true,
    };
    Presentation {
        label: prompt_label
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned),
        context: question.context.clone(),
        question: question.text.clone(),
        input,
        options,
        default: if echo { question.default.clone() } else { None },
        echo,
        remember_affordance,
    }
}

impl Presentation {
    /// A plain-text rendering: header (when labelled), context, the question
    /// line with its input hint, options, default, and the meaning of the
    /// uppercase choices when remembering is offered.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(label) = &self.label {
            let _ = writeln!(out, "[{label}]");
        }
        if let Some(context) = &self.context {
            for line in context.lines() {
                let _ = writeln!(out, "{line}");
            }
        }
        let hint = match (self.input, self.remember_affordance) {
            (InputKind::Boolean, true) => " [y/Y/n/N]",
            (InputKind::Boolean, false) => " [y/n]",
            (InputKind::Select, _) => " (select one)",
            (InputKind::Text, _) => "",
            (InputKind::Password, _) => " (input hidden)",
        };
        let _ = writeln!(out, "? {}{hint}", self.question);
        for option in &self.options {
            let _ = writeln!(out, "  - {option}");
        }
        if let Some(default) = &self.default {
            let _ = writeln!(out, "  default: {default}");
        }
        if self.remember_affordance {
            let _ = writeln!(out, "  (Y/N: answer and remember for the rest of the turn)");
        }
        out
    }
}

#[cfg(test)]
mod prompt_presentation_tests;
