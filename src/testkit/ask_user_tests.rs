//! The `ask_user` built-in (RFD 083 Phase 2): argument validation, the
//! `NeedsInput` → `Success` round-trip, the typed success body, the checks on
//! the accumulated answer, the provider description and schema, provenance,
//! and the pre-083 `Question` compatibility of RFD 083 Phase 1 step 1.

use crate::model::ask_user::{self, Arguments, AskUserError};
use crate::model::config::{ConfigSource, PartialToolConfig, effective_tools};
use crate::model::tool::Map;
use crate::model::tool::{
    AnswerReusePolicy, AnswerType, Answers, BuiltinHook, Outcome, Question, ToolSource,
    resolve_inquiry_source,
};
use crate::wire::InquirySource;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;

fn no_answers() -> Answers {
    Answers::default()
}

fn answered(answer: Value) -> Answers {
    let mut answers = Answers::default();
    answers.insert(ask_user::QUESTION_ID.to_owned(), answer);
    answers
}

/// The error message of a call that must fail, and that it is not transient.
fn error_message(arguments: Value, answers: &Answers) -> String {
    match ask_user::execute(&arguments, answers) {
        Outcome::Error { message, transient } => {
            assert!(!transient, "ask_user errors are never transient: {message}");
            message
        }
        other => panic!("expected an error for {arguments}, got {other:?}"),
    }
}

fn first_call_error(arguments: Value) -> String {
    error_message(arguments, &no_answers())
}

fn needs_input(arguments: &Value) -> Question {
    match ask_user::execute(arguments, &no_answers()) {
        Outcome::NeedsInput { question } => Arc::unwrap_or_clone(question),
        other => panic!("expected NeedsInput for {arguments}, got {other:?}"),
    }
}

