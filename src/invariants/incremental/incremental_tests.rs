//! The incremental checker's state key and the stream memo's bound.

use std::hash::{DefaultHasher, Hasher};

use super::*;
use crate::explore::{Family, scenario_at};
use crate::scenario::Scenario;
use crate::scenario::{RunOptions, run_observed};
use proptest::prelude::*;

/// The key of `checker` alone.
fn key(checker: &StepChecker) -> u64 {
    let mut h = DefaultHasher::new();
    checker.state_key(&mut h);
    h.finish()
}

/// Rule: INV-EXPLORE-COMPLETE — the state search hashes the incremental
/// checker's state (docs/decisions/exploration.md "Exploration:
/// deduplicated states hold their history"): the checker after every step
/// of a run, and copies of one that differ in one field each (the
/// invocations read, a secret learnt, an event's text, how far the texts
/// and the fixed coordinator state were scanned), get pairwise different
/// keys where they differ, and a copy gets the same key.
#[test]
fn checkers_that_differ_get_different_keys() {
    let s = scenario_at(Family::Pairs, 12_345);
    let mut checker = StepChecker::new();
    let mut keys = vec![key(&checker)];
    run_observed(&s, RunOptions::default(), &mut |c, t| {
        checker.step(c, t, &mut Vec::new());
        keys.push(key(&checker));
    })
    .expect("the scenario runs");
    // A step that reads new invocations moves the key.
    keys.dedup();
    assert!(keys.len() > 2, "{keys:?}");
    assert_eq!(key(&checker.clone()), key(&checker));
    type Edit = fn(&mut StepChecker);
    let edits: [(&str, Edit); 8] = [
        ("invocations read", |c| c.invocations_seen += 1),
        ("a secret learnt", |c| c.secrets.push("a-secret".to_owned())),
        ("an event's text", |c| c.texts.push("{}".to_owned())),
        ("texts scanned", |c| c.texts_scanned_for += 1),
        ("fixed part scanned", |c| c.fixed_scanned_for += 1),
        ("an invocation grouped", |c| c.calls.prev.push(None)),
        ("a call instance's latest", |c| {
            c.calls.latest.insert((9, 9, 9), 0);
        }),
        ("a routed finding", |c| c.routed_found = !c.routed_found),
    ];
    let mut seen = std::collections::HashMap::new();
    seen.insert(key(&checker), "unchanged");
    for (what, edit) in edits {
        let mut c = checker.clone();
        edit(&mut c);
        if let Some(other) = seen.insert(key(&c), what) {
            panic!("{what} and {other} share a key");
        }
    }
}

/// Rule: INV-SECRET-NEVER-PERSISTED (the memo of its stream invariants) —
/// a memo made with a capacity keeps at most that many streams and then
/// forgets them all, as `StreamMemo::with_capacity` says; a capacity of 0
/// is 1. The default memo keeps all three streams here.
#[test]
fn a_memo_keeps_at_most_its_capacity() {
    let a = scenario_at(Family::Single, 0);
    let ta = run_observed(&a, RunOptions::default(), &mut |_, _| {}).expect("runs");
    let with_mark = |k: usize| {
        let mut t = ta.clone();
        t.stream
            .push(crate::wire::Event::new(EventKind::Other(format!(
                "mark_{k}"
            ))));
        t
    };
    let lens = |mut memo: StreamMemo| -> Vec<usize> {
        (0..3)
            .map(|k| {
                memo.stream_invariants(&with_mark(k));
                memo.len
            })
            .collect()
    };
    assert_eq!(lens(StreamMemo::with_capacity(2)), [1, 2, 1]);
    assert_eq!(lens(StreamMemo::with_capacity(0)), [1, 1, 1]);
    assert_eq!(lens(StreamMemo::new()), [1, 2, 3]);
}

/// Traces of every `step`-th scenario of the single and pair families
/// (every profile: the families pick it last) with no fault and under each
/// fault alone.
fn explored_runs(step: usize) -> Vec<(Scenario, Trace)> {
    use crate::explore::family_size;
    use crate::testkit::Faults;
    let mut out = Vec::new();
    for family in [Family::Single, Family::Pairs] {
        for n in (0..family_size(family)).step_by(step) {
            let s = scenario_at(family, n);
            for faults in std::iter::once(Faults::default()).chain(Faults::each_alone()) {
                if let Ok(t) = run_observed(&s, RunOptions::from(faults), &mut |_, _| {}) {
                    out.push((s.clone(), t));
                }
            }
        }
    }
    out
}

/// `wire_round_trip` as it was written first: the events copied into a
/// `Stream`, written, read back and written again through the `Stream`.
fn wire_round_trip_plain(trace: &Trace) -> Vec<Diagnostic> {
    let s = Stream::new(trace.stream.clone());
    let first = s.to_array_string();
    match Stream::from_slice(first.as_bytes(), ORIGIN) {
        Ok(back) if back == s && back.to_array_string() == first => vec![],
        Ok(_) => vec![diag(
            Rule::InvWireRoundtrip,
            0,
            0,
            vec![],
            "the stream reads back different".to_owned(),
        )],
        Err(e) => vec![diag(
            Rule::InvWireRoundtrip,
            0,
            e.event_index().unwrap_or(0),
            vec![],
            format!("the stream does not read back: {e}"),
        )],
    }
}

/// A trace whose last event does not read back as itself: a tool response
/// with no typed content and a `content` extra, which reads back typed.
fn a_trace_that_reads_back_different() -> Trace {
    let s = scenario_at(Family::Single, 0);
    let mut t = run_observed(&s, RunOptions::default(), &mut |_, _| {}).expect("runs");
    let response = crate::wire::ToolCallResponse {
        id: "c1".to_owned(),
        content: None,
        is_error: None,
    };
    t.stream.push(crate::wire::Event::with(
        None,
        EventKind::ToolCallResponse(response),
        vec![(
            "content".to_owned(),
            crate::wire::Opaque::from_value(&Value::String("x".to_owned())),
        )],
    ));
    t
}

