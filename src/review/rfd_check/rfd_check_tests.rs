//! `rfd-check` (rule `AMEND-RFD-CHECK`): an RFD's decision
//! tables and JSON examples against a profile. The RFD text comes from
//! verbatim excerpts committed in `tests/rfd/`; the project's whole RFD
//! texts are checked too when `INQUIRY_MODEL_RFDS` names their folder.
//! The command line is tested in `tests/suite/tooling/rfd_check.rs`.

use crate::external;
use crate::profile::ProfileName::{self, Legacy, Rfd082, Rfd083};
use crate::review::profile_file::{self, RuleSet};
use crate::review::rfd_check::{self, RfdReport, TableKind, Verdict, check};

const RFD082: &str = "tests/rfd/rfd082-excerpt.md";
const RFD083: &str = "tests/rfd/rfd083-excerpt.md";

fn read(rel: &str) -> String {
    std::fs::read_to_string(external::root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn set(p: ProfileName) -> RuleSet {
    p.into()
}

/// `(table kind, row)` of every disagreeing row.
fn disagreeing(r: &RfdReport) -> Vec<(TableKind, usize)> {
    r.tables
        .iter()
        .flat_map(|t| {
            t.rows
                .iter()
                .filter(|row| matches!(row.verdict, Verdict::Disagrees { .. }))
                .map(move |row| (t.kind.expect("rows only in mapped tables"), row.row))
        })
        .collect()
}

/// Rule: AMEND-RFD-CHECK — RFD 083 checked against `rfd082` flags exactly
/// the rows RFD 083 changes: the two `exclusive = true` rows of the
/// resolution precedence (rows 4 and 6) and the three rows of its
/// "Persisted recording" reason table; against `rfd083` (and RFD 083
/// written as a file over `rfd082`) it is clean.
#[test]
fn rfd083_against_rfd082_flags_exactly_the_rows_083_changes() {
    let text = read(RFD083);
    let r = check(&text, &set(Rfd082));
    assert_eq!(
        disagreeing(&r),
        [
            (TableKind::CancellationReasons, 1),
            (TableKind::CancellationReasons, 2),
            (TableKind::CancellationReasons, 3),
            (TableKind::RoutingPrecedence, 4),
            (TableKind::RoutingPrecedence, 6),
        ]
    );
    let precedence = r
        .tables
        .iter()
        .find(|t| t.kind == Some(TableKind::RoutingPrecedence))
        .expect("the precedence table is read");
    assert_eq!(precedence.rows.len(), 6);
    assert!(precedence.rows[3].rules.contains(&"LIFE-GUARD-EXCLUSIVE"));
    assert_eq!(check(&text, &set(Rfd083)).disagreements(), 0);
    let file = profile_file::parse(
        "rfd083-over-rfd082.json",
        &read("spec/profiles/examples/rfd083-over-rfd082.json"),
    )
    .expect("reads");
    assert_eq!(check(&text, &file).disagreements(), 0);
}

/// The excerpt with rows `a` and `b` (1-based) of the precedence table
/// swapped.
fn swap_precedence_rows(text: &str, a: usize, b: usize) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("| Configuration"))
        .expect("the precedence table");
    // Header, rule, then the rows.
    lines.swap(header + 1 + a, header + 1 + b);
    lines.join("\n") + "\n"
}

/// Rule: AMEND-RFD-CHECK — an edited copy whose precedence table swaps its
/// first two rows (the configured answer now loses to the TTY prompt) is
/// reported at exactly those two rows: the one that now wins wrongly and
/// the one that lost its precedence.
#[test]
fn swapped_precedence_rows_are_reported_exactly() {
    let edited = swap_precedence_rows(&read(RFD083), 1, 2);
    let r = check(&edited, &set(Rfd083));
    assert_eq!(
        disagreeing(&r),
        [
            (TableKind::RoutingPrecedence, 1),
            (TableKind::RoutingPrecedence, 2),
        ]
    );
    // Rows that do not overlap may swap freely: first match decides the
    // same.
    let disjoint = swap_precedence_rows(&read(RFD083), 3, 4);
    assert_eq!(check(&disjoint, &set(Rfd083)).disagreements(), 0);
    // An outcome edited in place is that row alone.
    let edited = read(RFD083).replacen(
        "| `target = \"assistant\"`, `exclusive = false`    | Route to inquiry backend (existing behavior).        |",
        "| `target = \"assistant\"`, `exclusive = false`    | Prompt the user.                                      |",
        1,
    );
    assert_eq!(
        disagreeing(&check(&edited, &set(Rfd083))),
        [(TableKind::RoutingPrecedence, 5)]
    );
}

