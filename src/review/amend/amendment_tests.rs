//! Amendment review: the profile diffs find the behaviour changes the RFDs
//! name, each as its own class; a profile diffed against itself shows
//! nothing; the invariant matrix shows what each stage breaks and is current.

use crate::profile::ProfileName::{self, Legacy, Rfd082, Rfd083};
use crate::review::amend::review_scenarios::ReviewScenarios;
use crate::review::amend::{self, DiffReport, Verdict, diff_profiles, invariants};
use crate::scenario::{self, PrompterReply, Scenario};
use std::sync::OnceLock;

fn corpus() -> &'static [Scenario] {
    static C: OnceLock<Vec<Scenario>> = OnceLock::new();
    C.get_or_init(|| amend::scenarios(61, 300, 1))
}

fn classes(r: &DiffReport) -> Vec<&str> {
    r.classes.iter().map(|c| c.class.as_str()).collect()
}

/// `s`'s trace under `profile`.
fn traced(s: &Scenario, profile: ProfileName) -> scenario::Trace {
    scenario::run(&Scenario {
        profile,
        ..s.clone()
    })
    .expect("runs")
}

/// The scenario written as `json`, changed by `edit` first.
fn edited(json: &str, edit: impl FnOnce(&mut serde_json::Value)) -> Scenario {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    edit(&mut v);
    serde_json::from_value(v).expect("a scenario")
}

/// The verdict on `rule` among `verdicts`.
fn verdict<'v>(verdicts: &'v [Verdict], rule: &str) -> &'v Verdict {
    verdicts
        .iter()
        .find(|v| v.rule == rule)
        .unwrap_or_else(|| panic!("no verdict on {rule}"))
}

/// Rule: AMEND-DIFF-082 — the diff from `legacy` to `rfd082` finds every
/// behaviour change RFD 082's Drawbacks section names, each as its own
/// class: stream growth from recorded prompter (and cached, static) answers,
/// static answers delivered one invocation later, the new `Cancelled` and
/// `Redacted` records, the `Secret` type's no-echo prompt and refusals, and
/// the new ID and response shapes.
#[test]
fn legacy_to_rfd082_finds_every_drawback() {
    let r = diff_profiles(Legacy, Rfd082, corpus());
    let found = classes(&r);
    for want in [
        "prompter_answer_recorded",
        "cached_answer_recorded",
        "static_answer_recorded",
        "static_answer_delivered_later",
        "cancellation_recorded:user",
        "cancellation_recorded:backend_error",
        "cancellation_recorded:no_prompt_backend",
        "cancellation_recorded:assistant_routing_denied",
        "redacted_recorded",
        "unpaired_request",
        "id_shape",
        "response_shape",
        "prompt_echo",
    ] {
        assert!(
            found.contains(&want),
            "missing class {want}; found {found:?}"
        );
    }
    // The smallest example of each class really shows it: replaying it under
    // both profiles gives the class again.
    for c in &r.classes {
        let (a, b) = (traced(&c.smallest, Legacy), traced(&c.smallest, Rfd082));
        let again: Vec<String> = amend::classify(&a, &b).keys().map(|k| k.name()).collect();
        assert!(
            again.contains(&c.class),
            "{} not reproduced by its smallest scenario",
            c.class
        );
    }
}

/// One backend inquiry, answered at once: [`BACKEND_FAILS`] with a boolean
/// question the tool takes at once and a backend that answers it.
fn backend_answers() -> Scenario {
    edited(BACKEND_FAILS, |v| {
        let ask = &mut v["tools"]["t"]["program"]["asks"][0];
        ask["question"]["answer_type"] = serde_json::json!({"type": "boolean"});
        ask.as_object_mut().expect("an ask").remove("reject_first");
        v["backend"] = serde_json::json!([{"reply": "answer", "value": true}]);
    })
}

