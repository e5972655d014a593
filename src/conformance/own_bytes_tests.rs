//! The implementation's own bytes are judged too (rule `CONF-OWN-BYTES`),
//! capabilities never weaken what an RFD fixes (rule `CONF-CAPABILITIES`),
//! and select options are compared as the options they are (rule
//! `CONF-EXACT-CLASS`): wrong implementations that the comparison alone
//! passed now fail, and legal writers still pass.

use std::collections::BTreeSet;

use super::runner_tests::committed;
use crate::conformance::{
    self, Capabilities, EntryKind, Implementation, ImplementationError, Model, Observed,
    ResponseKind, Verdict, check_generated, check_vectors,
};
use crate::profile::ProfileName;
use crate::scenario::{self, PrompterReply, Scenario, Trace};
use serde_json::{Value, json};

/// The model, its observation rewritten (its own bytes included), under
/// the given `observes` (all kinds when `None`).
struct Wrong<F: FnMut(&Trace, Observed) -> Observed> {
    observes: Option<BTreeSet<EntryKind>>,
    rewrite: F,
}

impl<F: FnMut(&Trace, Observed) -> Observed> Implementation for Wrong<F> {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let t = scenario::run(s).map_err(|e| ImplementationError(e.to_string()))?;
        let o = Observed::of(&t);
        Ok((self.rewrite)(&t, o))
    }

    fn capabilities(&self) -> Capabilities {
        match &self.observes {
            None => Capabilities::default(),
            Some(o) => Capabilities {
                observes: o.clone(),
                ..Capabilities::default()
            },
        }
    }
}

fn wrong<F: FnMut(&Trace, Observed) -> Observed>(rewrite: F) -> Wrong<F> {
    Wrong {
        observes: None,
        rewrite,
    }
}

fn persisted_only() -> Option<BTreeSet<EntryKind>> {
    Some([EntryKind::Persisted].into_iter().collect())
}

/// What the scenario typed at a no-echo (secret) prompt.
fn typed_secrets(t: &Trace) -> Vec<String> {
    t.prompts
        .iter()
        .filter(|p| !p.presentation.echo)
        .filter_map(|p| match &p.reply {
            PrompterReply::Answer {
                value: Value::String(s),
                ..
            } => Some(s.clone()),
            PrompterReply::Answer { .. }
            | PrompterReply::CtrlC
            | PrompterReply::Eof
            | PrompterReply::Failure { .. } => None,
        })
        .collect()
}

/// Each written line as JSON, rewritten by `f`, written back.
fn rewrite_lines(o: &mut Observed, mut f: impl FnMut(&mut Value)) {
    for line in &mut o.written {
        let mut v: Value = serde_json::from_str(line).unwrap();
        f(&mut v);
        *line = v.to_string();
    }
}

/// Loophole: an extra event of a kind no reader knows, holding the typed
/// secret (the comparison drops unknown kinds).
fn secret_in_unknown_event(t: &Trace, mut o: Observed) -> Observed {
    for s in typed_secrets(t) {
        o.written
            .push(json!({"type": "debug_note", "typed": s}).to_string());
    }
    o
}

/// Loophole: an extra field on `tool_call_response` holding the typed
/// secret (the comparison keeps only `id`, `is_error`, `content`).
fn secret_in_response_field(t: &Trace, mut o: Observed) -> Observed {
    let secrets = typed_secrets(t);
    if !secrets.is_empty() {
        rewrite_lines(&mut o, |v| {
            if v["type"] == "tool_call_response" {
                v["typed"] = json!(secrets);
            }
        });
    }
    o
}

