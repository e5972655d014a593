//! What the adapter's environment can produce (`init_ok`'s `environment`,
//! `spec/conform-protocol.md` "Environment"), and generated scenarios
//! fitted to it (rule `CONF-ENVIRONMENT`): a reply the environment cannot
//! give is never drawn, so a failure is the implementation's, not the
//! adapter's.
//!
//! By default only what every environment can produce is drawn: prompter
//! answers of the shown question's type, the backend errors a backend
//! raises itself (every `InquiryError` but `cancelled`), and the
//! cancellation token fired with each cause. A scripted prompter that can
//! type any value declares `"prompter_answers": "any"`; a backend that can
//! return `cancelled` without the token firing lists it in
//! `backend_errors` (docs/decisions/conformance-runner.md "Conform: only what the environment
//! can produce").

use proptest::strategy::{BoxedStrategy, Just, Strategy, ValueTree};
use serde_json::{Value, json};

use crate::model::prompt::InputKind;
use crate::model::routing::{InquiryErrorKind, TokenCause};
use crate::profile::ProfileName;
use crate::scenario::{self, BackendReply, PrompterReply, Scenario};

/// Which prompter answers the environment can give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrompterAnswers {
    /// Only answers of the shown question's type: a boolean at a yes/no
    /// prompt, one of the options at a select, a string at a text or
    /// password prompt (a real prompter's widgets).
    Typed,
    /// Any JSON value at any prompt (a scripted prompter).
    Any,
}

/// What the environment can produce (`init_ok`'s `environment`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// Which prompter answers it can give.
    pub prompter_answers: PrompterAnswers,
    /// The backend errors it can raise.
    pub backend_errors: Vec<InquiryErrorKind>,
    /// The causes with which it can fire the implementation's cancellation
    /// token while the backend works.
    pub token_causes: Vec<TokenCause>,
}

/// Every backend error but `cancelled`, which only the implementation's own
/// cancellation token produces (RFD 082 step 6: "`InquiryError::Cancelled`
/// (cancellation token fired — user restart, tool cancel, hard quit)").
pub(crate) const BACKEND_RAISES: [InquiryErrorKind; 4] = [
    InquiryErrorKind::Provider,
    InquiryErrorKind::MissingStructuredData,
    InquiryErrorKind::AnswerExtraction,
    InquiryErrorKind::Other,
];

/// Every token cause.
pub(crate) const TOKEN_CAUSES: [TokenCause; 4] = [
    TokenCause::Restart,
    TokenCause::ToolCancel,
    TokenCause::HardQuit,
    TokenCause::AbortedTurn,
];

impl Default for Environment {
    fn default() -> Self {
        Environment {
            prompter_answers: PrompterAnswers::Typed,
            backend_errors: BACKEND_RAISES.to_vec(),
            token_causes: TOKEN_CAUSES.to_vec(),
        }
    }
}

impl Environment {
    /// Everything the scenario language can say (the model's own scripted
    /// environment).
    pub fn anything() -> Self {
        let mut errors = vec![InquiryErrorKind::Cancelled];
        errors.extend(BACKEND_RAISES);
        Environment {
            prompter_answers: PrompterAnswers::Any,
            backend_errors: errors,
            token_causes: TOKEN_CAUSES.to_vec(),
        }
    }

    /// Reads `init_ok`'s optional `environment` object; a field or value
    /// `conform` does not know is an error naming it and what is allowed.
    #[cfg(feature = "cli")]
    pub(crate) fn from_init_ok(reply: &Value) -> Result<Environment, String> {
        let mut env = Environment::default();
        let Some(decl) = reply.get("environment") else {
            return Ok(env);
        };
        let Some(fields) = decl.as_object() else {
            return Err(format!(
                "init_ok: `environment` is an object (prompter_answers, backend_errors, token_causes), not {decl}"
            ));
        };
        for (key, value) in fields {
            match key.as_str() {
                "prompter_answers" => {
                    env.prompter_answers = match value.as_str() {
                        Some("typed") => PrompterAnswers::Typed,
                        Some("any") => PrompterAnswers::Any,
                        _ => {
                            return Err(format!(
                                "init_ok: `environment.prompter_answers` is \"typed\" or \"any\", not {value}"
                            ));
                        }
                    }
                }
                "backend_errors" => {
                    env.backend_errors = serde_json::from_value(value.clone()).map_err(|_| {
                        format!(
                            "init_ok: `environment.backend_errors` is a list of \"cancelled\", \"provider\", \"missing_structured_data\", \"answer_extraction\", \"other\", not {value}"
                        )
                    })?
                }
                "token_causes" => {
                    env.token_causes = serde_json::from_value(value.clone()).map_err(|_| {
                        format!(
                            "init_ok: `environment.token_causes` is a list of \"restart\", \"tool_cancel\", \"hard_quit\", \"aborted_turn\", not {value}"
                        )
                    })?
                }
                other => {
                    return Err(format!(
                        "init_ok: `environment` has no field {other:?} (prompter_answers, backend_errors, token_causes)"
                    ));
                }
            }
        }
        Ok(env)
    }
}