/// Rule: PERF-PERSISTED-DIRECT — invariant: the persisted bytes the stream
/// rules read, written event by event, are byte for byte
/// `serde_json::to_vec(&trace.persisted_json())` (the tree the trace
/// builds), for the explored runs of every profile (flat and tagged
/// responses) with and without each fault; and `wire_round_trip` written
/// from the events without a copy gives the findings of the copy through a
/// `Stream`, on those runs and on a stream that reads back different.
#[test]
fn persisted_bytes_are_the_trees_and_the_round_trip_the_streams() {
    let traces: Vec<Trace> = explored_runs(101).into_iter().map(|(_, t)| t).collect();
    assert!(traces.len() > 1000, "{}", traces.len());
    let flat = traces
        .iter()
        .filter(|t| matches!(t.rules.response_form, crate::profile::ResponseForm::Flat))
        .count();
    assert!(flat > 0 && flat < traces.len(), "{flat} flat");
    for t in &traces {
        let mut bytes = Vec::new();
        write_persisted(t, &mut bytes);
        let tree = serde_json::to_vec(&t.persisted_json()).expect("writes");
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&tree)
        );
        assert_eq!(wire_round_trip(t), wire_round_trip_plain(t));
    }
    // Extras, repeating names or not, on every kind of response, under a
    // flat and a tagged response form.
    let text = |t: &str| crate::wire::Opaque::from_value(&Value::String(t.to_owned()));
    let mut extras = traces
        .iter()
        .find(|t| !t.stream.is_empty())
        .expect("a stream")
        .clone();
    let responses: Vec<crate::wire::Event> = extras
        .stream
        .iter()
        .filter(|e| e.as_inquiry_response().is_some())
        .cloned()
        .collect();
    assert!(!responses.is_empty());
    for (k, e) in extras.stream.clone().iter().chain(&responses).enumerate() {
        let mut e = e.clone();
        let names = ["note", "type", "id", "outcome", "content", "note"];
        e.extra.push((names[k % names.len()].to_owned(), text("x")));
        if k % 2 == 0 {
            e.extra.push(("note".to_owned(), text("y")));
        }
        extras.stream.push(e);
    }
    for name in crate::profile::ProfileName::ALL {
        extras.rules = name.rules();
        let mut bytes = Vec::new();
        write_persisted(&extras, &mut bytes);
        let tree = serde_json::to_vec(&extras.persisted_json()).expect("writes");
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&tree),
            "{name:?}"
        );
    }
    let odd = a_trace_that_reads_back_different();
    let found = wire_round_trip(&odd);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found, wire_round_trip_plain(&odd));
}

/// Rule: PERF-MEMO-BY-STREAM — invariant: with one memo shared by every
/// run, `check_trace_memo` gives exactly `check_trace`'s findings, on the
/// explored runs of every profile with and without each fault, where
/// streams recur (hits) and recur under another profile or rules (the
/// round trip's findings remembered, the oracle's computed).
#[test]
fn a_shared_memo_finds_what_check_trace_finds() {
    let runs = explored_runs(61);
    let mut memo = StreamMemo::new();
    for (s, t) in &runs {
        assert_eq!(check_trace_memo(t, s, &mut memo, None), check_trace(t, s));
    }
    let streams: usize = memo.entries.values().map(Vec::len).sum();
    assert!(memo.hits > 0, "no hit");
    assert!(streams < memo.len, "no stream under two rule sets");
    assert_eq!(memo.hits + memo.misses, runs.len());
}

/// Rule: PERF-MEMO-EVENTS-ONCE — invariant: with one memo shared by the
/// explored runs of every profile with and without each fault, the entry
/// of each run's stream (found under its stream's key) holds at its places
/// events that write the stream's texts, as `serde_json` writes them; no
/// two kept events write the same text; and the streams remembered share
/// their events (fewer kept than the entries' streams hold).
#[test]
fn the_memo_keeps_each_event_once() {
    let text = |e: &crate::wire::Event| serde_json::to_string(e).expect("writes");
    let mut memo = StreamMemo::new();
    for (s, t) in explored_runs(61) {
        check_trace_memo(&t, &s, &mut memo, None);
        let want: Vec<String> = t.stream.iter().map(text).collect();
        let entries = &memo.entries[&stream_key(&memo.keys)];
        let holding = entries
            .iter()
            .filter(|e| {
                e.stream
                    .iter()
                    .map(|&k| text(&memo.events[k].event))
                    .eq(want.iter().cloned())
            })
            .count();
        assert_eq!(holding, 1, "{s:?}");
    }
    let texts: std::collections::HashSet<String> =
        memo.events.iter().map(|k| text(&k.event)).collect();
    assert_eq!(texts.len(), memo.events.len(), "an event kept twice");
    let held: usize = memo
        .entries
        .values()
        .flatten()
        .map(|e| e.stream.len())
        .sum();
    assert!(
        memo.events.len() * 2 < held,
        "{} events kept for streams of {held}",
        memo.events.len()
    );
}

/// Rule: PERF-MEMO-EVENTS-ONCE — an event kept under the key of another
/// (as a collision would file it) is not taken for it: the stream's entry
/// keeps its own event beside the other (compared with `Event`'s
/// equality), the findings are `check_trace`'s, and the stream met again
/// is a hit.
#[test]
fn a_colliding_kept_event_is_not_taken_for_another() {
    use crate::generate::stream::answered;
    use crate::wire::InquiryId;
    let (s, t) = explored_runs(61)
        .into_iter()
        .find(|(_, t)| !t.stream.is_empty())
        .expect("a run that persists");
    let other = answered(InquiryId::new("c9", "q", 1), serde_json::json!(false));
    assert_ne!(other, t.stream[0]);
    let h = event_key(&t.stream[0]);
    let mut memo = StreamMemo::new();
    memo.events.push(KeptEvent {
        event: other,
        alone: None,
        flat: None,
    });
    memo.places.insert(h, vec![0]);
    assert_eq!(
        check_trace_memo(&t, &s, &mut memo, None),
        check_trace(&t, &s)
    );
    let entry = memo.entries.values().flatten().next().expect("an entry");
    let kept: Vec<&crate::wire::Event> = entry
        .stream
        .iter()
        .map(|&k| &memo.events[k].event)
        .collect();
    assert_eq!(kept, t.stream.iter().collect::<Vec<_>>());
    assert_eq!(memo.places[&h].len(), 2, "the other event and this one");
    check_trace_memo(&t, &s, &mut memo, None);
    assert_eq!((memo.hits, memo.misses), (1, 1));
}

