//! Conformance of implementations the harness cannot steer or see inside
//! (rules `CONF-CAPABILITIES`, `CONF-WITNESS`): a free-scheduler
//! implementation (the model ordering its own parallel work, prompts
//! reported without call IDs) passes every committed vector and generated
//! scenarios of every profile through the witness search; one with an
//! interleaving-only bug fails under every schedule; every fault of the
//! wrong-implementation suite still fails when run free; entry kinds an
//! adapter does not observe are not compared.

use std::collections::BTreeSet;

use crate::conformance::runner_tests::committed;
use crate::conformance::witness::{self, EntryKind, FreeModel, InterleavingBug, Outcome, Search};
use crate::conformance::{
    Capabilities, Implementation, ImplementationError, Model, Observed, SchedulerCapability,
    Verdict, check_generated, check_vectors,
};
use crate::profile::ProfileName;
use crate::scenario::Scenario;
use crate::testkit::Faults;
use serde_json::json;

fn all_kinds() -> BTreeSet<EntryKind> {
    EntryKind::ALL.into_iter().collect()
}

/// Rule: CONF-WITNESS — the correct free implementation passes every
/// committed vector; on some of them its own order really differs from
/// the scenario's schedule (the witness search was needed).
#[test]
fn a_correct_free_implementation_passes_every_committed_vector() {
    let vectors = committed();
    let failures = check_vectors(&mut FreeModel::default(), &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let searched = vectors
        .iter()
        .filter(|v| {
            let o = FreeModel::default().run(&v.scenario).unwrap();
            witness::compare_observed(&v.scenario, &v.expected, &o, &all_kinds()).is_some()
        })
        .count();
    println!(
        "{searched} of {} vectors needed a witness search",
        vectors.len()
    );
    assert!(searched >= 1, "no vector differs under the free order");
}

/// Rule: CONF-WITNESS — the correct free implementation passes generated
/// scenarios of every profile (`make conform-free` runs 2 000 per
/// profile); a fair share of them needed the search.
#[test]
fn a_correct_free_implementation_passes_generated_scenarios() {
    for p in ProfileName::ALL {
        let r = check_generated(&mut FreeModel::default(), p, 150, 7);
        assert!(r.passed(), "{p}: {}", r.failure.unwrap());
    }
}

/// Rule: CONF-WITNESS — a free implementation whose only fault shows when
/// it runs a newer piece of parallel work first (a prompt shown before its
/// request is persisted) fails, reported as diverging under every schedule
/// of the model; the same implementation never fails where it ran the
/// oldest work first.
#[test]
fn an_interleaving_only_bug_fails_under_every_schedule() {
    let mut buggy = FreeModel {
        bug: Some(InterleavingBug::PromptBeforeRecordOutOfOrder),
        ..FreeModel::default()
    };
    let r = check_generated(&mut buggy, ProfileName::Rfd083, 2000, 3);
    let f = r.failure.expect("the interleaving-only bug is found");
    let Verdict::DivergedEverySchedule {
        schedules,
        divergence,
    } = &f.verdict
    else {
        panic!("{}", f.verdict)
    };
    assert_eq!(divergence.kind, "prompts", "{f}");
    assert!(*schedules >= 1);
    println!("{f}");
}

/// The model (steered) with its observation rewritten and its
/// capabilities declared.
struct Variant {
    rewrite: fn(Observed) -> Observed,
    caps: Capabilities,
}

impl Implementation for Variant {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        Model::default().run(s).map(self.rewrite)
    }

    fn capabilities(&self) -> Capabilities {
        self.caps.clone()
    }
}