/// The evidence `classify` gives for `class` between `a` and `b`, if it
/// finds it.
fn evidence(a: &scenario::Trace, b: &scenario::Trace, class: &str) -> Option<String> {
    amend::classify(a, b)
        .into_iter()
        .find(|(k, _)| k.name() == class)
        .map(|(_, evidence)| evidence)
}

/// Rule: AMEND-DIFF-082 — one backend inquiry answered at once, from
/// `legacy` to `rfd082`: the same inquiry under RFD 082's attempt-suffixed
/// ID ("Inquiry ID format") is an `id_shape` difference, call for call.
#[test]
fn one_backend_inquiry_under_another_id_is_an_id_shape_difference() {
    let s = backend_answers();
    let (a, b) = (traced(&s, Legacy), traced(&s, Rfd082));
    assert_eq!(a.backend_calls.len(), 1);
    assert_eq!(b.backend_calls.len(), 1);
    assert_eq!(
        evidence(&a, &b, "id_shape").as_deref(),
        Some("c1.q → c1.q.1")
    );
}

/// Rule: AMEND-DIFF-082 — an answer persisted flat on one side and tagged
/// with its outcome on the other (RFD 082 "`InquiryResponse`
/// serialization") is a `response_shape` difference in either direction:
/// from `legacy` to `rfd082` and back.
#[test]
fn a_flat_answer_against_a_tagged_one_is_a_response_shape_difference_both_ways() {
    let s = backend_answers();
    let (a, b) = (traced(&s, Legacy), traced(&s, Rfd082));
    assert_eq!(
        evidence(&a, &b, "response_shape").as_deref(),
        Some("1 flat, 0 tagged → 0 flat, 1 tagged")
    );
    assert_eq!(
        evidence(&b, &a, "response_shape").as_deref(),
        Some("0 flat, 1 tagged → 1 flat, 0 tagged")
    );
    assert_eq!(evidence(&b, &b, "response_shape"), None);
}

/// Rule: AMEND-DIFF-082 — a secret question prompted to the user, from
/// `legacy` to `rfd082`: the prompt that echoed what was typed no longer
/// does (RFD 082 "Secret questions"), a `prompt_echo` difference whose
/// evidence reads each prompt's echo in order.
#[test]
fn a_secret_prompt_that_stops_echoing_is_a_prompt_echo_difference() {
    let s = edited(ASKS_THE_USER, |v| {
        v["tools"]["t"]["program"]["asks"][0]["question"]["answer_type"] =
            serde_json::json!({"type": "secret"});
        v["prompter"][0]["value"] = serde_json::json!("typed-secret-marker");
    });
    let (a, b) = (traced(&s, Legacy), traced(&s, Rfd082));
    assert_eq!(
        evidence(&a, &b, "prompt_echo").as_deref(),
        Some("echo true → false")
    );
}

/// Rule: AMEND-DIFF-083 — the diff from `rfd082` to `rfd083` finds the
/// `exclusive` refusals, the `persistence: none` cache bypass and
/// `invalid_static_answer`, and the widened persisted question.
#[test]
fn rfd082_to_rfd083_finds_the_083_changes() {
    let r = diff_profiles(Rfd082, Rfd083, corpus());
    let found = classes(&r);
    for want in [
        "cancellation_recorded:no_prompt_backend",
        "cancellation_recorded:assistant_routing_denied",
        "cancellation_recorded:invalid_static_answer",
        "cached_answer_used",
        "question_fields",
        "prompt_label",
        "remember_affordance",
    ] {
        assert!(
            found.contains(&want),
            "missing class {want}; found {found:?}"
        );
    }
    // Nothing 082 introduced changes again in 083.
    for not in [
        "id_shape",
        "response_shape",
        "static_answer_delivered_later",
        "unpaired_request",
    ] {
        assert!(!found.contains(&not), "unexpected class {not}");
    }
}

