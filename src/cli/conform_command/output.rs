//! `conform`'s report as text, JSON (version [`CONFORM_JSON_VERSION`]) or
//! JUnit XML. Pure: each builds the whole document as a string.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{CONFORM_JSON_VERSION, Header};
use crate::conformance::Failure;
use crate::conformance::run::{
    CaseId, CaseResult, Group, Outcome, RunReport, SIZE_MEANS, Shrink, ShrinkEnd,
};
use crate::generate::scenario::size;

fn end_text(end: ShrinkEnd) -> &'static str {
    match end {
        ShrinkEnd::Done => "no smaller scenario fails the same way",
        ShrinkEnd::StepBudget => "the shrink budget ran out",
        ShrinkEnd::TimeLimit => "the scenario's time limit ran out",
        ShrinkEnd::RunBudget => "its share of the shrinking budget (adapter runs) ran out",
        ShrinkEnd::Stopped => "the run was stopped",
        ShrinkEnd::Off => "shrinking is off",
    }
}

/// How a group's example was found, in one line.
fn example_line(g: &Group) -> String {
    let n = size(&g.example.scenario);
    match &g.shrink {
        None => format!("smallest example: {} (size {n})", g.example_case),
        Some(s) if s.end == ShrinkEnd::Off => {
            format!(
                "smallest example: {} (size {n}; not shrunk: {})",
                g.example_case,
                end_text(s.end)
            )
        }
        Some(s) => {
            let mut line = format!(
                "smallest example: {}, shrunk from size {} to size {n} in {} ({}, {:.1} s; {})",
                g.example_case,
                s.from_size,
                count(s.steps as usize, "step"),
                count(s.adapter_runs as usize, "adapter run"),
                s.seconds,
                end_text(s.end)
            );
            if !s.dropped_tools.is_empty() {
                let _ = write!(line, "; tools dropped: {}", s.dropped_tools.join(", "));
            }
            if !s.unused_removed.is_empty() {
                let _ = write!(line, "; unused, removed: {}", s.unused_removed.join(", "));
            }
            line
        }
    }
}

