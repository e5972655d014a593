//! Properties of turns, pairing, sanitize and the provider view over
//! generated streams (`crate::generate::stream`), each checked against an
//! independent, deliberately naive reference written here. Case counts
//! follow `PROPTEST_CASES` (the Makefile sets 256).

use std::collections::{HashMap, HashSet};

use crate::generate::stream as arb;
use crate::stream::{
    Orphan, Pair, PairStep, Pairer, Pairing, Sanitized, pair, pair_tool_calls, provider_view,
    sanitize, turns,
};
use crate::wire::{Event, EventKind, InquiryId, InquiryResponse};
use proptest::prelude::*;

/// Which pairing a reference run is about.
#[derive(Clone, Copy)]
enum Family {
    Inquiry,
    ToolCall,
}

/// `Some((is_request, id))` if the event belongs to the family.
fn member(f: Family, e: &Event) -> Option<(bool, String)> {
    match (f, &e.kind) {
        (Family::Inquiry, EventKind::InquiryRequest(r)) => Some((true, r.id.as_str().to_owned())),
        (Family::Inquiry, EventKind::InquiryResponse(r)) => {
            Some((false, r.id().as_str().to_owned()))
        }
        (Family::ToolCall, EventKind::ToolCallRequest(r)) => Some((true, r.id.clone())),
        (Family::ToolCall, EventKind::ToolCallResponse(r)) => Some((false, r.id.clone())),
        _ => None,
    }
}

/// The turn of each event, computed naively: a `turn_start` at index > 0
/// opens the next one.
fn turn_numbers(events: &[Event]) -> Vec<usize> {
    let mut t = 0;
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i > 0 && e.kind.tag() == "turn_start" {
                t += 1;
            }
            t
        })
        .collect()
}

/// Reference pairing, quadratic on purpose: each response, in stream order,
/// takes the earliest still-unpaired request before it in its turn with an
/// equal ID.
fn naive_pair(events: &[Event], f: Family) -> Pairing {
    naive_pair_within(events, f, false)
}

/// The pairing sanitize repairs to: within the turn, and for tool calls
/// within their cycle of the turn (a chat event ends it: RFD 004/005
/// draft, tool call requests are "immediately followed by tool call
/// responses"; rule STREAM-SANITIZE-ADJACENT).
fn naive_sanitize_pair(events: &[Event], f: Family) -> Pairing {
    naive_pair_within(events, f, true)
}

fn naive_pair_within(events: &[Event], f: Family, cycles: bool) -> Pairing {
    let turn = turn_numbers(events);
    // Where a pair may form.
    let mut cycle = 0;
    let window: Vec<usize> = events
        .iter()
        .enumerate()
        .map(|(k, e)| {
            let ends = match f {
                Family::Inquiry => false,
                Family::ToolCall => cycles && is_chat(e),
            };
            if ends || (k > 0 && turn[k] != turn[k - 1]) {
                cycle += 1;
            }
            cycle
        })
        .collect();
    let mut taken = vec![false; events.len()];
    let mut out = Pairing::default();
    for j in 0..events.len() {
        let Some((false, id)) = member(f, &events[j]) else {
            continue;
        };
        let found = (0..j).find(|&i| {
            !taken[i] && window[i] == window[j] && member(f, &events[i]) == Some((true, id.clone()))
        });
        match found {
            Some(i) => {
                taken[i] = true;
                out.pairs.push(Pair {
                    turn: turn[j],
                    request: i,
                    response: j,
                });
            }
            None => out.orphan_responses.push((turn[j], j)),
        }
    }
    out.orphan_requests = (0..events.len())
        .filter(|&i| !taken[i] && matches!(member(f, &events[i]), Some((true, _))))
        .map(|i| (turn[i], i))
        .collect();
    out
}

fn is_chat(e: &Event) -> bool {
    matches!(e.kind.tag(), "chat_request" | "chat_response")
}

/// The turn identity of each output event, in input terms: the input index
/// of its turn's marker, or `None` for the implicit leading turn. Input and
/// output must agree on it for every surviving event.
fn turn_keys_in(events: &[Event], origin: impl Fn(usize) -> Option<usize>) -> Vec<Option<usize>> {
    let mut key = None;
    events
        .iter()
        .enumerate()
        .map(|(k, e)| {
            if e.kind.tag() == "turn_start" {
                key = Some(origin(k).expect("turn markers are never injected"));
            }
            key
        })
        .collect()
}