/// Rule: AMEND-DIFF-SELF — a profile diffed against itself reports nothing.
#[test]
fn a_profile_diffed_against_itself_reports_nothing() {
    for p in ProfileName::ALL {
        let r = diff_profiles(p, p, corpus());
        assert_eq!(r.differing, 0, "{p}");
        assert!(r.classes.is_empty(), "{p}: {:?}", classes(&r));
        assert!(r.scenarios > 10_000);
    }
}

/// Rule: AMEND-INVARIANTS — `legacy` violates "always paired" for a backend
/// error and "every round-trip recorded" for a prompter answer; rfd082 and
/// rfd083 violate nothing but RFD 082's separator flaw (INV-ID-UNIQUE and
/// its kin), on scenarios whose IDs hold the separator.
#[test]
fn legacy_breaks_pairing_and_recording_and_later_profiles_hold() {
    let legacy = invariants(Legacy, corpus());
    let paired = verdict(&legacy, "INV-PAIRED");
    assert!(paired.violating > 0);
    let s = paired.smallest.clone().unwrap();
    let t = scenario::run(&s).unwrap();
    // Legacy records a response only for a backend answer: a failed backend
    // call is what leaves a request unpaired.
    let responses = t
        .stream
        .iter()
        .filter(|e| e.as_inquiry_response().is_some())
        .count();
    assert!(
        t.backend_calls.len() > responses,
        "the smallest unpaired case goes through the backend and fails there: {s:?}"
    );

    let recorded = verdict(&legacy, "INV-RECORD-ALL");
    assert!(recorded.violating > 0);
    let s = recorded.smallest.clone().unwrap();
    let t = scenario::run(&s).unwrap();
    assert!(
        !t.prompts.is_empty() || t.resolutions.iter().any(|r| !r.recorded),
        "an unrecorded round-trip: {s:?}"
    );
    assert!(s.prompter.iter().all(|p| matches!(
        p,
        PrompterReply::Answer { .. }
            | PrompterReply::CtrlC
            | PrompterReply::Eof
            | PrompterReply::Failure { .. }
    )));

    // RFD 082 and 083 break nothing but the flaw of RFD 082's joined IDs,
    // and that only on scenarios whose IDs hold the separator (its
    // smallest counterexample does; `src/wire/id/id_separator_tests.rs`).
    for p in [Rfd082, Rfd083] {
        let broken: Vec<String> = invariants(p, corpus())
            .into_iter()
            .filter(|v| v.violating > 0)
            .filter(|v| {
                let flaw = crate::rule::Rule::from_id(&v.rule)
                    .is_some_and(|r| crate::invariants::SEPARATOR_FLAW.contains(&r));
                !(flaw
                    && v.smallest
                        .as_ref()
                        .is_some_and(crate::invariants::holds_separator))
            })
            .map(|v| format!("{}: {:?}", v.rule, v.example))
            .collect();
        assert!(broken.is_empty(), "{p}: {broken:?}");
    }
}

/// Rule: AMEND-MATRIX-CURRENT — `spec/invariants.md` is what the generator
/// writes now (regenerate with `make spec-matrix`).
#[test]
fn the_committed_invariant_matrix_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/invariants.md");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let now = amend::committed_matrix();
    assert!(
        committed == now,
        "spec/invariants.md is stale; run `make spec-matrix`.\n--- now ---\n{now}"
    );
    assert!(now.contains("| `INV-PAIRED` | violated"), "{now}");
    assert!(now.contains("| `INV-RECORD-ALL` | violated"), "{now}");
}

/// `s` with what no difference needs: a tool no call uses, and a first turn
/// that calls a tool asking nothing (used by no other call).
fn padded(s: &str) -> Scenario {
    edited(s, |v| {
        let quiet = serde_json::json!({
            "program": {"kind": "script", "asks": [], "finish": {"with": "succeed"}},
            "run": "unattended"
        });
        v["tools"]["unused"] = quiet.clone();
        v["tools"]["quiet"] = quiet;
        let turns = v["turns"].as_array_mut().expect("turns");
        turns.insert(
            0,
            serde_json::json!({"user": "first", "cycles": [[{"id": "c0", "tool": "quiet", "arguments": {}}]]}),
        );
    })
}