/// What a group's failures showed first: `stream/inquiry_request 3,
/// invocations 1`.
fn kinds_line(g: &Group) -> String {
    g.kinds
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What shrinking spent, in one line.
fn shrink_spent_line(r: &RunReport) -> String {
    format!(
        "shrinking spent {} of a budget of {} ({:.1} s); the cases took {}",
        count(r.shrinking.adapter_runs as usize, "adapter run"),
        r.shrinking.budget,
        r.shrinking.seconds,
        count(r.adapter_runs as usize, "adapter run")
    )
}

use crate::words::count;

/// The text report: what ran, then per kind of failure its count and
/// smallest example, the harness errors, the list of failing scenarios and
/// the totals.
pub(crate) fn text(h: &Header, r: &RunReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "adapter: {} (profiles: {}; language: {}; scheduler: {})",
        h.adapter,
        h.profiles
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        h.language,
        h.scheduler
    );
    if let Some(a) = &h.amendment {
        let _ = writeln!(o, "amendment: {}", a.line());
    }
    for n in &h.not_compared {
        let _ = writeln!(o, "not compared: {n}");
    }
    if let Some(shard) = h.shard {
        let _ = writeln!(
            o,
            "shard {shard}: the cases at positions {} mod {} of the whole run",
            shard.index, shard.count
        );
    }
    if let Some(from) = &h.vectors_from {
        let (run, failed, declined) = tally_skipped(r, |c| matches!(c, CaseId::Vector { .. }));
        let _ = writeln!(
            o,
            "vectors ({from}): {run} run, {failed} failed{}, {} skipped (profile), {} skipped (outside the core language)",
            declined_note(declined),
            h.skipped_profile.len(),
            h.skipped_language.len()
        );
        if let Some(summary) = &h.pinned_summary {
            let _ = writeln!(o, "vectors: {summary}");
        }
    }
    let (n, seed) = h.generated;
    if n > 0 {
        for p in &h.profiles {
            let (run, failed, declined) = tally_skipped(
                r,
                |c| matches!(c, CaseId::Generated { profile, .. } if profile == p),
            );
            if failed == 0 && declined == 0 && run == n as usize && h.shard.is_none() {
                let _ = writeln!(o, "generated {p}: {run} passed (seed {seed})");
            } else {
                let of = match h.shard {
                    None => format!(" of {n}"),
                    Some(shard) => format!(" of {n} (shard {shard})"),
                };
                let _ = writeln!(
                    o,
                    "generated {p}: {run}{of} run, {failed} failed{} (seed {seed})",
                    declined_note(declined)
                );
            }
        }
    }
    if !r.groups.is_empty() {
        let _ = writeln!(
            o,
            "\n{} of failure, one per root cause, largest first (size counts {SIZE_MEANS}):",
            count(r.groups.len(), "group")
        );
    }
    for g in &r.groups {
        let vectors = g
            .cases
            .iter()
            .filter(|c| matches!(c, CaseId::Vector { .. }))
            .count();
        let _ = writeln!(
            o,
            "\n== {}: {} ({}, {} generated; first difference: {})",
            g.signature,
            count(g.cases.len(), "failure"),
            count(vectors, "vector"),
            g.cases.len() - vectors,
            kinds_line(g)
        );
        let _ = writeln!(o, "{}", example_line(g));
        let _ = writeln!(o, "FAIL {}", g.example);
    }
    let harness: Vec<_> = r
        .outcomes
        .iter()
        .filter_map(|o| match &o.result {
            CaseResult::HarnessError { error, scenario } => Some((&o.case, error, scenario)),
            CaseResult::Passed | CaseResult::Failed(_) | CaseResult::Unsupported { .. } => None,
        })
        .collect();
    let declined: Vec<_> = unsupported(r).collect();
    if !declined.is_empty() {
        let _ = writeln!(
            o,
            "\nskipped, unsupported by the adapter's environment (not passed):"
        );
        for (case, reason) in &declined {
            let _ = writeln!(o, "SKIP {case}: {reason}");
        }
    }
    if !harness.is_empty() {
        let _ = writeln!(
            o,
            "\nharness errors (the harness could not judge these; not the implementation's fault):"
        );
        for (case, error, scenario) in &harness {
            let _ = writeln!(o, "ERROR {case}: {error}");
            if let Some(s) = scenario {
                let _ = writeln!(
                    o,
                    "scenario: {}",
                    serde_json::to_string(s).unwrap_or_default()
                );
            }
        }
    }
    let failing: Vec<_> = failures(r).collect();
    if !failing.is_empty() {
        let _ = writeln!(o, "\nfailing scenarios:");
        for (case, f) in &failing {
            let _ = writeln!(
                o,
                "  {case}: {} ({})",
                f.verdict.signature(),
                f.verdict.kind()
            );
        }
    }
    if !r.groups.is_empty() {
        let _ = writeln!(o, "\n{}", shrink_spent_line(r));
    }
    if r.stopped {
        let _ = writeln!(
            o,
            "\nstopped before the end: {} of the scenarios ran",
            r.outcomes.len()
        );
    }
    if !h.not_run.is_empty() {
        let _ = writeln!(
            o,
            "not run: {} ({})",
            count(h.not_run.len(), "case"),
            h.not_run_why.as_deref().unwrap_or("the run was stopped")
        );
    }
    let skipped = declined_note(r.unsupported());
    let _ = writeln!(
        o,
        "\n{} run: {} passed, {} failed{skipped}, {} ({:.1} s)",
        r.outcomes.len(),
        r.passed(),
        r.failed(),
        count(r.harness_errors(), "harness error"),
        r.seconds
    );
    if r.harness_errors() > 0 {
        let _ = writeln!(o, "HARNESS ERROR");
    } else if r.failed() > 0 {
        let _ = writeln!(o, "FAILED: {}", r.failed());
    } else if r.stopped {
        let _ = writeln!(o, "STOPPED");
    } else if r.passed() == 0 {
        let _ = writeln!(o, "NO VERDICT: every case was skipped");
    } else {
        let _ = writeln!(o, "PASS");
    }
    o
}

/// `--format github`: one GitHub Actions `::error` annotation per root
/// cause of failure (its signature the title; the count, the kinds of first
/// difference and the smallest example the message) and one per harness
/// error, then the text report, so the job's log keeps the summary and the
/// exit code stays the verdict's. No file is named: a case is a scenario,
/// not a line of the repository.
pub(crate) fn github(h: &Header, r: &RunReport) -> String {
    use crate::cli::github::{Annotation, Level, command};
    let mut o = String::new();
    for g in &r.groups {
        let title = format!("conform: {}", g.signature);
        let message = format!(
            "{} (first difference: {})\n{}\nFAIL {}",
            count(g.cases.len(), "failure"),
            kinds_line(g),
            example_line(g),
            g.example
        );
        let a = Annotation {
            title: &title,
            message: &message,
            ..Annotation::default()
        };
        let _ = writeln!(o, "{}", command(Level::Error, &a));
    }
    for out in &r.outcomes {
        match &out.result {
            CaseResult::HarnessError { error, .. } => {
                let title = format!("conform: harness error on {}", out.case);
                let message = error.to_string();
                let a = Annotation {
                    title: &title,
                    message: &message,
                    ..Annotation::default()
                };
                let _ = writeln!(o, "{}", command(Level::Error, &a));
            }
            CaseResult::Passed | CaseResult::Failed(_) | CaseResult::Unsupported { .. } => {}
        }
    }
    o.push_str(&text(h, r));
    o
}