/// `reply` as the environment can give it: a token cause it cannot fire
/// becomes the error that cause produces, and an error it cannot raise
/// becomes one it can (the same one for the same error), or, when it
/// raises none, an answer.
fn fit_backend(env: &Environment, reply: &BackendReply, k: usize) -> BackendReply {
    let error = match reply {
        BackendReply::Answer { .. } | BackendReply::Raw { .. } => return reply.clone(),
        BackendReply::Cancelled { cause } if env.token_causes.contains(cause) => {
            return reply.clone();
        }
        BackendReply::Cancelled { cause } => crate::model::routing::token_error(*cause),
        BackendReply::Error { error } => *error,
    };
    if env.backend_errors.contains(&error) {
        return BackendReply::Error { error };
    }
    let all = [
        InquiryErrorKind::Cancelled,
        InquiryErrorKind::Provider,
        InquiryErrorKind::MissingStructuredData,
        InquiryErrorKind::AnswerExtraction,
        InquiryErrorKind::Other,
    ];
    let position = all.iter().position(|e| *e == error).unwrap_or(0);
    match env.backend_errors.as_slice() {
        [] => BackendReply::Answer {
            value: json!(format!("backend-{k}-marker")),
        },
        allowed => BackendReply::Error {
            error: allowed[position % allowed.len()],
        },
    }
}

/// Whether `value` is an answer of the prompt's type.
fn typed(input: InputKind, options: &[String], value: &Value) -> bool {
    match input {
        InputKind::Boolean => value.is_boolean(),
        InputKind::Select => value
            .as_str()
            .is_some_and(|v| options.iter().any(|o| o == v)),
        InputKind::Text | InputKind::Password => value.is_string(),
    }
}

/// An answer of the prompt's type standing for an ill-typed one: `true`,
/// the first option, or a unique text marker.
fn typed_stand_in(input: InputKind, options: &[String], k: usize) -> Value {
    match input {
        InputKind::Boolean => json!(true),
        InputKind::Select => options.first().map_or(json!("a"), |o| json!(o)),
        InputKind::Text | InputKind::Password => json!(format!("answer-{k}-typed")),
    }
}

/// `s` with only replies `env` can give (rule `CONF-ENVIRONMENT`). Backend
/// replies are fitted one by one; prompter answers by the prompt each one
/// answers in the model's run, the first ill-typed one replaced and the
/// model run again, until every answer shown fits (a reply feeds the
/// prompts after it). Deterministic; lists keep their lengths.
pub(crate) fn fit(env: &Environment, mut s: Scenario) -> Scenario {
    for (k, reply) in s.backend.iter_mut().enumerate() {
        *reply = fit_backend(env, reply, k);
    }
    for reply in s.backend_by_id.values_mut() {
        *reply = fit_backend(env, reply, 9);
    }
    if env.prompter_answers == PrompterAnswers::Any {
        return s;
    }
    for _ in 0..=s.prompter.len() {
        let Ok(trace) = scenario::run(&s) else {
            return s;
        };
        let wrong = trace.prompts.iter().enumerate().find_map(|(k, p)| {
            let PrompterReply::Answer { value, remember } = &p.reply else {
                return None;
            };
            let shown = &p.presentation;
            (!typed(shown.input, &shown.options, value)).then(|| {
                (
                    k,
                    PrompterReply::Answer {
                        value: typed_stand_in(shown.input, &shown.options, k),
                        remember: *remember,
                    },
                )
            })
        });
        match wrong {
            // The k-th prompt reads the k-th reply (the prompter's replies
            // are consumed in order).
            Some((k, fitted)) if k < s.prompter.len() => s.prompter[k] = fitted,
            Some(_) | None => return s,
        }
    }
    s
}