/// Rule: PERF-MEMO-BY-STREAM — the waivers of the stream oracle's
/// findings read the trace beyond its stream, so a remembered stream does
/// not carry them to another trace: twins with the same stream, profile
/// and rules, one whose prompter typed an ill-fitting answer and one whose
/// prompter did not, and an interrupted run with its uninterrupted twin,
/// get `check_trace`'s findings from one memo, which differ.
#[test]
fn a_remembered_stream_is_waived_by_each_traces_own_prompts_and_end() {
    // A prompter's answer to a boolean question under RFD 083 (which
    // judges an answer's fit), made ill-fitting in the stream and in the
    // prompt alike.
    let (s, mut typed) = (0..crate::explore::family_size(Family::Single))
        .map(|n| scenario_at(Family::Single, n))
        .filter_map(|s| {
            let t = run_observed(&s, RunOptions::default(), &mut |_, _| {}).ok()?;
            let prompted = t.prompts.iter().any(|p| {
                matches!(
                    &p.reply,
                    crate::scenario::PrompterReply::Answer {
                        value: Value::Bool(_),
                        ..
                    }
                )
            });
            let answered = t.stream.iter().any(|e| {
                matches!(
                    e.as_inquiry_response(),
                    Some(crate::wire::InquiryResponse::Answered {
                        answer: Value::Bool(_),
                        ..
                    })
                )
            });
            let judged = t.profile == crate::profile::ProfileName::Rfd083;
            (judged && prompted && answered).then_some((s, t))
        })
        .next()
        .expect("a prompted boolean answer");
    let odd = Value::String("neither-yes-nor-no".to_owned());
    for p in &mut typed.prompts {
        if let crate::scenario::PrompterReply::Answer { value, .. } = &mut p.reply {
            *value = odd.clone();
        }
    }
    for e in &mut typed.stream {
        if let EventKind::InquiryResponse(crate::wire::InquiryResponse::Answered {
            answer, ..
        }) = &mut e.kind
        {
            *answer = odd.clone();
        }
    }
    let mut untyped = typed.clone();
    untyped.prompts.clear();
    // A hard quit with its tool call open.
    let si: Scenario = serde_json::from_value(serde_json::json!({
        "tty": false,
        "tools": {"t": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Proceed?", "answer_type": {"type": "boolean"}}}
        ]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
        "backend": [{"reply": "cancelled", "cause": "hard_quit"}]
    }))
    .expect("a scenario");
    let interrupted = run_observed(&si, RunOptions::default(), &mut |_, _| {}).expect("runs");
    assert!(interrupted.interrupted);
    let mut ended = interrupted.clone();
    ended.interrupted = false;
    let twins = [(&s, typed, untyped), (&si, interrupted, ended)];
    for (s, a, b) in &twins {
        let mut memo = StreamMemo::new();
        let (want_a, want_b) = (check_trace(a, s), check_trace(b, s));
        assert_ne!(want_a, want_b);
        assert_eq!(check_trace_memo(a, s, &mut memo, None), want_a);
        assert_eq!(check_trace_memo(b, s, &mut memo, None), want_b);
        assert_eq!(check_trace_memo(a, s, &mut memo, None), want_a);
        assert_eq!((memo.hits, memo.misses), (2, 1));
    }
}

