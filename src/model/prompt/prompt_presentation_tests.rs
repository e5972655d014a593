//! The prompter's presentation (RFD 083 Phase 1 step 4 and its test list:
//! "snapshot tests at the prompter level covering each (answer_type ×
//! persistence × prompt_label) combination"; RFD 082 "Secret questions" for
//! no-echo input).

use crate::model::ask_user;
use crate::model::config::effective_tools;
use crate::model::prompt::{InputKind, Presentation, present};
use crate::model::tool::Map;
use crate::model::tool::{AnswerReusePolicy, AnswerType, Outcome, Question};
use crate::profile::{ProfileName, Rules};
use proptest::prelude::*;
use serde_json::json;

/// The rules the prompter runs under: RFD 083's, where every presentation
/// feature is in force.
fn rules() -> Rules {
    ProfileName::Rfd083.rules()
}

const CONTEXT: &str = "The current approach modifies production config in place.\n\
                       A backup takes about a minute.";

/// One question per answer type, each with context and (but for `Secret`)
/// a default.
fn question(answer_type: &AnswerType, persistence: AnswerReusePolicy) -> Question {
    let q = match answer_type {
        AnswerType::Boolean => {
            Question::boolean("apply", "Apply the change now?").with_default(json!(true))
        }
        AnswerType::Select { options } => Question::select(
            "mode",
            "Apply with backup, apply without backup, or abort?",
            options.clone(),
        )
        .with_default(json!("backup")),
        AnswerType::Text => Question::text("target", "Which directory should receive the output?")
            .with_default(json!("/tmp/output")),
        AnswerType::Secret => Question::secret("passphrase", "SSH key passphrase?"),
    };
    q.with_context(CONTEXT).with_persistence(persistence)
}

fn answer_types() -> [(&'static str, AnswerType); 4] {
    [
        ("boolean", AnswerType::Boolean),
        (
            "select",
            AnswerType::Select {
                options: vec!["backup".into(), "overwrite".into(), "abort".into()],
            },
        ),
        ("text", AnswerType::Text),
        ("secret", AnswerType::Secret),
    ]
}

const PERSISTENCES: [(&str, AnswerReusePolicy); 2] = [
    ("turn", AnswerReusePolicy::Turn),
    ("none", AnswerReusePolicy::None),
];

const LABELS: [(&str, Option<&str>); 2] = [("unlabelled", None), ("assistant", Some("Assistant"))];

/// Every (answer type × persistence × label) combination, named.
fn combinations() -> Vec<(String, AnswerType, AnswerReusePolicy, Option<&'static str>)> {
    let mut out = Vec::new();
    for (t_name, t) in answer_types() {
        for (p_name, p) in PERSISTENCES {
            for (l_name, l) in LABELS {
                out.push((format!("{t_name}_{p_name}_{l_name}"), t.clone(), p, l));
            }
        }
    }
    out
}

/// Rule: PROMPT-MATRIX — the rendering of each of the 16 combinations, as
/// reviewed snapshots (one file per combination).
#[test]
fn prompter_snapshots_for_every_combination() {
    let combos = combinations();
    assert_eq!(combos.len(), 16);
    for (name, t, p, l) in combos {
        let presentation = present(&question(&t, p), &rules(), l);
        insta::assert_snapshot!(name, presentation.render());
    }
}

/// Rule: PROMPT-REMEMBER — the remember-for-turn affordance is offered
/// exactly for Boolean with persistence turn, in all 16 combinations.
#[test]
fn remember_affordance_exactly_for_boolean_turn() {
    for (name, t, p, l) in combinations() {
        let presentation = present(&question(&t, p), &rules(), l);
        let expected = matches!(t, AnswerType::Boolean) && p == AnswerReusePolicy::Turn;
        assert_eq!(presentation.remember_affordance, expected, "{name}");
        let hint_full = presentation.render().contains("[y/Y/n/N]");
        assert_eq!(hint_full, expected, "{name}: rendering");
    }
}

/// Rule: PROMPT-ECHO — input is echoed in every combination except Secret,
/// which uses the password widget and shows no default.
#[test]
fn echo_off_exactly_for_secret() {
    for (name, t, p, l) in combinations() {
        let presentation = present(&question(&t, p), &rules(), l);
        let secret = matches!(t, AnswerType::Secret);
        assert_eq!(presentation.echo, !secret, "{name}");
        assert_eq!(presentation.input == InputKind::Password, secret, "{name}");
        assert_eq!(
            presentation.render().contains("(input hidden)"),
            secret,
            "{name}"
        );
    }
    // A default on a secret question (RFD 082: tool authors must not set one,
    // JP does not redact it) is not displayed by the no-echo widget.
    let q = Question::secret("token", "Token?").with_default(json!("hunter2"));
    let presentation = present(&q, &rules(), None);
    assert_eq!(presentation.default, None);
    assert!(!presentation.render().contains("hunter2"));
}

/// Rule: PROMPT-LABEL — the label renders a header line and changes nothing
/// else; no label, or a blank one, renders no header.
#[test]
fn label_is_a_header_and_nothing_else() {
    for (t_name, t) in answer_types() {
        for (_, p) in PERSISTENCES {
            let q = question(&t, p);
            let plain = present(&q, &rules(), None);
            let labelled = present(&q, &rules(), Some("Assistant"));
            assert_eq!(plain.label, None);
            assert_eq!(labelled.label.as_deref(), Some("Assistant"));
            assert_eq!(
                Presentation {
                    label: None,
                    ..labelled.clone()
                },
                plain,
                "{t_name}"
            );
            let rendered = labelled.render();
            assert_eq!(rendered.lines().next(), Some("[Assistant]"));
            assert_eq!(
                rendered.strip_prefix("[Assistant]\n"),
                Some(plain.render().as_str())
            );
            assert_eq!(present(&q, &rules(), Some("")), plain);
            assert_eq!(present(&q, &rules(), Some("  ")), plain);
        }
    }
}

/// Rule: PROMPT-CONTEXT — context renders above the question line, and the
/// select options in order after it.
#[test]
fn context_above_question_and_options_in_order() {
    let t = AnswerType::Select {
        options: vec!["backup".into(), "overwrite".into(), "abort".into()],
    };
    let rendered = present(&question(&t, AnswerReusePolicy::None), &rules(), None).render();
    let lines: Vec<&str> = rendered.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "The current approach modifies production config in place.",
            "A backup takes about a minute.",
            "? Apply with backup, apply without backup, or abort? (select one)",
        ]
    );
    assert_eq!(lines[3..6], ["  - backup", "  - overwrite", "  - abort"]);
}