/// Rule: CONF-CAPABILITIES — an `init_ok` that names no capability, and
/// the library's default, is a steered adapter observing every kind (what
/// every adapter was before); named values are read, `persisted_line`
/// as `persisted`.
#[test]
fn capabilities_default_to_a_steered_adapter_that_observes_everything() {
    let none = Capabilities::from_init_ok(&json!({"type": "init_ok", "in_reply_to": 1})).unwrap();
    assert_eq!(none, Capabilities::default());
    assert_eq!(none.scheduler, SchedulerCapability::Steered);
    assert_eq!(none.observes, all_kinds());
    assert_eq!(Model::default().capabilities(), Capabilities::default());
    let some = Capabilities::from_init_ok(&json!({
        "scheduler": "free",
        "observes": ["persisted_line", "prompted"]
    }))
    .unwrap();
    assert_eq!(some.scheduler, SchedulerCapability::Free);
    assert_eq!(
        some.observes,
        BTreeSet::from([EntryKind::Persisted, EntryKind::Prompted])
    );
    assert_eq!(
        FreeModel::default().capabilities().scheduler,
        SchedulerCapability::Free
    );
}

/// Rule: CONF-CAPABILITIES — an `observes` that is not a list, or holds
/// a name the protocol does not have, is refused with every entry kind the
/// protocol has, by its wire name (listed here from the protocol's table,
/// not from `EntryKind::as_str`), so the adapter's author reads what is
/// allowed.
#[test]
fn a_wrong_observes_is_refused_naming_every_entry_kind() {
    for init_ok in [
        json!({"observes": ["persisted", "smells"]}),
        json!({"observes": "persisted"}),
    ] {
        let err = Capabilities::from_init_ok(&init_ok).unwrap_err();
        for kind in [
            "persisted",
            "invoked",
            "prompted",
            "responded",
            "turn_ended",
            "inquired",
        ] {
            assert!(err.contains(&format!("\"{kind}\"")), "{kind}: {err}");
        }
    }
}

