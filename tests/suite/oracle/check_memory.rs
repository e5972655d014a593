//! Rule PERF-TURN-MEMORY: what the checker keeps of one
//! long turn. Counted through the checker's own size accessors, not timed
//! and not read from the process's RSS (the RSS is `make bench`'s row).

use inquiry_model::check::{Checker, Diagnostic, ProfileMode};
use inquiry_model::generate::stream::{
    answered, inquiry_request, tool_call_request, tool_call_response, turn_start,
};
use inquiry_model::wire::InquiryId;
use serde_json::json;

const REQUESTS: usize = 100_000;

/// The budget per distinct ID of a clean long turn: `make bench` holds the
/// checker to 64 MiB on 10^6 pairs, about 4 MiB of it the process itself,
/// so 60 bytes per pair; plus a fifth for the slack of buffers that grow by
/// doubling, which the accessor counts and the RSS does not (60 bytes are
/// counted at 100 000 keys). A log entry kept per answered request (16
/// bytes, 81 counted) or a `String` clone per ID (24 bytes and a heap
/// block) is over.
const BYTES_PER_REQUEST: usize = 72;

fn id(k: usize) -> InquiryId {
    InquiryId::new("c1", &format!("q{k}"), 1)
}

/// A turn marker, call `c1`, then `REQUESTS` answered requests with
/// distinct IDs, pushed through a fresh checker; `asked` and `answered` look
/// at the checker after each request and each response.
fn long_turn(
    asked: impl Fn(&Checker, usize),
    answered_: impl Fn(&Checker, usize),
) -> (Checker, Vec<Diagnostic>) {
    let mut c = Checker::new("long", ProfileMode::Auto);
    let mut found = Vec::new();
    found.extend(c.push_event(&turn_start()));
    found.extend(c.push_event(&tool_call_request("c1")));
    for k in 0..REQUESTS {
        found.extend(c.push_event(&inquiry_request(id(k))));
        asked(&c, k);
        found.extend(c.push_event(&answered(id(k), json!(true))));
        answered_(&c, k);
    }
    (c, found)
}

/// Rule: PERF-TURN-MEMORY — in one turn of 100 000 answered requests with
/// distinct IDs, the checker keeps at most 72 bytes per request (the
/// turn's distinct IDs and their questions, compactly), and no request
/// slot once a request is answered; a checker that cloned each ID into a
/// `String` map, or kept a slot per answered request, fails it. The turn
/// is clean, and stays clean.
#[test]
fn a_long_turn_keeps_its_distinct_ids_compactly_and_no_answered_slot() {
    let (mut c, mut found) = long_turn(
        |c, k| {
            assert_eq!(c.turn_request_slots(), 1, "request {k} waits in its slot");
        },
        |c, k| {
            assert_eq!(c.turn_request_slots(), 0, "request {k} answered, slot kept");
        },
    );
    let bytes = c.turn_heap_bytes();
    let ids: usize = (0..REQUESTS).map(|k| id(k).as_str().len()).sum();
    assert!(
        bytes <= REQUESTS * BYTES_PER_REQUEST,
        "{bytes} bytes for {REQUESTS} requests ({} per request; the IDs \
         themselves are {} per request)",
        bytes / REQUESTS,
        ids / REQUESTS
    );
    found.extend(c.push_event(&tool_call_response("c1")));
    found.extend(c.finish());
    assert!(found.is_empty(), "{found:?}");
}

