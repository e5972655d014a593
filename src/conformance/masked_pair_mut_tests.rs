//! The answers a tool received for a question it asks as `Secret` are
//! masked by structure in a failure's report, where the scan would not look
//! (rule `CLI-NO-SECRET`): the received answers are compared and printed,
//! and the scan masks only persisted events and error texts.

use super::runner_tests::committed;
use crate::conformance::{Implementation, ImplementationError, Model, Observed, check_vectors};
use crate::scenario::Scenario;
use serde_json::Value;

/// The model, with the tool's received answer to `question` replaced by
/// `value`: the implementation handed its tool something else than what
/// was typed.
struct WrongAnswer {
    question: &'static str,
    value: &'static str,
}

impl Implementation for WrongAnswer {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let mut o = Model::default().run(s)?;
        for inv in &mut o.invocations {
            if let Some(v) = inv.answers.get_mut(self.question) {
                *v = Value::String(self.value.to_owned());
            }
        }
        Ok(o)
    }
}

/// The one failure of the committed vector `name` under `imp`, printed
/// without its scenario line (the run's input, printed as given).
fn report(name: &str, imp: &mut WrongAnswer) -> (String, String) {
    let vectors: Vec<_> = committed().into_iter().filter(|v| v.name == name).collect();
    assert_eq!(vectors.len(), 1, "{name}");
    let failures = check_vectors(imp, &vectors);
    let [f] = failures.as_slice() else {
        panic!("one failure: {failures:?}")
    };
    let text = format!("{f}")
        .lines()
        .filter(|l| !l.starts_with("scenario: "))
        .collect::<Vec<_>>()
        .join("\n");
    (f.verdict.kind().to_owned(), text)
}

/// Rule: CLI-NO-SECRET — a vector whose tool received the wrong secret
/// fails on the received answers, and its report names neither the secret
/// the scenario typed nor the one the implementation handed over: both are
/// printed as numbered masks (`<secret 1>`, `<secret 2>`), so the report
/// still shows that they differ. The scenario, the run's input, is printed
/// as given. Leaving the received answers unmasked
/// (an empty set of secret questions) prints both values.
#[test]
fn a_wrongly_received_secret_is_printed_masked() {
    let mut imp = WrongAnswer {
        question: "passphrase",
        value: "a-different-phrase",
    };
    let (kind, text) = report("secret-prompter-redacted", &mut imp);
    assert!(kind.starts_with("diverged:invocations"), "{kind}\n{text}");
    for secret in ["correct-horse-battery", "a-different-phrase"] {
        assert!(!text.contains(secret), "{secret} printed:\n{text}");
    }
    assert!(text.contains("<secret 1>"), "{text}");
    assert!(text.contains("<secret 2>"), "{text}");
}

/// Rule: CLI-NO-SECRET — only what a tool asks as `Secret` is masked: a
/// wrongly received answer to a `text` question is printed as both sides
/// hold it (a mask there would hide the very difference the failure is
/// about). Masking every received answer fails here.
#[test]
fn a_wrongly_received_plain_answer_is_printed_as_is() {
    let mut imp = WrongAnswer {
        question: "path",
        value: "/tmp/elsewhere",
    };
    let (kind, text) = report("local-stdout-and-context", &mut imp);
    assert!(kind.starts_with("diverged:invocations"), "{kind}\n{text}");
    assert!(text.contains(r#"{"path":"/tmp/out"}"#), "{text}");
    assert!(text.contains(r#"{"path":"/tmp/elsewhere"}"#), "{text}");
    assert!(!text.contains("<secret"), "{text}");
}