/// Rule: CONF-CAPABILITIES — an adapter that reports no invocations and
/// no turn ends passes every committed vector when it says it does not
/// observe them, and fails when it claims to.
#[test]
fn kinds_not_observed_are_not_compared() {
    let vectors = committed();
    let blind = |mut o: Observed| {
        o.invocations.clear();
        o.remembered.clear();
        o
    };
    let mut says = Variant {
        rewrite: blind,
        caps: Capabilities {
            observes: BTreeSet::from([
                EntryKind::Persisted,
                EntryKind::Prompted,
                EntryKind::Responded,
                EntryKind::Inquired,
            ]),
            ..Capabilities::default()
        },
    };
    let failures = check_vectors(&mut says, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let mut claims = Variant {
        rewrite: blind,
        caps: Capabilities::default(),
    };
    let failures = check_vectors(&mut claims, &vectors);
    assert!(
        failures.len() > vectors.len() / 2,
        "only {} of {} vectors failed",
        failures.len(),
        vectors.len()
    );
}

/// Rule: CONF-CAPABILITIES — prompts reported without call IDs are
/// attributed by order (the k-th to the model's k-th): the model without
/// them passes every committed vector; with the order of its prompts
/// reversed as well it fails where a scenario shows prompts of two calls.
#[test]
fn prompts_without_call_ids_are_attributed_by_order() {
    let vectors = committed();
    let mut anonymous = Variant {
        rewrite: |mut o| {
            for p in &mut o.prompts {
                p.tool_call_id.clear();
            }
            o
        },
        caps: Capabilities::default(),
    };
    let failures = check_vectors(&mut anonymous, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let mut reversed = Variant {
        rewrite: |mut o| {
            for p in &mut o.prompts {
                p.tool_call_id.clear();
            }
            o.prompts.reverse();
            o
        },
        caps: Capabilities::default(),
    };
    let failures = check_vectors(&mut reversed, &vectors);
    let f = failures
        .iter()
        .find(|f| f.name == "parallel-interleaved")
        .expect("parallel-interleaved fails");
    let Verdict::Diverged(d) = &f.verdict else {
        panic!("{}", f.verdict)
    };
    assert_eq!(d.kind, "prompts", "{f}");
}

/// Rule: CONF-WITNESS — every fault of the wrong-implementation suite
/// (`Faults::each_alone`, but `nondeterministic_answers`, which only
/// reorders a JSON object's keys) still fails a committed vector when the
/// faulty model runs as a free implementation: no schedule explains it.
#[test]
fn every_fault_still_fails_when_run_free() {
    let vectors = committed();
    let mut missed = Vec::new();
    for faults in Faults::each_alone() {
        if faults == Faults::default() || faults.nondeterministic_answers {
            continue;
        }
        let failures = check_vectors(&mut FreeModel { faults, bug: None }, &vectors);
        match failures.first() {
            None => missed.push(faults),
            Some(f) => assert!(
                matches!(f.verdict, Verdict::DivergedEverySchedule { .. }),
                "{faults:?}: {}",
                f.verdict
            ),
        }
    }
    assert!(
        missed.is_empty(),
        "faults no vector catches when free: {missed:?}"
    );
}

/// Rule: CONF-WITNESS — cutting a run whose start cannot explain the
/// observation never loses a witness: on generated scenarios of every
/// profile the search with cuts finds one wherever the full search does,
/// for the correct free implementation (always found) and for the one with
/// an interleaving-only bug (often not), in no more schedules.
#[test]
fn cutting_never_loses_a_witness() {
    let scenarios = crate::generate::scenario::sample(1500, 11);
    let (mut searched, mut with_cut, mut without, mut exhausted) = (0, 0, 0, 0);
    for s in &scenarios {
        for bug in [None, Some(InterleavingBug::PromptBeforeRecordOutOfOrder)] {
            let actual = FreeModel {
                bug,
                ..FreeModel::default()
            }
            .run(s)
            .unwrap();
            let expected = Observed::of(&crate::scenario::run(s).unwrap());
            if witness::compare_observed(s, &expected, &actual, &all_kinds()).is_none() {
                continue;
            }
            let how = |cut| Search {
                observes: all_kinds(),
                budget: 100_000,
                cut,
                skip_pins: Default::default(),
            };
            let (a, sa) = witness::search(s, &actual, &how(true)).unwrap();
            let (b, sb) = witness::search(s, &actual, &how(false)).unwrap();
            assert_eq!(
                matches!(a, Outcome::Found { .. }),
                matches!(b, Outcome::Found { .. }),
                "{}",
                serde_json::to_string(s).unwrap()
            );
            assert!(!matches!(a, Outcome::Budget) && !matches!(b, Outcome::Budget));
            if bug.is_none() {
                assert!(matches!(a, Outcome::Found { .. }));
            } else if matches!(a, Outcome::Exhausted) {
                exhausted += 1;
            }
            assert!(sa.schedules <= sb.schedules);
            searched += 1;
            with_cut += sa.schedules;
            without += sb.schedules;
        }
    }
    println!(
        "{searched} searches ({exhausted} exhausted): {with_cut} schedules with cuts, {without} without"
    );
    assert!(searched >= 20, "only {searched} searches");
    assert!(exhausted >= 5, "only {exhausted} searches found nothing");
    assert!(with_cut < without);
}

/// The scenario of the vector `route-cached-parallel` (two parallel calls
/// of one tool asking the same rememberable question), with a second
/// prompter reply so that an implementation that prompts twice is
/// answered.
fn cached_parallel() -> Scenario {
    let v = crate::conformance::curated()
        .unwrap()
        .into_iter()
        .find(|v| v.name == "route-cached-parallel")
        .expect("the vector route-cached-parallel");
    let mut s = v.scenario;
    s.prompter
        .push(serde_json::from_value(json!({"reply": "answer", "value": true})).unwrap());
    s
}

/// The call an event of the test scenarios belongs to (`call_1.…` → `call_1`).
fn call_of(e: &serde_json::Value) -> String {
    let id = e["id"].as_str().unwrap_or("");
    id.split('.').next().unwrap_or("").to_owned()
}

/// `o` (one turn of one cycle) as the log of an implementation that ran
/// each call to its end, the last call first: the turn's requests first,
/// then every other event call by call; each prompt after the same events
/// of its own call as before, reported without its call ID.
fn last_call_first(mut o: Observed) -> Observed {
    let head = o
        .stream
        .iter()
        .take_while(|e| matches!(e["type"].as_str(), Some("turn_start" | "tool_call_request")))
        .count();
    let mut calls: Vec<String> = Vec::new();
    for e in &o.stream[head..] {
        let c = call_of(e);
        if !calls.contains(&c) {
            calls.push(c);
        }
    }
    let mut order: Vec<usize> = (0..head).collect();
    for c in calls.iter().rev() {
        order.extend((head..o.stream.len()).filter(|&i| call_of(&o.stream[i]) == *c));
    }
    let new_place = |old: usize| order.iter().position(|&i| i == old).unwrap();
    for p in &mut o.prompts {
        // The last event of its own call persisted before it.
        let before = (0..p.stream_position)
            .rev()
            .find(|&i| call_of(&o.stream[i]) == p.tool_call_id);
        p.stream_position = before.map_or(0, |i| new_place(i) + 1);
        p.tool_call_id.clear();
    }
    o.prompts.sort_by_key(|p| p.stream_position);
    o.stream = order.iter().map(|&i| o.stream[i].clone()).collect();
    o
}

/// `s` with the schedule that routes both calls' questions first, then
/// answers the later call's prompt first (picks: the first call, the
/// second, the second prompt).
fn routed_first(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    s.schedule = vec![0, 0, 1];
    s
}

/// A free implementation that routes every question of a cycle as if the
/// cycle had remembered nothing: what it did is the model's run with every
/// question routed before any is answered ([`routed_first`]), and
/// its log shows it ran the calls one after another, the last first: call 2
/// answered (remembered) and done before call 1's question was routed, yet
/// call 1 prompted again (RFD 082 step 3: a cached answer, "No prompt is
/// shown").
struct IgnoresCycleCache;

impl Implementation for IgnoresCycleCache {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        Model::default().run(&routed_first(s)).map(last_call_first)
    }

    fn capabilities(&self) -> Capabilities {
        FreeModel::default().capabilities()
    }
}

/// Rule: CONF-WITNESS-ORDER — only the end of another call's work (an
/// `inquiry_response`, a `tool_call_response`) orders a read: a log that
/// shows two calls' questions routed in the other order than the model's
/// run persisted them (two reads, neither ending any work) is in order.
#[test]
fn reads_of_two_calls_in_either_order_are_in_order() {
    let model = Model::default()
        .run(&routed_first(&cached_parallel()))
        .unwrap();
    let reads: Vec<usize> = (0..model.stream.len())
        .filter(|&i| model.stream[i]["type"] == "inquiry_request")
        .collect();
    assert_eq!(reads.len(), 2, "both questions routed first");
    assert_eq!(
        reads[1],
        reads[0] + 1,
        "adjacent, so each call keeps its own order"
    );
    assert_ne!(
        call_of(&model.stream[reads[0]]),
        call_of(&model.stream[reads[1]])
    );
    let mut actual = model.clone();
    actual.stream.swap(reads[0], reads[1]);
    assert_eq!(witness::log_order(&model, &actual, &all_kinds()), None);
}

/// Rule: CONF-WITNESS-ORDER — a prompt the log shows after another call's
/// end of work (an `inquiry_response` or `tool_call_response`) which the
/// model's run persisted only after showing that prompt is out of order,
/// and the divergence names the prompt's turn as a reader counts it
/// (`turn 0`, the first `turn_start`) and its call. The same log with the
/// prompt where the model showed it is in order.
#[test]
fn a_prompt_shown_after_another_calls_answer_is_out_of_order() {
    let model = Model::default()
        .run(&routed_first(&cached_parallel()))
        .unwrap();
    assert_eq!(witness::log_order(&model, &model, &all_kinds()), None);
    let first = &model.prompts[0];
    let call = first.tool_call_id.clone();
    let anchor = (first.stream_position..model.stream.len())
        .find(|&i| {
            let e = &model.stream[i];
            (e["type"] == "inquiry_response" || e["type"] == "tool_call_response")
                && call_of(e) != call
        })
        .expect("another call ends some work after the first prompt");
    let mut actual = model.clone();
    actual.prompts[0].stream_position = anchor + 1;
    let d = witness::log_order(&model, &actual, &all_kinds()).expect("out of order");
    assert_eq!(d.kind, "log_order", "{d:?}");
    assert!(
        d.at.contains("turn 0")
            && d.at.contains(&format!("call {call:?}"))
            && d.at.contains("prompt"),
        "{d:?}"
    );
}

/// A free implementation that runs the calls of a cycle one after another,
/// the last first, each to its end, and reads the answers the cycle
/// remembered: correct.
struct LastCallFirst;

impl Implementation for LastCallFirst {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let mut newest_first = s.clone();
        // Two pieces of work are pending at most: 1 picks the newer.
        newest_first.schedule = vec![1; 16];
        let mut o = Model::default().run(&newest_first)?;
        for p in &mut o.prompts {
            p.tool_call_id.clear();
        }
        Ok(o)
    }

    fn capabilities(&self) -> Capabilities {
        FreeModel::default().capabilities()
    }
}