/// Rule: CONF-OWN-BYTES — an implementation that writes the typed secret
/// into the stream as an unknown event, or as an extra field on
/// `tool_call_response`, passes the comparison but fails as
/// `secret_persisted` (RFD 082: secret answers "never land on disk"), on
/// the committed vectors and on generated scenarios; the verdict never
/// prints the secret.
#[test]
fn a_secret_in_what_the_comparison_ignores_fails() {
    let vectors = committed();
    let secret_vector = vectors
        .iter()
        .find(|v| v.name == "secret-prompter-redacted")
        .unwrap();
    let typed = typed_secrets(&scenario::run(&secret_vector.scenario).unwrap());
    assert!(!typed.is_empty(), "the vector types a secret");
    for (name, leak) in [
        (
            "unknown event",
            secret_in_unknown_event as fn(&Trace, Observed) -> Observed,
        ),
        ("extra response field", secret_in_response_field),
    ] {
        let mut imp = wrong(leak);
        // The comparison alone does not see it.
        let o = imp.run(&secret_vector.scenario).unwrap();
        assert_eq!(
            conformance::compare(&secret_vector.scenario, &secret_vector.expected, &o),
            None,
            "{name}"
        );
        let failures = check_vectors(&mut imp, &vectors);
        let f = failures
            .iter()
            .find(|f| f.name == "secret-prompter-redacted")
            .unwrap_or_else(|| panic!("{name}: not caught"));
        assert_eq!(f.verdict.kind(), "secret_persisted", "{name}: {f}");
        // The scenario is input and printed as given; the verdict and the
        // streams never print the secret (rule `CLI-NO-SECRET`).
        for s in &typed {
            let said = format!("{}\n{}", f.verdict, f.side_by_side);
            assert!(!said.contains(s.as_str()), "{name}: printed\n{said}");
        }
        let r = check_generated(&mut imp, ProfileName::Rfd083, 2000, 7);
        let f = r
            .failure
            .unwrap_or_else(|| panic!("{name}: no generated case caught"));
        assert_eq!(f.verdict.kind(), "secret_persisted", "{name}: {f}");
    }
}

/// Loophole: a chat event written between a tool call's request and its
/// response (the comparison drops chat events; RFD 004's provider contract
/// wants the response right after the request, `CHECK-TOOL-ADJACENT`).
fn chat_inside_a_call(_: &Trace, mut o: Observed) -> Observed {
    let mut out = Vec::new();
    for line in o.written.drain(..) {
        let request = serde_json::from_str::<Value>(&line).unwrap()["type"] == "tool_call_request";
        out.push(line);
        if request {
            out.push(json!({"type": "chat_response", "message": "working on it"}).to_string());
        }
    }
    o.written = out;
    o
}

/// Rule: CONF-OWN-BYTES — an implementation whose stream the oracle
/// rejects fails with the oracle's rule as its kind, though the compared
/// fields are the model's.
#[test]
fn a_stream_the_oracle_rejects_fails_with_the_rule() {
    let vectors = committed();
    let mut imp = wrong(chat_inside_a_call);
    let v = vectors.iter().find(|v| v.name == "route-prompter").unwrap();
    let o = imp.run(&v.scenario).unwrap();
    assert_eq!(conformance::compare(&v.scenario, &v.expected, &o), None);
    let failures = check_vectors(&mut imp, &vectors);
    let f = failures
        .iter()
        .find(|f| f.name == "route-prompter")
        .expect("caught");
    assert_eq!(f.verdict.kind(), "oracle:CHECK-TOOL-ADJACENT", "{f}");
    assert!(
        matches!(&f.verdict, Verdict::OracleFinding { at, .. } if at.contains("persisted event #")),
        "{f}"
    );
}

/// Rule: CONF-OWN-BYTES — a legal stream a real writer produces is never a
/// finding: the model itself, as an implementation, passes every committed
/// vector and generated scenarios of every profile with its own bytes
/// judged.
#[test]
fn the_model_passes_its_own_bytes() {
    let failures = check_vectors(&mut Model::default(), &committed());
    assert!(failures.is_empty(), "{}", failures[0]);
    for p in ProfileName::ALL {
        let r = check_generated(&mut Model::default(), p, 300, 21);
        assert!(r.passed(), "{p}: {}", r.failure.unwrap());
    }
}

/// Every `ask_user` success's answer replaced, in the stream, the written
/// bytes and the responses.
fn wrong_ask_user_body(t: &Trace, mut o: Observed) -> Observed {
    let ask: BTreeSet<String> = t
        .tool_responses
        .iter()
        .filter(|r| r.kind == ResponseKind::ToolSuccess && r.content.contains("\"answer_type\""))
        .map(|r| r.tool_call_id.clone())
        .collect();
    let body = json!({"answer_type": "text", "answer": "not what was typed"}).to_string();
    for r in &mut o.tool_responses {
        if ask.contains(&r.tool_call_id) && r.kind == ResponseKind::ToolSuccess {
            r.content = body.clone();
        }
    }
    for e in &mut o.stream {
        if e["type"] == "tool_call_response"
            && e["is_error"] == false
            && ask.contains(e["id"].as_str().unwrap_or_default())
        {
            e["content"] = json!(body);
        }
    }
    rewrite_lines(&mut o, |v| {
        if v["type"] == "tool_call_response"
            && v["is_error"] == false
            && ask.contains(v["id"].as_str().unwrap_or_default())
        {
            v["content"] = json!(body);
        }
    });
    o
}