/// Rule: PERF-TURN-MEMORY — the compact tables still remember every ID of
/// the turn: after 100 000 answered requests, asking the first and the last
/// ID again is CHECK-TURN-UNIQUE-ID, with the first request's event index,
/// and a second response to an answered ID is CHECK-PAIRED naming the
/// response that answered it.
#[test]
fn a_long_turn_still_finds_a_repeat_of_its_first_and_last_id() {
    let (mut c, mut found) = long_turn(|_, _| {}, |_, _| {});
    // Events 0 and 1 are the marker and the call; request k is at 2 + 2k.
    let last = REQUESTS - 1;
    found.extend(c.push_event(&inquiry_request(id(0))));
    found.extend(c.push_event(&answered(id(0), json!(true))));
    found.extend(c.push_event(&inquiry_request(id(last))));
    found.extend(c.push_event(&answered(id(last), json!(true))));
    found.extend(c.push_event(&answered(id(7), json!(true))));
    found.extend(c.push_event(&tool_call_response("c1")));
    found.extend(c.finish());
    let got: Vec<(&str, usize, bool)> = found
        .iter()
        .map(|d| {
            let first = 2 + 2 * if d.ids[0] == id(0).as_str() { 0 } else { last };
            let answer_of_7 = 2 + 2 * 7 + 1;
            let cites = d.message.contains(&format!("event {first}"))
                || d.message.contains(&format!("event {answer_of_7}"));
            (d.rule.id(), d.event_index, cites)
        })
        .collect();
    let n = 2 + 2 * REQUESTS;
    assert_eq!(
        got,
        vec![
            ("CHECK-TURN-UNIQUE-ID", n, true),
            ("CHECK-TURN-UNIQUE-ID", n + 2, true),
            ("CHECK-PAIRED", n + 4, true),
        ],
        "{found:#?}"
    );
}

/// Rule: PERF-TURN-MEMORY — what the checker keeps is one turn's, not the
/// stream's: once the next turn starts, the long turn's tables are given
/// back (a small next turn is counted in a few kilobytes, not in the long
/// turn's megabytes), and the next turn's IDs are judged on their own: the
/// long turn's IDs asked again in it are not repeats.
#[test]
fn the_next_turn_gives_back_the_long_turns_tables() {
    let (mut c, mut found) = long_turn(|_, _| {}, |_, _| {});
    found.extend(c.push_event(&tool_call_response("c1")));
    let long = c.turn_heap_bytes();
    found.extend(c.push_event(&turn_start()));
    found.extend(c.push_event(&tool_call_request("c1")));
    for k in [0, 7, REQUESTS - 1] {
        found.extend(c.push_event(&inquiry_request(id(k))));
        found.extend(c.push_event(&answered(id(k), json!(true))));
    }
    found.extend(c.push_event(&tool_call_response("c1")));
    let next = c.turn_heap_bytes();
    found.extend(c.finish());
    assert_given_back(&found, long, next);
}

/// Rule: PERF-TURN-MEMORY — the same for a turn of 100 000 tool calls with
/// distinct IDs (the checker's own table of call IDs and names): the next
/// turn gives it back, and judges its calls on their own.
#[test]
fn the_next_turn_gives_back_a_long_turns_call_ids() {
    let mut c = Checker::new("calls", ProfileMode::Auto);
    let mut found = c.push_event(&turn_start());
    for k in 0..REQUESTS {
        found.extend(c.push_event(&tool_call_request(&format!("call_{k}"))));
        found.extend(c.push_event(&tool_call_response(&format!("call_{k}"))));
    }
    let long = c.turn_heap_bytes();
    found.extend(c.push_event(&turn_start()));
    for k in [0, REQUESTS - 1] {
        found.extend(c.push_event(&tool_call_request(&format!("call_{k}"))));
        found.extend(c.push_event(&tool_call_response(&format!("call_{k}"))));
    }
    let next = c.turn_heap_bytes();
    found.extend(c.finish());
    assert_given_back(&found, long, next);
}

/// A clean stream whose long turn counted its tables (`long` bytes) and
/// whose next turn counts a few kilobytes at most (`next`).
fn assert_given_back(found: &[Diagnostic], long: usize, next: usize) {
    assert!(found.is_empty(), "{found:?}");
    assert!(long > REQUESTS * 8, "the long turn counted {long} bytes");
    assert!(
        next <= 64 * 1024,
        "the next turn still counts {next} bytes (the long turn: {long})"
    );
}