/// Events whose written texts differ only where `Event`'s equality does
/// not look: an opaque value's whitespace, a kept number's text, an
/// object's member order, a float's sign at zero.
fn texts_equality_ignores() -> Vec<crate::wire::Event> {
    let read = |text: &str| -> crate::wire::Event { serde_json::from_str(text).expect("an event") };
    let call = |args: &str| {
        read(&format!(
            r#"{{"type":"tool_call_request","id":"c1","name":"t","arguments":{args}}}"#
        ))
    };
    let answered = |answer: &str| {
        read(&format!(
            r#"{{"type":"inquiry_response","outcome":"answered","id":"c1.q.1","answer":{answer}}}"#
        ))
    };
    vec![
        call(r#"{"a":1}"#),
        call(r#"{"a": 1}"#),
        call("{\n  \"a\":1\n}"),
        answered(r#"{"a":1,"b":2}"#),
        answered(r#"{"b":2,"a":1}"#),
        answered("0.0"),
        answered("-0.0"),
        answered("1.0"),
        answered("1.00"),
    ]
}

/// Rule: PERF-MEMO-SAME-EXACTLY — invariant: two events are the same
/// exactly when, and only when, their compact JSON texts are equal, and
/// events the same exactly have the same key: every distinct event of the
/// explored runs of every profile with and without each fault, and events
/// that differ only where `Event`'s equality does not look (so a memo hit
/// never stands for another text). Two of those twin pairs share a key
/// (the key leaves their difference out: an object's member order, a
/// number's kept text), so a memo that met one of these streams and judges
/// its twin as `check_trace` does has told them apart by comparing them.
#[test]
fn events_are_the_same_exactly_when_their_texts_are() {
    use crate::wire::Exact;
    let runs = explored_runs(61);
    let mut by_text: std::collections::BTreeMap<String, crate::wire::Event> = runs
        .iter()
        .flat_map(|(_, t)| t.stream.iter())
        .map(|e| (serde_json::to_string(e).expect("writes"), e.clone()))
        .collect();
    let odd = texts_equality_ignores();
    // The hand-made events are equal under `Event`'s equality, their texts not.
    for [a, b] in [[0, 1], [3, 4], [5, 6], [7, 8]] {
        assert_eq!(odd[a], odd[b]);
        assert!(!odd[a].same(&odd[b]), "{a} and {b}");
    }
    for e in &odd {
        by_text.insert(serde_json::to_string(e).expect("writes"), e.clone());
    }
    assert!(by_text.len() > 100, "{} distinct events", by_text.len());
    // Every event is the same as the one kept for its text.
    for e in runs.iter().flat_map(|(_, t)| t.stream.iter()) {
        let text = serde_json::to_string(e).expect("writes");
        assert!(by_text[&text].same(e), "{text}");
    }
    let events: Vec<(&String, &crate::wire::Event)> = by_text.iter().collect();
    for (i, (ta, a)) in events.iter().enumerate() {
        // Itself (a copy, so no shortcut by address could answer).
        let copy = (*a).clone();
        assert!((*a).same(&copy), "{ta}");
        assert_eq!(super::event_key(a), super::event_key(&copy));
        for (tb, b) in &events[i + 1..] {
            assert!(!a.same(b), "{ta} and {tb} differ");
        }
    }
    let key = |k: usize| super::event_key(&odd[k]);
    let collide = [[3, 4], [7, 8]];
    assert!(collide.iter().all(|&[a, b]| key(a) == key(b)));
    // Twin streams that differ only in what the equality ignores.
    let (s, t) = &runs[0];
    for pair in [[0, 1], [3, 4], [5, 6], [7, 8]] {
        let mut memo = StreamMemo::new();
        for k in pair {
            let mut twin = t.clone();
            twin.stream.push(odd[k].clone());
            assert_eq!(
                check_trace_memo(&twin, s, &mut memo, None),
                check_trace(&twin, s)
            );
        }
        assert_eq!((memo.hits, memo.misses), (0, 2), "{pair:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
    ))]

    /// Rule: PERF-MEMO-SAME-EXACTLY — invariant: an event, the same event
    /// read back from its compact text and read back from its pretty text
    /// (opaque values and kept numbers spelled again, all equal under
    /// `Event`'s equality) are the same exactly only where their compact
    /// texts are equal, and then have the same key, for any event the
    /// generator draws.
    #[test]
    fn an_event_spelled_again_is_the_same_only_where_its_text_is(
        e in crate::generate::wire::event()
    ) {
        use crate::wire::Exact;
        let compact = serde_json::to_string(&e).expect("writes");
        let pretty = serde_json::to_string_pretty(&e).expect("writes");
        let mut spellings = vec![e];
        for text in [compact, pretty] {
            let back: crate::wire::Event = serde_json::from_str(&text).expect("reads back");
            spellings.push(back);
        }
        for a in &spellings {
            for b in &spellings {
                let texts = (
                    serde_json::to_string(a).expect("writes"),
                    serde_json::to_string(b).expect("writes"),
                );
                if a.same(b) {
                    prop_assert_eq!(&texts.0, &texts.1);
                    prop_assert_eq!(super::event_key(a), super::event_key(b));
                }
                if texts.0 != texts.1 {
                    prop_assert!(!a.same(b), "{:?}", texts);
                }
            }
        }
    }
}

/// Rule: PERF-ROUND-TRIP-BY-EVENT — invariant: the memo's round trip,
/// judged event by event (each event alone in a pretty array, remembered
/// by its written hash), gives `wire_round_trip`'s findings, with a fresh
/// memo and with one shared by every run, and, for a stream that is not
/// empty and whose every event round-trips alone, gives the lengths of
/// the events' compact texts: on the explored runs
/// of every profile with and without each fault (an unreadable write among
/// them), on a stream that reads back different, and on the empty stream.
#[test]
fn the_round_trip_by_event_is_the_streams() {
    let mut traces: Vec<Trace> = explored_runs(61).into_iter().map(|(_, t)| t).collect();
    let odd = a_trace_that_reads_back_different();
    let mut empty = odd.clone();
    empty.stream.clear();
    traces.extend([odd, empty]);
    let by_event = |memo: &mut StreamMemo, t: &Trace| {
        memo.keys = t.stream.iter().map(super::event_key).collect();
        let places = memo.keep(&t.stream);
        memo.round_trip(t, &places)
    };
    let mut shared = StreamMemo::new();
    let mut failing = 0;
    for t in &traces {
        let want = wire_round_trip(t);
        failing += usize::from(!want.is_empty());
        // Whether each event alone round-trips, judged afresh, and then
        // the lengths of the events' compact texts, written afresh.
        let lengths = each_round_trips_alone(t).then(|| written_lengths(t));
        assert_eq!(
            by_event(&mut StreamMemo::new(), t),
            (want.clone(), lengths.clone())
        );
        assert_eq!(by_event(&mut shared, t), (want, lengths));
    }
    assert!(failing > 1, "{failing} streams that do not round-trip");
    assert!(
        shared
            .events
            .iter()
            .any(|k| matches!(k.alone, Some(Some(_))))
    );
    assert!(shared.events.iter().any(|k| k.alone == Some(None)));
}

/// Rule: PERF-END-SHARED — invariant: the end-of-run pass beyond the
/// stream (`non_stream_invariants`, its call instances grouped once) gives
/// each invariant's own findings, in order, on the explored runs of every
/// profile with and without each fault, which break every one of the
/// invariants that read the call instances.
#[test]
fn the_shared_end_of_run_pass_is_each_invariants_own() {
    let mut broken: Vec<Rule> = Vec::new();
    for (s, t) in explored_runs(61) {
        let mut want = always_paired(&t);
        want.extend(every_round_trip_recorded(&t));
        want.extend(recorded_before_routed(&t));
        want.extend(secrets_never_persisted(&t, &[]));
        want.extend(provenance(&t, &s));
        want.extend(human_only_never_backend(&t));
        want.extend(ids_unique(&t));
        want.extend(cache_keys_unique(&t));
        broken.extend(want.iter().map(|d| d.rule));
        broken.dedup();
        assert_eq!(non_stream_invariants(&t, &s), want);
    }
    for rule in [
        Rule::InvRecordedBeforeRouted,
        Rule::InvSecretNeverPersisted,
        Rule::InvHumanOnlyNeverBackend,
    ] {
        assert!(broken.contains(&rule), "{rule:?} never broken: {broken:?}");
    }
}

/// Each step of every `step`-th scenario of the single and pair families
/// (every profile) with no fault and under each fault alone, run with a
/// step checker (one, restarted before each run, so that every run but
/// the first is judged by a restarted checker): `(scenario, trace,
/// checker, steps)`, each step's findings
/// by the checker and by the plain functions over the same records
/// (`recorded_before_routed_with` over the call instances grouped afresh,
/// after the records the previous step had, `human_only_never_backend_since`
/// likewise, and `cache_hygiene` of the step's state), each sorted.
#[allow(clippy::type_complexity)]
fn stepped_runs(
    step: usize,
) -> Vec<(
    Scenario,
    Trace,
    StepChecker,
    Vec<(Vec<Diagnostic>, Vec<Diagnostic>)>,
)> {
    use crate::explore::family_size;
    use crate::testkit::Faults;
    let judged = [
        Rule::InvRecordedBeforeRouted,
        Rule::InvHumanOnlyNeverBackend,
        Rule::InvCacheHygiene,
    ];
    let sorted = |mut v: Vec<Diagnostic>| {
        v.sort_by(|a, b| {
            (a.rule.id(), a.event_index, &a.message, &a.ids).cmp(&(
                b.rule.id(),
                b.event_index,
                &b.message,
                &b.ids,
            ))
        });
        v
    };
    let mut out = Vec::new();
    let mut checker = StepChecker::new();
    for family in [Family::Single, Family::Pairs] {
        for n in (0..family_size(family)).step_by(step) {
            let s = scenario_at(family, n);
            for faults in std::iter::once(Faults::default()).chain(Faults::each_alone()) {
                checker.restart();
                let mut before = Seen::default();
                let mut steps = Vec::new();
                let run = run_observed(&s, RunOptions::from(faults), &mut |c, t| {
                    let mut fast = Vec::new();
                    checker.step(c, t, &mut fast);
                    let fast = fast.into_iter().filter(|d| judged.contains(&d.rule));
                    let calls = by_call(t);
                    let mut plain =
                        recorded_before_routed_with(t, before, &request_index(t), &calls);
                    plain.extend(human_only_never_backend_since(
                        t,
                        before.backend_calls,
                        &calls,
                    ));
                    plain.extend(cache_hygiene(c, t));
                    before = Seen::of(t);
                    steps.push((sorted(fast.collect()), sorted(plain)));
                });
                if let Ok(t) = run {
                    out.push((s.clone(), t, checker.clone(), steps));
                }
            }
        }
    }
    out
}

/// Rule: PERF-STEP-GROUPED — invariant: at every step, the step checker's
/// `INV-RECORDED-BEFORE-ROUTED`, `INV-HUMAN-ONLY-NEVER-BACKEND` and
/// `INV-CACHE-HYGIENE` findings (the invocations grouped by call instance
/// as they come, an empty turn cache skipped) are exactly the plain
/// functions' over the step's new records (the call instances grouped
/// afresh from the whole trace) and the step's whole cache, on the explored
/// runs of every profile with and without each fault, which break all
/// three.
#[test]
fn the_grouped_step_finds_what_the_plain_functions_find() {
    let mut broken = std::collections::BTreeSet::new();
    for (s, _, _, steps) in stepped_runs(23) {
        for (k, (fast, plain)) in steps.iter().enumerate() {
            assert_eq!(fast, plain, "step {k} of {s:?}");
            broken.extend(plain.iter().map(|d| d.rule.id()));
        }
    }
    assert_eq!(
        broken.into_iter().collect::<Vec<_>>(),
        [
            "INV-CACHE-HYGIENE",
            "INV-HUMAN-ONLY-NEVER-BACKEND",
            "INV-RECORDED-BEFORE-ROUTED"
        ]
    );
}

/// Rule: PERF-END-AFTER-STEPS — invariant: `check_trace_memo` given the
/// step checker that judged every step of the run gives exactly
/// `check_trace`'s findings, on the explored runs of every profile with and
/// without each fault; the end-of-run pass skips the routing invariants on
/// most runs and judges them again on runs where a step found a record
/// routed before it was recorded; on runs where a secret was learnt it
/// searches the checker's texts of the events, and finds secrets there.
#[test]
fn the_end_after_steps_finds_what_check_trace_finds() {
    let mut memo = StreamMemo::new();
    let (mut skipped, mut judged_again, mut in_texts) = (0, 0, 0);
    for (s, t, checker, _) in stepped_runs(23) {
        let found = check_trace_memo(&t, &s, &mut memo, Some(&checker));
        assert_eq!(found, check_trace(&t, &s), "{s:?}");
        match checker.routed_judged(&t) {
            true => skipped += 1,
            false => judged_again += 1,
        }
        let texts_searched = !checker.secrets.is_empty() && checker.secrets_in_order(&t).is_some();
        in_texts += usize::from(
            texts_searched
                && found
                    .iter()
                    .any(|d| d.rule == Rule::InvSecretNeverPersisted),
        );
    }
    assert!(
        skipped > judged_again && judged_again > 0 && in_texts > 0,
        "{skipped} {judged_again} {in_texts}"
    );
}

/// Rule: PERF-STEP-GROUPED — a restarted checker is a new one: after
/// runs of every profile under each fault, each of which leaves something
/// in every table (a secret learnt and texts kept, requests indexed,
/// invocations grouped, a routed finding), `restart` gives the state key
/// of `StepChecker::new()`, and the next run's findings at every step and
/// at the end are a new checker's.
#[test]
fn a_restarted_checker_judges_as_a_new_one() {
    let fresh = key(&StepChecker::new());
    let mut reused = StepChecker::new();
    let mut memo = StreamMemo::new();
    let (mut secrets, mut routed) = (false, false);
    for (s, _, _, _) in stepped_runs(97) {
        let mut new = StepChecker::new();
        let (mut by_new, mut by_reused) = (Vec::new(), Vec::new());
        reused.restart();
        assert_eq!(key(&reused), fresh, "{s:?}");
        let t = run_observed(&s, RunOptions::default(), &mut |c, t| {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            new.step(c, t, &mut a);
            reused.step(c, t, &mut b);
            by_new.push(a);
            by_reused.push(b);
        });
        let Ok(t) = t else { continue };
        assert_eq!(by_reused, by_new, "{s:?}");
        assert_eq!(
            check_trace_memo(&t, &s, &mut memo, Some(&reused)),
            check_trace_memo(&t, &s, &mut memo, Some(&new)),
            "{s:?}"
        );
        secrets |= !reused.secrets.is_empty() && !reused.texts.is_empty();
        routed |= reused.routed_found && !reused.requests.at.is_empty();
    }
    assert!(secrets && routed, "secrets {secrets}, routed {routed}");
}

/// Rule: PERF-MEMO-PAIRED — invariant: with one memo shared by every run,
/// `check_trace_memo` gives exactly `check_trace`'s findings on the
/// explored runs, among which remembered streams (hits) carry
/// `INV-PAIRED` findings, taken from the memo.
#[test]
fn a_remembered_streams_pairing_is_its_own() {
    let mut memo = StreamMemo::new();
    let mut unpaired_hits = 0;
    for (s, t) in explored_runs(61) {
        let hits = memo.hits;
        assert_eq!(
            check_trace_memo(&t, &s, &mut memo, None),
            check_trace(&t, &s)
        );
        unpaired_hits += usize::from(memo.hits > hits && !always_paired(&t).is_empty());
    }
    assert!(
        unpaired_hits > 0,
        "no remembered stream with an unpaired request"
    );
}

/// The lengths of `t`'s events as `serde_json` writes each alone.
fn written_lengths(t: &Trace) -> Vec<usize> {
    t.stream
        .iter()
        .map(|e| serde_json::to_vec(e).expect("writes").len())
        .collect()
}

/// Whether `t`'s stream is not empty and its every event round-trips
/// alone, judged afresh.
fn each_round_trips_alone(t: &Trace) -> bool {
    !t.stream.is_empty()
        && t.stream
            .iter()
            .all(|e| round_trip_findings(std::slice::from_ref(e)).is_empty())
}

/// Whether every event of `t` round-trips alone and none holds an extra
/// field that repeats a name, judged afresh.
fn written_as_is(t: &Trace) -> bool {
    each_round_trips_alone(t) && !t.stream.iter().any(repeats_a_name)
}

/// The oracle's findings on `t`'s persisted bytes, and the written length
/// of each element of `t`'s own JSON tree (an independent source of the
/// events' lengths).
fn read_with_tree_lengths(t: &Trace) -> (crate::invariants::StreamFindings, Vec<usize>) {
    let mut bytes = Vec::new();
    write_persisted(t, &mut bytes);
    let read = stream_findings(&bytes, t);
    let Value::Array(tree) = t.persisted_json() else {
        panic!("a trace persists an array");
    };
    let lengths = tree
        .iter()
        .map(|v| serde_json::to_vec(v).expect("writes").len())
        .collect();
    (read, lengths)
}

/// Rule: PERF-ORACLE-TYPED — invariant: on every explored run (every
/// profile, with and without each fault) whose events each round-trip
/// alone and hold no extra field that repeats a name, the stream oracle
/// judged from the events finds exactly what it finds reading the
/// persisted bytes, diagnostics placed at the same line and column
/// (from the lengths of the elements of the trace's own JSON tree),
/// under tagged and flat response forms; placed findings past the first
/// event are among them. Under a flat form, judging the events in the
/// tagged shape finds something else on some runs.
#[test]
fn the_oracle_judged_from_the_events_finds_what_the_bytes_show() {
    let (mut judged, mut placed, mut flat, mut tagged_shape_differs) = (0, 0, 0, 0);
    for (_, t) in explored_runs(61) {
        if !written_as_is(&t) {
            continue;
        }
        let (read, lengths) = read_with_tree_lengths(&t);
        assert_eq!(written_stream_findings(&t, &lengths), read);
        judged += 1;
        placed += read
            .diagnostics
            .iter()
            .filter(|d| d.event_index > 0 && d.position.is_some())
            .count();
        if writes_flat(&t) {
            flat += 1;
            let mode = ProfileMode::Fixed(t.profile);
            let tagged_shape = findings_of(check::check_written_events(
                &t.stream,
                false,
                ORIGIN,
                mode,
                t.rules.tables,
                &mut |i| lengths[i],
            ));
            tagged_shape_differs += usize::from(tagged_shape != read);
        }
    }
    assert!(judged > 1000, "{judged} judged");
    assert!(placed > 100, "{placed} placed findings");
    assert!(flat > 100, "{flat} flat");
    assert!(tagged_shape_differs > 0, "{tagged_shape_differs} of {flat}");
}

/// Rule: PERF-ORACLE-TYPED — a finding the oracle reports when the next
/// turn starts, about the last event of the turn before (a request left
/// without its response), is placed where the reader places it: the
/// events judged as they are give the bytes' findings, and that finding
/// carries a position.
#[test]
fn a_finding_about_a_turns_last_event_is_placed_as_the_reader_places_it() {
    use crate::generate::stream::{inquiry_request, turn_start};
    use crate::wire::InquiryId;
    let (_, mut t) = explored_runs(61).swap_remove(0);
    t.stream = vec![
        turn_start(),
        inquiry_request(InquiryId::new("c1", "q", 1)),
        turn_start(),
        inquiry_request(InquiryId::new("c2", "q", 1)),
    ];
    assert!(written_as_is(&t));
    let (read, lengths) = read_with_tree_lengths(&t);
    assert_eq!(written_stream_findings(&t, &lengths), read);
    assert!(
        read.diagnostics
            .iter()
            .any(|d| d.event_index == 1 && d.position.is_some()),
        "{:?}",
        read.diagnostics
    );
}

/// Rule: PERF-ORACLE-TYPED — a shared memo judges from the events every
/// new (stream, profile, rules) whose events each round-trip alone and
/// hold no extra field that repeats a name, under flat response forms as
/// under tagged ones, and reads the bytes of the rest, finding
/// `check_trace`'s findings either way.
#[test]
fn a_memo_reads_the_bytes_only_where_the_events_are_not_what_is_written() {
    let mut memo = StreamMemo::new();
    let (mut as_is, mut flat) = (0, 0);
    for (s, t) in explored_runs(61) {
        let misses = memo.misses;
        assert_eq!(
            check_trace_memo(&t, &s, &mut memo, None),
            check_trace(&t, &s)
        );
        if memo.misses > misses && written_as_is(&t) {
            as_is += 1;
            flat += usize::from(writes_flat(&t));
        }
    }
    assert_eq!(memo.from_events, as_is);
    assert!(
        flat > 0 && as_is < memo.misses,
        "{flat} flat, {as_is} of {}",
        memo.misses
    );
}

/// Rule: PERF-ORACLE-TYPED — an answered response's flat text is trusted
/// only when it reads back as the response: one with an extra field
/// whose text spells a character as an escape (`"\u0041"`) loses that
/// spelling on the flat path, which writes through the JSON tree, so its
/// length is not given (the memo reads such a stream's bytes); a plain
/// answer's flat text is the tagged text without its
/// `"outcome":"answered",`.
#[test]
fn a_flat_text_that_does_not_read_back_is_not_trusted() {
    let read = |text: &str| {
        let mut s = Stream::from_slice(text.as_bytes(), "hand-written").expect("reads");
        s.events.remove(0)
    };
    let plain =
        read(r#"[{"type":"inquiry_response","outcome":"answered","id":"c1.q.1","answer":true}]"#);
    let tagged = serde_json::to_vec(&plain).expect("writes").len();
    assert_eq!(
        flat_text_length(&plain),
        Some(tagged - r#""outcome":"answered","#.len())
    );
    let escaped = read(
        r#"[{"type":"inquiry_response","outcome":"answered","id":"c1.q.1","answer":true,"note":"\u0041"}]"#,
    );
    assert_eq!(flat_text_length(&escaped), None);
}

/// Rule: PERF-ORACLE-TYPED — what the memo remembers per event (each kept
/// event's compact length, each answered response's flat length) is
/// found by key and taken only for an event the same exactly: another
/// event filed under the same key with a length of its own, as a
/// collision would file it, is not taken for the event looked up, and a
/// lookup that finds the response adds nothing to its bucket.
#[test]
fn a_colliding_event_in_the_per_event_tables_is_not_taken_for_another() {
    use crate::generate::stream::{answered, inquiry_request, turn_start};
    use crate::wire::InquiryId;
    let (_, mut t) = explored_runs(61).swap_remove(0);
    let id = InquiryId::new("c1", "q", 1);
    t.stream = vec![
        turn_start(),
        inquiry_request(id.clone()),
        answered(id.clone(), serde_json::json!(true)),
    ];
    let other = answered(InquiryId::new("c9", "q", 1), serde_json::json!(false));
    let mut memo = StreamMemo::new();
    memo.keys = t.stream.iter().map(super::event_key).collect();
    // The kept events: the response's key holds another response, whose
    // round trip alone and flat text are remembered with lengths of their
    // own.
    let h = memo.keys[2];
    memo.events.push(KeptEvent {
        event: other,
        alone: Some(Some(999)),
        flat: Some(Some(999)),
    });
    memo.places.insert(h, vec![0]);
    let places = memo.keep(&t.stream);
    let (_, lengths) = memo.round_trip(&t, &places);
    let compact: Vec<usize> = t
        .stream
        .iter()
        .map(|e| serde_json::to_vec(e).expect("writes").len())
        .collect();
    assert_eq!(lengths.as_deref(), Some(compact.as_slice()));
    // The flat texts, the same way; the stream kept and asked twice.
    for _ in 0..2 {
        assert_eq!(memo.keep(&t.stream), places);
        let flat = flat_lengths(&mut memo.events, &t, &places, &compact).expect("reads back");
        assert_eq!(flat[2], flat_text_length(&t.stream[2]).expect("reads back"));
        assert_eq!(flat[..2], compact[..2]);
        assert_eq!(memo.places[&h].len(), 2, "the other response and this one");
    }
}

proptest! {
    /// Rule: PERF-MEMO-SAME-EXACTLY — invariant: the word `FastHash` makes
    /// of a string's last 1 to 7 bytes (read in two loads) is the bytes'
    /// little-endian number, as a byte-by-byte fold spells it; every
    /// length from 0 to 7 is drawn.
    #[test]
    fn a_tails_word_is_its_bytes_little_endian(tail in proptest::collection::vec(any::<u8>(), 0..8)) {
        let by_byte = tail
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &b)| w | u64::from(b) << (8 * i));
        prop_assert_eq!(tail_word(&tail), by_byte);
    }
}

/// A run whose invocations belong to the call instances `instances` (each
/// `(turn, cycle, call_index)`), in that order: the first explored run
/// that invokes a tool, its first invocation repeated.
fn run_with_instances(instances: &[(usize, usize, usize)]) -> Trace {
    static RUN: std::sync::OnceLock<Trace> = std::sync::OnceLock::new();
    let mut t = RUN
        .get_or_init(|| {
            (0..)
                .filter_map(|n| {
                    run_observed(
                        &scenario_at(Family::Single, n),
                        RunOptions::default(),
                        &mut |_, _| {},
                    )
                    .ok()
                })
                .find(|t| !t.invocations.is_empty())
                .expect("an explored run invokes a tool")
        })
        .clone();
    let one = t.invocations[0].clone();
    t.invocations = instances
        .iter()
        .map(|&(turn, cycle, call_index)| {
            let mut i = one.clone();
            i.at.turn = turn;
            i.at.cycle = cycle;
            i.call_index = call_index;
            i
        })
        .collect();
    t
}

proptest! {
    /// Rule: PERF-STEP-GROUPED — invariant: read a few invocations at a
    /// time, as a run's steps add them, the call chains give each
    /// invocation the previous invocation of its call instance and each
    /// instance its invocations latest first, as a scan of all of them
    /// does: in runs shorter and longer than the scanned prefix, where the
    /// table of each instance's latest takes over.
    #[test]
    fn the_call_chains_are_each_instances_invocations_in_order(
        picks in proptest::collection::vec((0..2usize, 0..2usize, 0..3usize), 0..40),
        batch in 1..4usize,
    ) {
        let whole = run_with_instances(&picks);
        let mut chains = CallChains::default();
        let mut t = whole.clone();
        let mut read = 0;
        while read < picks.len() {
            read = (read + batch).min(picks.len());
            t.invocations = whole.invocations[..read].to_vec();
            chains.extend(&t);
            for k in 0..read {
                let expected = picks[..k].iter().rposition(|&p| p == picks[k]);
                prop_assert_eq!(chains.prev[k], expected, "invocation {} of {}", k, read);
            }
            for key in picks.iter().copied() {
                let got: Vec<usize> = chains
                    .latest_first(&t, key)
                    .map(|i| {
                        t.invocations
                            .iter()
                            .position(|j| std::ptr::eq(i, j))
                            .expect("an invocation of the run")
                    })
                    .collect();
                let expected: Vec<usize> = (0..read).rev().filter(|&j| picks[j] == key).collect();
                prop_assert_eq!(got, expected);
            }
        }
    }
}

/// A run's steps and its findings, or its error's text, as `check_runs`
/// hands them over.
type Checked = (usize, Result<Vec<Diagnostic>, String>);

/// Every `stride`-th explored scenario, with one the model refuses (an
/// amendment no profile file reads) in the middle of a batch.
fn batched_sample(stride: usize) -> Vec<Scenario> {
    let mut scenarios = crate::explore::scenarios(stride, 0, 0);
    let mut refused = scenarios[3].clone();
    refused.amendment = Some(serde_json::Map::from_iter([(
        "switches".to_owned(),
        serde_json::Value::from(7),
    )]));
    scenarios.insert(RUN_BATCH + 3, refused);
    scenarios
}

/// Each scenario checked alone, right after its run: a step checker of its
/// own, then `check_trace_memo` with `memo`.
fn checked_alone(scenarios: &[Scenario], memo: &mut StreamMemo) -> Vec<Checked> {
    let mut out = Vec::new();
    for s in scenarios {
        let mut checker = StepChecker::new();
        let mut found = Vec::new();
        let mut steps = 0;
        let run = run_observed(s, RunOptions::default(), &mut |c, t| {
            steps += 1;
            checker.step(c, t, &mut found);
        });
        let result = run.map(|t| {
            found.extend(check_trace_memo(&t, s, memo, Some(&checker)));
            found
        });
        out.push((steps, result.map_err(|e| e.to_string())));
    }
    out
}

/// Rule: PERF-END-BATCHED — invariant: `check_runs` hands each scenario,
/// in order, exactly what checking it alone right after its run gives (its
/// steps, its step findings then its end's, or its error), and its memo
/// computes the same streams; over several batches whose runs find
/// something, with a refused scenario among them.
#[test]
fn a_batched_run_finds_what_each_run_checked_alone_finds() {
    let scenarios = batched_sample(41);
    assert!(scenarios.len() > 3 * RUN_BATCH, "{}", scenarios.len());
    let mut alone_memo = StreamMemo::new();
    let alone = checked_alone(&scenarios, &mut alone_memo);
    let mut memo = StreamMemo::new();
    let mut batched: Vec<Checked> = Vec::new();
    let mut order = Vec::new();
    check_runs(&scenarios, &mut memo, |s: &Scenario, steps, result| {
        order.push(s.clone());
        batched.push((steps, result.map_err(|e| e.to_string())));
    });
    assert!(order == scenarios, "scenarios handed back out of order");
    assert_eq!(batched, alone);
    assert_eq!(
        (memo.misses, memo.hits),
        (alone_memo.misses, alone_memo.hits)
    );
    let found = alone
        .iter()
        .filter(|(_, r)| r.as_ref().is_ok_and(|f| !f.is_empty()));
    assert!(found.count() > 10);
    assert_eq!(alone.iter().filter(|(_, r)| r.is_err()).count(), 1);
}

/// Rule: PERF-END-BATCHED — the comparison above can fail: a batch that
/// judges every run's end with one step checker (the batch's last run's,
/// a checker restarted per run but shared) hands some run findings other
/// than its own, since the end of a run trusts a checker that read as many
/// records as the run has.
#[test]
fn a_batch_sharing_one_step_checker_disagrees() {
    let scenarios = batched_sample(41);
    let alone = checked_alone(&scenarios, &mut StreamMemo::new());
    let mut memo = StreamMemo::new();
    let mut shared = StepChecker::new();
    let mut wrong: Vec<Checked> = Vec::new();
    for batch in scenarios.chunks(RUN_BATCH) {
        let mut ran = Vec::new();
        for s in batch {
            let (mut found, mut steps) = (Vec::new(), 0);
            shared.restart();
            let run = run_observed(s, RunOptions::default(), &mut |c, t| {
                steps += 1;
                shared.step(c, t, &mut found);
            });
            ran.push((s, steps, run.map(|t| (t, found))));
        }
        for (s, steps, run) in ran {
            let result = run.map(|(t, mut found)| {
                found.extend(check_trace_memo(&t, s, &mut memo, Some(&shared)));
                found
            });
            wrong.push((steps, result.map_err(|e| e.to_string())));
        }
    }
    assert_eq!(wrong.len(), alone.len());
    assert_ne!(wrong, alone);
}
