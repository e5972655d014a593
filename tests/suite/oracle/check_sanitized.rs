//! The oracle's pairing rules against the reference repair:
//! whatever a stream's damage, `sanitize`'s output pairs every
//! tool call and every inquiry within its turn, and the oracle agrees.

use inquiry_model::check::{ProfileMode, check_bytes};
use inquiry_model::generate::stream as arb;
use inquiry_model::rule::Rule;
use inquiry_model::stream::sanitize;
use inquiry_model::wire::{EventKind, Stream};
use proptest::prelude::*;

const PAIRING: [inquiry_model::check::Rule; 4] = [
    Rule::CheckToolPaired,
    Rule::CheckPaired,
    Rule::CheckTurnScoped,
    Rule::CheckResponseAfterRequest,
];

fn pairing_findings(events: Vec<inquiry_model::wire::Event>) -> Vec<String> {
    let bytes = Stream::new(events).to_array_string().into_bytes();
    let c = check_bytes(&bytes, "s", ProfileMode::Auto);
    assert_eq!(c.error, None);
    c.diagnostics
        .iter()
        .filter(|d| PAIRING.contains(&d.rule))
        .map(|d| d.to_string())
        .collect()
}

proptest! {
    /// Rule: CHECK-TOOL-PAIRED — for any stream with orphans of every kind,
    /// the reference repair's output has no pairing finding: every tool call
    /// has exactly one response after it in its turn (sanitize injects one
    /// for an orphaned call and removes an orphaned response), and so does
    /// every inquiry request.
    #[test]
    fn sanitized_streams_have_no_pairing_finding(events in arb::stream()) {
        let repaired = sanitize(events).events;
        let found = pairing_findings(repaired);
        prop_assert!(found.is_empty(), "{found:#?}");
    }

    /// Rule: CHECK-TOOL-PAIRED — streams generated without orphans (legacy
    /// duplicate IDs and reused tool-call IDs paired by order) have no
    /// pairing finding: by-order pairing is what the oracle does too.
    #[test]
    fn orphan_free_streams_have_no_pairing_finding(events in arb::clean_stream()) {
        let found = pairing_findings(events);
        prop_assert!(found.is_empty(), "{found:#?}");
    }

    /// Rule: CHECK-TOOL-PAIRED — the property above can fail: removing any
    /// one `tool_call_response` from an orphan-free stream leaves its call
    /// unanswered, which the oracle reports.
    #[test]
    fn removing_a_tool_response_is_found(events in arb::clean_stream(), pick in any::<prop::sample::Index>()) {
        let responses: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind, EventKind::ToolCallResponse(_)))
            .map(|(i, _)| i)
            .collect();
        prop_assume!(!responses.is_empty());
        let mut events = events;
        events.remove(responses[pick.index(responses.len())]);
        let found = pairing_findings(events);
        prop_assert!(found.iter().any(|d| d.contains(Rule::CheckToolPaired.id())), "{found:#?}");
    }
}

/// Decision "Stream: sanitize never writes a secret back": the `sanitize`
/// command finding a secret beside a redaction (a `redacted` response carrying an `answer`) or
/// answered on a secret request is not written out by the repair: the
/// repaired stream holds neither value, and `check` finds neither
/// CHECK-REDACTED-NO-ANSWER nor CHECK-SECRET-NOT-ANSWERED on it, while it
/// finds both on the input.
#[test]
fn sanitize_never_writes_a_secret_back() {
    let bytes = br#"[
      {"type": "turn_start"},
      {"type": "tool_call_request", "id": "c1", "name": "fs", "arguments": {}},
      {"type": "inquiry_request", "id": "c1.pw.1", "source": {"source": "tool", "name": "fs"},
       "question": {"text": "Password?", "answer_type": {"type": "secret"}}},
      {"type": "inquiry_response", "id": "c1.pw.1", "outcome": "redacted", "answer": "hunter2"},
      {"type": "inquiry_request", "id": "c1.pw2.1", "source": {"source": "tool", "name": "fs"},
       "question": {"text": "Again?", "answer_type": {"type": "secret"}}},
      {"type": "inquiry_response", "id": "c1.pw2.1", "outcome": "answered", "answer": "hunter3"},
      {"type": "tool_call_response", "id": "c1", "content": "done", "is_error": false}
    ]"#;
    let rules_of = |bytes: &[u8]| -> Vec<Rule> {
        let c = check_bytes(bytes, "s.json", ProfileMode::Auto);
        c.diagnostics.iter().map(|d| d.rule).collect()
    };
    let before = rules_of(bytes);
    assert!(before.contains(&Rule::CheckRedactedNoAnswer), "{before:?}");
    assert!(before.contains(&Rule::CheckSecretNotAnswered), "{before:?}");
    let path = std::env::temp_dir().join(format!("oracle-sanitize-{}.json", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(["sanitize", "-q", path.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(out.status.code(), Some(1), "repaired: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains("hunter2") && !text.contains("hunter3"),
        "{text}"
    );
    let after = rules_of(text.as_bytes());
    assert!(!after.contains(&Rule::CheckRedactedNoAnswer), "{after:?}");
    assert!(!after.contains(&Rule::CheckSecretNotAnswered), "{after:?}");
}
