//! The text report's pieces against hand-written expectations: the
//! side-by-side columns, the keys under which the requests' sources are
//! compared, and the replay commands' words.

use crate::profile::ProfileName::{self, Legacy, Rfd082};
use crate::review::amend::{shell_word, side_by_side, sources_by_inquiry};
use crate::scenario::{self, Trace};
use crate::wire::{
    Event, EventKind, InquiryAnswerType, InquiryId, InquiryQuestion, InquiryRequest, InquirySource,
};

/// `n` spaces.
fn pad(n: usize) -> String {
    " ".repeat(n)
}

/// Rule: AMEND-DIFF-082 — two columns side by side: a heading line only
/// when a column is named, `*` on each line where the columns differ
/// (a line one column lacks differs), and a line longer than the column's
/// 58 characters cut to 57 and `…` (one of exactly 58 kept whole).
#[test]
fn side_by_side_heads_named_columns_marks_differences_and_cuts_long_lines() {
    let exact = "x".repeat(58);
    let long = "y".repeat(59);
    let cut = "y".repeat(57) + "…";
    let left = ["a".to_owned(), exact.clone(), long.clone(), "b".to_owned()];
    let right = ["a".to_owned(), exact.clone(), long, "c".to_owned()];
    let want = String::new()
        + "  from"
        + &pad(54)
        + " | to\n"
        + "  a"
        + &pad(57)
        + " | a\n"
        + "  "
        + &exact
        + " | "
        + &exact
        + "\n"
        + "  "
        + &cut
        + " | "
        + &cut
        + "\n"
        + "* b"
        + &pad(57)
        + " | c\n";
    assert_eq!(side_by_side("from", &left, "to", &right), want);
    // Unnamed columns have no heading; one name is enough for one.
    let one = ["a".to_owned()];
    assert_eq!(
        side_by_side("", &one, "", &[]),
        "* a".to_owned() + &pad(57) + " | \n"
    );
    assert_eq!(
        side_by_side("", &[], "p", &one),
        "  ".to_owned() + &pad(58) + " | p\n" + "* " + &pad(58) + " | a\n"
    );
    assert_eq!(side_by_side("", &[], "", &[]), "");
}

/// A request from `source` with the ID `id`.
fn request(id: &str, source: &str) -> Event {
    Event::new(EventKind::InquiryRequest(Box::new(InquiryRequest {
        id: InquiryId::from_opaque(id),
        source: InquirySource::tool(source),
        question: InquiryQuestion {
            text: "Apply?".to_owned(),
            answer_type: InquiryAnswerType::Boolean,
            default: None,
            context: None,
            exclusive: false,
            persistence: Default::default(),
        },
    })))
}

/// A run's trace under `profile` with `stream` in place of its own.
fn trace(profile: ProfileName, stream: Vec<Event>) -> Trace {
    let s = crate::explore::scenario_at(crate::explore::Family::Single, 0);
    let mut t = scenario::run(&s).expect("runs");
    t.profile = profile;
    t.stream = stream;
    t
}

/// Rule: AMEND-DIFF-082 — the sources are compared per turn, per ID less
/// its attempt segment (under a profile that writes one), per request in
/// recording order: two attempts of one question in a turn are two keys,
/// counted 1 and 2, and the next turn counts from 1 again.
#[test]
fn sources_are_keyed_by_turn_id_less_attempt_and_order() {
    let tool = |name: &str| serde_json::to_string(&InquirySource::tool(name)).expect("writes");
    let stream = vec![
        Event::new(EventKind::TurnStart),
        request("call_1.q.1", "t"),
        request("call_1.q.2", "u"),
        request("plain", "v"),
        Event::new(EventKind::TurnStart),
        request("call_1.q.1", "w"),
    ];
    let got: Vec<((usize, String, usize), String)> =
        sources_by_inquiry(&trace(Rfd082, stream.clone()))
            .into_iter()
            .collect();
    let key = |turn: usize, id: &str, n: usize| (turn, id.to_owned(), n);
    assert_eq!(
        got,
        vec![
            (key(0, "call_1.q", 1), tool("t")),
            (key(0, "call_1.q", 2), tool("u")),
            (key(0, "plain", 1), tool("v")),
            (key(1, "call_1.q", 1), tool("w")),
        ]
    );
    // A two-segment writer's IDs are kept whole.
    let got: Vec<(usize, String, usize)> = sources_by_inquiry(&trace(Legacy, stream))
        .into_keys()
        .collect();
    assert_eq!(
        got,
        vec![
            key(0, "call_1.q.1", 1),
            key(0, "call_1.q.2", 1),
            key(0, "plain", 1),
            key(1, "call_1.q.1", 1),
        ]
    );
}

/// Rule: AMEND-MINIMAL — a replay command names its rule set as one word a
/// POSIX shell reads back unchanged: a label of plain characters as it is,
/// any other (a space, a quote, a `$`, nothing at all) single-quoted, a
/// quote inside written `'\''`.
#[test]
fn a_replay_commands_label_is_one_shell_word() {
    for (label, word) in [
        ("rfd082", "rfd082"),
        ("spec/profiles/a-b_c.json", "spec/profiles/a-b_c.json"),
        ("x=1,y@2:3+4%", "x=1,y@2:3+4%"),
        ("my rules.json", "'my rules.json'"),
        ("$HOME", "'$HOME'"),
        ("it's", "'it'\\''s'"),
        ("", "''"),
    ] {
        assert_eq!(shell_word(label), word, "{label:?}");
    }
}
