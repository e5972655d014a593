//! The `ask_user` built-in tool (RFD 083): the assistant asks the human a
//! typed question mid-turn.
//!
//! [`execute`] is the whole executor, pure: the first call validates the
//! arguments and authors one human-only question (rule `ASK-FIRST-CALL`);
//! the second call, with the answer accumulated under [`QUESTION_ID`], checks
//! it (rule `ASK-ANSWER-CHECK`) and returns the typed success body (rule
//! `ASK-SUCCESS-BODY`). Every failure is an [`Outcome::Error`] whose message
//! names the argument and says what is expected, so the model can correct its
//! call (RFD 083 "Arguments").

use std::fmt;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::model::routing::{self, AnswerMismatch};
use crate::model::tool::{
    AnswerReusePolicy, AnswerType, Answers, BuiltinHook, Outcome, Question, ToolSource,
};
use crate::predicates::{self, AnswerKind, TextFault};

/// The tool's name and configuration key (`conversation.tools.ask_user`).
pub(crate) const NAME: &str = predicates::ASK_USER;

/// The ID of the single question `ask_user` asks (RFD 083 "Execution flow"):
/// the answer's key in the turn and the `questions.answer` config slot.
pub(crate) const QUESTION_ID: &str = predicates::ASK_USER_QUESTION_ID;

/// The executor's kind: a built-in whose `inquiry_source()` override returns
/// `InquirySource::Assistant` (RFD 083 Phase 2, rule `ASK-PROVENANCE`).
pub(crate) const SOURCE: ToolSource = ToolSource::Builtin {
    hook: BuiltinHook::Assistant,
};

/// The `prompt_label` of the registered `questions.answer` config.
pub(crate) const PROMPT_LABEL: &str = "Assistant";

/// The answer types `ask_user` offers (RFD 083 "Arguments"). `Secret` is
/// deliberately absent: answers go back to the model and into the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AskAnswerType {
    /// `true` or `false`.
    Boolean,
    /// One of the options.
    Select {
        /// The non-empty options.
        options: Vec<String>,
    },
    /// Free text.
    Text,
}

impl AskAnswerType {
    /// The argument's spelling: `"boolean"`, `"select"` or `"text"`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            AskAnswerType::Boolean => AnswerKind::Boolean.name(),
            AskAnswerType::Select { .. } => AnswerKind::Select.name(),
            AskAnswerType::Text => AnswerKind::Text.name(),
        }
    }

    /// The tool-level answer type it maps onto (RFD 083: "These map
    /// directly onto `jp_tool::AnswerType`").
    pub(crate) fn to_answer_type(&self) -> AnswerType {
        match self {
            AskAnswerType::Boolean => AnswerType::Boolean,
            AskAnswerType::Select { options } => AnswerType::Select {
                options: options.clone(),
            },
            AskAnswerType::Text => AnswerType::Text,
        }
    }

    /// Checks `value` against this type and its options: the one answer-shape
    /// check, [`routing::validate_answer`] (rule `LIFE-ANSWER-SHAPE`).
    fn validate(&self, value: &Value) -> Result<(), AnswerMismatch> {
        routing::validate_answer(&self.to_answer_type(), value)
    }
}

/// Validated `ask_user` arguments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arguments {
    /// The single-line question.
    pub(crate) question: String,
    /// Text shown above the question.
    pub(crate) context: Option<String>,
    /// The requested answer type, with the options of a select.
    pub(crate) answer_type: AskAnswerType,
    /// The pre-populated answer, already checked against the type.
    pub(crate) default: Option<Value>,
}

