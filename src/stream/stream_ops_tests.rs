//! Stream operations on hand-built streams: turns, pairing, turn-scoped
//! sanitize, provider view (rules `STREAM-*` in `spec/RULES.md`). The first
//! three tests are the RFD 082 Phase 3 test list items, named after it. The
//! committed corpus and the real streams are read by
//! `src/stream/stream_files_tests.rs`.

use std::collections::HashSet;

use crate::generate::stream::{
    answered, chat_request, chat_response, inquiry_request, inquiry_request_with_text,
    inquiry_response, other, tool_call_request, tool_call_response, turn_start,
};
use crate::stream::{
    Injected, Orphan, Pair, Removed, Sanitized, Turn, pair, pair_tool_calls, provider_view,
    provider_view_indexed, sanitize, turns,
};
use crate::wire::{CancellationReason, Event, EventKind, InquiryId, InquiryResponse, Stream};
use serde_json::{Value, json};

/// Base64 of `INTERRUPTED_TOOL_CALL`, computed outside the crate
/// (`python3 -c 'import base64; print(base64.b64encode(b"…").decode())'`).
const INTERRUPTED_B64: &str =
    "VG9vbCBjYWxsIGludGVycnVwdGVkOiBubyByZXNwb25zZSB3YXMgcmVjb3JkZWQgZm9yIGl0IGluIGl0cyB0dXJuLg==";

fn id(s: &str) -> InquiryId {
    InquiryId::from_opaque(s)
}

/// One readable line per event: its tag and, for inquiry and tool events,
/// its ID; synthetic error responses are marked.
fn line(e: &Event) -> String {
    match &e.kind {
        EventKind::ToolCallRequest(r) => format!("tool_call_request {}", r.id),
        EventKind::ToolCallResponse(r) => match r.is_error {
            Some(true) => format!("tool_call_response {} (error)", r.id),
            Some(false) | None => format!("tool_call_response {}", r.id),
        },
        EventKind::InquiryRequest(r) => format!("inquiry_request {} {:?}", r.id, r.question.text),
        EventKind::InquiryResponse(r) => format!("inquiry_response {}", r.id()),
        EventKind::TurnStart
        | EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::Other(_) => e.kind.tag().to_owned(),
    }
}

fn lines(events: &[Event]) -> Vec<String> {
    events.iter().map(line).collect()
}

fn stamped(mut events: Vec<Event>) -> Vec<Event> {
    for (i, e) in events.iter_mut().enumerate() {
        e.timestamp = Some(format!("2026-03-05 21:21:{i:02}.000000"));
    }
    events
}