/// Rule: AMEND-RFD-CHECK — RFD 082's reflowed reason table is read row by
/// row (the continuation line of `InquiryError::Cancelled` joins its row):
/// eight rows, all agreeing under `rfd082` and `rfd083`, all disagreeing
/// under `legacy` (which records no `cancelled` response); its JSON
/// examples read and write back as shown.
#[test]
fn rfd082_reason_table_and_examples() {
    let text = read(RFD082);
    let r = check(&text, &set(Rfd082));
    assert_eq!(r.disagreements(), 0, "{}", r.text(RFD082));
    let reasons = r
        .tables
        .iter()
        .find(|t| t.kind == Some(TableKind::CancellationReasons))
        .expect("the reason table is read");
    assert_eq!(reasons.rows.len(), 8, "{:?}", reasons.rows);
    assert!(
        reasons.rows[1].cells[0].contains("hard quit"),
        "continuation joined: {:?}",
        reasons.rows[1]
    );
    assert!(
        reasons
            .rows
            .iter()
            .all(|row| row.verdict == Verdict::Agrees)
    );
    let agreeing = r
        .examples
        .iter()
        .filter(|e| e.verdict == Verdict::Agrees)
        .count();
    assert_eq!(agreeing, 8, "seven tagged responses and the legacy one");
    assert_eq!(check(&text, &set(Rfd083)).disagreements(), 0);
    let legacy = check(&text, &set(Legacy));
    assert_eq!(
        disagreeing(&legacy),
        (1..=8)
            .map(|i| (TableKind::CancellationReasons, i))
            .collect::<Vec<_>>()
    );
}

/// Rule: AMEND-RFD-CHECK — an example written in another key order than
/// the writer's is reported (it does not write back as shown), and only
/// that one.
#[test]
fn an_example_that_does_not_write_back_is_reported() {
    let text = read(RFD082).replacen(
        "{\n  \"outcome\": \"redacted\",\n  \"id\": \"call_1.passphrase.1\"\n}",
        "{\n  \"id\": \"call_1.passphrase.1\",\n  \"outcome\": \"redacted\"\n}",
        1,
    );
    let r = check(&text, &set(Rfd082));
    let bad: Vec<_> = r
        .examples
        .iter()
        .filter(|e| matches!(e.verdict, Verdict::Disagrees { .. }))
        .collect();
    assert_eq!(bad.len(), 1, "{}", r.text("edited"));
    assert_eq!(bad[0].index, 7);
    assert_eq!(bad[0].rules, ["WIRE-RESP-TAGGED"]);
}

/// Rule: AMEND-RFD-CHECK — a table or row the model cannot map is "not
/// checked", never agreement (hand-written tables).
#[test]
fn unmapped_tables_and_rows_are_not_checked() {
    let text = "# T\n\n| Configuration | Routing outcome |\n| --- | --- |\n| `QuestionConfig.answer` set | Use the configured answer. |\n| the moon is full | Dance. |\n| `target = \"user\"`, TTY available | Prompt the user. |\n\n| Goal | Description |\n| --- | --- |\n| a | b |\n";
    let r = check(text, &set(Rfd083));
    assert_eq!(r.tables.len(), 2);
    assert_eq!(r.tables[0].rows[0].verdict, Verdict::Agrees);
    // The unmapped row, and the row after it (first match cannot say what
    // it decides).
    for row in &r.tables[0].rows[1..] {
        assert!(matches!(row.verdict, Verdict::NotChecked { .. }), "{row:?}");
    }
    assert_eq!(r.tables[1].kind, None);
    assert!(r.tables[1].rows.is_empty());
    let report = r.text("t.md");
    assert!(
        report.contains("t.md:9: table (Goal | Description)"),
        "{report}"
    );
    assert!(
        report.contains("1 agree, 0 disagree, 3 not checked"),
        "{report}"
    );
    // A reflowed table reads as the same rows.
    let reflowed = "| Configuration | Routing outcome | |\n---- |\n---- | | `target = \"user\"`, TTY | Prompt the | | available | | | the moon is full | Dance. | |\n";
    let t = rfd_check::tables(reflowed);
    assert_eq!(
        t[0].rows,
        [
            vec![
                "`target = \"user\"`, TTY available".to_owned(),
                "Prompt the".to_owned()
            ],
            vec!["the moon is full".to_owned(), "Dance.".to_owned()],
        ]
    );
}