/// A local tool asking the user a boolean question, one turn: `legacy`
/// records no prompter-answered round-trip, `rfd082` does.
const ASKS_THE_USER: &str = r#"{"tty": true, "tools": {"t": {"source": {"kind": "local"},
  "program": {"kind": "script", "asks": [{"question": {"id": "q", "text": "Question q?",
  "answer_type": {"type": "boolean"}}}], "finish": {"with": "succeed"}},
  "questions": {"q": {"target": "user"}}, "run": "unattended"}},
  "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "t", "arguments": {}}]]}],
  "prompter": [{"reply": "answer", "value": true, "remember": false}]}"#;

/// A built-in's secret question routed to the assistant, refused once:
/// under `legacy` the backend's failure leaves the request unpaired.
const BACKEND_FAILS: &str = r#"{"tty": true, "tools": {"t": {"source": {"kind": "builtin", "hook": "default"},
  "program": {"kind": "script", "asks": [{"question": {"id": "q", "text": "Question q?",
  "answer_type": {"type": "secret"}}, "reject_first": 1}], "finish": {"with": "succeed"}},
  "questions": {"q": {"target": "assistant"}}, "run": "unattended"}},
  "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "t", "arguments": {}}]]}]}"#;

fn tool_names(s: &Scenario) -> Vec<&str> {
    s.tools.keys().map(String::as_str).collect()
}

/// Rule: AMEND-MINIMAL — a class's smallest scenario and an invariant's
/// smallest counterexample come out without the tool no call uses and the
/// turn no difference needs (padding added by hand to a scenario that shows
/// them), and still show the same class or violate the same invariant.
#[test]
fn counterexamples_come_out_without_unused_tools_and_turns() {
    let s = padded(ASKS_THE_USER);
    let mut names = tool_names(&s);
    names.sort_unstable();
    assert_eq!(names, ["quiet", "t", "unused"]);
    let r = diff_profiles(Legacy, Rfd082, std::slice::from_ref(&s));
    let c = r
        .classes
        .iter()
        .find(|c| c.class == "prompter_answer_recorded")
        .expect("the class shows");
    assert_eq!(tool_names(&c.smallest), ["t"], "{:?}", c.smallest);
    assert_eq!(c.smallest.turns.len(), 1, "{:?}", c.smallest);
    assert_eq!(c.smallest.turns[0].cycles[0][0].tool, "t");
    let again = amend::classify(&traced(&c.smallest, Legacy), &traced(&c.smallest, Rfd082));
    assert!(again.keys().any(|k| k.name() == c.class), "{again:?}");
    // Labelled with the profile under review, `to`.
    assert_eq!(c.smallest.profile, Rfd082);

    let s = padded(BACKEND_FAILS);
    let verdicts = invariants(Legacy, std::slice::from_ref(&s));
    let v = verdict(&verdicts, "INV-PAIRED");
    assert_eq!(v.violating, 1);
    let smallest = v.smallest.as_ref().expect("a counterexample");
    assert_eq!(tool_names(smallest), ["t"], "{smallest:?}");
    assert_eq!(smallest.turns.len(), 1, "{smallest:?}");
    assert_eq!(smallest.profile, Legacy);
    // The example is the invariant's own finding, through every removal.
    assert!(
        v.example
            .as_deref()
            .is_some_and(|e| e.contains(": INV-PAIRED: ")),
        "{:?}",
        v.example
    );
    // Still unpaired when run as printed: more requests than responses.
    let t = scenario::run(smallest).expect("runs");
    let count = |f: &dyn Fn(&crate::wire::Event) -> bool| t.stream.iter().filter(|e| f(e)).count();
    assert!(
        count(&|e| matches!(e.kind, crate::wire::EventKind::InquiryRequest(_)))
            > count(&|e| e.as_inquiry_response().is_some()),
        "{smallest:?}"
    );
}