/// Cases run, failed and declined as unsupported, of those `which` holds.
fn tally_skipped(r: &RunReport, which: impl Fn(&CaseId) -> bool) -> (usize, usize, usize) {
    let of: Vec<_> = r.outcomes.iter().filter(|o| which(&o.case)).collect();
    let failed = of
        .iter()
        .filter(|o| matches!(o.result, CaseResult::Failed(_)))
        .count();
    let declined = of
        .iter()
        .filter(|o| matches!(o.result, CaseResult::Unsupported { .. }))
        .count();
    (of.len(), failed, declined)
}

/// `, N skipped (unsupported)` when N > 0.
fn declined_note(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(", {n} skipped (unsupported)"),
    }
}

fn failures(r: &RunReport) -> impl Iterator<Item = (&CaseId, &Failure)> {
    r.outcomes.iter().filter_map(|o| match &o.result {
        CaseResult::Failed(f) => Some((&o.case, f)),
        CaseResult::Passed | CaseResult::HarnessError { .. } | CaseResult::Unsupported { .. } => {
            None
        }
    })
}

/// The cases declined as unsupported, with why.
fn unsupported(r: &RunReport) -> impl Iterator<Item = (&CaseId, &str)> {
    r.outcomes.iter().filter_map(|o| match &o.result {
        CaseResult::Unsupported { reason } => Some((&o.case, reason.as_str())),
        CaseResult::Passed | CaseResult::HarnessError { .. } | CaseResult::Failed(_) => None,
    })
}

fn shrink_json(s: &Shrink) -> Value {
    json!({
        "from_size": s.from_size,
        "steps": s.steps,
        "adapter_runs": s.adapter_runs,
        "allowance": s.allowance,
        "seconds": s.seconds,
        "dropped_tools": s.dropped_tools,
        "unused_removed": s.unused_removed,
        "end": s.end,
    })
}