/// Whether every reply of `s` that its model run uses is one `env` can
/// give (what [`fit`] makes hold).
pub fn fits(env: &Environment, s: &Scenario) -> bool {
    let backend_ok = s
        .backend
        .iter()
        .chain(s.backend_by_id.values())
        .all(|r| match r {
            BackendReply::Answer { .. } | BackendReply::Raw { .. } => true,
            BackendReply::Error { error } => env.backend_errors.contains(error),
            BackendReply::Cancelled { cause } => env.token_causes.contains(cause),
        });
    let prompts_ok = env.prompter_answers == PrompterAnswers::Any
        || scenario::run(s).is_ok_and(|t| {
            t.prompts.iter().all(|p| match &p.reply {
                PrompterReply::Answer { value, .. } => {
                    typed(p.presentation.input, &p.presentation.options, value)
                }
                PrompterReply::CtrlC | PrompterReply::Eof | PrompterReply::Failure { .. } => true,
            })
        });
    backend_ok && prompts_ok
}

/// The scenarios `conform` generates for `profile`: inside the core
/// language when `core` (rule `CONF-CORE-BY-CONSTRUCTION`), two in three
/// turned towards the prompter ([`towards_prompt`], rule
/// `CONF-PROMPTS-EXERCISED`), fitted to `env` ([`fit`]). The turn is a
/// drawn flag that shrinks to off, so shrinking can reach the scenario as
/// first drawn.
pub fn conform_scenarios(
    profile: ProfileName,
    core: bool,
    env: &Environment,
) -> BoxedStrategy<Scenario> {
    let env = env.clone();
    let drawn = if core {
        super::core_scenarios(profile).boxed()
    } else {
        crate::generate::scenario::scenario_under(Just(profile)).boxed()
    };
    (drawn, proptest::bool::weighted(2.0 / 3.0))
        .prop_map(move |(s, towards)| {
            fit(
                &env,
                match towards {
                    true => towards_prompt(s),
                    false => s,
                },
            )
        })
        .boxed()
}

/// `s` with a terminal and every tool's questions routed to the user
/// (no static answer, no assistant target; prompt labels kept): whatever
/// its calls ask reaches the prompter, so prompt attribution is exercised.
pub(crate) fn towards_prompt(mut s: Scenario) -> Scenario {
    s.tty = true;
    for tool in s.tools.values_mut() {
        for config in std::sync::Arc::make_mut(&mut tool.questions).values_mut() {
            config.target = crate::model::tool::QuestionTarget::User;
            config.answer = None;
        }
    }
    s
}

/// Of `cases` generated cases per profile of `profiles` seeded `seed` drawn
/// from `strategy`, how many have a terminal and how many show the user a
/// question prompt in the model's run (a measure of how much prompt
/// attribution a run exercises).
pub fn prompt_share(
    strategy: impl Fn(ProfileName) -> BoxedStrategy<Scenario>,
    profiles: &[ProfileName],
    cases: u32,
    seed: u64,
) -> PromptShare {
    let mut share = PromptShare::default();
    for &p in profiles {
        let st = strategy(p);
        for index in 0..cases {
            let Ok(tree) = super::run::draw(&st, seed, index) else {
                continue;
            };
            let s = tree.current();
            share.drawn += 1;
            share.tty += usize::from(s.tty);
            if scenario::run(&s).is_ok_and(|t| !t.prompts.is_empty()) {
                share.prompted += 1;
            }
        }
    }
    share
}