/// Rule: CONF-WITNESS-ORDER — a free implementation whose log shows call 2
/// answered with remember and done before call 1's question was routed,
/// yet call 1 prompted again, fails under every schedule: each call's own
/// events equal a schedule of the model where both questions are routed
/// first (so matching each call alone passes it), but no schedule routes
/// call 1 after call 2's answer and still prompts. A correct implementation
/// running the calls in that same order (call 1 answered from the cache)
/// passes.
#[test]
fn a_call_that_ignores_its_cycles_remembered_answer_fails_when_free() {
    let s = cached_parallel();
    let actual = IgnoresCycleCache.run(&s).unwrap();
    assert_eq!(actual.prompts.len(), 2);
    let routed_first = Model::default().run(&routed_first(&s)).unwrap();
    assert_eq!(
        witness::compare_observed(&s, &routed_first, &actual, &all_kinds()),
        None,
        "each call alone matches the run that routes both first"
    );
    let d = witness::log_order(&routed_first, &actual, &all_kinds()).expect("out of order");
    assert_eq!(d.kind, "log_order", "{d:?}");
    assert!(d.at.contains("call \"call_1\""), "{d:?}");
    assert!(d.at.starts_with("turn 0,"), "{d:?}");
    let f = crate::conformance::check_one(&mut IgnoresCycleCache, "cached", &s).expect("fails");
    assert!(
        matches!(f.verdict, Verdict::DivergedEverySchedule { .. }),
        "{}",
        f.verdict
    );
    let right = LastCallFirst.run(&s).unwrap();
    assert_eq!(right.prompts.len(), 1, "call 1 is answered from the cache");
    assert_eq!(
        crate::conformance::check_one(&mut LastCallFirst, "cached", &s),
        None
    );
}

