//! The predicates the model and the oracle both decide, stated once on the
//! persisted vocabulary, so that the oracle ([`crate::check`]) reads them
//! without importing the model, and the model ([`crate::model::routing`],
//! [`crate::model::ask_user`]) decides with the very same code.
//!
//! - [`answer_fits`]: whether an answer fits its question's answer type
//!   and options (rule `LIFE-ANSWER-SHAPE` on the model's side,
//!   `CHECK-ANSWER-FITS` on the oracle's; RFD 083 "Arguments", RFD 083
//!   step 6, RFD 028's schema per answer type).
//! - [`ask_user_question`] and its parts [`ask_user_text`],
//!   [`select_has_options`]: the shape of the question `ask_user` authors
//!   (rules `ASK-FIRST-CALL`, `ASK-ARG-*` on the model's side,
//!   `CHECK-ASK-USER-SHAPE` on the oracle's; RFD 083 "Arguments",
//!   "Execution flow").
//! - [`ASK_USER`], [`ASK_USER_QUESTION_ID`] and [`AnswerKind::name`]:
//!   `ask_user`'s vocabulary (RFD 083 "Tool configuration", "Arguments",
//!   "Execution flow"), which the model's built-in writes and the oracle's
//!   CHECK-ASK-USER-RECORD reads.
//! - [`recorded_source`] and [`overrides_source`]: provenance (RFD 082
//!   "Source attribution", RFD 083 Phase 2), rule `LIFE-PROVENANCE` on the
//!   model's side, `CHECK-PROVENANCE` on the oracle's.
//! - [`reason_needs`]: which profile switch a cancellation reason comes
//!   with (RFD 083 step 7: `invalid_static_answer` with static-answer
//!   validation), rule `LIFE-STATIC-VALIDATED` on the model's side,
//!   `CHECK-REASON-INVALID-STATIC` and the profile evidence on the oracle's.

use serde_json::Value;

use crate::profile::Rules;
use crate::wire::{
    CancellationReason, InquiryAnswerReusePolicy, InquiryAnswerType, InquiryQuestion,
    InquirySource, SelectOption,
};

/// The `ask_user` built-in's name and configuration key (RFD 083 "Tool
/// configuration": `conversation.tools.ask_user`).
pub(crate) const ASK_USER: &str = "ask_user";

/// The ID of the single question `ask_user` asks (RFD 083 "Execution flow":
/// "The built-in always emits a single question with `id: \"answer\"`").
pub(crate) const ASK_USER_QUESTION_ID: &str = "answer";

/// The keys of `ask_user`'s success body, `{"answer_type": …, "answer": …}`
/// (RFD 083 "Execution flow"): the answer type's name ([`AnswerKind::name`])
/// and the answer.
pub(crate) const ASK_USER_BODY_KEYS: (&str, &str) = ("answer_type", "answer");

/// Whether the tool under the configuration key `tool` overrides
/// `inquiry_source()` to the assistant (RFD 082 "Source attribution": "082
/// itself ships no production overrides"; RFD 083 Phase 2: `ask_user` does,
/// found by its config key, "Built-in aliasing").
pub(crate) fn overrides_source(tool: &str) -> bool {
    tool == ASK_USER
}

/// The persisted `source` of an inquiry a tool asks (RFD 082 "Source
/// attribution"): the assistant when the executor overrides
/// `inquiry_source()` (`assistant_override`), else the tool by its name.
/// The model passes its executor's hook; the oracle, which sees only the
/// call's name, passes [`overrides_source`] of it.
pub(crate) fn recorded_source(assistant_override: bool, tool: &str) -> InquirySource {
    if assistant_override {
        InquirySource::Assistant
    } else {
        InquirySource::tool(tool)
    }
}

/// The profile switch a writer records the cancellation reason `reason`
/// under, or `None` for a reason every tagged writer may record: RFD 083
/// step 7 adds `invalid_static_answer` with static-answer validation, so
/// the reason exists exactly where a static answer is validated. The one
/// statement of that pairing: the model validates a static answer where it
/// holds, the oracle reports the reason where it does not, and reads it as
/// evidence of the first profile where it does.
pub(crate) fn reason_needs(reason: &CancellationReason) -> Option<fn(&Rules) -> bool> {
    match reason {
        CancellationReason::InvalidStaticAnswer => Some(|r: &Rules| r.static_validation),
        CancellationReason::User
        | CancellationReason::BackendError
        | CancellationReason::NoPromptBackend
        | CancellationReason::AssistantRoutingDenied
        | CancellationReason::Unknown(_) => None,
    }
}

/// Whether a writer under `rules` may record `reason` ([`reason_needs`]).
pub(crate) fn records_reason(rules: &Rules, reason: &CancellationReason) -> bool {
    reason_needs(reason).is_none_or(|needs| needs(rules))
}