/// Rule: CONF-CAPABILITIES — an adapter that leaves `responded` out of
/// `observes` still has `ask_user`'s success body compared, from the
/// persisted stream (RFD 083: "The success body is a stable JSON shape"):
/// a wrong body fails.
#[test]
fn a_wrong_ask_user_body_fails_without_responded() {
    let vectors = committed();
    let mut imp = Wrong {
        observes: persisted_only(),
        rewrite: wrong_ask_user_body,
    };
    let failures = check_vectors(&mut imp, &vectors);
    let f = failures
        .iter()
        .find(|f| f.name == "ask-user-prompter")
        .unwrap_or_else(|| {
            panic!(
                "ask-user-prompter passes; failing: {:?}",
                failures.iter().map(|f| &f.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(
        f.verdict.kind(),
        "diverged:stream/tool_call_response",
        "{f}"
    );
    assert!(f.to_string().contains("not what was typed"), "{f}");
}

/// A denied permission answered as a success (`is_error: false`), in the
/// stream, the written bytes and the responses.
fn denial_as_success(t: &Trace, mut o: Observed) -> Observed {
    let denied: BTreeSet<String> = t
        .tool_responses
        .iter()
        .filter(|r| r.kind == ResponseKind::PermissionDenied)
        .map(|r| r.tool_call_id.clone())
        .collect();
    for r in &mut o.tool_responses {
        if r.kind == ResponseKind::PermissionDenied {
            r.is_error = false;
        }
    }
    for e in &mut o.stream {
        if e["type"] == "tool_call_response" && denied.contains(e["id"].as_str().unwrap_or("")) {
            e["is_error"] = json!(false);
        }
    }
    rewrite_lines(&mut o, |v| {
        if v["type"] == "tool_call_response" && denied.contains(v["id"].as_str().unwrap_or("")) {
            v["is_error"] = json!(false);
        }
    });
    o
}

/// Rule: CONF-CAPABILITIES — the denied-permission exemption comes from
/// the model's own run, whatever is observed: a denial answered as a
/// success passes with `observes: ["persisted"]` as with every kind.
#[test]
fn a_denial_as_success_passes_with_persisted_only() {
    let vectors = committed();
    let v = vectors
        .iter()
        .find(|v| v.name == "permission-denied")
        .unwrap();
    let mut imp = Wrong {
        observes: persisted_only(),
        rewrite: denial_as_success,
    };
    let o = imp.run(&v.scenario).unwrap();
    assert_ne!(
        o.stream, v.expected.stream,
        "the rewrite changes the stream"
    );
    let failures = check_vectors(&mut imp, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let mut all = wrong(denial_as_success);
    let failures = check_vectors(&mut all, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
}

/// Every select option written as the plain string the real writer writes
/// (`jp_tool`'s `Select { options: Vec<String> }`), in the stream and the
/// written bytes.
fn plain_options(_: &Trace, mut o: Observed) -> Observed {
    let plain = |v: &mut Value| {
        if v["type"] == "inquiry_request"
            && let Some(Value::Array(options)) = v.pointer_mut("/question/answer_type/options")
        {
            for option in options {
                if let Some(value) = option.get("value").cloned() {
                    *option = value;
                }
            }
        }
    };
    o.stream.iter_mut().for_each(plain);
    rewrite_lines(&mut o, plain);
    o
}

/// Rule: CONF-EXACT-CLASS — an implementation that writes select options as
/// plain strings (the real writer's shape, spec/DECISIONS.md "Wire: a
/// select option is read in the writer's shapes") passes every committed
/// vector and generated scenarios; one that drops an option still fails.
#[test]
fn plain_string_options_pass() {
    let vectors = committed();
    let v = vectors
        .iter()
        .find(|v| v.name == "ask-user-prompter")
        .unwrap();
    let mut imp = wrong(plain_options);
    let o = imp.run(&v.scenario).unwrap();
    assert_ne!(
        o.stream, v.expected.stream,
        "the rewrite changes the stream"
    );
    let failures = check_vectors(&mut imp, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let r = check_generated(&mut imp, ProfileName::Rfd083, 300, 5);
    assert!(r.passed(), "{}", r.failure.unwrap());

    let mut fewer = wrong(|t: &Trace, o: Observed| {
        let mut o = plain_options(t, o);
        for e in &mut o.stream {
            if let Some(Value::Array(options)) = e.pointer_mut("/question/answer_type/options") {
                options.pop();
            }
        }
        o
    });
    let failures = check_vectors(&mut fewer, &vectors);
    let f = failures
        .iter()
        .find(|f| f.name == "ask-user-prompter")
        .expect("a dropped option fails");
    assert_eq!(f.verdict.kind(), "diverged:stream/inquiry_request", "{f}");
}