/// `s` carrying configuration no run reads: a question never asked, an
/// assistant model no inquiry uses, a backend reply for an ID never asked.
/// Whether tool `t` of `s` carries configuration for question `q`.
fn configures(s: &Scenario, q: &str) -> bool {
    serde_json::to_value(s).expect("JSON")["tools"]["t"]["questions"]
        .get(q)
        .is_some()
}

fn with_unused_configuration(s: &str) -> Scenario {
    edited(s, |v| {
        v["tools"]["t"]["questions"]["never"] = serde_json::json!({"target": "user"});
        v["inquiry_model"] = serde_json::json!("unused-model");
        v["backend_by_id"] = serde_json::json!({"c9.never.1": {"reply": "answer", "value": true}});
    })
}

/// Rule: AMEND-MINIMAL — a class's smallest scenario and an invariant's
/// smallest counterexample come out without configuration no run reads (a
/// question never asked, an assistant model no backend call is made with, a
/// backend reply for an ID never asked), keep what the run reads, and still
/// show the same class or violate the same invariant.
#[test]
fn counterexamples_come_out_without_unused_configuration() {
    let s = with_unused_configuration(ASKS_THE_USER);
    assert!(configures(&s, "never") && s.inquiry_model.is_some());
    assert_eq!(s.backend_by_id.len(), 1);
    let r = diff_profiles(Legacy, Rfd082, std::slice::from_ref(&s));
    let c = r
        .classes
        .iter()
        .find(|c| c.class == "prompter_answer_recorded")
        .expect("the class shows");
    let smallest = &c.smallest;
    assert!(!configures(smallest, "never"), "{smallest:?}");
    assert_eq!(smallest.inquiry_model, None, "{smallest:?}");
    assert!(smallest.backend_by_id.is_empty(), "{smallest:?}");
    let again = amend::classify(&traced(smallest, Legacy), &traced(smallest, Rfd082));
    assert!(again.keys().any(|k| k.name() == c.class), "{again:?}");

    let s = with_unused_configuration(BACKEND_FAILS);
    let verdicts = invariants(Legacy, std::slice::from_ref(&s));
    let v = verdict(&verdicts, "INV-PAIRED");
    let smallest = v.smallest.as_ref().expect("a counterexample");
    assert!(!configures(smallest, "never"), "{smallest:?}");
    assert!(smallest.backend_by_id.is_empty(), "{smallest:?}");
    // What the run reads stays: the asked question's configuration, and the
    // assistant model the backend call is made with (the trace records it).
    assert!(configures(smallest, "q"), "{smallest:?}");
    assert_eq!(smallest.inquiry_model.as_deref(), Some("unused-model"));
}

/// The reports say `1 scenario`, not `1 scenarios`: the diff's totals and
/// class headings, and an invariant violated once (text and Markdown).
#[test]
fn reports_count_one_in_the_singular() {
    let r = diff_profiles(Legacy, Rfd082, &[padded(ASKS_THE_USER)]);
    let text = r.text();
    assert!(text.contains(": 1 scenario, 1 differ,"), "{text}");
    assert!(
        text.contains("== prompter_answer_recorded (1 scenario):"),
        "{text}"
    );
    assert!(r.markdown().contains("1 scenario run under both"));
    let verdicts = invariants(Legacy, &[padded(BACKEND_FAILS)]);
    let v = verdict(&verdicts, "INV-PAIRED");
    assert_eq!(v.violating, 1);
    assert!(
        v.describe(false)
            .contains("INV-PAIRED violated in 1 scenario;")
    );
    assert!(v.describe(true).contains("violated in 1 scenario\n"));
}