fn sanitized_and_keys(events: &[Event]) -> (Sanitized, Vec<Option<usize>>, Vec<Option<usize>>) {
    let out = sanitize(events.to_vec());
    let in_keys = turn_keys_in(events, Some);
    let out_keys = turn_keys_in(&out.events, |k| out.origin[k]);
    (out, in_keys, out_keys)
}

fn reverse_ids(events: &[Event]) -> Vec<Event> {
    let rev = |s: &str| s.chars().rev().collect::<String>();
    events
        .iter()
        .cloned()
        .map(|mut e| {
            match &mut e.kind {
                EventKind::InquiryRequest(r) => r.id = InquiryId::from_opaque(rev(r.id.as_str())),
                EventKind::InquiryResponse(r) => {
                    let id = InquiryId::from_opaque(rev(r.id().as_str()));
                    match r {
                        InquiryResponse::Answered { id: i, .. }
                        | InquiryResponse::Cancelled { id: i, .. }
                        | InquiryResponse::Redacted { id: i } => *i = id,
                    }
                }
                EventKind::ToolCallRequest(r) => r.id = rev(&r.id),
                EventKind::ToolCallResponse(r) => r.id = rev(&r.id),
                _ => {}
            }
            e
        })
        .collect()
}

proptest! {
    /// Rule: STREAM-SANITIZE-IDEMPOTENT — sanitizing a sanitized stream
    /// changes nothing and reports nothing.
    #[test]
    fn sanitize_is_idempotent(events in arb::stream()) {
        let once = sanitize(events);
        let twice = sanitize(once.events.clone());
        prop_assert!(twice.is_unchanged(), "{:?} {:?}", twice.removed, twice.injected);
        prop_assert_eq!(&twice.events, &once.events);
        prop_assert_eq!(twice.origin, (0..once.events.len()).map(Some).collect::<Vec<_>>());
    }

    /// Rule: STREAM-SANITIZE-NO-ORPHANS — by the reference pairing, the
    /// sanitized stream has no orphan inquiry request or response and no
    /// orphan tool-call request or response: every tool call the provider
    /// sees has its response in its turn, and no response lacks its request.
    #[test]
    fn sanitize_output_has_no_orphans(events in arb::stream()) {
        let out = sanitize(events);
        let inq = naive_pair(&out.events, Family::Inquiry);
        let tool = naive_pair(&out.events, Family::ToolCall);
        prop_assert!(inq.is_complete(), "{:?}", inq);
        prop_assert!(tool.is_complete(), "{:?}", tool);
    }

    /// Rules: STREAM-SANITIZE-KEEPS-PAIRS, STREAM-SANITIZE-INQUIRY-ORPHANS —
    /// sanitize removes exactly the reference's orphan inquiry requests,
    /// orphan inquiry responses and orphan tool-call responses, with the
    /// right reason; every correctly paired event survives and is still
    /// paired with the same partner.
    #[test]
    fn sanitize_removes_only_orphans_and_keeps_every_pair(events in arb::stream()) {
        let inq = naive_pair(&events, Family::Inquiry);
        let tool = naive_sanitize_pair(&events, Family::ToolCall);
        let mut expected: Vec<(usize, Orphan)> = inq
            .orphan_requests
            .iter()
            .map(|&(_, i)| (i, Orphan::InquiryRequest))
            .chain(inq.orphan_responses.iter().map(|&(_, i)| (i, Orphan::InquiryResponse)))
            .chain(tool.orphan_responses.iter().map(|&(_, i)| (i, Orphan::ToolCallResponse)))
            .collect();
        expected.sort_by_key(|&(i, _)| i);
        let out = sanitize(events.clone());
        let removed: Vec<(usize, Orphan)> =
            out.removed.iter().map(|r| (r.index, r.reason)).collect();
        prop_assert_eq!(removed, expected);

        let turn = turn_numbers(&events);
        prop_assert!(out.removed.iter().all(|r| r.turn == turn[r.index]));

        // Pairs, mapped back to input indices, are the input's pairs (plus,
        // for tool calls, orphans paired with injected responses).
        let back = |p: &Pair| (out.origin[p.request], out.origin[p.response]);
        let inq_after: HashSet<(Option<usize>, Option<usize>)> =
            naive_pair(&out.events, Family::Inquiry).pairs.iter().map(back).collect();
        let inq_before: HashSet<(Option<usize>, Option<usize>)> =
            inq.pairs.iter().map(|p| (Some(p.request), Some(p.response))).collect();
        prop_assert_eq!(inq_after, inq_before);
        let tool_after: HashSet<(Option<usize>, Option<usize>)> =
            naive_sanitize_pair(&out.events, Family::ToolCall)
                .pairs
                .iter()
                .map(back)
                .filter(|(_, resp)| resp.is_some())
                .collect();
        let tool_before: HashSet<(Option<usize>, Option<usize>)> =
            tool.pairs.iter().map(|p| (Some(p.request), Some(p.response))).collect();
        prop_assert_eq!(tool_after, tool_before);
    }

    /// Rule: STREAM-SANITIZE-TURN-SCOPED — every surviving event is the
    /// input event it claims to be, stays in the same turn and in the same
    /// relative order; every injected event sits in its request's turn,
    /// after the request.
    #[test]
    fn sanitize_never_moves_events_across_turns(events in arb::stream()) {
        let (out, in_keys, out_keys) = sanitized_and_keys(&events);
        prop_assert_eq!(out.events.len(), out.origin.len());
        let mut last: Option<usize> = None;
        for (k, o) in out.origin.iter().enumerate() {
            if let Some(i) = *o {
                prop_assert_eq!(&out.events[k], &events[i]);
                prop_assert!(last.is_none_or(|l| l < i), "order broken at output {}", k);
                last = Some(i);
                prop_assert_eq!(out_keys[k], in_keys[i], "event {} changed turn", i);
            }
        }
        for inj in &out.injected {
            prop_assert_eq!(out.origin[inj.at], None);
            prop_assert_eq!(out_keys[inj.at], in_keys[inj.request]);
            let req_at = out.origin.iter().position(|o| *o == Some(inj.request));
            prop_assert!(req_at.is_some_and(|r| r < inj.at));
        }
        // Turns survive, except an implicit leading turn made only of orphans.
        let leading_in = in_keys.first().is_some_and(|k| k.is_none());
        let leading_out = out_keys.first().is_some_and(|k| k.is_none());
        let vanished = usize::from(leading_in && !leading_out);
        prop_assert_eq!(turns(&out.events).len(), turns(&events).len() - vanished);
    }

    /// Rules: STREAM-SANITIZE-TOOL-ORPHANS, STREAM-SANITIZE-INQUIRY-ORPHANS —
    /// the only events sanitize adds are one error `tool_call_response` per
    /// orphaned tool-call request (no response in its cycle), with its ID,
    /// placed right before the first chat event after the request in the
    /// turn (or at the turn's end; STREAM-SANITIZE-ADJACENT), several in
    /// request order; nothing is ever added for an inquiry.
    #[test]
    fn sanitize_adds_only_placed_error_responses_for_orphan_tool_calls(events in arb::stream()) {
        let tool = naive_sanitize_pair(&events, Family::ToolCall);
        let out = sanitize(events.clone());
        let added: Vec<usize> =
            (0..out.events.len()).filter(|&k| out.origin[k].is_none()).collect();
        prop_assert_eq!(&added, &out.injected.iter().map(|i| i.at).collect::<Vec<_>>());
        let requests: Vec<usize> = out.injected.iter().map(|i| i.request).collect();
        let mut expected: Vec<usize> = tool.orphan_requests.iter().map(|&(_, i)| i).collect();
        let mut got = requests.clone();
        got.sort();
        expected.sort();
        prop_assert_eq!(got, expected);

        let pos: HashMap<usize, usize> = out
            .origin
            .iter()
            .enumerate()
            .filter_map(|(k, o)| o.map(|i| (i, k)))
            .collect();
        for (n, inj) in out.injected.iter().enumerate() {
            let e = &out.events[inj.at];
            let (EventKind::ToolCallResponse(r), EventKind::ToolCallRequest(q)) =
                (&e.kind, &events[inj.request].kind)
            else {
                return Err(TestCaseError::fail(format!(
                    "not a tool response for a tool request: {e:?}"
                )));
            };
            prop_assert_eq!(&r.id, &q.id);
            prop_assert_eq!(r.is_error, Some(true));
            let anchor = inj.request;
            let from = pos[&anchor];
            prop_assert!(from < inj.at);
            prop_assert!(
                !out.events[from..inj.at].iter().any(is_chat),
                "a chat event precedes the synthetic response"
            );
            // After it (skipping other synthetic responses): a chat event,
            // the next turn, or the end.
            let next = (inj.at + 1..out.events.len()).find(|&k| out.origin[k].is_some());
            let closes =
                |k: usize| is_chat(&out.events[k]) || out.events[k].kind.tag() == "turn_start";
            prop_assert!(next.is_none_or(closes));
            // Several at one place: in request order.
            let adjacent = n
                .checked_sub(1)
                .map(|m| out.injected[m])
                .filter(|prev| prev.at + 1 == inj.at);
            if let Some(prev) = adjacent {
                prop_assert!(prev.request < inj.request);
            }
        }
        let inquiries =
            |es: &[Event]| es.iter().filter(|e| member(Family::Inquiry, e).is_some()).count();
        prop_assert!(inquiries(&out.events) <= inquiries(&events));
    }

    /// Rule: STREAM-SANITIZE-CLEAN-IDENTITY — a stream with no orphan (legacy
    /// duplicates and reused tool-call IDs paired by order) sanitizes to
    /// itself with an empty report.
    #[test]
    fn sanitize_is_identity_on_clean_streams(events in arb::clean_stream()) {
        let inq = naive_pair(&events, Family::Inquiry);
        let tool = naive_sanitize_pair(&events, Family::ToolCall);
        prop_assert!(inq.orphan_requests.is_empty() && inq.orphan_responses.is_empty());
        prop_assert!(tool.orphan_requests.is_empty() && tool.orphan_responses.is_empty());
        let input = events.clone();
        let buffer = input.as_ptr();
        let out = sanitize(input);
        prop_assert!(out.is_unchanged());
        // The input itself comes back: its buffer, not a copy.
        prop_assert_eq!(out.events.as_ptr(), buffer);
        prop_assert_eq!(out.events, events);
    }

    /// Rule: STREAM-PROVIDER-VIEW — the provider view of any stream (raw or
    /// sanitized) is exactly its chat and tool-call events, the very same
    /// events, in stream order: no inquiry event, turn marker or other kind.
    #[test]
    fn provider_view_is_exactly_the_visible_events_in_order(events in arb::stream()) {
        for s in [events.clone(), sanitize(events).events] {
            let expected: Vec<&Event> = s
                .iter()
                .filter(|e| matches!(
                    e.kind.tag(),
                    "chat_request" | "chat_response" | "tool_call_request" | "tool_call_response"
                ))
                .collect();
            let view: Vec<&Event> = provider_view(&s).collect();
            prop_assert_eq!(view.len(), expected.len());
            prop_assert!(view.iter().zip(&expected).all(|(a, b)| std::ptr::eq(*a, *b)));
        }
    }

    /// Rules: STREAM-PAIR-TURN-SCOPED, STREAM-PAIR-ORDER — no pair crosses a
    /// turn boundary or pairs a response with a later request; both sides
    /// carry the same ID; every inquiry (tool-call) event is in exactly one
    /// pair or orphan list.
    #[test]
    fn pairing_never_crosses_turns_or_pairs_backwards(events in arb::stream()) {
        let turn = turn_numbers(&events);
        let both = [
            (Family::Inquiry, pair(&events)),
            (Family::ToolCall, pair_tool_calls(&events)),
        ];
        for (f, p) in both {
            let mut seen: Vec<usize> = Vec::new();
            for pr in &p.pairs {
                prop_assert!(pr.request < pr.response);
                prop_assert_eq!(turn[pr.request], turn[pr.response]);
                prop_assert_eq!(pr.turn, turn[pr.request]);
                let (rq, rs) = (member(f, &events[pr.request]), member(f, &events[pr.response]));
                prop_assert!(matches!((&rq, &rs), (Some((true, a)), Some((false, b))) if a == b));
                seen.extend([pr.request, pr.response]);
            }
            for &(t, i) in p.orphan_requests.iter().chain(&p.orphan_responses) {
                prop_assert_eq!(t, turn[i]);
                seen.push(i);
            }
            seen.sort();
            let members: Vec<usize> =
                (0..events.len()).filter(|&i| member(f, &events[i]).is_some()).collect();
            prop_assert_eq!(seen, members);
        }
    }

    /// Rules: STREAM-PAIR-ORDER, STREAM-TOOL-PAIR-ORDER — the linear pairing
    /// equals the naive by-order reference, for inquiries and tool calls.
    #[test]
    fn pairing_matches_the_by_order_reference(events in arb::stream()) {
        prop_assert_eq!(pair(&events), naive_pair(&events, Family::Inquiry));
        prop_assert_eq!(pair_tool_calls(&events), naive_pair(&events, Family::ToolCall));
    }

    /// Rule: STREAM-PAIR-ORDER — the streaming `Pairer`, fed one event at a
    /// time, finds what `pair` finds; and (CHECK-TURN-UNIQUE-ID's evidence)
    /// every request it opens names the turn's first request with the same
    /// ID, found by a naive scan.
    #[test]
    fn streaming_pairer_agrees_with_pair(events in arb::stream()) {
        let mut p = Pairer::new();
        let mut got = Pairing::default();
        let turn_of = turn_numbers(&events);
        for (i, e) in events.iter().enumerate() {
            match p.push(i, e) {
                PairStep::None => {}
                PairStep::Opened { repeat_of } => {
                    let id = member(Family::Inquiry, e);
                    let first = (0..i).find(|&j| {
                        turn_of[j] == turn_of[i]
                            && matches!(events[j].kind, EventKind::InquiryRequest(_))
                            && member(Family::Inquiry, &events[j]) == id
                    });
                    prop_assert_eq!(repeat_of, first, "request at {}", i);
                }
                PairStep::TurnEnded { turn, orphan_requests } => {
                    got.orphan_requests.extend(orphan_requests.into_iter().map(|r| (turn, r)))
                }
                PairStep::Paired(pr) => got.pairs.push(pr),
                PairStep::OrphanResponse { turn } => got.orphan_responses.push((turn, i)),
            }
        }
        let t = p.turn();
        got.orphan_requests.extend(p.finish().into_iter().map(|r| (t, r)));
        prop_assert_eq!(got, pair(&events));
    }

    /// Rule: STREAM-PAIR-OPAQUE-ID — pairing depends on ID equality only:
    /// reversing every ID string (an injective renaming that scrambles the
    /// dot-separated segments) pairs exactly the same events.
    #[test]
    fn pairing_is_invariant_under_id_renaming(events in arb::stream()) {
        let renamed = reverse_ids(&events);
        let has_ids = events
            .iter()
            .any(|e| member(Family::Inquiry, e).is_some() || member(Family::ToolCall, e).is_some());
        prop_assert_eq!(renamed != events, has_ids);
        prop_assert_eq!(pair(&renamed), pair(&events));
        prop_assert_eq!(pair_tool_calls(&renamed), pair_tool_calls(&events));
        let (a, b) = (sanitize(renamed), sanitize(events));
        prop_assert_eq!(a.origin, b.origin);
        prop_assert_eq!(a.removed, b.removed);
    }

    /// Rule: STREAM-TURNS — turns partition the stream into contiguous,
    /// numbered ranges; each starts with a marker except an implicit leading
    /// turn, and no marker sits inside a turn.
    #[test]
    fn turns_partition_the_stream(events in arb::stream()) {
        let ts = turns(&events);
        let mut next = 0;
        for (n, t) in ts.iter().enumerate() {
            prop_assert_eq!(t.index, n);
            prop_assert_eq!(t.start, next);
            prop_assert!(t.end > t.start);
            let starts_with_marker = events[t.start].kind.tag() == "turn_start";
            prop_assert!(starts_with_marker || n == 0);
            prop_assert!(events[t.start + 1..t.end].iter().all(|e| e.kind.tag() != "turn_start"));
            next = t.end;
        }
        prop_assert_eq!(next, events.len());
        let numbers = turn_numbers(&events);
        for t in &ts {
            prop_assert!(numbers[t.start..t.end].iter().all(|&k| k == t.index));
        }
    }
}
