//! An amendment end to end: a revised copy of RFD 082 (a prompter failure
//! records `BackendError`; "`question_id` MUST NOT contain `.`") built from
//! the committed excerpt, written as a profile file as `rfd-check
//! --write-profile` writes it, diffed against `rfd082`. Rules
//! `AMEND-TABLE-ROWS`, `AMEND-WRITE-PROFILE`, `AMEND-RFD-PROSE`. The command
//! line (`rfd-check --write-profile`, `check --profile` and `conform
//! --profile` with the written file) is tested in
//! `tests/suite/tooling/amendment_rows.rs`.

use crate::check::{ProfileMode, Rule, check_events};
use crate::generate::scenario::scenario_under;
use crate::invariants::{check_trace, holds_separator, without_known};
use crate::model::routing::{self, NonAnswer, PrompterFailure};
use crate::profile::ProfileName::{self, Rfd082};
use crate::profile::tables::{EVENTS, ROUTE_ROWS, Table, Tables};
use crate::review::amend::{self, run_under};
use crate::review::profile_file::{self, RuleSet};
use crate::review::rfd_check::{self, Verdict, check};
use crate::scenario::{self, PrompterReply, Scenario};
use crate::wire::{CancellationReason, InquiryResponse};
use proptest::prelude::*;

use super::revised_rfd082_tests::*;

/// The revised RFD 082's amendment as a scenario carries it (the written
/// file's `switches` and `tables`, read back from the file
/// `rfd-check --write-profile` writes).
pub(crate) fn revised_amendment() -> serde_json::Map<String, serde_json::Value> {
    let text = revised_rfd082();
    let a = rfd_check::amendment(&text, &Rfd082.rules(), "revised.md");
    let doc =
        profile_file::to_amendment_file("revised", "RFD 082", None, Rfd082, &a.rules, &a.from);
    ["switches", "tables"]
        .into_iter()
        .filter_map(|k| doc.get(k).map(|v| (k.to_owned(), v.clone())))
        .collect()
}

/// `s` under the revised amendment over its profile.
pub(crate) fn amended(s: Scenario) -> Scenario {
    Scenario {
        amendment: Some(revised_amendment()),
        ..s
    }
}

fn written(text: &str) -> RuleSet {
    let a = rfd_check::amendment(text, &Rfd082.rules(), "revised.md");
    let doc =
        profile_file::to_amendment_file("revised", "RFD 082", None, Rfd082, &a.rules, &a.from);
    profile_file::parse("revised.json", &doc.to_string()).expect("the written file reads back")
}

/// Rule: AMEND-TABLE-ROWS — the tables as data are the RFDs' tables: the
/// event rows are `NonAnswer::all` in order, every built-in profile has
/// `Tables::RFD`, and the route rows are `spec/tables/route.md`'s (the
/// reasons and responses are held to their prose tables in
/// `decision_tables_tests`).
#[test]
fn the_rfd_tables_as_data_are_the_rfd_functions() {
    let names: Vec<String> = NonAnswer::all().into_iter().map(NonAnswer::name).collect();
    assert_eq!(names, EVENTS.map(str::to_owned).to_vec());
    for p in ProfileName::ALL {
        assert_eq!(p.rules().tables, Tables::RFD, "{p}");
    }
    let table = read("spec/tables/route.md");
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| {
            l.starts_with("| ") && !l.starts_with("| static answer") && !l.starts_with("| ---")
        })
        .collect();
    assert_eq!(rows.len(), ROUTE_ROWS.len());
    for (i, row) in rows.iter().enumerate() {
        assert!(row.ends_with(&format!("| {} |", ROUTE_ROWS[i])), "{row}");
    }
}