/// One cycle of three calls of a tool that asks nothing, run in the order
/// `schedule` picks.
fn three_calls(schedule: &[u32]) -> Scenario {
    serde_json::from_value(json!({
        "tools": {"t": {"source": {"kind": "local"}, "run": "unattended",
            "program": {"kind": "script", "asks": []}}},
        "turns": [{"user": "go", "cycles": [[
            {"id": "call_1", "tool": "t"}, {"id": "call_2", "tool": "t"}, {"id": "call_3", "tool": "t"}
        ]]}],
        "schedule": schedule,
    }))
    .unwrap()
}

/// Rule: CONF-WITNESS — the cut on a tool response prunes: three parallel
/// calls of a tool that asks nothing, the implementation's response to
/// `call_1` of another kind (`result_withheld`, still not an error, so the
/// stream is the model's). A run where `call_1` is not the last to finish
/// is cut at the next choice, which also prunes the runs below that choice
/// (5 runs, 3 cut); the two where it is last run to the end and differ.
/// Without the cut all 3! = 6 run to the end.
#[test]
fn the_cut_on_a_tool_response_prunes() {
    let s = three_calls(&[]);
    let mut actual = Model::default().run(&s).unwrap();
    let r = actual
        .tool_responses
        .iter_mut()
        .find(|r| r.tool_call_id == "call_1")
        .unwrap();
    assert!(!r.is_error);
    r.kind = crate::conformance::ResponseKind::ResultWithheld;
    let (outcome, stats) = search(&s, &actual, true);
    assert_eq!(outcome, Outcome::Exhausted);
    assert_eq!(
        stats,
        witness::Stats {
            schedules: 5,
            cut: 3,
            complete: 2
        }
    );
    let (outcome, stats) = search(&s, &actual, false);
    assert_eq!(outcome, Outcome::Exhausted);
    assert_eq!(
        stats,
        witness::Stats {
            schedules: 6,
            cut: 0,
            complete: 6
        }
    );
}