/// Rule: PROMPT-REMEMBER — `ask_user`'s own boolean question, with its
/// registered label, shows the "Assistant" header and no remember choice.
#[test]
fn ask_user_boolean_shows_assistant_header_without_remember() {
    let tools = effective_tools(&Map::default(), &[]).unwrap();
    let label = tools[ask_user::NAME].prompt_label(ask_user::QUESTION_ID);
    let question = match ask_user::execute(
        &json!({"question": "Proceed?", "answer_type": "boolean", "default": true}),
        &Default::default(),
    ) {
        Outcome::NeedsInput { question } => question,
        other => panic!("expected NeedsInput, got {other:?}"),
    };
    let presentation = present(&question, &rules(), label);
    assert_eq!(presentation.label.as_deref(), Some("Assistant"));
    assert_eq!(presentation.input, InputKind::Boolean);
    assert!(!presentation.remember_affordance);
    assert_eq!(
        presentation.render(),
        "[Assistant]\n? Proceed? [y/n]\n  default: true\n"
    );
}

fn arb_question() -> impl Strategy<Value = Question> {
    let answer_type = prop_oneof![
        Just(AnswerType::Boolean),
        prop::collection::vec("[a-z]{1,6}", 0..4)
            .prop_map(|options| AnswerType::Select { options }),
        Just(AnswerType::Text),
        Just(AnswerType::Secret),
    ];
    (
        "[a-z]{1,6}",
        "[ -~]{0,20}",
        prop::option::of("[ -~\\n]{0,30}"),
        answer_type,
        prop::option::of(prop_oneof![
            any::<bool>().prop_map(|b| json!(b)),
            "[a-z]{0,6}".prop_map(|s| json!(s))
        ]),
        any::<bool>(),
        prop_oneof![Just(AnswerReusePolicy::Turn), Just(AnswerReusePolicy::None)],
    )
        .prop_map(
            |(id, text, context, answer_type, default, exclusive, persistence)| Question {
                id,
                text,
                context,
                answer_type,
                default,
                exclusive,
                persistence,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(128)
    ))]

    /// Rule: PROMPT-REMEMBER — for any question, remember_affordance holds
    /// exactly when it is Boolean with persistence turn; `exclusive` and the
    /// label play no part.
    #[test]
    fn remember_iff_boolean_and_turn(q in arb_question(), label in prop::option::of("[A-Za-z ]{0,8}")) {
        let p = present(&q, &rules(), label.as_deref());
        let expected = matches!(q.answer_type, AnswerType::Boolean) && q.persistence == AnswerReusePolicy::Turn;
        prop_assert_eq!(p.remember_affordance, expected);
    }

    /// Rule: PROMPT-ECHO — for any question, echo is off exactly for Secret,
    /// and a no-echo presentation never carries the default.
    #[test]
    fn echo_off_iff_secret(q in arb_question()) {
        let p = present(&q, &rules(), None);
        prop_assert_eq!(p.echo, !q.is_secret());
        if !p.echo {
            prop_assert_eq!(p.default, None);
        }
    }
}
