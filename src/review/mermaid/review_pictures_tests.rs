//! Pictures where reviewers look (rule `AMEND-MERMAID`): `run
//! --format mermaid` draws one run as a Mermaid sequence diagram, and
//! `diff-profiles --format markdown` puts each class's smallest scenario's
//! two diagrams side by side with the switches and rules involved. The
//! diagrams are snapshot-tested (`snapshots/` beside this file, reviewed
//! before committing) and checked against the trace they draw. The command
//! line is tested in `tests/suite/tooling/review_pictures.rs`.

use crate::profile::ProfileName::{self, Rfd082, Rfd083};
use crate::review::amend::{self, Class, diff_profiles};
use crate::review::mermaid;
use crate::review::profile_file::{self, RuleSet};
use crate::scenario::{self, Scenario};

fn vector(name: &str) -> Scenario {
    let path = format!("{}/spec/vectors/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("vector")).expect("JSON");
    serde_json::from_value(v["scenario"].clone()).expect("a scenario")
}

fn under(s: &Scenario, p: ProfileName) -> Scenario {
    Scenario {
        profile: p,
        ..s.clone()
    }
}

fn draw(s: &Scenario) -> String {
    mermaid::sequence(s, s.profile.rules()).expect("runs")
}

/// Rule: AMEND-MERMAID — the diagram draws the run it claims: the five
/// participants are declared, every persisted event is one `C->>S` message
/// in stream order, every invocation one `C->>T`, every prompt one `C->>P`,
/// every backend call one `C->>B` (checked on every curated vector under
/// every profile, against the trace's own lists).
#[test]
fn the_diagram_draws_every_event_and_exchange_in_order() {
    let dir = format!("{}/spec/vectors", env!("CARGO_MANIFEST_DIR"));
    let mut drawn = 0;
    for e in std::fs::read_dir(&dir).expect("vectors") {
        let path = e.expect("entry").path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "index" || name.starts_with("generated") {
            continue;
        }
        for p in ProfileName::ALL {
            let s = under(&vector(&name), p);
            let Ok(t) = scenario::run(&s) else {
                continue;
            };
            let d = draw(&s);
            let lines: Vec<&str> = d.lines().collect();
            assert_eq!(lines[0], "sequenceDiagram");
            for (i, who) in [
                "tool",
                "coordinator",
                "prompter",
                "inquiry backend",
                "persisted stream",
            ]
            .iter()
            .enumerate()
            {
                assert!(lines[i + 1].ends_with(&format!(" as {who}")), "{name}");
            }
            let to_stream: Vec<String> = lines
                .iter()
                .filter_map(|l| l.trim().strip_prefix("C->>S: "))
                .map(str::to_owned)
                .collect();
            let want: Vec<String> = t
                .stream
                .iter()
                .map(|e| mermaid::escape(&amend::event_line(e)))
                .collect();
            assert_eq!(to_stream, want, "{name} under {p}");
            let n = |prefix: &str| {
                lines
                    .iter()
                    .filter(|l| l.trim().starts_with(prefix))
                    .count()
            };
            assert_eq!(n("C->>T: invoke "), t.invocations.len(), "{name} {p}");
            assert_eq!(
                n("C->>P: "),
                t.prompts.len() + t.permission_prompts.len(),
                "{name} {p}"
            );
            assert_eq!(n("C->>B: inquire "), t.backend_calls.len(), "{name} {p}");
            drawn += 1;
        }
    }
    assert!(drawn > 100, "{drawn} diagrams");
}

/// Rule: AMEND-MERMAID — message text is one line and cannot end a Mermaid
/// statement or open an HTML tag (hand-written cases).
#[test]
fn message_text_is_escaped() {
    assert_eq!(mermaid::escape("a; b"), "a#59; b");
    assert_eq!(mermaid::escape("<secret>"), "#lt;secret#gt;");
    assert_eq!(mermaid::escape("#1"), "#35;1");
    assert_eq!(mermaid::escape("two\nlines"), "two lines");
    let long = "x".repeat(200);
    assert_eq!(mermaid::escape(&long).chars().count(), 72);
}

/// Rule: AMEND-MERMAID — snapshots: a secret prompted and redacted
/// (rfd083), and the exclusive no-TTY question under rfd082 (sent to the
/// backend) and rfd083 (refused, `no_prompt_backend`).
#[test]
fn run_diagrams_snapshot() {
    insta::assert_snapshot!(
        "secret_prompter_redacted_rfd083",
        draw(&under(&vector("secret-prompter-redacted"), Rfd083))
    );
    let s = vector("guard-exclusive-no-tty");
    insta::assert_snapshot!("guard_exclusive_no_tty_rfd082", draw(&under(&s, Rfd082)));
    insta::assert_snapshot!("guard_exclusive_no_tty_rfd083", draw(&under(&s, Rfd083)));
}

/// Rule: AMEND-MERMAID — `diff-profiles --format markdown`: per class, a
/// heading, the switches and rules, and two fenced `mermaid` blocks side by
/// side, the first `from`'s run and the second `to`'s (snapshot over three
/// curated scenarios that RFD 083 changes).
#[test]
fn diff_markdown_puts_two_diagrams_under_each_class() {
    let corpus: Vec<Scenario> = [
        "guard-exclusive-no-tty",
        "persistence-none-cache-bypass",
        "reason-invalid-static-answer",
    ]
    .iter()
    .map(|n| under(&vector(n), Rfd082))
    .collect();
    let r = diff_profiles(Rfd082, Rfd083, &corpus);
    let md = r.markdown();
    assert!(!r.classes.is_empty());
    for c in &r.classes {
        let at = md
            .find(&format!("#### `{}`", c.class))
            .unwrap_or_else(|| panic!("no section for {}", c.class));
        let section = &md[at..];
        let end = section[4..].find("#### ").map_or(section.len(), |i| i + 4);
        let section = &section[..end];
        assert_eq!(section.matches("```mermaid").count(), 2, "{}", c.class);
        let a = draw(&under(&c.smallest, Rfd082));
        let b = draw(&under(&c.smallest, Rfd083));
        let (ia, ib) = (section.find(&a), section.find(&b));
        assert!(ia.is_some() && ib.is_some() && ia < ib, "{}", c.class);
        assert!(section.contains("Rules: `"), "{}", c.class);
    }
    insta::assert_snapshot!("diff_rfd082_rfd083_markdown", md);
}

/// Rule: AMEND-MERMAID — every class a single flipped switch causes lists
/// that switch among the switches that can cause it, so the "Switches:"
/// line of the Markdown report never omits the cause (each switch flipped
/// alone over rfd082 and over rfd083).
#[test]
fn single_switch_flips_are_attributed_to_their_switch() {
    let corpus = amend::scenarios(97, 80, 3);
    let mut omitted = Vec::new();
    for base in [Rfd082, Rfd083] {
        let rules = base.rules();
        for (k, v) in profile_file::switches_of(&rules) {
            let flipped = match &v {
                serde_json::Value::Bool(b) => serde_json::Value::Bool(!b),
                _ => {
                    // An enum switch: take the legacy value when it differs.
                    let l = profile_file::switches_of(&ProfileName::Legacy.rules())[&k].clone();
                    if l == v {
                        continue;
                    }
                    l
                }
            };
            let text = serde_json::json!({
                "title": "one switch", "amends": "test", "base": base.as_str(),
                "switches": {k.clone(): flipped}
            })
            .to_string();
            let set: RuleSet = profile_file::parse("one.json", &text).expect("reads");
            let r = diff_profiles(base, set, &corpus);
            for c in &r.classes {
                if !class_of(&c.class).switches().contains(&k.as_str()) {
                    omitted.push(format!("{base}: {k} causes {}", c.class));
                }
                assert_eq!(c.switches.as_slice(), std::slice::from_ref(&k));
            }
        }
    }
    assert!(
        omitted.is_empty(),
        "classes whose switches omit their cause:\n{}",
        omitted.join("\n")
    );
}

/// The class named `name` (as `Class::name` writes it).
fn class_of(name: &str) -> Class {
    if let Some(reason) = name.strip_prefix("cancellation_recorded:") {
        return Class::CancellationRecorded(reason.to_owned());
    }
    let all = [
        Class::PrompterAnswerRecorded,
        Class::CachedAnswerRecorded,
        Class::StaticAnswerRecorded,
        Class::StaticAnswerDeliveredLater,
        Class::RedactedRecorded,
        Class::UnpairedRequest,
        Class::IdShape,
        Class::ResponseShape,
        Class::QuestionFields,
        Class::CachedAnswerUsed,
        Class::PromptShown,
        Class::PromptEcho,
        Class::PromptLabel,
        Class::RememberAffordance,
        Class::BackendCalled,
        Class::ToolInvocations,
        Class::ToolResponseText,
        Class::ProvenanceSource,
        Class::RememberedKeys,
    ];
    all.into_iter()
        .find(|c| c.name() == name)
        .unwrap_or_else(|| panic!("no class {name}"))
}

/// The diff from legacy to RFD 083 over one in every 60 scenarios of the
/// small scope plus 150 drawn ones: enough classes that their (minimal)
/// examples pass the Markdown limit together.
fn legacy_to_rfd083() -> amend::DiffReport {
    diff_profiles(ProfileName::Legacy, Rfd083, &amend::scenarios(60, 150, 1))
}

/// Rule: AMEND-MERMAID — the README's reviewer example, `diff-profiles
/// --from rfd082 --to rfd083 --format markdown`, fits a pull-request comment
/// (65 536 characters): under 60 000 by default, the summary table first
/// with a row per class, every class's heading kept, the diagrams of the
/// classes that do not fit left out with a note saying so. Measured here
/// on one in every 60 scenarios of the small scope plus 150 drawn ones (the
/// README's full run, stride 7 and 1 000 drawn, takes a minute in release:
/// too slow for `make test`); on this corpus the unbounded report is over
/// the limit, so the bound is what keeps it under.
#[test]
fn diff_markdown_fits_a_pull_request_comment() {
    let r = legacy_to_rfd083();
    let all = r.markdown_within(None);
    assert!(all.len() > amend::MARKDOWN_LIMIT, "{}", all.len());
    let md = r.markdown();
    assert!(md.chars().count() < 60_000, "{}", md.chars().count());
    let table = md.find("| class |").expect("a summary table");
    let first_heading = md.find("#### ").expect("class headings");
    assert!(table < first_heading, "the summary table comes first");
    for c in &r.classes {
        assert!(md.contains(&format!("| `{}` |", c.class)), "{}", c.class);
        assert!(md.contains(&format!("#### `{}`", c.class)), "{}", c.class);
    }
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count()
    );
    assert!(md.contains("are left out to keep this report under 60000 characters"));
    assert!(!all.contains("are left out"));
    assert_eq!(all.matches("```mermaid").count(), 2 * r.classes.len());
}