/// Rule: AMEND-RFD-CHECK — the project's own RFD texts check clean against
/// their profiles (RFD 082 against `rfd082`, RFD 083 against `rfd083`, the
/// RFD 004/005 draft and RFD 028 against `legacy`), read from the folder
/// `INQUIRY_MODEL_RFDS` names; skipped when it is unset.
#[test]
fn project_rfds_check_clean_against_their_profiles() {
    let Some(dir) = external::rfds("rfd_check::project_rfds_check_clean_against_their_profiles")
    else {
        return;
    };
    for (file, profile) in [
        ("000_d985dc4a01ca8a03.txt", "rfd082"),
        ("003_b512057d08f923a0.txt", "rfd083"),
        ("002_391791dea807fe5a.txt", "legacy"),
        ("004_338892cdbba9236b.txt", "legacy"),
    ] {
        let text = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()));
        let p: RuleSet = profile.parse::<ProfileName>().expect("a profile").into();
        let r = check(&text, &p);
        assert_eq!(r.disagreements(), 0, "{}", r.text(file));
    }
}

/// Rule: AMEND-RFD-CHECK — tables of the remember rules and the cache
/// bypass (a hand-written amendment: the RFDs state them in prose) agree
/// with `rfd083`; under `rfd082` (no persistence gate) exactly the
/// `persistence: none` rows disagree; under `legacy` (no secret type) the
/// secret cache row disagrees too.
#[test]
fn remember_and_cache_tables_are_checked_row_by_row() {
    let text = read("tests/rfd/reuse-amendment.md");
    let r = check(&text, &set(Rfd083));
    let kinds: Vec<Option<TableKind>> = r.tables.iter().map(|t| t.kind).collect();
    assert_eq!(
        kinds,
        [Some(TableKind::RememberRules), Some(TableKind::CacheBypass)]
    );
    assert_eq!(r.disagreements(), 0, "{}", r.text("reuse"));
    assert_eq!(
        disagreeing(&check(&text, &set(Rfd082))),
        [
            (TableKind::RememberRules, 2),
            (TableKind::CacheBypass, 3),
            (TableKind::CacheBypass, 4),
        ]
    );
    assert_eq!(
        disagreeing(&check(&text, &set(Legacy))),
        [
            (TableKind::RememberRules, 2),
            (TableKind::CacheBypass, 1),
            (TableKind::CacheBypass, 3),
            (TableKind::CacheBypass, 4),
        ]
    );
}

/// Rule: AMEND-RFD-CHECK — each row is reported at its own line of the RFD
/// text (the line its first cell starts on, found here by searching the
/// text for the cell), not at its table's first line; the text report lists
/// rows, tables and examples in line order.
#[test]
fn rows_are_reported_at_their_own_line_in_line_order() {
    let text = read(RFD082);
    let r = check(&text, &set(Rfd082));
    let reasons = r
        .tables
        .iter()
        .find(|t| t.kind == Some(TableKind::CancellationReasons))
        .expect("the reason table is read");
    let lines: Vec<&str> = text.lines().collect();
    let mut from = reasons.line - 1;
    for row in &reasons.rows {
        let start: String = row.cells[0].chars().take(30).collect();
        let found = (from..lines.len())
            .find(|&i| lines[i].contains(start.as_str()))
            .map(|i| i + 1);
        assert_eq!(Some(row.line), found, "row {} `{start}`", row.row);
        from = row.line - 1;
    }
    assert!(reasons.rows.iter().any(|row| row.line > reasons.line + 2));
    let report = r.text(RFD082);
    let at: Vec<usize> = report
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{RFD082}:")))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect();
    assert!(at.len() > reasons.rows.len(), "{report}");
    assert!(at.windows(2).all(|w| w[0] <= w[1]), "{at:?}\n{report}");
    // An example above a table comes first.
    let text = "# T\n\n```json\n{\"type\": \"turn_start\"}\n```\n\n\
                | Originating event | `reason` |\n| --- | --- |\n\
                | `ExecutionEvent::PromptCancelled` | `User` |\n";
    let small = check(text, &set(Rfd082)).text("t.md");
    // The example at its own line, the one after the fence.
    let example = small.find("t.md:4: example").expect(&small);
    let row = small
        .find("t.md:9: cancellation reasons row 1")
        .expect(&small);
    assert!(example < row, "{small}");
    for row in &reasons.rows {
        assert!(
            report.contains(&format!(
                "{RFD082}:{}: cancellation reasons row {} ",
                row.line, row.row
            )),
            "{report}"
        );
    }
}
