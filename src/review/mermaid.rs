//! One scenario's run as a Mermaid sequence diagram (rule `AMEND-MERMAID`):
//! what reviewers of an amendment look at in a pull request, where GitHub
//! renders Mermaid.
//!
//! Participants: the tool, the coordinator, the prompter, the inquiry
//! backend and the persisted stream. The order is the run's own: the run is
//! observed step by step (`scenario::run_under`), and each step draws the
//! work done (a tool invocation, a prompt, a backend call, a permission
//! prompt), then what the coordinator made of it (events persisted in
//! order, how a question was resolved, what the model was told).

use serde_json::Value;

use crate::model::coordinator::RouteTaken;
use crate::model::tool::Outcome;
use crate::profile::Rules;
use crate::scenario::{self, RunOptions, Scenario, ScenarioError, Trace};
use crate::wire::{EventKind, InquiryResponse};

/// How many items of each trace list existed after a step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Marks {
    invocations: usize,
    prompts: usize,
    permissions: usize,
    backend: usize,
    stream: usize,
    resolutions: usize,
    responses: usize,
}

impl Marks {
    fn of(t: &Trace) -> Marks {
        Marks {
            invocations: t.invocations.len(),
            prompts: t.prompts.len(),
            permissions: t.permission_prompts.len(),
            backend: t.backend_calls.len(),
            stream: t.stream.len(),
            resolutions: t.resolutions.len(),
            responses: t.tool_responses.len(),
        }
    }
}

/// The longest message text drawn; longer text is cut with `…`.
const WIDTH: usize = 72;

/// Text fit for a Mermaid message: one line, at most [`WIDTH`] characters,
/// `#`, `;`, `<` and `>` written as Mermaid entity codes (`;` would end the
/// statement, `<`/`>` read as HTML).
pub(crate) fn escape(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = if one_line.chars().count() > WIDTH {
        one_line.chars().take(WIDTH - 1).collect::<String>() + "…"
    } else {
        one_line
    };
    let mut out = String::with_capacity(cut.len());
    for c in cut.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            other => out.push(other),
        }
    }
    out
}

/// A tagged reply (`{"reply": "answer", "value": true, "remember": true}`)
/// in a few words: the tag, then the other fields' values, `remember` as
/// `(remember)` when set (`answer true (remember)`).
fn brief(v: &Value, tag: &str) -> String {
    let Value::Object(m) = v else {
        return v.to_string();
    };
    let mut parts: Vec<String> = m
        .get(tag)
        .and_then(Value::as_str)
        .map(|s| vec![s.to_owned()])
        .unwrap_or_default();
    for (k, x) in m.iter().filter(|(k, _)| k.as_str() != tag) {
        match (k.as_str(), x) {
            ("remember", Value::Bool(true)) => parts.push("(remember)".to_owned()),
            ("remember", _) | (_, Value::Null) => {}
            (_, other) => parts.push(other.to_string()),
        }
    }
    parts.join(" ")
}

fn outcome_line(o: &Outcome) -> String {
    match o {
        Outcome::Success { content } => format!("success: {content}"),
        Outcome::Error { message, .. } => format!("error: {message}"),
        Outcome::NeedsInput { question } => {
            let t = serde_json::to_value(&question.answer_type).unwrap_or(Value::Null);
            format!(
                "needs input: {} ({}{})",
                question.id,
                t.get("type").and_then(Value::as_str).unwrap_or("?"),
                if question.exclusive {
                    ", exclusive"
                } else {
                    ""
                }
            )
        }
    }
}

fn route_word(r: RouteTaken) -> &'static str {
    match r {
        RouteTaken::Cached => "answered from the turn cache",
        RouteTaken::Static => "static answer",
        RouteTaken::Prompter => "prompter",
        RouteTaken::Backend => "inquiry backend",
        RouteTaken::Refused(refusal) => refusal.row().words,
    }
}

/// A note over the coordinator.
fn note(out: &mut String, text: &str) {
    out.push_str(&format!("    Note over C: {}\n", escape(text)));
}