fn success(arguments: &Value, answers: &Answers) -> String {
    match ask_user::execute(arguments, answers) {
        Outcome::Success { content } => content,
        other => panic!("expected Success for {arguments}, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Argument validation (RFD 083 "Arguments"): every case, every message.

/// Rule: ASK-ARG-OBJECT — arguments that are not a JSON object are refused,
/// naming what was sent.
#[test]
fn arguments_that_are_not_an_object_are_refused() {
    let expected = |found: &str| {
        format!(
            "ask_user: the arguments must be a JSON object such as {{\"question\": \"...\"}}, \
             got {found}; pass the question for the user as a non-empty, single-line string \
             in `question`"
        )
    };
    assert_eq!(first_call_error(json!("Proceed?")), expected("a string"));
    assert_eq!(first_call_error(json!(["Proceed?"])), expected("an array"));
    assert_eq!(first_call_error(Value::Null), expected("null"));
    assert_eq!(first_call_error(json!(7)), expected("a number"));
}

/// Rule: ASK-ARG-QUESTION-MISSING — no `question`, a `null` one or a
/// non-string one is refused with what to send instead.
#[test]
fn question_missing_is_refused() {
    let missing = "ask_user: `question` is required: pass the question for the user as a \
                   non-empty, single-line string in `question`";
    assert_eq!(first_call_error(json!({})), missing);
    assert_eq!(first_call_error(json!({"question": null})), missing);
    assert_eq!(
        first_call_error(json!({"context": "only context", "answer_type": "text"})),
        missing
    );
    assert_eq!(
        first_call_error(json!({"question": 42})),
        "ask_user: `question` must be a string, got a number: pass the question for the \
         user as a non-empty, single-line string in `question`"
    );
}

/// Rule: ASK-ARG-QUESTION-EMPTY — an empty or whitespace-only `question` is
/// refused.
#[test]
fn question_empty_is_refused() {
    let empty = "ask_user: `question` is empty: pass the question for the user as a \
                 non-empty, single-line string in `question`";
    assert_eq!(first_call_error(json!({"question": ""})), empty);
    assert_eq!(first_call_error(json!({"question": "   \t "})), empty);
}

/// Rule: ASK-ARG-QUESTION-SINGLE-LINE — a `question` with a line break is
/// refused, pointing at `context`.
#[test]
fn question_with_a_newline_is_refused() {
    let multiline = "ask_user: `question` must be a single line but contains a line break: \
                     keep the question itself in `question` and move the multi-line \
                     explanation to `context`";
    assert_eq!(
        first_call_error(json!({"question": "Some context.\nProceed?"})),
        multiline
    );
    assert_eq!(
        first_call_error(json!({"question": "Some context.\r\nProceed?"})),
        multiline
    );
    assert_eq!(
        first_call_error(json!({"question": "Proceed?\r"})),
        multiline
    );
    // The same text split properly is accepted.
    let q = needs_input(&json!({"question": "Proceed?", "context": "Some context.\nMore."}));
    assert_eq!(q.context.as_deref(), Some("Some context.\nMore."));
}

/// Rule: ASK-ARG-CONTEXT — a non-string `context` is refused.
#[test]
fn context_that_is_not_a_string_is_refused() {
    assert_eq!(
        first_call_error(json!({"question": "Proceed?", "context": ["a", "b"]})),
        "ask_user: `context` must be a string, got an array: pass the text to show above \
         the question, or omit `context`"
    );
}

/// Rule: ASK-ARG-ANSWER-TYPE — `answer_type` must be exactly one of
/// boolean, select, text.
#[test]
fn unknown_answer_type_is_refused() {
    assert_eq!(
        first_call_error(json!({"question": "How many?", "answer_type": "number"})),
        "ask_user: `answer_type` must be one of \"boolean\", \"select\" or \"text\", got \
         \"number\""
    );
    assert_eq!(
        first_call_error(json!({"question": "Proceed?", "answer_type": "Boolean"})),
        "ask_user: `answer_type` must be one of \"boolean\", \"select\" or \"text\", got \
         \"Boolean\""
    );
    assert_eq!(
        first_call_error(json!({"question": "Proceed?", "answer_type": true})),
        "ask_user: `answer_type` must be one of \"boolean\", \"select\" or \"text\", got a \
         boolean"
    );
    assert_eq!(
        first_call_error(json!({"question": "Proceed?", "answer_type": {"type": "boolean"}})),
        "ask_user: `answer_type` must be one of \"boolean\", \"select\" or \"text\", got an \
         object"
    );
}

/// Rule: ASK-ARG-NO-SECRET — `answer_type: "secret"` is refused with the
/// reason (answers go to the model and the stream).
#[test]
fn secret_answer_type_is_refused() {
    let message = first_call_error(json!({"question": "API key?", "answer_type": "secret"}));
    assert_eq!(
        message,
        "ask_user: `answer_type` \"secret\" is not supported: answers to ask_user are \
         returned to the model and stored in the conversation, so do not use ask_user to \
         collect secrets; `answer_type` must be one of \"boolean\", \"select\" or \"text\""
    );
}

/// Rule: ASK-ARG-OPTIONS-SHAPE — `options` must be an array of strings.
#[test]
fn options_that_are_not_strings_are_refused() {
    assert_eq!(
        first_call_error(json!({"question": "Which?", "answer_type": "select", "options": "a, b"})),
        "ask_user: `options` must be an array of strings, got a string"
    );
    assert_eq!(
        first_call_error(
            json!({"question": "Which?", "answer_type": "select", "options": ["a", 2]})
        ),
        "ask_user: `options` must be an array of strings, but options[1] is a number"
    );
}

/// Rule: ASK-ARG-SELECT-OPTIONS — a select without options, with `null` or
/// with an empty array is refused.
#[test]
fn select_without_options_is_refused() {
    let message = "ask_user: `answer_type` \"select\" requires `options`: pass a non-empty \
                   array of the choices the user can pick from";
    assert_eq!(
        first_call_error(json!({"question": "Which?", "answer_type": "select"})),
        message
    );
    assert_eq!(
        first_call_error(json!({"question": "Which?", "answer_type": "select", "options": []})),
        message
    );
    assert_eq!(
        first_call_error(json!({"question": "Which?", "answer_type": "select", "options": null})),
        message
    );
}

/// Rule: ASK-ARG-OPTIONS-NOT-SELECT — `options` with any answer type but
/// select is refused, including the default `text`.
#[test]
fn options_without_select_are_refused() {
    assert_eq!(
        first_call_error(
            json!({"question": "Proceed?", "answer_type": "boolean", "options": ["yes", "no"]})
        ),
        "ask_user: `options` is only allowed with `answer_type` \"select\", but \
         `answer_type` is \"boolean\": remove `options`, or set `answer_type` to \"select\""
    );
    let text = "ask_user: `options` is only allowed with `answer_type` \"select\", but \
                `answer_type` is \"text\": remove `options`, or set `answer_type` to \
                \"select\"";
    assert_eq!(
        first_call_error(json!({"question": "Dir?", "answer_type": "text", "options": ["/tmp"]})),
        text
    );
    // answer_type omitted means text (RFD 083: default "text").
    assert_eq!(
        first_call_error(json!({"question": "Dir?", "options": ["/tmp"]})),
        text
    );
    // An empty array is still "set".
    assert_eq!(
        first_call_error(json!({"question": "Dir?", "options": []})),
        text
    );
}

/// Rule: ASK-ARG-DEFAULT-TYPE — a `default` of the wrong JSON type for the
/// answer type is refused. RFD 083 "Arguments" fixes the class of error, not
/// its wording: the error is the wrong-type one, for the requested type,
/// naming what was sent, and its message names `default`.
#[test]
fn default_of_the_wrong_type_is_refused() {
    let cases = [
        (
            json!({"question": "Proceed?", "answer_type": "boolean", "default": "yes"}),
            "boolean",
            "a string",
        ),
        (
            json!({"question": "Dir?", "default": true}),
            "text",
            "a boolean",
        ),
        (
            json!({"question": "Which?", "answer_type": "select", "options": ["1", "2"], "default": 1}),
            "select",
            "a number",
        ),
    ];
    for (args, want_type, want_found) in cases {
        match Arguments::parse(&args) {
            Err(AskUserError::DefaultWrongType {
                answer_type, found, ..
            }) => {
                assert_eq!((answer_type, found), (want_type, want_found), "{args}");
            }
            other => panic!("{args}: expected DefaultWrongType, got {other:?}"),
        }
        let message = first_call_error(args.clone());
        assert!(message.contains("`default`"), "{args}: {message}");
    }
}

/// Rule: ASK-ARG-DEFAULT-IN-OPTIONS — a select `default` that is not one of
/// the options is refused, listing them.
#[test]
fn select_default_not_in_options_is_refused() {
    assert_eq!(
        first_call_error(json!({
            "question": "Which?",
            "answer_type": "select",
            "options": ["backup", "overwrite", "abort"],
            "default": "Backup"
        })),
        "ask_user: `default` \"Backup\" is not one of `options` \
         [\"backup\",\"overwrite\",\"abort\"]: use one of the options as the default, or \
         omit `default`"
    );
}

/// Rule: ASK-ARG-ORDER — checks run in RFD 083's order: a call
/// with several faults reports the first listed one.
#[test]
fn the_first_fault_in_rfd_order_is_reported() {
    let err = Arguments::parse(&json!({
        "question": "a\nb",
        "answer_type": "boolean",
        "options": ["x"],
        "default": "y"
    }))
    .unwrap_err();
    assert_eq!(err, AskUserError::QuestionMultiline);
    let err = Arguments::parse(&json!({
        "question": "ok?",
        "answer_type": "boolean",
        "options": ["x"],
        "default": "y"
    }))
    .unwrap_err();
    assert_eq!(
        err,
        AskUserError::OptionsWithoutSelect {
            answer_type: "boolean"
        }
    );
}

/// Rule: ASK-ARG-QUESTION-MISSING — on the second call the arguments are
/// validated again: an answer never rescues bad arguments.
#[test]
fn second_call_still_validates_arguments() {
    assert_eq!(
        error_message(json!({"answer_type": "boolean"}), &answered(json!(true))),
        "ask_user: `question` is required: pass the question for the user as a \
         non-empty, single-line string in `question`"
    );
}

// ---------------------------------------------------------------------------
// Execution flow (RFD 083 "Execution flow").

/// Rule: ASK-FIRST-CALL — the first call authors one question, id "answer",
/// exclusive, persistence none, with context, default and options carried
/// over.
#[test]
fn first_call_authors_a_human_only_question() {
    let args = json!({
        "question": "Apply with backup, apply without backup, or abort?",
        "context": "The current approach modifies production config in place.",
        "answer_type": "select",
        "options": ["backup", "overwrite", "abort"],
        "default": "backup"
    });
    let q = needs_input(&args);
    assert_eq!(q.id, "answer");
    assert_eq!(q.text, "Apply with backup, apply without backup, or abort?");
    assert_eq!(
        q.context.as_deref(),
        Some("The current approach modifies production config in place.")
    );
    assert_eq!(
        q.answer_type,
        AnswerType::Select {
            options: vec!["backup".into(), "overwrite".into(), "abort".into()]
        }
    );
    assert_eq!(q.default, Some(json!("backup")));
    assert!(q.exclusive);
    assert_eq!(q.persistence, AnswerReusePolicy::None);

    let q =
        needs_input(&json!({"question": "Proceed?", "answer_type": "boolean", "default": false}));
    assert_eq!(q.answer_type, AnswerType::Boolean);
    assert_eq!(q.default, Some(json!(false)));
    assert_eq!(q.context, None);
    assert!(q.exclusive);
    assert_eq!(q.persistence, AnswerReusePolicy::None);

    // answer_type defaults to text; nulls count as absent.
    let q =
        needs_input(&json!({"question": "Target directory?", "context": null, "default": null}));
    assert_eq!(q.answer_type, AnswerType::Text);
    assert_eq!(q.default, None);
    assert_eq!(q.context, None);
}

/// Rule: ASK-FIRST-CALL — answers to other question IDs do not count as the
/// answer: the tool still asks.
#[test]
fn unrelated_answers_do_not_answer_the_question() {
    let mut answers = Answers::default();
    answers.insert("other".into(), json!(true));
    match ask_user::execute(
        &json!({"question": "Proceed?", "answer_type": "boolean"}),
        &answers,
    ) {
        Outcome::NeedsInput { question } => assert_eq!(question.id, "answer"),
        other => panic!("expected NeedsInput, got {other:?}"),
    }
}

/// Rule: ASK-SUCCESS-BODY — NeedsInput then Success: the question's ID is
/// the answer's key, and the body carries the type and the answer.
#[test]
fn needs_input_then_success_round_trip() {
    let cases = [
        (
            json!({"question": "Proceed?", "answer_type": "boolean"}),
            json!(false),
            r#"{"answer_type":"boolean","answer":false}"#,
        ),
        (
            json!({"question": "Which?", "answer_type": "select", "options": ["backup", "abort"]}),
            json!("abort"),
            r#"{"answer_type":"select","answer":"abort"}"#,
        ),
        (
            json!({"question": "Target directory?"}),
            json!("/tmp/output"),
            r#"{"answer_type":"text","answer":"/tmp/output"}"#,
        ),
    ];
    for (args, answer, body) in cases {
        let question = needs_input(&args);
        let mut answers = Answers::default();
        answers.insert(question.id.clone(), answer);
        assert_eq!(success(&args, &answers), body, "for {args}");
    }
}

/// Rule: ASK-SUCCESS-BODY — `true` (boolean), `"true"` (select) and
/// `"true"` (text) give three different bodies.
#[test]
fn success_body_keeps_true_and_the_string_true_apart() {
    let boolean = success(
        &json!({"question": "Proceed?", "answer_type": "boolean"}),
        &answered(json!(true)),
    );
    let select = success(
        &json!({"question": "Proceed?", "answer_type": "select", "options": ["true", "false"]}),
        &answered(json!("true")),
    );
    let text = success(&json!({"question": "Proceed?"}), &answered(json!("true")));
    assert_eq!(boolean, r#"{"answer_type":"boolean","answer":true}"#);
    assert_eq!(select, r#"{"answer_type":"select","answer":"true"}"#);
    assert_eq!(text, r#"{"answer_type":"text","answer":"true"}"#);
    let decoded: Vec<Value> = [&boolean, &select, &text]
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    assert_eq!(decoded[0]["answer"], Value::Bool(true));
    assert_eq!(decoded[1]["answer"], Value::String("true".into()));
    assert_ne!(decoded[0], decoded[1]);
    assert_ne!(decoded[1], decoded[2]);
}

/// Rule: ASK-ANSWER-CHECK — an accumulated answer of the wrong JSON shape is
/// refused as a type mismatch, with RFD 083's generic wording ("the
/// accumulated answer does not match the requested answer type", quoted by
/// the RFD, so compared exactly); what follows it is left open.
#[test]
fn mistyped_accumulated_answer_is_refused() {
    let boolean = json!({"question": "Proceed?", "answer_type": "boolean"});
    let select = json!({"question": "Which?", "answer_type": "select", "options": ["a"]});
    let cases = [
        (boolean.clone(), json!("true"), "boolean"),
        (boolean, Value::Null, "boolean"),
        (json!({"question": "Dir?"}), json!(true), "text"),
        (select, json!(["a"]), "select"),
    ];
    for (args, answer, want_type) in cases {
        let parsed = Arguments::parse(&args).expect("valid arguments");
        match parsed.check_answer(&answer) {
            Err(AskUserError::AnswerTypeMismatch { answer_type, .. }) => {
                assert_eq!(answer_type, want_type, "{args} {answer}");
            }
            other => panic!("{args} {answer}: expected AnswerTypeMismatch, got {other:?}"),
        }
        let message = error_message(args.clone(), &answered(answer.clone()));
        assert!(
            message.starts_with(
                "ask_user: the accumulated answer does not match the requested answer type"
            ),
            "{args} {answer}: {message}"
        );
    }
}

/// Rule: ASK-ANSWER-CHECK — a select answer that is not one of the options
/// is refused.
#[test]
fn select_answer_not_in_options_is_refused() {
    let args =
        json!({"question": "Which?", "answer_type": "select", "options": ["backup", "abort"]});
    assert_eq!(
        error_message(args.clone(), &answered(json!("overwrite"))),
        "ask_user: the accumulated answer does not match the requested answer type (it is \
         not one of the requested `options`)"
    );
    // Options match exactly, not case-insensitively.
    assert_eq!(
        error_message(args, &answered(json!("Backup"))),
        "ask_user: the accumulated answer does not match the requested answer type (it is \
         not one of the requested `options`)"
    );
}

// ---------------------------------------------------------------------------
// Provider surface (RFD 083 "Tool configuration").

/// Rule: ASK-SCHEMA — the description and parameter schema sent to the
/// provider, as reviewed text.
#[test]
fn provider_description_and_schema_snapshot() {
    insta::assert_json_snapshot!(
        "ask_user_tool_definition",
        json!({
            "name": ask_user::NAME,
            "description": ask_user::description(),
            "parameters": ask_user::parameters(),
        })
    );
}

/// Rule: ASK-SCHEMA — the description is RFD 083's suggested wording: it
/// discourages reflexive use and warns against collecting secrets.
#[test]
fn description_carries_the_usage_guard() {
    let d = ask_user::description();
    assert!(d.starts_with("Ask the user a typed question (boolean, select, or text)"));
    assert!(d.contains("When in doubt, answer the user's original question directly"));
    assert!(d.contains("Do not use `ask_user` to collect secrets"));
    assert!(!d.contains('\n'), "one paragraph");
    assert!(!d.contains("  "), "lines joined with single spaces");
}

fn walk(value: &Value, path: &str, visit: &mut dyn FnMut(&str, &serde_json::Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            visit(path, map);
            for (k, v) in map {
                walk(v, &format!("{path}/{k}"), visit);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(v, &format!("{path}/{i}"), visit);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// Rule: ASK-SCHEMA — provider-valid: every `type` is a JSON Schema type
/// (no "any"), no conditional keywords, `question` the only required
/// property.
#[test]
fn schema_is_provider_valid() {
    let schema = ask_user::parameters();
    let valid_types = [
        "object", "array", "string", "number", "integer", "boolean", "null",
    ];
    let conditional = [
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
    ];
    let mut required_seen = Vec::new();
    walk(&schema, "", &mut |path, map| {
        if let Some(t) = map.get("type") {
            let types: Vec<&Value> = match t {
                Value::Array(ts) => ts.iter().collect(),
                other => vec![other],
            };
            for t in types {
                let t = t
                    .as_str()
                    .unwrap_or_else(|| panic!("{path}: non-string type"));
                assert!(valid_types.contains(&t), "{path}: type {t:?}");
            }
        }
        for key in conditional {
            assert!(!map.contains_key(key), "{path}: conditional keyword {key}");
        }
        if map.contains_key("required") && !path.ends_with("/properties") {
            required_seen.push((path.to_owned(), map["required"].clone()));
        }
    });
    assert_eq!(required_seen, vec![(String::new(), json!(["question"]))]);
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        ["question", "context", "answer_type", "options", "default"]
    );
    assert_eq!(props["question"]["type"], "string");
    assert_eq!(props["context"]["type"], "string");
    assert_eq!(props["answer_type"]["type"], "string");
    assert_eq!(
        props["answer_type"]["enum"],
        json!(["boolean", "select", "text"])
    );
    assert_eq!(props["options"]["type"], "array");
    assert_eq!(props["options"]["items"], json!({"type": "string"}));
    assert_eq!(props["default"]["type"], json!(["boolean", "string"]));
}

/// Rule: ASK-SCHEMA — the schema and the validator agree: every
/// `answer_type` the schema offers is accepted, and `secret`, which it does
/// not offer, is refused.
#[test]
fn schema_enum_and_validator_agree() {
    let schema = ask_user::parameters();
    for t in schema["properties"]["answer_type"]["enum"]
        .as_array()
        .unwrap()
    {
        let mut args = json!({"question": "Q?", "answer_type": t});
        if t == "select" {
            args["options"] = json!(["a"]);
        }
        let q = needs_input(&args);
        let expected = match t.as_str().unwrap() {
            "boolean" => AnswerType::Boolean,
            "select" => AnswerType::Select {
                options: vec!["a".into()],
            },
            "text" => AnswerType::Text,
            other => panic!("schema offers unexpected answer type {other}"),
        };
        assert_eq!(q.answer_type, expected);
    }
    assert!(
        !schema["properties"]["answer_type"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("secret"))
    );
}

// ---------------------------------------------------------------------------
// Provenance (RFD 082 "Source attribution", RFD 083 Phase 2).

/// Rule: ASK-PROVENANCE — `ask_user`'s source resolves to
/// `InquirySource::Assistant`; every other built-in keeps the default
/// `Tool { name }`; local and MCP tools named `ask_user` stay `Tool`.
#[test]
fn provenance_is_assistant_only_for_the_builtin() {
    assert_eq!(
        resolve_inquiry_source(ask_user::SOURCE, ask_user::NAME),
        InquirySource::Assistant
    );
    assert_eq!(
        ask_user::SOURCE,
        ToolSource::Builtin {
            hook: BuiltinHook::Assistant
        }
    );
    assert_eq!(
        resolve_inquiry_source(
            ToolSource::Builtin {
                hook: BuiltinHook::Default
            },
            "describe_tools"
        ),
        InquirySource::tool("describe_tools")
    );
    assert_eq!(
        resolve_inquiry_source(ToolSource::Local, ask_user::NAME),
        InquirySource::tool("ask_user")
    );
    assert_eq!(
        resolve_inquiry_source(ToolSource::Mcp, ask_user::NAME),
        InquirySource::tool("ask_user")
    );
}

fn user_config(value: Value) -> Map<String, PartialToolConfig> {
    serde_json::from_value(value).expect("valid user configuration")
}

/// Rule: ASK-PROVENANCE — configuration cannot move provenance: relabelling
/// the prompt keeps `Assistant`, and a user `source = "local"` on the
/// `ask_user` key shadows the built-in executor, so its questions are the
/// local tool's own.
#[test]
fn configuration_cannot_forge_assistant_provenance() {
    let tools = effective_tools(
        &user_config(json!({"ask_user": {"questions": {"answer": {"prompt_label": "Claude"}}}})),
        &[],
    )
    .unwrap();
    let ask = &tools["ask_user"];
    assert_eq!(ask.prompt_label("answer"), Some("Claude"));
    let source = ask.source.executor("ask_user").unwrap();
    assert_eq!(
        resolve_inquiry_source(source, "ask_user"),
        InquirySource::Assistant
    );

    let tools =
        effective_tools(&user_config(json!({"ask_user": {"source": "local"}})), &[]).unwrap();
    let source = tools["ask_user"].source.executor("ask_user").unwrap();
    assert_eq!(source, ToolSource::Local);
    assert_eq!(
        resolve_inquiry_source(source, "ask_user"),
        InquirySource::tool("ask_user")
    );

    // A tool under another key cannot borrow the built-in by source.
    let tools = effective_tools(
        &user_config(json!({"ask": {"source": "builtin.ask_user"}})),
        &[],
    )
    .unwrap();
    assert_eq!(
        tools["ask"].source,
        ConfigSource::Builtin {
            tool: Some("ask_user".into())
        }
    );
    assert_eq!(
        tools["ask"].source.executor("ask").unwrap_err().to_string(),
        "tool `ask` has `source = \"builtin\"` but there is no built-in tool named `ask` \
         (built-ins are found by their configuration key)"
    );
}

// ---------------------------------------------------------------------------
// Registered configuration and the in-flight question shape.

/// Rule: ASK-REGISTERED-CONFIG — the built-in registers as RFD 083 lists:
/// source builtin, enabled but `if_named`, unattended run and result,
/// hidden, the "Assistant" label, the description and the schema.
#[test]
fn registered_config_is_as_rfd_083_lists() {
    let tools = effective_tools(&Map::default(), &[]).unwrap();
    let ask = &tools["ask_user"];
    let value = serde_json::to_value(ask).unwrap();
    assert_eq!(
        value,
        json!({
            "source": "builtin",
            "enable": {"state": true, "allow_toggle": "if_named"},
            "run": "unattended",
            "result": "unattended",
            "style": {"hidden": true},
            "questions": {"answer": {"target": "user", "prompt_label": "Assistant"}},
            "description": ask_user::description(),
            "parameters": ask_user::parameters(),
        })
    );
    assert_eq!(ask.prompt_label(ask_user::QUESTION_ID), Some("Assistant"));
}

/// Rule: ASK-QUESTION-COMPAT — a pre-083 `Question` (no `exclusive`, no
/// `persistence`) reads with `exclusive: false` and `persistence: turn`, and
/// writes back without the new fields.
#[test]
fn pre_083_question_reads_with_defaults() {
    let legacy = r#"{"id":"apply_changes","text":"Apply the changes?","answer_type":{"type":"boolean"},"default":true}"#;
    let q: Question = serde_json::from_str(legacy).unwrap();
    assert!(!q.exclusive);
    assert_eq!(q.persistence, AnswerReusePolicy::Turn);
    assert_eq!(q.answer_type, AnswerType::Boolean);
    assert_eq!(q.default, Some(json!(true)));
    assert_eq!(serde_json::to_string(&q).unwrap(), legacy);

    // The same holds inside a local tool's `needs_input` outcome.
    let outcome: Outcome = serde_json::from_str(
        r#"{"type":"needs_input","question":{"id":"pick","text":"Which?","answer_type":{"type":"select","options":["a","b"]}}}"#,
    )
    .unwrap();
    match outcome {
        Outcome::NeedsInput { question } => {
            assert!(!question.exclusive);
            assert_eq!(question.persistence, AnswerReusePolicy::Turn);
        }
        other => panic!("expected NeedsInput, got {other:?}"),
    }

    // And ask_user's own question writes the new fields.
    let q = needs_input(&json!({"question": "Proceed?", "answer_type": "boolean"}));
    let written = serde_json::to_value(&q).unwrap();
    assert_eq!(written["exclusive"], json!(true));
    assert_eq!(written["persistence"], json!("none"));
}

// ---------------------------------------------------------------------------
// Properties.

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z\\n ]{0,6}".prop_map(Value::String),
        prop_oneof![
            Just("boolean"),
            Just("select"),
            Just("text"),
            Just("secret")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("question".to_owned()),
                        Just("context".to_owned()),
                        Just("answer_type".to_owned()),
                        Just("options".to_owned()),
                        Just("default".to_owned()),
                        "[a-z]{1,4}"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kvs| Value::Object(kvs.into_iter().collect())),
        ]
    })
}

/// Valid arguments paired with an answer of the matching type.
fn arb_valid_call() -> impl Strategy<Value = (Value, Value)> {
    let text = "[a-zA-Z0-9 ?]{0,12}".prop_map(|s| format!("Q{s}"));
    let context = prop::option::of("[a-z\\n ]{0,20}");
    let boolean = (any::<bool>(), prop::option::of(any::<bool>())).prop_map(|(answer, default)| {
        (
            json!({"answer_type": "boolean", "default": default}),
            json!(answer),
        )
    });
    let select = prop::collection::vec("[a-z]{1,5}", 1..5).prop_flat_map(|options| {
        let n = options.len();
        (Just(options), 0..n, prop::option::of(0..n)).prop_map(|(options, a, d)| {
            let default = d.map(|d| options[d].clone());
            (
                json!({"answer_type": "select", "options": options, "default": default}),
                json!(options[a]),
            )
        })
    });
    let text_type = ("[ -~]{0,10}", any::<bool>()).prop_map(|(answer, explicit)| {
        let mut args = json!({});
        if explicit {
            args["answer_type"] = json!("text");
        }
        (args, json!(answer))
    });
    (text, context, prop_oneof![boolean, select, text_type]).prop_map(
        |(question, context, (mut args, answer))| {
            args["question"] = json!(question);
            args["context"] = json!(context);
            (args, answer)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(128)
    ))]

    /// Rule: ASK-FIRST-CALL — for any JSON arguments, the first call either
    /// authors exactly the human-only "answer" question or fails with a
    /// non-transient, `ask_user:`-prefixed message; it never succeeds and
    /// never panics.
    #[test]
    fn first_call_is_needs_input_or_error_for_any_arguments(args in arb_json()) {
        match ask_user::execute(&args, &Answers::default()) {
            Outcome::NeedsInput { question } => {
                prop_assert_eq!(question.id.as_str(), "answer");
                prop_assert!(question.exclusive);
                prop_assert_eq!(question.persistence, AnswerReusePolicy::None);
                prop_assert!(!question.text.contains('\n'));
                prop_assert!(!question.is_secret());
            }
            Outcome::Error { message, transient } => {
                prop_assert!(!transient);
                prop_assert!(message.starts_with("ask_user: "), "{}", message);
            }
            Outcome::Success { content } => prop_assert!(false, "first call succeeded: {}", content),
        }
    }

    /// Rule: ASK-SUCCESS-BODY — for every valid call and every answer of the
    /// requested type, NeedsInput then Success, and the body decodes to
    /// exactly `{answer_type, answer}` with the answer unchanged.
    #[test]
    fn valid_call_round_trips_to_a_typed_body((args, answer) in arb_valid_call()) {
        let question = match ask_user::execute(&args, &Answers::default()) {
            Outcome::NeedsInput { question } => question,
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        let mut answers = Answers::default();
        answers.insert(question.id.clone(), answer.clone());
        let content = match ask_user::execute(&args, &answers) {
            Outcome::Success { content } => content,
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        let body: Value = serde_json::from_str(&content).unwrap();
        let requested = args.get("answer_type").cloned().unwrap_or(json!("text"));
        prop_assert_eq!(body, json!({"answer_type": requested, "answer": answer}));
    }

    /// Rule: ASK-ANSWER-CHECK — for every valid call, an answer of another
    /// JSON type is refused on the second call.
    #[test]
    fn answer_of_another_type_is_refused((args, answer) in arb_valid_call()) {
        let wrong = match answer {
            Value::Bool(b) => json!(b.to_string()),
            _ => json!(true),
        };
        match ask_user::execute(&args, &answered(wrong)) {
            Outcome::Error { message, transient } => {
                prop_assert!(!transient);
                prop_assert!(message.contains("the accumulated answer does not match the requested answer type"));
            }
            other => prop_assert!(false, "{:?}", other),
        }
    }
}

/// A scenario whose one call `c1` runs `ask_user` with `arguments`; the
/// prompter answers `"x"`.
fn ask_user_scenario(arguments: &Value) -> crate::scenario::Scenario {
    serde_json::from_value(json!({
        "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "ask_user", "arguments": arguments}]]}],
        "prompter": [{"reply": "answer", "value": "x"}]
    }))
    .expect("a scenario")
}

/// The question RFD 083 says `ask_user` would author from `arguments`, when
/// the arguments can be read as a question at all (a string `question`, a
/// known `answer_type`, string `options` only on a select): what a writer
/// that skipped the argument checks would persist.
fn question_as_given(arguments: &Value) -> Option<crate::wire::InquiryQuestion> {
    use crate::wire::{InquiryAnswerReusePolicy, InquiryAnswerType, InquiryQuestion, SelectOption};
    let text = arguments.get("question")?.as_str()?.to_owned();
    let options = match arguments.get("options") {
        None => None,
        Some(v) => Some(
            v.as_array()?
                .iter()
                .map(|o| o.as_str().map(|s| SelectOption::new(json!(s), None)))
                .collect::<Option<Vec<_>>>()?,
        ),
    };
    let answer_type = match (
        arguments.get("answer_type").and_then(Value::as_str),
        options,
    ) {
        (None | Some("text"), None) => InquiryAnswerType::Text,
        (Some("boolean"), None) => InquiryAnswerType::Boolean,
        (Some("secret"), None) => InquiryAnswerType::Secret,
        (Some("select"), options) => InquiryAnswerType::Select {
            options: options.unwrap_or_default(),
        },
        (_, _) => return None,
    };
    Some(InquiryQuestion {
        text,
        answer_type,
        default: arguments.get("default").cloned(),
        context: None,
        exclusive: true,
        persistence: InquiryAnswerReusePolicy::None,
    })
}

proptest! {
    /// CHECK-ASK-USER-SHAPE, ASK-FIRST-CALL: the model and the oracle agree
    /// on `ask_user`'s question shape over generated arguments. Where the
    /// model authors a question, the oracle finds nothing wrong with its
    /// shape in the persisted stream; where the model refuses the arguments
    /// and they still read as a question, the oracle reports that question
    /// (put in the model's own stream in place of a valid one) as one
    /// `ask_user` never authors.
    #[test]
    fn model_and_oracle_agree_on_ask_user_question_shape(
        arguments in crate::generate::choice::strategy(
            6, 6, |c| crate::generate::scenario::ask_user_arguments_by_part(c),
        ),
    ) {
        use crate::check::{self, ProfileMode};
        use crate::rule::Rule;
        use crate::wire::EventKind;
        let shape_findings = |events: &[crate::wire::Event]| {
            check::check_events(events, "trace", ProfileMode::Auto)
                .diagnostics
                .into_iter()
                .filter(|d| d.rule == Rule::CheckAskUserShape)
                .count()
        };
        let trace = crate::scenario::run(&ask_user_scenario(&arguments)).expect("runs");
        let authored = trace.stream.iter().any(|e| e.as_inquiry_request().is_some());
        if authored {
            prop_assert_eq!(shape_findings(&trace.stream), 0, "{}", arguments);
        } else if let Some(q) = question_as_given(&arguments) {
            let mut stream = crate::scenario::run(&ask_user_scenario(
                &json!({"question": "Proceed?"}),
            ))
            .expect("runs")
            .stream;
            for e in &mut stream {
                if let EventKind::InquiryRequest(r) = &mut e.kind {
                    r.question = q.clone();
                }
            }
            prop_assert!(shape_findings(&stream) > 0, "refused {} but the oracle accepts {:?}", arguments, q);
        }
    }
}