/// Why a call to `ask_user` failed. `Display` is the message the model sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AskUserError {
    /// Rule `ASK-ARG-OBJECT`: the arguments are not a JSON object.
    NotAnObject {
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-QUESTION-MISSING`: no `question` (or `null`).
    QuestionMissing,
    /// Rule `ASK-ARG-QUESTION-MISSING`: `question` is not a string.
    QuestionNotString {
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-QUESTION-EMPTY`: `question` is empty or only whitespace.
    QuestionEmpty,
    /// Rule `ASK-ARG-QUESTION-SINGLE-LINE`: `question` has a line break.
    QuestionMultiline,
    /// Rule `ASK-ARG-CONTEXT`: `context` is not a string.
    ContextNotString {
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-ANSWER-TYPE`: `answer_type` is not a string.
    AnswerTypeNotString {
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-ANSWER-TYPE`: `answer_type` is an unknown string.
    AnswerTypeUnknown {
        /// The string sent.
        value: String,
    },
    /// Rule `ASK-ARG-NO-SECRET`: `answer_type = "secret"`.
    AnswerTypeSecret,
    /// Rule `ASK-ARG-OPTIONS-SHAPE`: `options` is not an array.
    OptionsNotArray {
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-OPTIONS-SHAPE`: an option is not a string.
    OptionNotString {
        /// The option's index.
        index: usize,
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-SELECT-OPTIONS`: a select with no or empty `options`.
    SelectWithoutOptions,
    /// Rule `ASK-ARG-OPTIONS-NOT-SELECT`: `options` with another answer type.
    OptionsWithoutSelect {
        /// The requested answer type.
        answer_type: &'static str,
    },
    /// Rule `ASK-ARG-DEFAULT-TYPE`: `default` of the wrong JSON type.
    DefaultWrongType {
        /// The requested answer type.
        answer_type: &'static str,
        /// What the type needs.
        expected: &'static str,
        /// What was sent instead.
        found: &'static str,
    },
    /// Rule `ASK-ARG-DEFAULT-IN-OPTIONS`: a select `default` not in `options`.
    DefaultNotInOptions {
        /// The default sent.
        default: String,
        /// The options.
        options: Vec<String>,
    },
    /// Rule `ASK-ANSWER-CHECK`: the accumulated answer has the wrong shape.
    AnswerTypeMismatch {
        /// The requested answer type.
        answer_type: &'static str,
        /// What the type needs.
        expected: &'static str,
    },
    /// Rule `ASK-ANSWER-CHECK`: a select answer that is not an option.
    AnswerNotInOptions,
}

/// The kind of a JSON value, as an error message names it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

const QUESTION_HINT: &str =
    "pass the question for the user as a non-empty, single-line string in `question`";
const TYPE_HINT: &str = "`answer_type` must be one of \"boolean\", \"select\" or \"text\"";

impl fmt::Display for AskUserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{NAME}: ")?;
        match self {
            AskUserError::NotAnObject { found } => write!(
                f,
                "the arguments must be a JSON object such as {{\"question\": \"...\"}}, \
                 got {found}; {QUESTION_HINT}"
            ),
            AskUserError::QuestionMissing => {
                write!(f, "`question` is required: {QUESTION_HINT}")
            }
            AskUserError::QuestionNotString { found } => {
                write!(
                    f,
                    "`question` must be a string, got {found}: {QUESTION_HINT}"
                )
            }
            AskUserError::QuestionEmpty => write!(f, "`question` is empty: {QUESTION_HINT}"),
            AskUserError::QuestionMultiline => f.write_str(
                "`question` must be a single line but contains a line break: keep the \
                 question itself in `question` and move the multi-line explanation to \
                 `context`",
            ),
            AskUserError::ContextNotString { found } => write!(
                f,
                "`context` must be a string, got {found}: pass the text to show above the \
                 question, or omit `context`"
            ),
            AskUserError::AnswerTypeNotString { found } => {
                write!(f, "{TYPE_HINT}, got {found}")
            }
            AskUserError::AnswerTypeUnknown { value } => {
                write!(f, "{TYPE_HINT}, got {}", Value::String(value.clone()))
            }
            AskUserError::AnswerTypeSecret => write!(
                f,
                "`answer_type` \"secret\" is not supported: answers to {NAME} are returned \
                 to the model and stored in the conversation, so do not use {NAME} to \
                 collect secrets; {TYPE_HINT}"
            ),
            AskUserError::OptionsNotArray { found } => {
                write!(f, "`options` must be an array of strings, got {found}")
            }
            AskUserError::OptionNotString { index, found } => write!(
                f,
                "`options` must be an array of strings, but options[{index}] is {found}"
            ),
            AskUserError::SelectWithoutOptions => f.write_str(
                "`answer_type` \"select\" requires `options`: pass a non-empty array of the \
                 choices the user can pick from",
            ),
            AskUserError::OptionsWithoutSelect { answer_type } => write!(
                f,
                "`options` is only allowed with `answer_type` \"select\", but `answer_type` \
                 is \"{answer_type}\": remove `options`, or set `answer_type` to \"select\""
            ),
            AskUserError::DefaultWrongType {
                answer_type,
                expected,
                found,
            } => write!(
                f,
                "`default` must be {expected} for `answer_type` \"{answer_type}\", got \
                 {found}: fix `default` or omit it"
            ),
            AskUserError::DefaultNotInOptions { default, options } => write!(
                f,
                "`default` {} is not one of `options` {}: use one of the options as the \
                 default, or omit `default`",
                Value::String(default.clone()),
                json!(options)
            ),
            AskUserError::AnswerTypeMismatch {
                answer_type,
                expected,
            } => write!(
                f,
                "the accumulated answer does not match the requested answer type \
                 (`answer_type` \"{answer_type}\" expects {expected})"
            ),
            AskUserError::AnswerNotInOptions => f.write_str(
                "the accumulated answer does not match the requested answer type (it is \
                 not one of the requested `options`)",
            ),
        }
    }
}