/// Rule: STREAM-PAIR-ORDER — RFD 082 Phase 3 test "Legacy ID pairing": a
/// pre-082 stream (two-segment IDs, untagged `{id, answer}` responses) reads
/// back with its pairs intact, including two events sharing an ID, which
/// pair by order, whether re-asked one after the other or interleaved.
#[test]
fn legacy_id_pairing() {
    let text = r#"[
      {"type":"turn_start","timestamp":"2026-03-05 21:21:00.0"},
      {"type":"chat_request","timestamp":"2026-03-05 21:21:01.0","content":"aGk="},
      {"type":"tool_call_request","timestamp":"2026-03-05 21:21:02.0","id":"toolu_1","name":"fs_modify_file","arguments":{}},
      {"type":"inquiry_request","timestamp":"2026-03-05 21:21:03.0","id":"toolu_1.apply_changes","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"first ask","answer_type":{"type":"boolean"}}},
      {"type":"inquiry_response","timestamp":"2026-03-05 21:21:04.0","id":"toolu_1.apply_changes","answer":"maybe"},
      {"type":"inquiry_request","timestamp":"2026-03-05 21:21:05.0","id":"toolu_1.apply_changes","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"second ask","answer_type":{"type":"boolean"}}},
      {"type":"inquiry_response","timestamp":"2026-03-05 21:21:06.0","id":"toolu_1.apply_changes","answer":true},
      {"type":"tool_call_response","timestamp":"2026-03-05 21:21:07.0","id":"toolu_1","content":"ZG9uZQ==","is_error":false},
      {"type":"tool_call_request","timestamp":"2026-03-05 21:21:08.0","id":"toolu_2","name":"fs_modify_file","arguments":{}},
      {"type":"inquiry_request","timestamp":"2026-03-05 21:21:09.0","id":"toolu_2.path","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"third ask","answer_type":{"type":"text"}}},
      {"type":"inquiry_request","timestamp":"2026-03-05 21:21:10.0","id":"toolu_2.path","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"fourth ask","answer_type":{"type":"text"}}},
      {"type":"inquiry_response","timestamp":"2026-03-05 21:21:11.0","id":"toolu_2.path","answer":"a.txt"},
      {"type":"inquiry_response","timestamp":"2026-03-05 21:21:12.0","id":"toolu_2.path","answer":"b.txt"},
      {"type":"tool_call_response","timestamp":"2026-03-05 21:21:13.0","id":"toolu_2","content":"ZG9uZQ==","is_error":false}
    ]"#;
    let first = Stream::from_slice(text.as_bytes(), "legacy.json").expect("legacy stream reads");
    // Read back: write it (tagged form) and read the written text again.
    let written = first.to_array_string();
    let again =
        Stream::from_slice(written.as_bytes(), "written.json").expect("written stream reads");

    for s in [&first, &again] {
        let p = pair(&s.events);
        assert!(p.is_complete(), "no orphan expected: {p:?}");
        assert_eq!(
            p.pairs,
            vec![
                Pair {
                    turn: 0,
                    request: 3,
                    response: 4
                },
                Pair {
                    turn: 0,
                    request: 5,
                    response: 6
                },
                Pair {
                    turn: 0,
                    request: 9,
                    response: 11
                },
                Pair {
                    turn: 0,
                    request: 10,
                    response: 12
                },
            ]
        );
        // By order means: first ask ↔ first answer, second ↔ second.
        let asked_answered: Vec<(String, Value)> = p
            .pairs
            .iter()
            .map(|pr| {
                let q = s.events[pr.request].as_inquiry_request().unwrap();
                let a = match s.events[pr.response].as_inquiry_response().unwrap() {
                    InquiryResponse::Answered { answer, .. } => answer.clone(),
                    other => panic!("legacy responses read as Answered, got {other:?}"),
                };
                (q.question.text.clone(), a)
            })
            .collect();
        assert_eq!(
            asked_answered,
            vec![
                ("first ask".to_owned(), json!("maybe")),
                ("second ask".to_owned(), json!(true)),
                ("third ask".to_owned(), json!("a.txt")),
                ("fourth ask".to_owned(), json!("b.txt")),
            ]
        );
        // And sanitize has nothing to repair.
        let out = sanitize(s.events.clone());
        assert!(out.is_unchanged());
        assert_eq!(out.events, s.events);
    }
}

/// What a pre-082 `sanitize` did: flat ID sets over the whole stream. Used
/// only to show that the next test's stream is one it gets wrong.
fn flat_set_orphan_requests(events: &[Event]) -> Vec<usize> {
    let answered: HashSet<&InquiryId> = events
        .iter()
        .filter_map(|e| e.as_inquiry_response().map(|r| r.id()))
        .collect();
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.as_inquiry_request()
                .is_some_and(|r| !answered.contains(&r.id))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Rule: STREAM-SANITIZE-TURN-SCOPED — RFD 082 Phase 3 test "Cross-turn ID
/// collision under sanitize": an orphaned `InquiryRequest` in turn 1 shares
/// its ID with a valid pair in turn 2 (tool-call ID reused, attempt counter
/// restarted at 1); sanitize repairs the turn-1 orphan within turn 1 and
/// leaves turn 2 untouched, instead of letting turn 2's response satisfy it.
#[test]
fn cross_turn_id_collision_under_sanitize() {
    let shared = InquiryId::new("call_1", "apply_changes", 1);
    let events = stamped(vec![
        turn_start(),
        chat_request(),
        tool_call_request("call_1"),
        inquiry_request_with_text(shared.clone(), "turn 1 ask"),
        tool_call_response("call_1"),
        chat_response(),
        turn_start(),
        chat_request(),
        tool_call_request("call_1"),
        inquiry_request_with_text(shared.clone(), "turn 2 ask"),
        answered(shared.clone(), json!(true)),
        tool_call_response("call_1"),
        chat_response(),
    ]);
    // The flat-set repair of pre-082 readers sees no orphan here at all.
    assert_eq!(flat_set_orphan_requests(&events), Vec::<usize>::new());
    // Pairing sees the turn-1 request as an orphan of turn 0.
    let p = pair(&events);
    assert_eq!(p.orphan_requests, vec![(0, 3)]);
    assert_eq!(
        p.pairs,
        vec![Pair {
            turn: 1,
            request: 9,
            response: 10
        }]
    );

    let out = sanitize(events.clone());
    assert_eq!(
        out.removed,
        vec![Removed {
            index: 3,
            turn: 0,
            reason: Orphan::InquiryRequest
        }]
    );
    assert!(out.injected.is_empty());
    let mut expected = events.clone();
    expected.remove(3);
    assert_eq!(out.events, expected);
    // Turn 2 (index 1) is byte-for-byte the input's turn 2.
    let t = turns(&out.events);
    assert_eq!(t.len(), 2);
    assert_eq!(&out.events[t[1].start..t[1].end], &events[6..]);
    assert!(pair(&out.events).is_complete());
}

/// Rule: STREAM-SANITIZE-KEEPS-PAIRS — RFD 082 Phase 3 test "Legacy
/// duplicate IDs within a turn under sanitize": two requests share a legacy
/// ID and one response follows; the by-order pair (first request, the
/// response) is kept and the second request, the orphan, is removed within
/// the turn. Nothing is invented for the inquiry.
#[test]
fn legacy_duplicate_ids_within_a_turn_under_sanitize() {
    let legacy = InquiryId::legacy("call_1", "apply_changes");
    let events = vec![
        turn_start(),
        chat_request(),
        tool_call_request("call_1"),
        inquiry_request_with_text(legacy.clone(), "first ask"),
        inquiry_request_with_text(legacy.clone(), "second ask"),
        answered(legacy.clone(), json!(false)),
        tool_call_response("call_1"),
        chat_response(),
    ];
    let out = sanitize(events.clone());
    assert_eq!(
        out.removed,
        vec![Removed {
            index: 4,
            turn: 0,
            reason: Orphan::InquiryRequest
        }]
    );
    assert!(out.injected.is_empty());
    assert_eq!(
        lines(&out.events),
        vec![
            "turn_start",
            "chat_request",
            "tool_call_request call_1",
            "inquiry_request call_1.apply_changes \"first ask\"",
            "inquiry_response call_1.apply_changes",
            "tool_call_response call_1",
            "chat_response",
        ]
    );
    assert_eq!(
        out.origin,
        vec![
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(5),
            Some(6),
            Some(7)
        ]
    );
    assert_eq!(
        pair(&out.events).pairs,
        vec![Pair {
            turn: 0,
            request: 3,
            response: 4
        }]
    );
}

/// Rule: STREAM-PAIR-TURN-SCOPED — a request in one turn and a response
/// with its ID in the next never pair: both are orphans of their own turn
/// and sanitize removes both.
#[test]
fn cross_turn_request_and_response_never_pair() {
    let x = InquiryId::legacy("call_1", "path");
    let events = vec![
        turn_start(),
        inquiry_request(x.clone()),
        turn_start(),
        answered(x.clone(), json!("a.txt")),
    ];
    let p = pair(&events);
    assert!(p.pairs.is_empty());
    assert_eq!(p.orphan_requests, vec![(0, 1)]);
    assert_eq!(p.orphan_responses, vec![(1, 3)]);
    let out = sanitize(events);
    assert_eq!(
        out.removed,
        vec![
            Removed {
                index: 1,
                turn: 0,
                reason: Orphan::InquiryRequest
            },
            Removed {
                index: 3,
                turn: 1,
                reason: Orphan::InquiryResponse
            },
        ]
    );
    assert_eq!(lines(&out.events), vec!["turn_start", "turn_start"]);
}

/// Rule: STREAM-PAIR-ORDER — a response never pairs with a request that
/// comes after it: response-then-request in one turn is two orphans.
#[test]
fn response_before_request_is_two_orphans() {
    let x = InquiryId::new("call_1", "path", 1);
    let events = vec![
        chat_request(),
        answered(x.clone(), json!("a.txt")),
        inquiry_request(x.clone()),
        chat_response(),
    ];
    let p = pair(&events);
    assert!(p.pairs.is_empty());
    assert_eq!(p.orphan_responses, vec![(0, 1)]);
    assert_eq!(p.orphan_requests, vec![(0, 2)]);
    let out = sanitize(events);
    assert_eq!(lines(&out.events), vec!["chat_request", "chat_response"]);
    assert_eq!(
        out.removed
            .iter()
            .map(|r| (r.index, r.reason))
            .collect::<Vec<_>>(),
        vec![(1, Orphan::InquiryResponse), (2, Orphan::InquiryRequest)]
    );
}

/// Rule: STREAM-PAIR-OPAQUE-ID — IDs are compared whole, never split on
/// dots: a legacy ID does not pair with the three-segment ID that extends
/// it, `.1` does not pair with `.01`, and IDs of any shape pair by equality.
#[test]
fn pairing_treats_ids_as_opaque() {
    let events = vec![
        inquiry_request(id("call_1.q")),
        answered(id("call_1.q.1"), json!(true)),
        inquiry_request(id("x.y.1")),
        answered(id("x.y.01"), json!(true)),
        inquiry_request(id("a.b.c.d.e")),
        inquiry_request(id("")),
        inquiry_request(id("no-dots-at-all")),
        answered(id("no-dots-at-all"), json!(1)),
        answered(id(""), json!(2)),
        answered(id("a.b.c.d.e"), json!(3)),
    ];
    let p = pair(&events);
    assert_eq!(
        p.pairs,
        vec![
            Pair {
                turn: 0,
                request: 6,
                response: 7
            },
            Pair {
                turn: 0,
                request: 5,
                response: 8
            },
            Pair {
                turn: 0,
                request: 4,
                response: 9
            },
        ]
    );
    assert_eq!(p.orphan_requests, vec![(0, 0), (0, 2)]);
    assert_eq!(p.orphan_responses, vec![(0, 1), (0, 3)]);
}

/// Rule: STREAM-TURNS — turns split at `turn_start` markers; events before
/// the first marker form an implicit leading turn; a marker at index 0 opens
/// turn 0; an empty stream has no turn.
#[test]
fn turns_split_at_markers_with_implicit_leading_turn() {
    let t = |index, start, end| Turn { index, start, end };
    assert_eq!(turns(&[]), vec![]);
    assert_eq!(turns(&[chat_request(), chat_response()]), vec![t(0, 0, 2)]);
    assert_eq!(
        turns(&[other("config_delta"), turn_start(), chat_request()]),
        vec![t(0, 0, 1), t(1, 1, 3)]
    );
    assert_eq!(
        turns(&[turn_start(), chat_request(), turn_start()]),
        vec![t(0, 0, 2), t(1, 2, 3)]
    );
    assert_eq!(
        turns(&[turn_start(), turn_start()]),
        vec![t(0, 0, 1), t(1, 1, 2)]
    );
}

/// Rule: STREAM-SANITIZE-TOOL-ORPHANS — an orphaned tool call gets one
/// synthetic error response, in its own turn, right before the next chat
/// event after it (after the tool call's own inquiry pair and the batch's
/// other responses), with the base64 error text and the timestamp of the
/// event it follows.
#[test]
fn orphan_tool_call_request_gets_error_response_before_next_chat() {
    let q = InquiryId::new("call_a", "apply_changes", 1);
    let events = stamped(vec![
        turn_start(),
        chat_request(),
        tool_call_request("call_a"),
        tool_call_request("call_b"),
        inquiry_request(q.clone()),
        answered(q.clone(), json!(true)),
        tool_call_response("call_b"),
        chat_response(),
        turn_start(),
    ]);
    let out = sanitize(events.clone());
    assert!(out.removed.is_empty());
    assert_eq!(
        out.injected,
        vec![Injected {
            request: 2,
            turn: 0,
            at: 7
        }]
    );
    assert_eq!(
        lines(&out.events),
        vec![
            "turn_start",
            "chat_request",
            "tool_call_request call_a",
            "tool_call_request call_b",
            "inquiry_request call_a.apply_changes.1 \"Apply changes?\"",
            "inquiry_response call_a.apply_changes.1",
            "tool_call_response call_b",
            "tool_call_response call_a (error)",
            "chat_response",
            "turn_start",
        ]
    );
    let synthetic = &out.events[7];
    assert_eq!(synthetic.timestamp, events[6].timestamp);
    let EventKind::ToolCallResponse(r) = &synthetic.kind else {
        panic!("expected a tool_call_response, got {synthetic:?}");
    };
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.content.as_ref().map(|c| c.to_value()),
        Some(json!(INTERRUPTED_B64))
    );
    assert!(synthetic.extra.is_empty());
    assert_eq!(out.origin[7], None);
    assert!(pair_tool_calls(&out.events).is_complete());
}

/// Rule: STREAM-SANITIZE-TOOL-ORPHANS — with no chat event after it, the
/// synthetic response closes the turn, before the next marker, never in the
/// next turn.
#[test]
fn orphan_tool_call_request_is_answered_at_its_turn_end() {
    let events = vec![
        turn_start(),
        tool_call_request("call_a"),
        other("config_delta"),
        turn_start(),
        tool_call_request("call_a"),
        tool_call_response("call_a"),
    ];
    let out = sanitize(events);
    assert_eq!(
        out.injected,
        vec![Injected {
            request: 1,
            turn: 0,
            at: 3
        }]
    );
    assert_eq!(
        lines(&out.events),
        vec![
            "turn_start",
            "tool_call_request call_a",
            "config_delta",
            "tool_call_response call_a (error)",
            "turn_start",
            "tool_call_request call_a",
            "tool_call_response call_a",
        ]
    );
}

/// Rule: STREAM-TOOL-PAIR-ORDER — a reused tool-call ID pairs by order
/// within the turn (the first request takes the only response, even past a
/// chat event). Rule: STREAM-SANITIZE-ADJACENT — sanitize pairs within the
/// cycle instead: both calls are still open at the chat event, so both were
/// interrupted (their synthetic responses go right before it, in request
/// order), and the response after the chat event answers no call of its
/// cycle and goes. Before, the first call kept that response across the
/// chat event and the second's synthetic response landed after it, so the
/// provider read a chat message between a call and its result.
#[test]
fn reused_call_ids_open_at_a_chat_event_are_both_interrupted() {
    let events = vec![
        turn_start(),
        tool_call_request("call_a"),
        tool_call_request("call_a"),
        chat_response(),
        tool_call_response("call_a"),
        chat_response(),
    ];
    let before = pair_tool_calls(&events);
    assert_eq!(
        before.pairs,
        vec![Pair {
            turn: 0,
            request: 1,
            response: 4
        }]
    );
    assert_eq!(before.orphan_requests, vec![(0, 2)]);

    let out = sanitize(events);
    assert_eq!(
        out.injected,
        vec![
            Injected {
                request: 1,
                turn: 0,
                at: 3
            },
            Injected {
                request: 2,
                turn: 0,
                at: 4
            }
        ]
    );
    assert_eq!(
        out.removed,
        vec![Removed {
            index: 4,
            turn: 0,
            reason: Orphan::ToolCallResponse
        }]
    );
    assert_eq!(
        lines(&out.events),
        vec![
            "turn_start",
            "tool_call_request call_a",
            "tool_call_request call_a",
            "tool_call_response call_a (error)",
            "tool_call_response call_a (error)",
            "chat_response",
            "chat_response",
        ]
    );
    let after = pair_tool_calls(&out.events);
    assert!(after.is_complete());
    assert_eq!(
        after.pairs,
        vec![
            Pair {
                turn: 0,
                request: 1,
                response: 3
            },
            Pair {
                turn: 0,
                request: 2,
                response: 4
            },
        ]
    );
}

/// Rule: STREAM-SANITIZE-TOOL-ORPHANS — a tool-call response with no
/// earlier unpaired request in its turn is removed, even when a request with
/// its ID comes later (which then gets a synthetic response).
#[test]
fn orphan_tool_call_responses_are_removed() {
    let events = vec![
        turn_start(),
        tool_call_response("call_z"),
        tool_call_response("call_a"),
        tool_call_request("call_a"),
        chat_response(),
    ];
    let out = sanitize(events);
    assert_eq!(
        out.removed,
        vec![
            Removed {
                index: 1,
                turn: 0,
                reason: Orphan::ToolCallResponse
            },
            Removed {
                index: 2,
                turn: 0,
                reason: Orphan::ToolCallResponse
            },
        ]
    );
    assert_eq!(
        out.injected,
        vec![Injected {
            request: 3,
            turn: 0,
            at: 2
        }]
    );
    assert_eq!(
        lines(&out.events),
        vec![
            "turn_start",
            "tool_call_request call_a",
            "tool_call_response call_a (error)",
            "chat_response",
        ]
    );
}

/// Rule: STREAM-SANITIZE-PLACEMENT-LEFT — a complete inquiry pair that sits
/// after its tool call's response is not sanitize's business: the stream is
/// returned unchanged.
#[test]
fn inquiry_pair_outside_its_tool_call_is_left_in_place() {
    let q = InquiryId::new("call_a", "apply_changes", 1);
    let events = vec![
        turn_start(),
        tool_call_request("call_a"),
        tool_call_response("call_a"),
        inquiry_request(q.clone()),
        inquiry_response(InquiryResponse::Cancelled {
            id: q.clone(),
            reason: CancellationReason::BackendError,
        }),
        chat_response(),
    ];
    let out = sanitize(events.clone());
    assert!(out.is_unchanged());
    assert_eq!(out.events, events);
}

/// Rule: STREAM-PROVIDER-VIEW — the view keeps chat and tool-call events in
/// order and drops turn markers, inquiry events and every other kind.
#[test]
fn provider_view_keeps_only_chat_and_tool_events() {
    let q = InquiryId::new("call_a", "apply_changes", 1);
    let events = vec![
        other("config_delta"),
        turn_start(),
        chat_request(),
        chat_response(),
        tool_call_request("call_a"),
        inquiry_request(q.clone()),
        inquiry_response(InquiryResponse::Redacted { id: q.clone() }),
        tool_call_response("call_a"),
        other("some_future_kind"),
        chat_response(),
    ];
    let view: Vec<&Event> = provider_view(&events).collect();
    assert_eq!(
        view.iter().map(|e| line(e)).collect::<Vec<_>>(),
        vec![
            "chat_request",
            "chat_response",
            "tool_call_request call_a",
            "tool_call_response call_a",
            "chat_response",
        ]
    );
    let indices: Vec<usize> = provider_view_indexed(&events).map(|(i, _)| i).collect();
    assert_eq!(indices, vec![2, 3, 4, 7, 9]);
    assert_eq!(provider_view(&events).rev().count(), 5);
}

/// Rule: STREAM-SANITIZE-TOOL-ORPHANS — one stream with every repair kind,
/// snapshotted: the output stream line by line and the repair report.
#[test]
fn sanitize_repairs_every_orphan_kind_snapshot() {
    let legacy = InquiryId::legacy("call_a", "apply_changes");
    let new = InquiryId::new("call_b", "path", 1);
    let events = stamped(vec![
        other("config_delta"),
        answered(new.clone(), json!("early")),
        turn_start(),
        chat_request(),
        tool_call_request("call_a"),
        inquiry_request_with_text(legacy.clone(), "first ask"),
        inquiry_request_with_text(legacy.clone(), "second ask"),
        answered(legacy.clone(), json!(true)),
        tool_call_response("call_a"),
        tool_call_request("call_b"),
        inquiry_request_with_text(new.clone(), "orphan ask"),
        chat_response(),
        tool_call_response("call_c"),
        turn_start(),
        chat_request(),
        tool_call_request("call_b"),
        inquiry_request_with_text(new.clone(), "answered ask"),
        answered(new.clone(), json!("a.txt")),
        tool_call_response("call_b"),
        chat_response(),
    ]);
    let Sanitized {
        events: out,
        origin,
        removed,
        injected,
    } = sanitize(events);
    let report = json!({
        "output": out
            .iter()
            .zip(&origin)
            .map(|(e, o)| match o {
                Some(i) => format!("{i:>2} {}", line(e)),
                None => format!(" + {}", line(e)),
            })
            .collect::<Vec<_>>(),
        "removed": removed,
        "injected": injected,
    });
    insta::assert_json_snapshot!(report);
}

/// Rule: STREAM-LINEAR — the worst cases of the linear-time claim are
/// handled, and handled correctly (the timing is measured by
/// `examples/stream_scaling.rs`, `make stream-scaling`): one turn of 100 000
/// requests sharing one legacy ID, one turn of 50 000 calls sharing one
/// tool-call ID, and 20 000 turns reusing the same IDs after one huge turn.
#[test]
fn worst_case_streams_are_handled_correctly() {
    // One turn, 100 000 legacy requests of the same ID, then 60 000 responses.
    let legacy = InquiryId::legacy("call_1", "apply_changes");
    let mut events = vec![turn_start()];
    events.extend((0..100_000).map(|_| inquiry_request(legacy.clone())));
    events.extend((0..60_000).map(|_| answered(legacy.clone(), json!(true))));
    let p = pair(&events);
    assert_eq!(p.pairs.len(), 60_000);
    assert!(p.pairs.iter().enumerate().all(|(k, pr)| {
        *pr == Pair {
            turn: 0,
            request: 1 + k,
            response: 100_001 + k,
        }
    }));
    assert_eq!(
        p.orphan_requests,
        (60_001..100_001).map(|i| (0, i)).collect::<Vec<_>>()
    );
    let out = sanitize(events);
    assert_eq!(out.removed.len(), 40_000);
    assert!(out.removed.iter().enumerate().all(|(k, r)| {
        *r == Removed {
            index: 60_001 + k,
            turn: 0,
            reason: Orphan::InquiryRequest,
        }
    }));
    assert_eq!(out.events.len(), 120_001);
    assert!(pair(&out.events).is_complete());

    // One turn, 50 000 calls sharing one tool-call ID, 20 000 responses,
    // then a chat event: 30 000 synthetic responses, all before the chat
    // event, in request order.
    let mut events = vec![turn_start()];
    events.extend((0..50_000).map(|_| tool_call_request("call_1")));
    events.extend((0..20_000).map(|_| tool_call_response("call_1")));
    events.push(chat_response());
    let out = sanitize(events);
    assert!(out.removed.is_empty());
    assert_eq!(out.injected.len(), 30_000);
    assert!(out.injected.iter().enumerate().all(|(k, inj)| {
        *inj == Injected {
            request: 20_001 + k,
            turn: 0,
            at: 70_001 + k,
        }
    }));
    assert!(matches!(
        out.events.last().unwrap().kind,
        EventKind::ChatResponse
    ));
    let t = pair_tool_calls(&out.events);
    assert!(t.is_complete());
    assert!(
        t.pairs
            .iter()
            .enumerate()
            .all(|(k, pr)| pr.request == 1 + k)
    );

    // One huge turn of 50 000 distinct orphaned requests, then 20 000 turns
    // reusing one inquiry ID and one tool-call ID; every other turn lacks
    // its inquiry response and its tool-call response.
    let q = InquiryId::new("call_1", "apply_changes", 1);
    let mut events = vec![turn_start()];
    events.extend((0..50_000).map(|i| inquiry_request(id(&format!("call_{i}.q.1")))));
    for t in 0..20_000 {
        events.push(turn_start());
        events.push(tool_call_request("call_1"));
        events.push(inquiry_request(q.clone()));
        if t % 2 == 0 {
            events.push(answered(q.clone(), json!(true)));
            events.push(tool_call_response("call_1"));
        }
    }
    let p = pair(&events);
    assert_eq!(p.pairs.len(), 10_000);
    assert_eq!(p.orphan_requests.len(), 60_000);
    assert!(p.pairs.iter().all(|pr| pr.response == pr.request + 1));
    let out = sanitize(events);
    assert_eq!(out.removed.len(), 60_000);
    assert_eq!(out.injected.len(), 10_000);
    assert!(
        out.injected
            .iter()
            .all(|inj| inj.turn % 2 == 0 && inj.turn > 0)
    );
    assert!(pair(&out.events).is_complete());
    assert!(pair_tool_calls(&out.events).is_complete());
    assert_eq!(turns(&out.events).len(), 20_001);
}