/// The diagram of a trace whose steps ended at `steps` (the marks after each
/// step, in order).
fn render(t: &Trace, steps: &[Marks]) -> String {
    let mut out = String::from(
        "sequenceDiagram\n    participant T as tool\n    participant C as coordinator\n    participant P as prompter\n    participant B as inquiry backend\n    participant S as persisted stream\n",
    );
    let line = |out: &mut String, from: &str, arrow: &str, to: &str, text: &str| {
        out.push_str(&format!("    {from}{arrow}{to}: {}\n", escape(text)));
    };
    let mut before = Marks::default();
    for m in steps {
        for i in &t.invocations[before.invocations..m.invocations] {
            let answers = serde_json::to_string(&i.answers).unwrap_or_default();
            line(
                &mut out,
                "C",
                "->>",
                "T",
                &format!("invoke {} ({}), answers {answers}", i.tool, i.tool_call_id),
            );
            line(&mut out, "T", "-->>", "C", &outcome_line(&i.outcome));
        }
        for p in &t.permission_prompts[before.permissions..m.permissions] {
            line(&mut out, "C", "->>", "P", &format!("may {} run?", p.tool));
            let reply = serde_json::to_value(p.reply).unwrap_or(Value::Null);
            line(&mut out, "P", "-->>", "C", &brief(&reply, "reply"));
        }
        for p in &t.prompts[before.prompts..m.prompts] {
            let pr = &p.presentation;
            line(
                &mut out,
                "C",
                "->>",
                "P",
                &format!(
                    "{}{}{}{}",
                    pr.label
                        .as_ref()
                        .map(|l| format!("[{l}] "))
                        .unwrap_or_default(),
                    pr.question,
                    if pr.echo { "" } else { " (no echo)" },
                    if pr.remember_affordance {
                        " [y/Y/n/N]"
                    } else {
                        ""
                    }
                ),
            );
            let reply = serde_json::to_value(&p.reply).unwrap_or(Value::Null);
            line(&mut out, "P", "-->>", "C", &brief(&reply, "reply"));
        }
        for b in &t.backend_calls[before.backend..m.backend] {
            line(
                &mut out,
                "C",
                "->>",
                "B",
                &format!("inquire {}", b.call.inquiry_id),
            );
            let reply = serde_json::to_value(&b.reply).unwrap_or(Value::Null);
            line(&mut out, "B", "-->>", "C", &brief(&reply, "reply"));
        }
        // How the question was resolved, right after its request (or before
        // the step's events when nothing was recorded).
        let events = &t.stream[before.stream..m.stream];
        let split = events
            .iter()
            .rposition(|e| e.as_inquiry_request().is_some())
            .map_or(0, |i| i + 1);
        for e in &events[..split] {
            line(&mut out, "C", "->>", "S", &event_line(e));
        }
        for r in &t.resolutions[before.resolutions..m.resolutions] {
            let recorded = if r.recorded { "" } else { " (not recorded)" };
            note(
                &mut out,
                &format!("{}: {}{recorded}", r.question_id, route_word(r.route)),
            );
        }
        for e in &events[split..] {
            line(&mut out, "C", "->>", "S", &event_line(e));
        }
        for r in &t.tool_responses[before.responses..m.responses] {
            let error = if r.is_error { "[error] " } else { "" };
            note(
                &mut out,
                &format!("to the model, {}: {error}{}", r.tool_call_id, r.content),
            );
        }
        before = *m;
    }
    if t.interrupted {
        out.push_str("    Note over C: hard quit: nothing more is written\n");
    }
    out
}

/// Runs `scenario` under `rules` and draws it, every secret answer masked
/// where it sits (`<secret n>`, rule `CLI-NO-SECRET`: [`crate::masks`]).
pub(crate) fn sequence(scenario: &Scenario, rules: Rules) -> Result<String, ScenarioError> {
    let (t, steps) = observed(scenario, rules)?;
    Ok(render(&crate::masks::mask(&t).trace, &steps))
}

/// [`sequence`] with the secret answers as the scenario typed them (`run
/// --reveal-secrets`).
#[cfg(feature = "testkit")]
pub(crate) fn sequence_revealed(
    scenario: &Scenario,
    rules: Rules,
) -> Result<String, ScenarioError> {
    let (t, steps) = observed(scenario, rules)?;
    Ok(render(&t, &steps))
}

/// The run of `scenario` under `rules` and the marks after each step.
fn observed(scenario: &Scenario, rules: Rules) -> Result<(Trace, Vec<Marks>), ScenarioError> {
    let mut steps = Vec::new();
    let t = scenario::run_under(scenario, rules, RunOptions::default(), &mut |_, t| {
        steps.push(Marks::of(t))
    })?;
    // Anything recorded after the last observed step (none today) still
    // shows.
    if steps.last() != Some(&Marks::of(&t)) {
        steps.push(Marks::of(&t));
    }
    Ok((t, steps))
}

/// The diagram in a fenced `mermaid` block, as GitHub renders it.
#[cfg(feature = "testkit")]
pub(crate) fn fenced(diagram: &str) -> String {
    format!("```mermaid\n{diagram}```\n")
}

/// A one-line summary of a persisted event.
pub fn event_line(e: &crate::wire::Event) -> String {
    match &e.kind {
        EventKind::InquiryRequest(r) => {
            let t = serde_json::to_value(&r.question.answer_type).unwrap_or(Value::Null);
            format!(
                "inquiry_request {} ({}{})",
                r.id,
                t.get("type").and_then(Value::as_str).unwrap_or("?"),
                if r.question.exclusive {
                    ", exclusive"
                } else {
                    ""
                }
            )
        }
        EventKind::InquiryResponse(r) => match r {
            InquiryResponse::Answered { id, answer } => {
                format!("inquiry_response {id} answered {answer}")
            }
            InquiryResponse::Cancelled { id, reason } => {
                format!("inquiry_response {id} cancelled ({reason})")
            }
            InquiryResponse::Redacted { id } => format!("inquiry_response {id} redacted"),
        },
        EventKind::ToolCallRequest(r) => format!("tool_call_request {} {}", r.id, r.name),
        EventKind::ToolCallResponse(r) => {
            format!(
                "tool_call_response {}{}",
                r.id,
                if r.is_error == Some(true) {
                    " (error)"
                } else {
                    ""
                }
            )
        }
        other => other.tag().to_owned(),
    }
}

#[cfg(all(test, feature = "testkit"))]
mod review_pictures_tests;