/// Rule: AMEND-TABLE-ROWS — a profile file amends a row: the model records
/// the amended reason for exactly that event, and the reader refuses a row
/// set to the base's value, an unknown row or table, and a value the row
/// cannot take, naming the field.
#[test]
fn a_profile_file_amends_one_row() {
    let file = r#"{"title": "t", "amends": "RFD 082", "base": "rfd082",
        "tables": {"cancellation": {"prompter_failure:io": {"reason": "backend_error", "from": "x.md:3"}}}}"#;
    let set = profile_file::parse("row.json", file).expect("reads");
    assert_eq!(set.judged_as, Rfd082);
    assert_eq!(set.builtin_equal(), None);
    for e in NonAnswer::all() {
        let want = if e == NonAnswer::PrompterFailed(PrompterFailure::Io) {
            "backend_error".to_owned()
        } else {
            routing::cancellation_reason_in(&Tables::RFD, e)
                .as_str()
                .to_owned()
        };
        assert_eq!(
            routing::cancellation_reason_in(&set.rules.tables, e).as_str(),
            want,
            "{}",
            e.name()
        );
    }
    assert_eq!(
        set.flips()
            .iter()
            .map(|(k, _, v)| format!("{k}={v}"))
            .collect::<Vec<_>>(),
        ["cancellation.prompter_failure:io=\"backend_error\""]
    );
    // A row set to the base's own value (read from the RFD tables, not
    // restated) is refused.
    let base_io = routing::cancellation_reason_in(
        &Tables::RFD,
        NonAnswer::PrompterFailed(PrompterFailure::Io),
    );
    let same_as_base =
        format!(r#"{{"cancellation": {{"prompter_failure:io": {{"reason": "{base_io}"}}}}}}"#);
    let bad = [
        (
            same_as_base.as_str(),
            "tables.cancellation.prompter_failure:io",
        ),
        (
            r#"{"cancellation": {"prompter_failure:tty": {"reason": "backend_error"}}}"#,
            "tables.cancellation.prompter_failure:tty",
        ),
        (r#"{"reasons": {}}"#, "tables.reasons"),
        (
            r#"{"cancellation": {"prompter_failure:io": {"reason": "backend"}}}"#,
            "tables.cancellation.prompter_failure:io",
        ),
        (
            r#"{"cancellation": {"prompter_failure:io": {"reason": "backend_error", "line": 3}}}"#,
            "tables.cancellation.prompter_failure:io.line",
        ),
        (
            r#"{"route": {"static_answer": {"route": "prompter"}}}"#,
            "tables.route.static_answer",
        ),
        (
            r#"{"route": {"user_tty": {"route": "static"}}}"#,
            "tables.route.user_tty",
        ),
        (
            r#"{"non_answer_response": {"refused_no_tty": {"kind": "cancelled_by_user"}}}"#,
            "tables.non_answer_response.refused_no_tty",
        ),
    ];
    for (tables, field) in bad {
        let text = format!(
            r#"{{"title": "t", "amends": "RFD 082", "base": "rfd082", "tables": {tables}}}"#
        );
        let e = profile_file::parse("bad.json", &text).expect_err(&text);
        assert_eq!(e.field, field, "{text}: {e}");
    }
}

/// Rule: AMEND-TABLE-ROWS — the route and non-answer rows are read by the
/// model too: a file routing the no-TTY user row to the prompter makes a
/// no-TTY question prompt, and one answering a prompter failure with
/// `inquiry_failed` makes the tool response an error.
#[test]
fn route_and_response_rows_are_read_by_the_model() {
    let mut t = Tables::RFD;
    t.set(Table::Route, "user_no_tty", "refused_no_tty")
        .expect("a route row takes a refusal");
    assert_eq!(
        routing::route_in(
            &t,
            false,
            crate::model::tool::QuestionTarget::User,
            false,
            false
        ),
        routing::Route::Refuse(routing::Refusal::NoTty)
    );
    t.set(
        Table::NonAnswerResponse,
        "prompter_failure:format",
        "inquiry_failed",
    )
    .expect("a prompter row takes inquiry_failed");
    let r = crate::model::coordinator::non_answer_response_in(
        &t,
        NonAnswer::PrompterFailed(PrompterFailure::Format),
        "t",
        "q",
    );
    assert!(r.kind.is_error());
    let rfd = crate::model::coordinator::non_answer_response(
        NonAnswer::PrompterFailed(PrompterFailure::Format),
        "t",
        "q",
    );
    assert!(!rfd.kind.is_error());
}

/// Rule: AMEND-WRITE-PROFILE, AMEND-RFD-PROSE — from the revised RFD 082,
/// the amendment of `rfd082` amends exactly the no-terminal and I/O rows of
/// the cancellation table (the format failure, which the row does not
/// name, stays `user`), and their non-answer responses (an error: the
/// reason fails the tool), each from the row's own line, and sets
/// `question_id_separator = refused` from the MUST NOT sentence's line. The
/// text checked against it agrees everywhere; against `rfd082` it
/// disagrees on exactly the row and the sentence. Every other normative
/// sentence is listed as not checked at its line.
#[test]
fn write_profile_from_the_revised_rfd082() {
    let text = revised_rfd082();
    let row_line = line_of(&text, "Prompter failure (I/O error, no TTY)");
    let sentence_line = line_of(&text, "`question_id` MUST NOT contain");
    let a = rfd_check::amendment(&text, &Rfd082.rules(), "revised.md");
    assert!(a.not_written.is_empty(), "{:?}", a.not_written);
    let from: Vec<(String, String)> = a.from.clone().into_iter().collect();
    assert_eq!(
        from,
        [
            (
                "cancellation.prompter_failure:io".to_owned(),
                format!("revised.md:{row_line}")
            ),
            (
                "cancellation.prompter_failure:no_terminal".to_owned(),
                format!("revised.md:{row_line}")
            ),
            (
                "non_answer_response.prompter_failure:io".to_owned(),
                format!("revised.md:{row_line}")
            ),
            (
                "non_answer_response.prompter_failure:no_terminal".to_owned(),
                format!("revised.md:{row_line}")
            ),
            (
                "question_id_separator".to_owned(),
                format!("revised.md:{sentence_line}")
            ),
        ]
    );
    let set = written(&text);
    let flips: Vec<String> = set.flips().into_iter().map(|(k, _, _)| k).collect();
    assert_eq!(
        flips,
        [
            "question_id_separator",
            "cancellation.prompter_failure:no_terminal",
            "cancellation.prompter_failure:io",
            "non_answer_response.prompter_failure:no_terminal",
            "non_answer_response.prompter_failure:io",
        ]
    );
    let against_base = check(&text, &Rfd082.into());
    assert_eq!(
        against_base.disagreements(),
        2,
        "{}",
        against_base.text("r")
    );
    let against_written = check(&text, &set);
    assert_eq!(
        against_written.disagreements(),
        0,
        "{}",
        against_written.text("r")
    );
    let tied: Vec<usize> = against_written
        .sentences
        .iter()
        .filter(|s| s.switch.is_some())
        .map(|s| s.line)
        .collect();
    assert_eq!(tied, [sentence_line]);
    let unchecked: Vec<usize> = against_written
        .sentences
        .iter()
        .filter(|s| matches!(s.verdict, Verdict::NotChecked { .. }))
        .map(|s| s.line)
        .collect();
    assert_eq!(
        unchecked,
        [
            line_of(&text, "The on-disk shape is always"),
            line_of(&text, "JP itself **never writes"),
        ]
    );
    // Planted: the written file without its rows, or without its switch,
    // no longer agrees, at exactly the row or the sentence.
    let mut set_without_rows = set.clone();
    set_without_rows.rules.tables = Tables::RFD;
    let r = check(&text, &set_without_rows);
    assert_eq!(r.disagreements(), 1);
    assert!(
        r.text("r")
            .contains(&format!("r:{row_line}: cancellation reasons row 2")),
        "{}",
        r.text("r")
    );
    let without_switch = profile_file::parse(
        "rows.json",
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "tables": {"cancellation": {
            "prompter_failure:io": {"reason": "backend_error"},
            "prompter_failure:no_terminal": {"reason": "backend_error"}}}}"#,
    )
    .expect("reads");
    let r = check(&text, &without_switch);
    assert_eq!(r.disagreements(), 1);
    assert!(
        r.text("r")
            .contains(&format!("r:{sentence_line}: sentence")),
        "{}",
        r.text("r")
    );
}