/// Rule: CONF-WITNESS — the first schedule the search tries is the
/// scenario's own: an implementation that ran three calls of a cycle in
/// the order the scenario's `schedule` picks (the last first, then the
/// second of those left) is explained by the first run, which picks the
/// same.
#[test]
fn the_first_schedule_tried_is_the_scenarios_own() {
    let s = three_calls(&[2, 1]);
    let actual = Model::default().run(&s).unwrap();
    let unscheduled = Scenario {
        schedule: Vec::new(),
        ..s.clone()
    };
    assert_ne!(
        actual,
        Model::default().run(&unscheduled).unwrap(),
        "the schedule changes the run"
    );
    let how = Search {
        observes: all_kinds(),
        budget: 100,
        cut: true,
        skip_pins: Default::default(),
    };
    let (outcome, stats) = witness::search(&s, &actual, &how).unwrap();
    let Outcome::Found { schedule } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(schedule.starts_with(&[2, 1]), "{schedule:?}");
    assert_eq!(
        stats,
        witness::Stats {
            schedules: 1,
            cut: 0,
            complete: 1
        }
    );
}

/// One cycle of three calls: `call_1`'s tool asks one prompted text
/// question (answered `x`), the other two ask nothing.
fn one_prompted_of_three() -> Scenario {
    serde_json::from_value(json!({
        "tty": true,
        "tools": {
            "ask": {"source": {"kind": "local"}, "run": "unattended",
                "program": {"kind": "script", "asks": [{"question":
                    {"id": "q", "text": "Name?", "answer_type": {"type": "text"}}}],
                    "finish": {"with": "succeed"}}},
            "t": {"source": {"kind": "local"}, "run": "unattended",
                "program": {"kind": "script", "asks": []}}},
        "turns": [{"user": "go", "cycles": [[
            {"id": "call_1", "tool": "ask"}, {"id": "call_2", "tool": "t"}, {"id": "call_3", "tool": "t"}
        ]]}],
        "prompter": [{"reply": "answer", "value": "x"}],
    }))
    .unwrap()
}

/// The search's outcome and figures on `actual`, with the cut or without.
fn search(s: &Scenario, actual: &Observed, cut: bool) -> (Outcome, witness::Stats) {
    let how = Search {
        observes: all_kinds(),
        budget: 100,
        cut,
        skip_pins: Default::default(),
    };
    witness::search(s, actual, &how).unwrap()
}

/// Rule: CONF-WITNESS — the cut on a call's persisted events prunes: three
/// parallel calls of a tool that asks nothing, the implementation's
/// persisted response event of `call_1` with a member the model's has not
/// (its response as the tool returned it is the model's). As with a response of another kind, a run
/// where `call_1` is not the last to finish is cut at the next choice
/// (5 runs, 3 cut); without the cut all 3! = 6 run to the end.
#[test]
fn the_cut_on_a_calls_events_prunes() {
    let s = three_calls(&[]);
    let mut actual = Model::default().run(&s).unwrap();
    let response = actual
        .stream
        .iter_mut()
        .find(|e| e["type"] == "tool_call_response" && call_of(e) == "call_1")
        .expect("call_1's tool response");
    response["extra"] = json!("not the model's");
    let (outcome, stats) = search(&s, &actual, true);
    assert_eq!(outcome, Outcome::Exhausted);
    let expected = witness::Stats {
        schedules: 5,
        cut: 3,
        complete: 2,
    };
    assert_eq!(stats, expected);
    let (outcome, stats) = search(&s, &actual, false);
    assert_eq!(outcome, Outcome::Exhausted);
    let expected = witness::Stats {
        schedules: 6,
        cut: 0,
        complete: 6,
    };
    assert_eq!(stats, expected);
}

