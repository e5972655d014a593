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