/// Whether the scenario's prompter fails with no terminal or an I/O error
/// (the failures the revised row names).
fn named_failure(s: &Scenario) -> bool {
    s.prompter.iter().any(|r| {
        matches!(
            r,
            PrompterReply::Failure {
                failure: PrompterFailure::Io | PrompterFailure::NoTerminal
            }
        )
    })
}

/// Rule: AMEND-TABLE-ROWS, AMEND-WRITE-PROFILE — `diff-profiles --from rfd082 --to`
/// the written file differs exactly on prompter failures and on question
/// IDs holding a `.`: every scenario whose runs differ differs under the
/// amended rows alone or under the separator switch alone; the rows alone
/// change only scenarios with a no-terminal or I/O failure at the prompter,
/// and only in their `cancelled` reasons and the tool response (an error,
/// as `backend_error` fails the tool); the switch alone only scenarios
/// whose IDs hold the separator. Both kinds occur.
#[test]
fn the_written_amendment_differs_exactly_on_prompter_failures_and_separators() {
    let set = written(&revised_rfd082());
    let base: RuleSet = Rfd082.into();
    let sep = profile_file::parse(
        "sep.json",
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082",
            "switches": {"question_id_separator": "refused"}}"#,
    )
    .expect("reads");
    // The written file without its switch: its rows alone.
    let rows = profile_file::parse(
        "rows.json",
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "tables": {"cancellation": {
            "prompter_failure:io": {"reason": "backend_error"},
            "prompter_failure:no_terminal": {"reason": "backend_error"}},
            "non_answer_response": {
            "prompter_failure:io": {"kind": "inquiry_failed"},
            "prompter_failure:no_terminal": {"kind": "inquiry_failed"}}}}"#,
    )
    .expect("reads");
    assert_eq!(
        rows.rules.tables, set.rules.tables,
        "the written rows are these"
    );
    let (mut by_failure, mut by_separator) = (0, 0);
    for s in amend::scenarios(300, 200, 7) {
        let Ok(a) = run_under(&s, &base) else {
            continue;
        };
        // The runs, apart from the rules each records it ran under.
        let differs = |p: &RuleSet| {
            run_under(&s, p).is_ok_and(|mut t| {
                t.rules = a.rules;
                t != a
            })
        };
        let by_rows = differs(&rows);
        let by_switch = differs(&sep);
        if differs(&set) {
            assert!(
                by_rows || by_switch,
                "differs neither by the rows nor by the switch: {}",
                serde_json::to_string(&s).unwrap_or_default()
            );
        }
        if by_rows {
            by_failure += 1;
            assert!(
                named_failure(&s),
                "{}",
                serde_json::to_string(&s).unwrap_or_default()
            );
            let b = run_under(&s, &rows).expect("runs");
            let classes: Vec<String> = amend::classify(&a, &b)
                .into_keys()
                .map(|c| c.name())
                .collect();
            assert!(
                classes
                    .iter()
                    .all(|c| c.starts_with("cancellation_recorded:") || c == "tool_response_text"),
                "{classes:?}"
            );
        }
        if by_switch {
            by_separator += 1;
            assert!(
                holds_separator(&s),
                "{}",
                serde_json::to_string(&s).unwrap_or_default()
            );
        }
    }
    assert!(
        by_failure > 0 && by_separator > 0,
        "{by_failure} {by_separator}"
    );
}