impl std::error::Error for AskUserError {}

/// An optional argument: absent and `null` both mean "not given".
fn optional<'a>(args: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key).filter(|v| !v.is_null())
}

impl Arguments {
    /// Validates the arguments in the order RFD 083 "Arguments" lists the
    /// errors, after the JSON shapes (object, strings, array of strings).
    /// `null` counts as absent for every argument; unknown keys are ignored
    /// (the schema does not forbid them).
    pub(crate) fn parse(arguments: &Value) -> Result<Arguments, AskUserError> {
        let Value::Object(args) = arguments else {
            return Err(AskUserError::NotAnObject {
                found: kind(arguments),
            });
        };

        let question = match optional(args, "question") {
            None => return Err(AskUserError::QuestionMissing),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(AskUserError::QuestionNotString { found: kind(other) }),
        };
        // The text rule the oracle holds recorded questions to
        // (CHECK-ASK-USER-SHAPE), decided once.
        match predicates::ask_user_text(&question) {
            Ok(()) => {}
            Err(TextFault::Empty) => return Err(AskUserError::QuestionEmpty),
            Err(TextFault::Multiline) => return Err(AskUserError::QuestionMultiline),
        }

        let context = match optional(args, "context") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(AskUserError::ContextNotString { found: kind(other) }),
        };

        enum Requested {
            Boolean,
            Select,
            Text,
        }
        let requested = match optional(args, "answer_type") {
            None => Requested::Text,
            Some(Value::String(s)) => match s.as_str() {
                "boolean" => Requested::Boolean,
                "select" => Requested::Select,
                "text" => Requested::Text,
                "secret" => return Err(AskUserError::AnswerTypeSecret),
                _ => return Err(AskUserError::AnswerTypeUnknown { value: s.clone() }),
            },
            Some(other) => return Err(AskUserError::AnswerTypeNotString { found: kind(other) }),
        };

        let options = match optional(args, "options") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| match item {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(AskUserError::OptionNotString {
                            index,
                            found: kind(other),
                        }),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(other) => return Err(AskUserError::OptionsNotArray { found: kind(other) }),
        };

        let answer_type = match (requested, options) {
            (Requested::Select, Some(options)) if predicates::select_has_options(&options[..]) => {
                AskAnswerType::Select { options }
            }
            (Requested::Select, _) => return Err(AskUserError::SelectWithoutOptions),
            (Requested::Boolean, Some(_)) => {
                return Err(AskUserError::OptionsWithoutSelect {
                    answer_type: "boolean",
                });
            }
            (Requested::Text, Some(_)) => {
                return Err(AskUserError::OptionsWithoutSelect {
                    answer_type: "text",
                });
            }
            (Requested::Boolean, None) => AskAnswerType::Boolean,
            (Requested::Text, None) => AskAnswerType::Text,
        };

        let default = optional(args, "default").cloned();
        if let Some(default) = &default {
            match answer_type.validate(default) {
                Ok(()) => {}
                Err(AnswerMismatch::WrongType { expected }) => {
                    return Err(AskUserError::DefaultWrongType {
                        answer_type: answer_type.name(),
                        expected,
                        found: kind(default),
                    });
                }
                Err(AnswerMismatch::NotAnOption) => {
                    return Err(AskUserError::DefaultNotInOptions {
                        default: default.as_str().unwrap_or_default().to_owned(),
                        options: match &answer_type {
                            AskAnswerType::Select { options } => options.clone(),
                            AskAnswerType::Boolean | AskAnswerType::Text => Vec::new(),
                        },
                    });
                }
            }
        }