/// Rule: AMEND-DIFF-082 — the text report shows a class's prompts side by
/// side (a `prompts | prompts` heading, then a line per prompt) exactly when
/// either side of its smallest example prompted: over the diffs between the
/// three profiles, classes where both sides prompted, where only one did
/// and where neither did are all met.
#[test]
fn the_text_report_shows_prompts_only_where_a_side_prompted() {
    let mut kinds = [0usize; 3];
    for (from, to) in [(Legacy, Rfd082), (Rfd082, Rfd083), (Legacy, Rfd083)] {
        let r = diff_profiles(from, to, corpus());
        let text = r.text();
        for c in &r.classes {
            let start = text
                .find(&format!("\n== {} (", c.class))
                .expect("the class's section");
            let section = &text[start + 1..];
            let section = &section[..section.find("\n== ").map_or(section.len(), |e| e + 1)];
            let heading = section
                .lines()
                .any(|l| l.starts_with("  prompts ") && l.ends_with(" | prompts"));
            let sides = [&c.from.prompts, &c.to.prompts]
                .iter()
                .filter(|p| !p.is_empty())
                .count();
            kinds[sides] += 1;
            assert_eq!(heading, sides > 0, "{from} -> {to}: {}\n{section}", c.class);
        }
    }
    assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
}

/// Rule: AMEND-PARALLEL — `diff-profiles`' one pass (each scenario run once
/// under each rule set with every invariant checked, split over worker
/// threads) reports exactly what the reference loops report:
/// [`diff_profiles`] (two bare runs per scenario) and [`amend::changes`]
/// (the invariants under each side), for every number of threads. The
/// reference loops are a second, simpler implementation: one thread, in
/// order, keeping the first of equally small scenarios.
#[test]
fn the_threaded_review_reports_what_the_reference_loops_report() {
    use crate::review::profile_file::RuleSet;
    let scenarios: Vec<Scenario> = corpus().iter().step_by(3).cloned().collect();
    let mut moved = 0;
    for (from, to) in [(Legacy, Rfd082), (Rfd082, Rfd083), (Legacy, Rfd083)] {
        let (from, to) = (RuleSet::from(from), RuleSet::from(to));
        let reference = diff_profiles(from.clone(), to.clone(), &scenarios);
        let changes = amend::changes(&from, &to, &scenarios, &mut || {});
        // Not vacuous: the pair differs (and below, some invariant moves).
        assert!(!reference.classes.is_empty());
        moved += changes.broken.len() + changes.restored.len();
        for threads in [1, 2, 3] {
            let calls = std::sync::atomic::AtomicUsize::new(0);
            let (report, found) = amend::review(
                &from,
                &to,
                &ReviewScenarios::Listed(&scenarios),
                threads,
                &|| {
                    calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                },
            );
            assert_eq!(calls.into_inner(), scenarios.len(), "one tick per scenario");
            assert_eq!(report, reference, "{threads} threads");
            assert_eq!(found, changes, "{threads} threads");
            assert_eq!(report.markdown(), reference.markdown());
        }
    }
    assert!(moved > 0, "no invariant is broken or restored by any pair");
}

/// Rule: AMEND-INVARIANTS-PARALLEL — of equally small counterexamples (the
/// same size, the same length as JSON), an invariant's verdict keeps the
/// first in scenario order, in the reference loop and the threaded pass
/// alike: twins that differ only in their user message (`go`, `up`), given
/// in either order.
#[test]
fn of_equally_small_counterexamples_the_first_in_order_is_kept() {
    let twin = |user: &str| {
        edited(BACKEND_FAILS, |v| {
            v["turns"][0]["user"] = serde_json::json!(user)
        })
    };
    for order in [["go", "up"], ["up", "go"]] {
        let scenarios: Vec<Scenario> = order.iter().map(|u| twin(u)).collect();
        for verdicts in [
            invariants(Legacy, &scenarios),
            amend::invariants_threaded(Legacy, &scenarios, 2, &|| {}),
        ] {
            let v = verdict(&verdicts, "INV-PAIRED");
            assert_eq!(v.violating, 2);
            let smallest = v.smallest.as_ref().expect("a counterexample");
            assert_eq!(smallest.turns[0].user, order[0], "{order:?}");
        }
    }
}