/// Rule: CONF-WITNESS — the cut on a prompt's presentation prunes: of three
/// parallel calls only `call_1` asks, and its prompt is reported without
/// a call ID, so it is matched by order. Shown under another label, every
/// run is cut at the first choice after the prompt (each run has one:
/// `call_1` has still to finish); without the cut every run goes to the
/// end. The model's own run, unchanged, is explained at once.
#[test]
fn the_cut_on_a_prompts_presentation_prunes() {
    let s = one_prompted_of_three();
    let mut actual = Model::default().run(&s).unwrap();
    assert_eq!(actual.prompts.len(), 1);
    actual.prompts[0].tool_call_id.clear();
    let (outcome, stats) = search(&s, &actual, true);
    assert!(matches!(outcome, Outcome::Found { .. }), "{outcome:?}");
    assert_eq!(stats.cut, 0, "{stats:?}");
    let shown = &mut actual.prompts[0].presentation;
    assert!(shown.get("label").is_some(), "{shown}");
    shown["label"] = json!("Another label?");
    let (outcome, with) = search(&s, &actual, true);
    assert_eq!(outcome, Outcome::Exhausted);
    let (outcome, without) = search(&s, &actual, false);
    assert_eq!(outcome, Outcome::Exhausted);
    assert!(with.cut == with.schedules && with.complete == 0, "{with:?}");
    assert_eq!(without.cut, 0, "{without:?}");
    assert_eq!(without.complete, without.schedules, "{without:?}");
}

/// Rule: CONF-WITNESS, CONF-WITNESS-ORDER — the cut on the log's order
/// prunes: of three parallel calls only `call_1` asks, and its prompt
/// (reported with its call ID, so no prompt is matched by order) is shown
/// under another label, so no run is explained. A run that shows the
/// prompt after another call has finished, which the log has finishing
/// after it, is cut at its next choice; without the cut every run goes to
/// the end.
#[test]
fn the_cut_on_the_logs_order_prunes() {
    let s = one_prompted_of_three();
    let mut actual = Model::default().run(&s).unwrap();
    assert_eq!(actual.prompts.len(), 1);
    assert_eq!(actual.prompts[0].tool_call_id, "call_1");
    actual.prompts[0].presentation["label"] = json!("Another label?");
    let (outcome, with) = search(&s, &actual, true);
    assert_eq!(outcome, Outcome::Exhausted);
    let (outcome, without) = search(&s, &actual, false);
    assert_eq!(outcome, Outcome::Exhausted);
    assert!(with.cut > 0, "{with:?}");
    assert!(with.complete < without.complete, "{with:?} {without:?}");
    assert_eq!(without.cut, 0, "{without:?}");
}

/// The free test implementation's own order is the splitmix64 stream its
/// doc names: from the state 0, the first five values are those of the
/// reference generator (Vigna's `splitmix64.c`, printed independently of
/// this crate), and the state advances by the golden-ratio increment. A
/// mixer changed anywhere still orders work "at random", so nothing but
/// the published values can hold it to its description.
#[test]
fn the_free_implementations_order_is_the_reference_splitmix64() {
    let mut state = 0u64;
    let first: Vec<u64> = (0..5)
        .map(|_| super::testkit::splitmix64(&mut state))
        .collect();
    assert_eq!(
        first,
        [
            0xE220_A839_7B1D_CDAF,
            0x6E78_9E6A_A1B9_65F4,
            0x06C4_5D18_8009_454F,
            0xF88B_B8A8_724C_81EC,
            0x1B39_896A_51A8_749B,
        ]
    );
    assert_eq!(state, 0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(5));
}