/// Rule: AMEND-MERMAID — `--max-chars N` is a bound at every `N` the
/// report can meet (its heading, table and class lines are always kept):
/// the report never passes it, some bounds keep some classes' details
/// and not others, and with room for every class's details and the
/// closing note's reserve nothing is left out.
#[test]
fn the_markdown_bound_holds_at_every_limit_and_leaves_out_nothing_that_fits() {
    let r = legacy_to_rfd083();
    let all = r.markdown_within(None);
    // Every class's details left out: what any bound must leave room for.
    let least = r.markdown_within(Some(1)).len() + 16;
    assert!(least < all.len(), "{least} against {}", all.len());
    let roomy = all.len() + amend::MARKDOWN_NOTE;
    assert_eq!(r.markdown_within(Some(roomy)), all);
    let mut partial = 0;
    for limit in (least..roomy).step_by(53).chain([roomy - 1]) {
        let md = r.markdown_within(Some(limit));
        assert!(
            md.len() <= limit,
            "{} characters under a bound of {limit}",
            md.len()
        );
        let details = md.matches("<details>").count();
        partial += usize::from(details > 0 && details < r.classes.len());
    }
    assert!(
        partial > 0,
        "no bound kept some classes' details and not others"
    );
}

/// Rule: AMEND-MERMAID — a profile file's `title`, `amends` and
/// `description` appear in every format of the diff report (text,
/// Markdown, JSON); a built-in has none to show.
#[test]
fn diff_reports_name_the_profile_file_title_and_description() {
    let rel = "spec/profiles/examples/rfd083-over-rfd082.json";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let to = profile_file::parse(rel, &std::fs::read_to_string(&path).unwrap()).unwrap();
    let corpus = vec![under(&vector("guard-exclusive-no-tty"), Rfd082)];
    let r = diff_profiles(Rfd082, to, &corpus);
    let json = serde_json::to_value(&r).unwrap();
    let (text, md) = (r.text(), r.markdown());
    for field in ["title", "amends", "description"] {
        let want = file[field].as_str().unwrap();
        assert!(text.contains(want), "text lacks {field}:\n{text}");
        assert!(md.contains(want), "markdown lacks {field}:\n{md}");
        assert_eq!(json["to_about"][field], want, "json {field}");
    }
    // A blank line ends the list of profile files: the summary after it
    // is a paragraph of its own, not the list item's continuation.
    let about = md
        .lines()
        .position(|l| l.starts_with("- `"))
        .expect("the file's line");
    assert_eq!(md.lines().nth(about + 1), Some(""), "{md}");
    assert!(json["from_about"].is_null());
}