/// Rule: AMEND-TABLE-ROWS — `diff-profiles` names amended rows as it names
/// flipped switches: from `rfd082` to the two rows alone, every class is a
/// `cancelled` reason count, attributed to exactly those rows, and the rows
/// are listed as what differs; the report passes the gate (the rows break
/// no invariant over this corpus, or the gate names it).
#[test]
fn diff_profiles_names_the_amended_rows() {
    let rows = profile_file::parse(
        "rows.json",
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "tables": {"cancellation": {
            "prompter_failure:io": {"reason": "backend_error"},
            "prompter_failure:no_terminal": {"reason": "backend_error"}}}}"#,
    )
    .expect("reads");
    let names = [
        "cancellation.prompter_failure:no_terminal".to_owned(),
        "cancellation.prompter_failure:io".to_owned(),
    ];
    let r = amend::diff_profiles(Rfd082, rows, &amend::scenarios(300, 200, 7));
    assert!(!r.classes.is_empty());
    for c in &r.classes {
        assert!(c.class.starts_with("cancellation_recorded:"), "{}", c.class);
        assert_eq!(c.switches, names, "{}", c.class);
    }
    let text = r.text();
    let base = |f| routing::cancellation_reason_in(&Tables::RFD, NonAnswer::PrompterFailed(f));
    let (tty, io) = (base(PrompterFailure::NoTerminal), base(PrompterFailure::Io));
    assert!(
        text.contains(&format!("changes: cancellation.prompter_failure:no_terminal \"{tty}\" -> \"backend_error\"; cancellation.prompter_failure:io \"{io}\" -> \"backend_error\"\n")),
        "{text}"
    );
}