/// The free test implementation's seed is the 64-bit FNV-1a hash of the
/// scenario's JSON, as its doc says: a second small FNV-1a, itself held to
/// the published test vectors (`""`, `"a"`, `"foobar"`), gives the same
/// value for the first committed vectors' scenarios; so scenarios that differ are
/// ordered by different streams.
#[test]
fn the_free_implementations_seed_is_fnv1a_of_the_scenarios_json() {
    fn fnv1a(bytes: &[u8]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    let scenarios: Vec<Scenario> = committed()
        .into_iter()
        .map(|v| v.scenario)
        .take(8)
        .collect();
    assert!(scenarios.len() >= 2);
    let mut seeds = BTreeSet::new();
    for s in &scenarios {
        let json = serde_json::to_string(s).unwrap();
        assert_eq!(super::testkit::seed(s), fnv1a(json.as_bytes()));
        seeds.insert(super::testkit::seed(s));
    }
    assert_eq!(seeds.len(), scenarios.len());
}

/// The buggy and the correct free implementation over `scenarios`, each
/// observation with its prompts' call IDs (both order their work the same:
/// the shuffle is seeded by the scenario alone).
fn buggy_and_correct(scenarios: &[Scenario]) -> Vec<(Observed, Observed)> {
    let buggy = FreeModel {
        bug: Some(InterleavingBug::PromptBeforeRecordOutOfOrder),
        ..FreeModel::default()
    };
    scenarios
        .iter()
        .map(|s| {
            (
                buggy.run_attributed(s).unwrap(),
                FreeModel::default().run_attributed(s).unwrap(),
            )
        })
        .collect()
}

/// Rule: CONF-WITNESS — the interleaving-only bug needs newer work run
/// before the oldest: where every cycle has one tool call, the only work
/// pending is the oldest, and the buggy implementation observes exactly
/// what the correct one does (prompts included).
#[test]
fn the_interleaving_only_bug_never_shows_when_the_oldest_work_runs_first() {
    let lone: Vec<Scenario> = crate::generate::scenario::sample(600, 5)
        .into_iter()
        .filter(|s| {
            s.turns
                .iter()
                .all(|t| t.cycles.iter().all(|c| c.len() <= 1))
        })
        .collect();
    let runs = buggy_and_correct(&lone);
    let prompted = runs.iter().filter(|(_, c)| !c.prompts.is_empty()).count();
    assert!(prompted >= 10, "only {prompted} scenarios with a prompt");
    for (s, (buggy, correct)) in lone.iter().zip(&runs) {
        assert_eq!(buggy, correct, "{}", serde_json::to_string(s).unwrap());
    }
}

/// Rule: CONF-WITNESS — what the interleaving-only bug does, where it
/// shows: a prompt is shown before its own call's last event is persisted
/// (RFD 082 step 2 broken). A prompt it moves keeps its call, is shown
/// earlier, and the first event not yet persisted when it shows is one of
/// its own call's events, none of which follows before its old place; it
/// changes nothing but prompts' places.
#[test]
fn the_interleaving_only_bug_shows_a_prompt_just_before_its_own_calls_last_event() {
    let scenarios = crate::generate::scenario::sample(600, 5);
    let own = |e: &serde_json::Value, call: &str| {
        let id = e["id"].as_str().unwrap_or("");
        id == call || id.strip_prefix(call).is_some_and(|r| r.starts_with('.'))
    };
    let mut moved = 0;
    for (s, (buggy, correct)) in scenarios.iter().zip(buggy_and_correct(&scenarios)) {
        let at = serde_json::to_string(s).unwrap();
        assert_eq!(buggy.stream, correct.stream, "{at}");
        assert_eq!(buggy.invocations, correct.invocations, "{at}");
        assert_eq!(buggy.prompts.len(), correct.prompts.len(), "{at}");
        for (b, c) in buggy.prompts.iter().zip(&correct.prompts) {
            assert_eq!(b.tool_call_id, c.tool_call_id, "{at}");
            assert_eq!(b.presentation, c.presentation, "{at}");
            if b.stream_position == c.stream_position {
                continue;
            }
            moved += 1;
            let (new, old) = (b.stream_position, c.stream_position);
            assert!(new < old, "{at}");
            assert!(own(&buggy.stream[new], &b.tool_call_id), "{at}");
            assert!(
                !buggy.stream[new + 1..old]
                    .iter()
                    .any(|e| own(e, &b.tool_call_id)),
                "{at}"
            );
        }
    }
    assert!(moved >= 10, "only {moved} prompts moved");
}