/// The JSON report (version [`CONFORM_JSON_VERSION`], one document ending
/// in a newline).
pub(crate) fn json(h: &Header, r: &RunReport) -> String {
    let groups: Vec<Value> = r
        .groups
        .iter()
        .map(|g| {
            json!({
                "signature": g.signature,
                "kind": g.kind,
                "kinds": g.kinds.iter().map(|(k, n)| json!({"kind": k, "count": n})).collect::<Vec<_>>(),
                "count": g.cases.len(),
                "cases": g.cases,
                "example": {
                    "case": g.example_case,
                    "size": size(&g.example.scenario),
                    "verdict": g.example.verdict,
                    "scenario": g.example.scenario,
                    "side_by_side": g.example.side_by_side,
                },
                "shrink": g.shrink.as_ref().map(shrink_json),
            })
        })
        .collect();
    let failing: Vec<Value> = failures(r)
        .map(|(case, f)| {
            json!({"case": case, "signature": f.verdict.signature(), "kind": f.verdict.kind()})
        })
        .collect();
    let harness: Vec<Value> = r
        .outcomes
        .iter()
        .filter_map(|o| match &o.result {
            CaseResult::HarnessError { error, scenario } => {
                Some(json!({"case": o.case, "error": error, "scenario": scenario}))
            }
            CaseResult::Passed | CaseResult::Failed(_) | CaseResult::Unsupported { .. } => None,
        })
        .collect();
    let declined: Vec<Value> = unsupported(r)
        .map(|(case, reason)| json!({"case": case, "reason": reason}))
        .collect();
    let doc = json!({
        "version": CONFORM_JSON_VERSION,
        "adapter": {
            "name": h.adapter,
            "profiles": h.profiles,
            "language": h.language,
            "scheduler": h.scheduler,
        },
        "not_compared": h.not_compared,
        "amendment": h.amendment.as_ref().map(|a| json!({
            "file": a.file,
            "announced": a.announced,
            "adapter_declares": a.declared,
            "judged_against": a.judged_against(),
        })),
        "vectors": h.vectors_from.as_ref().map(|from| json!({
            "from": from,
            "skipped_profile": h.skipped_profile,
            "skipped_language": h.skipped_language,
            "skipped_pinned": h.skipped_pinned,
        })),
        "generated": {"per_profile": h.generated.0, "seed": h.generated.1},
        "shard": h.shard.map(|s| s.to_string()),
        "size_counts": SIZE_MEANS,
        "summary": {
            "run": r.outcomes.len(),
            "passed": r.passed(),
            "failed": r.failed(),
            "harness_errors": r.harness_errors(),
            "unsupported": r.unsupported(),
            "not_run": h.not_run.len(),
            "stopped": r.stopped,
            "seconds": r.seconds,
            "adapter_runs": r.adapter_runs,
        },
        "shrinking": {
            "adapter_runs": r.shrinking.adapter_runs,
            "budget": r.shrinking.budget,
            "seconds": r.shrinking.seconds,
        },
        "groups": groups,
        "failing": failing,
        "harness_errors": harness,
        "unsupported": declined,
        "not_run": {"why": h.not_run_why, "cases": h.not_run},
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// `s` as XML character data or attribute value: the five markup
/// characters as entities, and the characters XML 1.0 does not allow
/// (controls other than tab, line feed and carriage return; U+FFFE and
/// U+FFFF) as `U+XXXX` text, since no escape can carry them.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "U+{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The `<skipped>` message of a case that did not run.
fn not_run_message(h: &Header) -> &'static str {
    match h.not_run_why.as_deref() {
        Some(why) if why.starts_with("given up") => "not run: the run gave up on the adapter",
        Some(_) | None => "not run: the run was stopped",
    }
}

/// A `<testsuite>`: its name, its cases run, its skipped vectors (name,
/// why).
type Suite<'a> = (String, Vec<&'a Outcome>, Vec<(String, &'static str)>);

/// A suite's `<properties>`: the run's adapter runs and what shrinking
/// spent, and one `not_compared` property per thing the run does not
/// compare.
fn properties(o: &mut String, h: &Header, r: &RunReport) {
    o.push_str("    <properties>\n");
    for (name, value) in [
        ("run.adapter_runs", r.adapter_runs.to_string()),
        (
            "shrinking.adapter_runs",
            r.shrinking.adapter_runs.to_string(),
        ),
        ("shrinking.budget", r.shrinking.budget.to_string()),
        ("shrinking.seconds", format!("{:.3}", r.shrinking.seconds)),
    ] {
        let _ = writeln!(o, "      <property name=\"{name}\" value=\"{value}\"/>");
    }
    for n in &h.not_compared {
        let _ = writeln!(
            o,
            "      <property name=\"not_compared\" value=\"{}\"/>",
            xml_escape(&n.to_string())
        );
    }
    if let Some(a) = &h.amendment {
        for (name, value) in [
            ("amendment", a.file.clone()),
            (
                "amendment.announced",
                serde_json::to_string(&a.announced).unwrap_or_default(),
            ),
            ("amendment.adapter_declares", a.declared.to_string()),
            ("amendment.judged_against", a.judged_against().to_owned()),
        ] {
            let _ = writeln!(
                o,
                "      <property name=\"{name}\" value=\"{}\"/>",
                xml_escape(&value)
            );
        }
    }
    o.push_str("    </properties>\n");
}

/// One `<testcase>` element.
fn testcase(o: &mut String, suite: &str, name: &str, seconds: f64, body: &str) {
    let _ = write!(
        o,
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{seconds:.3}\"",
        xml_escape(suite),
        xml_escape(name)
    );
    if body.is_empty() {
        o.push_str("/>\n");
    } else {
        let _ = write!(o, ">\n{body}    </testcase>\n");
    }
}

/// The JUnit XML report: one `<testsuite>` for the vectors and one per
/// generated profile, one `<testcase>` per vector or generated scenario
/// (skipped vectors as skipped cases); every `<testsuite>` carries the
/// run's adapter runs and what shrinking spent as properties. A failure's
/// `<failure>` is typed by its signature (its group) and carries its
/// verdict (its kind on the message's first line), scenario and both sides; the case a group's example was
/// shrunk from also carries the shrunk scenario. A harness error is an
/// `<error>`.
pub(crate) fn junit(h: &Header, r: &RunReport) -> String {
    let example_of = |case: &CaseId| r.groups.iter().find(|g| &g.example_case == case);
    let mut suites: Vec<Suite> = Vec::new();
    if h.vectors_from.is_some() {
        let skipped = h
            .skipped_profile
            .iter()
            .map(|n| (n.clone(), "profile not implemented by the adapter"))
            .chain(
                h.skipped_language
                    .iter()
                    .map(|n| (n.clone(), "outside the core scenario language")),
            )
            .chain(
                h.skipped_pinned
                    .iter()
                    .map(|n| (n.clone(), "pins a model decision the run opted out of")),
            )
            .collect();
        let mut skipped: Vec<(String, &'static str)> = skipped;
        skipped.extend(h.not_run.iter().filter_map(|c| match c {
            CaseId::Vector { name } => Some((name.clone(), not_run_message(h))),
            CaseId::Generated { .. } => None,
        }));
        suites.push((
            "vectors".to_owned(),
            r.outcomes
                .iter()
                .filter(|o| matches!(o.case, CaseId::Vector { .. }))
                .collect(),
            skipped,
        ));
    }
    if h.generated.0 > 0 {
        for p in &h.profiles {
            suites.push((
                format!("generated {p} seed {}", h.generated.1),
                r.outcomes
                    .iter()
                    .filter(
                        |o| matches!(&o.case, CaseId::Generated { profile, .. } if profile == p),
                    )
                    .collect(),
                h.not_run
                    .iter()
                    .filter_map(|c| match c {
                        CaseId::Generated { profile, index, .. } if profile == p => {
                            Some((format!("case {index}"), not_run_message(h)))
                        }
                        CaseId::Generated { .. } | CaseId::Vector { .. } => None,
                    })
                    .collect(),
            ));
        }
    }
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        o,
        "<testsuites name=\"inquiry-model conform\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
        r.outcomes.len()
            + h.skipped_profile.len()
            + h.skipped_language.len()
            + h.skipped_pinned.len()
            + h.not_run.len(),
        r.failed(),
        r.harness_errors(),
        r.seconds
    );
    for (suite, outcomes, skipped) in &suites {
        let failed = outcomes
            .iter()
            .filter(|o| matches!(o.result, CaseResult::Failed(_)))
            .count();
        let errors = outcomes
            .iter()
            .filter(|o| matches!(o.result, CaseResult::HarnessError { .. }))
            .count();
        let declined = outcomes
            .iter()
            .filter(|o| matches!(o.result, CaseResult::Unsupported { .. }))
            .count();
        let time: f64 = outcomes.iter().map(|o| o.seconds).sum();
        let _ = writeln!(
            o,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"{errors}\" skipped=\"{}\" time=\"{time:.3}\">",
            xml_escape(suite),
            outcomes.len() + skipped.len(),
            skipped.len() + declined
        );
        properties(&mut o, h, r);
        for out in outcomes {
            let name = match &out.case {
                CaseId::Vector { name } => name.clone(),
                CaseId::Generated { index, .. } => format!("case {index}"),
            };
            let body = match &out.result {
                CaseResult::Passed => String::new(),
                CaseResult::Failed(f) => {
                    let mut text = f.to_string();
                    if let Some(g) = example_of(&out.case) {
                        let _ = write!(
                            text,
                            "\n\n{} (size counts {SIZE_MEANS}):\n{}",
                            example_line(g),
                            g.example
                        );
                    }
                    let first = f.verdict.to_string();
                    let first = first.lines().next().unwrap_or_default();
                    format!(
                        "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                        xml_escape(&f.verdict.signature().0),
                        xml_escape(first),
                        xml_escape(&text)
                    )
                }
                CaseResult::Unsupported { reason } => format!(
                    "      <skipped message=\"{}\"/>\n",
                    xml_escape(&format!(
                        "unsupported by the adapter's environment: {reason}"
                    ))
                ),
                CaseResult::HarnessError { error, scenario } => {
                    let mut text = error.clone();
                    if let Some(s) = scenario {
                        let _ = write!(
                            text,
                            "\nscenario: {}",
                            serde_json::to_string(s).unwrap_or_default()
                        );
                    }
                    format!(
                        "      <error type=\"harness_error\" message=\"{}\">{}</error>\n",
                        xml_escape(error.lines().next().unwrap_or_default()),
                        xml_escape(&text)
                    )
                }
            };
            testcase(&mut o, suite, &name, out.seconds, &body);
        }
        for (name, why) in skipped {
            let body = format!("      <skipped message=\"{}\"/>\n", xml_escape(why));
            testcase(&mut o, suite, name, 0.0, &body);
        }
        o.push_str("  </testsuite>\n");
    }
    o.push_str("</testsuites>\n");
    o
}