/// Rules: CHECK-REASON-BACKEND-ERROR, AMEND-TABLE-ROWS — the model eats its
/// own output under an amendment: over the review corpus under the revised
/// RFD 082's amendment, every stream the model writes satisfies its whole
/// invariant catalog (the `CHECK-*` oracle judging with the amendment's
/// tables among it). Streams that close a secret question `backend_error`
/// (a prompter failure, under the amended row) occur, and the oracle that
/// ignores the tables — the plain `rfd082` writer's — reports exactly
/// those as CHECK-REASON-BACKEND-ERROR: the finding the amendment lifts.
#[test]
fn the_models_stream_under_the_amendment_checks_clean_under_it() {
    let mut lifted = 0;
    for s in amend::scenarios(300, 200, 7) {
        let s = amended(Scenario {
            profile: Rfd082,
            ..s
        });
        let Ok(trace) = scenario::run(&s) else {
            continue;
        };
        let found = without_known(&s, &trace.rules, check_trace(&trace, &s));
        assert!(
            found.is_empty(),
            "{}\n{}",
            found.iter().map(|d| format!("{d}\n")).collect::<String>(),
            serde_json::to_string(&s).unwrap_or_default()
        );
        let base = check_events(&trace.stream, "model", ProfileMode::Fixed(Rfd082));
        let reported = base
            .diagnostics
            .iter()
            .filter(|d| d.rule == Rule::CheckReasonBackendError)
            .count();
        let expected = secret_backend_errors(&trace);
        assert_eq!(
            reported,
            expected,
            "{}",
            serde_json::to_string(&s).unwrap_or_default()
        );
        if expected > 0 {
            assert!(
                named_failure(&s),
                "{}",
                serde_json::to_string(&s).unwrap_or_default()
            );
            lifted += 1;
        }
    }
    assert!(
        lifted > 0,
        "no stream closes a secret question `backend_error`"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(128)
    ))]

    /// Rules: CHECK-REASON-BACKEND-ERROR, CHECK-REASON-HUMAN-ONLY,
    /// AMEND-TABLE-ROWS — invariant: every stream the model writes under an
    /// amendment checks clean under that amendment (the revised RFD 082's
    /// rows and switch, over rfd082 and over rfd083, whose `exclusive`
    /// questions are human-only too): the model's whole catalog holds, the
    /// `CHECK-*` oracle judging with the amended tables.
    /// Half the cases have every prompter reply fail as the amended rows
    /// name (I/O or no terminal), so that the amended rows are reached.
    #[test]
    fn every_stream_written_under_an_amendment_checks_clean_under_it(
        s in scenario_under(prop_oneof![Just(Rfd082), Just(ProfileName::Rfd083)]),
        failing in proptest::option::of(prop_oneof![
            Just(PrompterFailure::Io),
            Just(PrompterFailure::NoTerminal)
        ])
    ) {
        let mut s = amended(s);
        if let Some(failure) = failing {
            s.tty = true;
            let n = s.prompter.len().max(1);
            s.prompter = vec![PrompterReply::Failure { failure }; n];
        }
        let trace = scenario::run(&s).expect("generated scenarios are valid");
        let found = without_known(&s, &trace.rules, check_trace(&trace, &s));
        prop_assert!(
            found.is_empty(),
            "{}",
            found.iter().map(|d| format!("{d}\n")).collect::<String>()
        );
    }
}

/// Rule: AMEND-WRITE-PROFILE — remember and cache rows have no table of a
/// profile file to hold them: a copy of the committed answer-reuse
/// amendment offering "remember" for a `select` question, and one using
/// the turn cache for `text` with `persistence: none`, each gets its row
/// listed as not written at its line, with that reason.
#[test]
fn write_profile_lists_remember_and_cache_rows_as_not_written() {
    let text = read("tests/rfd/reuse-amendment.md");
    for (from, to) in [
        ("| select | any | no |", "| select | any | yes |"),
        ("| text | none | no |", "| text | none | yes |"),
    ] {
        let edited = edit(&text, from, to);
        let a = rfd_check::amendment(&edited, &ProfileName::Rfd083.rules(), "reuse.md");
        assert!(a.from.is_empty(), "{:?}", a.from);
        assert_eq!(a.not_written.len(), 1, "{:?}", a.not_written);
        let (line, why) = &a.not_written[0];
        assert_eq!(*line, line_of(&edited, to));
        assert!(why.contains("no table of a profile file holds it"), "{why}");
    }
}