/// Rule: AMEND-INVARIANTS-PARALLEL — `invariants`' threaded pass reports
/// exactly what the reference loop ([`invariants`]: one thread, in order,
/// keeping the first of equally small scenarios) reports, for every number
/// of threads. The check can fail: a merge that takes each invariant's
/// verdict from the first worker that found it (the workers' counts not
/// summed, each worker's smallest not compared) disagrees.
#[test]
fn the_threaded_invariants_report_what_the_reference_loop_reports() {
    let scenarios: Vec<Scenario> = corpus().iter().step_by(7).cloned().collect();
    let reference = invariants(Legacy, &scenarios);
    // Not vacuous: some invariant is violated in more than one scenario.
    assert!(reference.iter().any(|v| v.violating > 1));
    for threads in [1, 2, 3] {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let verdicts = amend::invariants_threaded(Legacy, &scenarios, threads, &|| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(calls.into_inner(), scenarios.len(), "one tick per scenario");
        assert_eq!(verdicts, reference, "{threads} threads");
    }
    // The wrong merge, over two workers' shares.
    let shares: Vec<Vec<Verdict>> = (0..2)
        .map(|w| {
            let mine: Vec<Scenario> = scenarios.iter().skip(w).step_by(2).cloned().collect();
            invariants(Legacy, &mine)
        })
        .collect();
    let first_found: Vec<Verdict> = shares[0]
        .iter()
        .zip(&shares[1])
        .map(|(a, b)| {
            if a.violating > 0 {
                a.clone()
            } else {
                b.clone()
            }
        })
        .collect();
    assert_ne!(first_found, reference);
}

/// Rule: CLI-NO-SECRET — the traces a diff report shows side by side mask
/// a secret answer where it sits: a scenario whose secret answer `legacy`
/// persists (its event line quotes it) and `rfd082` redacts differs between
/// the two, and neither the text, the Markdown nor the JSON report prints
/// the answer outside the printed scenarios (input, printed as given so
/// that it replays); the text shows `<secret 1>` in its place. The same
/// reports through `diff-profiles` are the command-line test's
/// (`tests/suite/spec/no_secret_printed.rs`).
#[test]
fn a_diff_report_masks_the_secret_answer_its_traces_hold() {
    const SECRET: &str = "hunter2-zq7";
    let s: Scenario = serde_json::from_value(serde_json::json!({
        "profile": "rfd082", "tty": false,
        "tools": {"vault": {"source": {"kind": "local"}, "run": "unattended",
            "program": {"kind": "script", "asks": [
                {"question": {"id": "pw", "text": "Password?", "answer_type": {"type": "secret"}}}],
                "finish": {"with": "succeed"}}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "vault"}]]}],
        "prompter": [{"reply": "ctrl_c"}],
        "backend": [{"reply": "answer", "value": SECRET}]
    }))
    .expect("a scenario");
    let legacy = traced(&s, Legacy);
    assert!(
        legacy.persisted_json().to_string().contains(SECRET),
        "legacy persists the answer: the report has a secret to mask"
    );
    let report = diff_profiles(Legacy, Rfd082, std::slice::from_ref(&s));
    assert!(!report.classes.is_empty(), "the two profiles differ");
    // The printed scenarios are input: every line holding one is dropped,
    // and in JSON every `smallest` field.
    let without_scenarios = |text: String| {
        text.lines()
            .filter(|l| !l.contains("\"turns\":"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut json = serde_json::to_value(&report).expect("serializes");
    for c in json["classes"].as_array_mut().expect("classes") {
        c.as_object_mut().expect("a class").remove("smallest");
    }
    let text = without_scenarios(report.text());
    for (what, out) in [
        ("text", &text),
        ("markdown", &without_scenarios(report.markdown())),
        ("json", &json.to_string()),
    ] {
        assert!(
            !out.contains(SECRET),
            "the {what} report prints the secret:\n{out}"
        );
    }
    assert!(text.contains("<secret 1>"), "{text}");
}