/// Whether a writer under `rules` validates a configured static answer
/// before using it (RFD 083 step 6), and so refuses an unfit one with
/// `invalid_static_answer`: [`records_reason`] of that reason.
pub(crate) fn validates_static_answers(rules: &Rules) -> bool {
    records_reason(rules, &CancellationReason::InvalidStaticAnswer)
}

/// The kind of a question's answer type, without a select's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum AnswerKind {
    /// `boolean`.
    Boolean,
    /// `select`.
    Select,
    /// `text`.
    #[default]
    Text,
    /// `secret`.
    Secret,
}

impl AnswerKind {
    /// The kind's name: the `answer_type` argument of `ask_user` (RFD 083
    /// "Arguments") and of its success body (RFD 083 "Execution flow":
    /// `{"answer_type": "boolean", "answer": true}`), and the persisted
    /// answer type's `type` tag.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AnswerKind::Boolean => "boolean",
            AnswerKind::Select => "select",
            AnswerKind::Text => "text",
            AnswerKind::Secret => "secret",
        }
    }

    /// The kind of a persisted answer type.
    pub(crate) fn of(answer_type: &InquiryAnswerType) -> Self {
        match answer_type {
            InquiryAnswerType::Boolean => AnswerKind::Boolean,
            InquiryAnswerType::Select { .. } => AnswerKind::Select,
            InquiryAnswerType::Text => AnswerKind::Text,
            InquiryAnswerType::Secret => AnswerKind::Secret,
        }
    }
}

/// A select's options, as each side holds them: the model's strings, the
/// oracle's option values, the persisted options.
pub(crate) trait Options {
    /// `value` is one of the options.
    fn holds(&self, value: &Value) -> bool;
    /// There is no option at all.
    fn is_empty(&self) -> bool;
}

impl Options for [String] {
    fn holds(&self, value: &Value) -> bool {
        value.as_str().is_some_and(|s| self.iter().any(|o| o == s))
    }
    fn is_empty(&self) -> bool {
        <[String]>::is_empty(self)
    }
}

impl Options for [Value] {
    fn holds(&self, value: &Value) -> bool {
        self.contains(value)
    }
    fn is_empty(&self) -> bool {
        <[Value]>::is_empty(self)
    }
}

impl Options for [SelectOption] {
    fn holds(&self, value: &Value) -> bool {
        self.iter().any(|o| o.value == *value)
    }
    fn is_empty(&self) -> bool {
        <[SelectOption]>::is_empty(self)
    }
}

/// Why an answer does not fit a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerMismatch {
    /// The JSON type is wrong for the answer type.
    WrongType {
        /// What was expected, e.g. "a boolean (true or false)": the one
        /// wording every message about an answer's shape uses (the RFDs
        /// leave it open).
        expected: &'static str,
    },
    /// A select answer that is not one of the options.
    NotAnOption,
}

/// Whether `value` fits a question of answer kind `kind` whose options (read
/// only for a select) are `options`: a boolean for a boolean question, a
/// string for a text or secret question, one of the options for a select
/// (RFD 083 "Arguments": "validated against the resolved `answer_type` and
/// `options`"; RFD 028: the backend's schema fixes the type).
///
/// The model refuses with it (static answers, the backend's extraction,
/// `ask_user`'s `default` and accumulated answer); the oracle reports with
/// it what a writer recorded as `answered`.
pub(crate) fn answer_fits<O: Options + ?Sized>(
    kind: AnswerKind,
    options: &O,
    value: &Value,
) -> Result<(), AnswerMismatch> {
    match (kind, value) {
        (AnswerKind::Boolean, Value::Bool(_)) => Ok(()),
        (AnswerKind::Boolean, _) => Err(AnswerMismatch::WrongType {
            expected: "a boolean (true or false)",
        }),
        (AnswerKind::Select, _) if options.holds(value) => Ok(()),
        (AnswerKind::Select, Value::String(_)) => Err(AnswerMismatch::NotAnOption),
        (AnswerKind::Select, _) => Err(AnswerMismatch::WrongType {
            expected: "a string (one of the options)",
        }),
        (AnswerKind::Text | AnswerKind::Secret, Value::String(_)) => Ok(()),
        (AnswerKind::Text | AnswerKind::Secret, _) => Err(AnswerMismatch::WrongType {
            expected: "a string",
        }),
    }
}

/// Why a question text is not one `ask_user` asks (RFD 083 "Arguments":
/// "`question` is empty or contains a newline").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextFault {
    /// Empty or only whitespace.
    Empty,
    /// Holds a line break (`\n` or `\r`).
    Multiline,
}

/// The text of an `ask_user` question: non-empty and single-line.
pub(crate) fn ask_user_text(text: &str) -> Result<(), TextFault> {
    if text.trim().is_empty() {
        Err(TextFault::Empty)
    } else if text.contains(['\n', '\r']) {
        Err(TextFault::Multiline)
    } else {
        Ok(())
    }
}