/// Rules: CHECK-REASON-FAILS-TOOL, AMEND-TABLE-ROWS — an amendment whose
/// non-answer response row answers a provider error `cancelled_by_user`
/// (a success) makes the model close the inquiry `backend_error` and answer
/// the call with a success; that stream checks clean under the amendment
/// (the oracle reads the response row), and the oracle that ignores the
/// tables reports CHECK-REASON-FAILS-TOOL on it.
#[test]
fn a_quiet_backend_error_checks_clean_under_its_amendment() {
    let s: Scenario = serde_json::from_value(serde_json::json!({
        "profile": "rfd082", "tty": false,
        "tools": {"alpha": {"source": {"kind": "builtin", "hook": "default"},
            "program": {"kind": "script", "asks": [
                {"question": {"id": "q1", "text": "Question q1?", "answer_type": {"type": "boolean"}}}
            ], "finish": {"with": "fail", "transient": false}},
            "run": "unattended"}},
        "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "alpha", "arguments": {}}]]}],
        "backend": [{"reply": "error", "error": "provider"}],
        "amendment": {"tables": {"non_answer_response": {
            "inquiry_error:provider": {"kind": "cancelled_by_user"}}}}
    }))
    .expect("a scenario");
    let trace = scenario::run(&s).expect("runs");
    let closed = trace.stream.iter().any(|e| {
        matches!(
            e.as_inquiry_response(),
            Some(InquiryResponse::Cancelled {
                reason: CancellationReason::BackendError,
                ..
            })
        )
    });
    assert!(closed, "{}", trace.persisted_json());
    let found = without_known(&s, &trace.rules, check_trace(&trace, &s));
    assert!(
        found.is_empty(),
        "{}",
        found.iter().map(|d| format!("{d}\n")).collect::<String>()
    );
    let base = check_events(&trace.stream, "model", ProfileMode::Fixed(Rfd082));
    let rules: Vec<Rule> = base.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(
        rules,
        [Rule::CheckReasonFailsTool],
        "{}",
        trace.persisted_json()
    );
}

/// Rule: AMEND-WRITE-PROFILE — routing precedence rows are written as
/// route-table rows: a copy of the committed RFD 083 excerpt whose table
/// fails the tool for a plain question without a TTY and prompts for a
/// plain assistant-targeted one gives, over `rfd083`, exactly the rows
/// `route.user_no_tty = refused_no_tty` and `route.assistant = prompter`,
/// each from its row's line, nothing listed as not written; the text
/// disagrees with `rfd083` on those two rows and agrees with the written
/// file. (The same on the command line, exit 1 then 0, is
/// the command-line test's.)
#[test]
fn write_profile_writes_routing_rows() {
    let text = routing_rows_edited();
    let base = ProfileName::Rfd083;
    let a = rfd_check::amendment(&text, &base.rules(), "route.md");
    assert!(a.not_written.is_empty(), "{:?}", a.not_written);
    let from: Vec<(String, String)> = a.from.clone().into_iter().collect();
    assert_eq!(
        from,
        [
            (
                "route.assistant".to_owned(),
                format!("route.md:{}", line_of(&text, "| Prompt the user.")),
            ),
            (
                "route.user_no_tty".to_owned(),
                format!("route.md:{}", line_of(&text, "| **Fail the tool**.  ")),
            ),
        ]
    );
    let doc = profile_file::to_amendment_file("route", "RFD 083", None, base, &a.rules, &a.from);
    let set = profile_file::parse("route.json", &doc.to_string()).expect("reads back");
    let flips: Vec<String> = set
        .flips()
        .into_iter()
        .map(|(k, _, v)| format!("{k}={v}"))
        .collect();
    assert_eq!(
        flips,
        [
            "route.user_no_tty=\"refused_no_tty\"",
            "route.assistant=\"prompter\""
        ]
    );
    assert_eq!(check(&text, &base.into()).disagreements(), 2);
    let r = check(&text, &set);
    assert_eq!(r.disagreements(), 0, "{}", r.text("r"));
}

/// Rule: AMEND-WRITE-PROFILE — a routing table the base's switches cannot
/// follow row by row is not written: RFD 083's table read over `rfd082`
/// (no `exclusive` switch, so a plain and an `exclusive` question take the
/// same route row) decides the `user_no_tty` and `assistant` rows two ways;
/// each deciding row is listed as not written with that reason, and
/// nothing is
/// written (on the command line: exit 1, the command-line test's).
#[test]
fn write_profile_lists_routing_rows_a_switch_decides() {
    let text = read("tests/rfd/rfd083-excerpt.md");
    let a = rfd_check::amendment(&text, &Rfd082.rules(), "r.md");
    let routing: Vec<usize> = a
        .not_written
        .iter()
        .filter(|(_, why)| why.contains("two ways"))
        .map(|(line, _)| *line)
        .collect();
    assert_eq!(
        routing,
        [
            line_of(&text, "no TTY, `exclusive = false`"),
            line_of(&text, "| `target = \"assistant\"`, `exclusive = false`"),
        ]
    );
    assert!(a.from.is_empty(), "{:?}", a.from);
}