        Ok(Arguments {
            question,
            context,
            answer_type,
            default,
        })
    }

    /// The question the first call authors (rule `ASK-FIRST-CALL`): ID
    /// [`QUESTION_ID`], human-only (`exclusive`), never remembered for the
    /// turn (`persistence: none`), context, default and options carried over.
    pub(crate) fn to_question(&self) -> Question {
        let mut question = Question::text(QUESTION_ID, &self.question);
        question.answer_type = self.answer_type.to_answer_type();
        let question = question
            .with_exclusive(true)
            .with_persistence(AnswerReusePolicy::None);
        let question = match &self.context {
            Some(context) => question.with_context(context),
            None => question,
        };
        match &self.default {
            Some(default) => question.with_default(default.clone()),
            None => question,
        }
    }

    /// Checks the accumulated answer against the answer type and options
    /// (rule `ASK-ANSWER-CHECK`) with the one answer-shape check, reported
    /// with RFD 083's generic wording.
    pub(crate) fn check_answer(&self, answer: &Value) -> Result<(), AskUserError> {
        self.answer_type.validate(answer).map_err(|m| match m {
            AnswerMismatch::WrongType { expected } => AskUserError::AnswerTypeMismatch {
                answer_type: self.answer_type.name(),
                expected,
            },
            AnswerMismatch::NotAnOption => AskUserError::AnswerNotInOptions,
        })
    }

    /// The success body (rule `ASK-SUCCESS-BODY`): compact JSON
    /// `{"answer_type":…,"answer":…}`, so `true` and `"true"` stay apart
    /// however the provider stringifies tool results.
    pub(crate) fn success_body(&self, answer: &Value) -> String {
        let (answer_type, answer_key) = predicates::ASK_USER_BODY_KEYS;
        let mut body = serde_json::Map::new();
        body.insert(answer_type.to_owned(), json!(self.answer_type.name()));
        body.insert(answer_key.to_owned(), answer.clone());
        Value::Object(body).to_string()
    }
}

/// Runs `ask_user` (RFD 083 "Execution flow"). Pure: the same arguments and
/// answers give the same outcome.
///
/// No answer under [`QUESTION_ID`] → `NeedsInput`; an answer → it is checked
/// and returned as the success body. Arguments are validated on both calls.
/// Errors are never transient: the same call fails the same way.
pub fn execute(arguments: &Value, answers: &Answers) -> Outcome {
    let outcome = Arguments::parse(arguments).and_then(|args| match answers.get(QUESTION_ID) {
        None => Ok(Outcome::NeedsInput {
            question: Arc::new(args.to_question()),
        }),
        Some(answer) => args.check_answer(answer).map(|()| Outcome::Success {
            content: args.success_body(answer),
        }),
    });
    outcome.unwrap_or_else(|e| Outcome::Error {
        message: e.to_string(),
        transient: false,
    })
}

/// The provider-visible description: RFD 083's suggested long-form wording,
/// set as `description` (not `summary`) so the usage guard is sent in every
/// request.
pub(crate) fn description() -> &'static str {
    "Ask the user a typed question (boolean, select, or text) and receive their answer. \
     Use only when the conversation does not provide the information you need and the \
     user can reasonably be expected to answer. When in doubt, answer the user's original \
     question directly; do not call `ask_user` for clarification you can derive from \
     context or for confirmation of obvious next steps. Do not use `ask_user` to collect \
     secrets (passwords, API keys, SSH passphrases): answers are returned to the model and \
     persisted in the conversation stream."
}

/// The arguments' JSON Schema (RFD 083 "Tool configuration", rule
/// `ASK-SCHEMA`). Provider-valid: concrete types only, and `question` is the
/// only (unconditionally) required property; the cross-field rules are
/// checked by [`execute`].
pub(crate) fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "description": "The question text. Must be a single line; put any multi-line explanation in `context`."
            },
            "context": {
                "type": "string",
                "description": "Optional multi-line context rendered above the question."
            },
            "answer_type": {
                "type": "string",
                "enum": ["boolean", "select", "text"],
                "description": "The type of answer expected. Defaults to \"text\"."
            },
            "options": {
                "type": "array",
                "items": { "type": "string" },
                "description": "The choices to pick from. Required when `answer_type` is \"select\", not allowed otherwise."
            },
            "default": {
                "type": ["boolean", "string"],
                "description": "Optional answer that pre-populates the prompt: a boolean for \"boolean\", one of `options` for \"select\", a string for \"text\"."
            }
        },
        "required": ["question"]
    })
}
