//! Shared helpers for the scenario tests.

use crate::model::coordinator::{Coordinator, RunPolicy, ToolSpec};
use crate::model::tool::ToolSource;
use crate::profile::ProfileName;
use crate::scenario::{self, Scenario, Trace};
use crate::wire::{CancellationReason, Event, InquiryRequest, InquiryResponse};
use serde_json::Value;

/// A scenario from JSON; panics with the serde message if it does not parse.
pub(crate) fn scenario(v: Value) -> Scenario {
    serde_json::from_value(v).unwrap_or_else(|e| panic!("scenario does not parse: {e}"))
}

/// Runs a scenario; panics if the model rejects it.
pub(crate) fn run(v: Value) -> Trace {
    scenario::run(&scenario(v)).unwrap_or_else(|e| panic!("scenario failed: {e}"))
}

/// The inquiry requests of a trace, in order.
pub(crate) fn requests(t: &Trace) -> Vec<&InquiryRequest> {
    t.stream
        .iter()
        .filter_map(Event::as_inquiry_request)
        .collect()
}

/// The inquiry responses of a trace, in order.
pub(crate) fn responses(t: &Trace) -> Vec<&InquiryResponse> {
    t.stream
        .iter()
        .filter_map(Event::as_inquiry_response)
        .collect()
}

/// The IDs of the requests, as strings.
pub(crate) fn request_ids(t: &Trace) -> Vec<String> {
    requests(t).iter().map(|r| r.id.to_string()).collect()
}

/// The reasons of every `Cancelled` response.
pub(crate) fn cancel_reasons(t: &Trace) -> Vec<CancellationReason> {
    responses(t)
        .into_iter()
        .filter_map(|r| match r {
            InquiryResponse::Cancelled { reason, .. } => Some(reason.clone()),
            InquiryResponse::Answered { .. } | InquiryResponse::Redacted { .. } => None,
        })
        .collect()
}

/// The kinds of the persisted events, as tags.
pub(crate) fn kinds(t: &Trace) -> Vec<&str> {
    t.stream.iter().map(|e| e.kind.tag()).collect()
}

/// The serialized persisted stream as text.
pub(crate) fn stream_text(t: &Trace) -> String {
    serde_json::to_string(&t.persisted_json()).expect("serializes")
}

/// Asserts every request is followed, later in the stream, by exactly one
/// response with its ID (pairs by order, like a reader).
pub(crate) fn assert_paired(t: &Trace) {
    let pairing = crate::stream::pair(&t.stream);
    assert!(
        pairing.orphan_requests.is_empty() && pairing.orphan_responses.is_empty(),
        "unpaired inquiries: {pairing:?}"
    );
}

/// A coordinator under `profile` with a TTY and no fault, knowing `tools`
/// (name, kind), each unattended with no configured question: the step API
/// tests' starting point.
pub(crate) fn coordinator_under(
    profile: ProfileName,
    tools: Vec<(&str, ToolSource)>,
) -> Coordinator {
    let tools = tools
        .into_iter()
        .map(|(n, s)| {
            (
                n.to_owned(),
                ToolSpec {
                    run: RunPolicy::Unattended,
                    ..ToolSpec::new(s)
                },
            )
        })
        .collect();
    Coordinator::new(profile.rules(), true, tools)
}