/// A select question offers at least one option (RFD 083 "Arguments":
/// "`answer_type == \"select\"` with missing or empty `options`").
pub(crate) fn select_has_options<O: Options + ?Sized>(options: &O) -> bool {
    !options.is_empty()
}

/// Why a persisted question is not one `ask_user` authors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AskUserShapeFault {
    /// Not `exclusive` (RFD 083: the built-in's question is human-only).
    NotExclusive,
    /// `persistence` is not `none` (RFD 083: never remembered for the turn).
    Remembered,
    /// A `secret` answer type (RFD 083: "`answer_type: \"secret\"`" is
    /// refused).
    Secret,
    /// The text is empty or not a single line.
    Text(TextFault),
    /// A select with no options.
    SelectWithoutOptions,
    /// The `default` does not fit the answer type or options.
    DefaultDoesNotFit(AnswerMismatch),
}

/// The shape of the question `ask_user` authors (RFD 083 "Arguments",
/// "Execution flow"): `exclusive`, `persistence: none`, boolean, select or
/// text, a non-empty single-line text, a select with options, a `default`
/// that fits. The first fault found, in that order.
pub(crate) fn ask_user_question(q: &InquiryQuestion) -> Result<(), AskUserShapeFault> {
    let kind = AnswerKind::of(&q.answer_type);
    let options: &[SelectOption] = match &q.answer_type {
        InquiryAnswerType::Select { options } => options,
        InquiryAnswerType::Boolean | InquiryAnswerType::Text | InquiryAnswerType::Secret => &[],
    };
    if !q.exclusive {
        return Err(AskUserShapeFault::NotExclusive);
    }
    match q.persistence {
        InquiryAnswerReusePolicy::None => {}
        InquiryAnswerReusePolicy::Turn => return Err(AskUserShapeFault::Remembered),
    }
    match kind {
        AnswerKind::Secret => return Err(AskUserShapeFault::Secret),
        AnswerKind::Boolean | AnswerKind::Select | AnswerKind::Text => {}
    }
    ask_user_text(&q.text).map_err(AskUserShapeFault::Text)?;
    match kind {
        AnswerKind::Select if !select_has_options(options) => {
            return Err(AskUserShapeFault::SelectWithoutOptions);
        }
        AnswerKind::Select | AnswerKind::Boolean | AnswerKind::Text | AnswerKind::Secret => {}
    }
    match &q.default {
        Some(d) => answer_fits(kind, options, d).map_err(AskUserShapeFault::DefaultDoesNotFit),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Hand-written cases of RFD 083 "Arguments" (a boolean for boolean, a
    /// string for text, one of the options for select) and RFD 082 (a
    /// secret's answer is text).
    #[test]
    fn answer_fits_rfd_083_cases() {
        let opts = ["a".to_owned(), "b".to_owned()];
        let none: &[String] = &[];
        assert!(answer_fits(AnswerKind::Boolean, none, &json!(true)).is_ok());
        assert!(answer_fits(AnswerKind::Boolean, none, &json!("true")).is_err());
        assert!(answer_fits(AnswerKind::Text, none, &json!("x")).is_ok());
        assert!(answer_fits(AnswerKind::Text, none, &json!(7)).is_err());
        assert!(answer_fits(AnswerKind::Secret, none, &json!("pw")).is_ok());
        assert!(answer_fits(AnswerKind::Select, &opts[..], &json!("b")).is_ok());
        assert_eq!(
            answer_fits(AnswerKind::Select, &opts[..], &json!("c")),
            Err(AnswerMismatch::NotAnOption)
        );
        assert!(matches!(
            answer_fits(AnswerKind::Select, &opts[..], &json!(true)),
            Err(AnswerMismatch::WrongType { .. })
        ));
    }

    /// RFD 083 "Arguments": a select with "missing or empty `options`" is
    /// refused, in every shape a side holds its options (the model's
    /// strings, the oracle's persisted values, the wire's options).
    #[test]
    fn select_has_options_in_every_shape() {
        let strings: &[String] = &[];
        let values: &[Value] = &[];
        assert!(!select_has_options(strings));
        assert!(!select_has_options(values));
        assert!(select_has_options(&["a".to_owned()][..]));
        assert!(select_has_options(&[json!("a")][..]));
        let wire: Vec<SelectOption> =
            serde_json::from_value(json!([{"value": "a"}])).expect("an option reads");
        assert!(select_has_options(&wire[..]));
        assert!(!select_has_options(&wire[..0]));
    }

    /// RFD 083 "Arguments": "`question` is empty or contains a newline".
    #[test]
    fn ask_user_text_rfd_083_cases() {
        assert_eq!(ask_user_text("Proceed?"), Ok(()));
        assert_eq!(ask_user_text("  "), Err(TextFault::Empty));
        assert_eq!(ask_user_text("two\nlines"), Err(TextFault::Multiline));
        assert_eq!(ask_user_text("cr\r"), Err(TextFault::Multiline));
    }
}