/// What [`prompt_share`] counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PromptShare {
    /// Scenarios drawn.
    pub drawn: usize,
    /// Of them, with a terminal.
    pub tty: usize,
    /// Of them, showing a question prompt.
    pub prompted: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule: CONF-ENVIRONMENT — `init_ok` without `environment` gets the
    /// default; each field reads; an unknown field or value is refused by
    /// name.
    #[test]
    fn the_declaration_reads() {
        assert_eq!(
            Environment::from_init_ok(&json!({})),
            Ok(Environment::default())
        );
        let typed = Environment::from_init_ok(&json!({"environment": {
            "prompter_answers": "typed"}}))
        .expect("reads");
        assert_eq!(typed.prompter_answers, PrompterAnswers::Typed);
        let env = Environment::from_init_ok(&json!({"environment": {
            "prompter_answers": "any", "backend_errors": ["cancelled"], "token_causes": []}}))
        .expect("reads");
        assert_eq!(env.prompter_answers, PrompterAnswers::Any);
        assert_eq!(env.backend_errors, vec![InquiryErrorKind::Cancelled]);
        assert!(env.token_causes.is_empty());
        for (bad, says) in [
            (json!({"environment": {"prompter": "any"}}), "\"prompter\""),
            (
                json!({"environment": {"prompter_answers": "some"}}),
                "prompter_answers",
            ),
            (
                json!({"environment": {"backend_errors": ["timeout"]}}),
                "backend_errors",
            ),
            (json!({"environment": []}), "is an object"),
        ] {
            let e = Environment::from_init_ok(&bad).expect_err("refused");
            assert!(e.contains(says), "{e}");
        }
    }

    /// A scenario the default environment cannot give: a number typed at a
    /// yes/no prompt, an answer that is not an option typed at a select,
    /// and a backend that returns `cancelled` on its own (beside the token
    /// fired for a restart, which it can give).
    fn beyond_the_default() -> Scenario {
        serde_json::from_value(json!({
            "tty": true,
            "tools": {"t": {"run": "unattended",
                "questions": {"a": {"target": "assistant"}},
                "program": {"kind": "script", "asks": [
                    {"question": {"id": "u", "text": "U?", "answer_type": {"type": "boolean"}}},
                    {"question": {"id": "s", "text": "S?",
                        "answer_type": {"type": "select", "options": ["x", "y"]}}},
                    {"question": {"id": "a", "text": "A?", "answer_type": {"type": "boolean"}}}
                ]}}},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
            "prompter": [
                {"reply": "answer", "value": 7},
                {"reply": "answer", "value": "z"}],
            "backend": [
                {"reply": "error", "error": "cancelled"},
                {"reply": "cancelled", "cause": "restart"}]
        }))
        .expect("the scenario reads")
    }

    /// Rule: CONF-ENVIRONMENT — the model's own scripted environment
    /// (`Environment::anything`) gives every reply the scenario language
    /// can say (`spec/conform-protocol.md` "Environment": `any` prompter
    /// answers, every backend error `cancelled` included, every token
    /// cause): fitting leaves any scenario as it is, and it fits. The
    /// default environment cannot give three of its replies: fitting
    /// replaces those ("an ill-typed prompter answer is replaced by one of
    /// the prompt's type (`true`, the first option, a text marker)"; "a
    /// backend error it cannot raise becomes one it can") and keeps the
    /// token cause, and the result fits. Each of the two kinds alone makes
    /// a scenario unfit (the prompter's answers with no backend reply).
    #[test]
    fn the_models_own_environment_gives_every_reply() {
        let all = Environment::anything();
        assert_eq!(all.prompter_answers, PrompterAnswers::Any);
        assert!(all.backend_errors.contains(&InquiryErrorKind::Cancelled));
        assert!(
            BACKEND_RAISES
                .iter()
                .all(|e| all.backend_errors.contains(e))
        );
        assert!(TOKEN_CAUSES.iter().all(|c| all.token_causes.contains(c)));
        let s = beyond_the_default();
        assert_eq!(fit(&all, s.clone()), s);
        assert!(fits(&all, &s));
        let default = Environment::default();
        assert!(!fits(&default, &s));
        let fitted = fit(&default, s.clone());
        assert!(fits(&default, &fitted));
        let answers: Vec<&PrompterReply> = fitted.prompter.iter().collect();
        assert_eq!(
            answers,
            [
                &PrompterReply::Answer {
                    value: json!(true),
                    remember: false
                },
                &PrompterReply::Answer {
                    value: json!("x"),
                    remember: false
                },
            ]
        );
        assert_ne!(fitted.backend[0], s.backend[0], "the cancelled error");
        assert_eq!(fitted.backend[1], s.backend[1], "the token cause");
        let prompts_only = Scenario {
            backend: Vec::new(),
            ..s.clone()
        };
        assert!(!fits(&default, &prompts_only));
        let backend_only = Scenario {
            prompter: fitted.prompter.clone(),
            ..s
        };
        assert!(!fits(&default, &backend_only));
    }
}
