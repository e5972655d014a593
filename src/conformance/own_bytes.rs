//! The implementation's own bytes, judged apart from the comparison with
//! the model (rule `CONF-OWN-BYTES`).
//!
//! The comparison looks at the fields the RFDs fix and drops the rest
//! (unknown event kinds, extra fields, a response's wording). What an
//! implementation writes to disk is also judged as it is, by two judges
//! that do not ask the model what to expect:
//!
//! - the oracle ([`crate::check`], every `CHECK-*` rule) reads every
//!   persisted line under the scenario's profile, as it reads a real
//!   writer's stream; an error-severity finding fails the case;
//! - every secret the scenario typed (an answer given at a no-echo prompt,
//!   or handed to a tool for a `secret` question) is searched for in every
//!   line, byte for byte and in every string and member name the line
//!   holds (RFD 082 "Secret questions": secret answers "never land on
//!   disk"; Phase 3 test: "no answer value appears in the persisted
//!   stream").
//!
//! The model's run of the scenario gives only what the model's own
//! invariants waive for that scenario (the same list as
//! `invariants::stream_rules` and `invariants::without_known`), and which
//! values are secrets: the verdict itself is the oracle's.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::observe::Observed;
use crate::check::{self, ProfileMode, Rule, Severity};
use crate::scenario::{PrompterReply, Scenario, Trace};

/// Secrets shorter than this are found only as a whole string or member
/// name, never as a part of one (a two-letter secret is part of many
/// words), as `INV-SECRET-NEVER-PERSISTED` does.
const SUBSTRING_MIN: usize = 6;

/// One thing wrong with the implementation's own bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finding {
    /// The oracle's finding: rule, where, what.
    Oracle {
        /// The `CHECK-*` ID.
        rule: String,
        /// Turn and event.
        at: String,
        /// The oracle's message.
        message: String,
    },
    /// A typed secret is in a persisted line.
    Secret {
        /// Event, its type, and the JSON pointer of the string or member.
        at: String,
    },
}

/// The first finding on `actual`'s own bytes: a typed secret first (it is
/// the worse defect), then the oracle's first error.
pub(crate) fn judge(scenario: &Scenario, model: &Trace, actual: &Observed) -> Option<Finding> {
    secret_in(model, &actual.written).or_else(|| oracle(scenario, model, &actual.written))
}

/// The values the scenario typed as secrets in `model`'s run: the answers
/// given at a no-echo (secret) prompt and the answers tools received for
/// `secret` questions; less any value the model's own stream persists
/// (there for another reason: the same value typed as a plain answer, or a
/// profile without the secret type).
pub(crate) fn typed_secrets(model: &Trace) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in &model.prompts {
        if let (false, PrompterReply::Answer { value, .. }) = (p.presentation.echo, &p.reply) {
            strings(value, &mut out);
        }
    }
    out.extend(crate::invariants::secret_answers(model));
    let own = model.persisted_json().to_string();
    let mut persisted = BTreeSet::new();
    strings(&model.persisted_json(), &mut persisted);
    out.retain(|s| {
        !s.is_empty()
            && !persisted.contains(s)
            && (s.chars().count() < SUBSTRING_MIN || !own.contains(&escaped(s)))
    });
    out
}

/// `s` as it appears inside a JSON string.
fn escaped(s: &str) -> String {
    let q = Value::String(s.to_owned()).to_string();
    q[1..q.len() - 1].to_owned()
}

use crate::stream::secrets::strings;

/// Where in `v` a string or member name holds `secret` (as a whole, or as
/// a part when it is long enough), as a JSON pointer.
fn holds(v: &Value, secret: &str, path: &str) -> Option<String> {
    let hit =
        |s: &str| s == secret || (secret.chars().count() >= SUBSTRING_MIN && s.contains(secret));
    match v {
        Value::String(s) => hit(s).then(|| path.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| holds(x, secret, &format!("{path}/{i}"))),
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            let here = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
            if hit(k) {
                // The member's name is the secret: the path stops short of it.
                Some(format!("{path}/, a member name"))
            } else {
                holds(x, secret, &here)
            }
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// The first persisted line that holds a typed secret.
fn secret_in(model: &Trace, written: &[String]) -> Option<Finding> {
    let secrets = typed_secrets(model);
    if secrets.is_empty() {
        return None;
    }
    for (i, line) in written.iter().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("?");
        for s in &secrets {
            let found = holds(&v, s, "").or_else(|| {
                (s.chars().count() >= SUBSTRING_MIN && line.contains(&escaped(s)))
                    .then(|| "its bytes".to_owned())
            });
            if let Some(path) = found {
                return Some(Finding::Secret {
                    at: format!("persisted event #{i} ({ty}), at {path}"),
                });
            }
        }
    }
    None
}

/// The oracle's first error on `written` under the scenario's profile,
/// less what the model's own invariants waive for this scenario:
/// `CHECK-PROVENANCE` (the scenario language's synthetic built-ins, which
/// RFD 082 sanctions for tests), `CHECK-ANSWER-FITS` on an answer the
/// scenario's prompter typed (the scripted prompter types what the
/// scenario says), `CHECK-TOOL-PAIRED` on the calls a hard quit left open
/// in the last turn, the legacy profile's known gaps, and the separator
/// flaw's findings in a turn whose inquiry IDs collide.
fn oracle(scenario: &Scenario, model: &Trace, written: &[String]) -> Option<Finding> {
    let bytes = written.join("\n");
    // Judged as a writer of the rules the model ran under: an announced
    // amendment's rows included (decision "Oracle checks: an amendment's rows widen the
    // reason rules").
    let checked = check::check_bytes_in(
        bytes.as_bytes(),
        "implementation",
        ProfileMode::Fixed(scenario.profile),
        model.rules.tables,
    );
    let events: Vec<Value> = written
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    let collided = colliding_turns(&events);
    let last_turn = checked.summary.turns.checked_sub(1);
    let typed: Vec<&Value> = scenario
        .prompter
        .iter()
        .filter_map(|r| match r {
            PrompterReply::Answer { value, .. } => Some(value),
            PrompterReply::CtrlC | PrompterReply::Eof | PrompterReply::Failure { .. } => None,
        })
        .collect();
    let event = |i: usize| events.get(i).unwrap_or(&Value::Null);
    let waived = |d: &check::Diagnostic| {
        let is_request =
            event(d.event_index).get("type").and_then(Value::as_str) == Some("tool_call_request");
        d.severity == Severity::Warning
            || d.rule == Rule::CheckProvenance
            || (d.rule == Rule::CheckAnswerFits
                && event(d.event_index)
                    .get("answer")
                    .is_some_and(|a| typed.contains(&a)))
            || (model.interrupted
                && d.rule == Rule::CheckToolPaired
                && Some(d.turn) == last_turn
                && is_request)
            || crate::invariants::known_violation(scenario, &model.rules, d.rule)
            || (crate::invariants::holds_separator(scenario) && collided.contains(&d.turn))
    };
    if let Some(d) = checked.diagnostics.iter().find(|d| !waived(d)) {
        return Some(Finding::Oracle {
            rule: d.rule.id().to_owned(),
            at: format!("turn {}, persisted event #{}", d.turn, d.event_index),
            message: d.message.to_string(),
        });
    }
    checked.error.map(|e| Finding::Oracle {
        rule: "read".to_owned(),
        at: e
            .event_index()
            .map_or("the stream".to_owned(), |i| format!("persisted event #{i}")),
        message: e.to_string(),
    })
}

/// The turns (counted as the oracle counts them: the events before the
/// first `turn_start` are turn 0 only when there are any) in which two
/// inquiry requests share an ID.
fn colliding_turns(events: &[Value]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let (mut turn, mut started, mut before) = (0, false, false);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for e in events {
        let ty = e.get("type").and_then(Value::as_str);
        if ty == Some("turn_start") {
            if started || before {
                turn += 1;
            }
            started = true;
            seen.clear();
            continue;
        }
        before |= !started;
        if ty == Some("inquiry_request")
            && let Some(id) = e.get("id").and_then(Value::as_str)
        {
            let n = seen.entry(id.to_owned()).or_default();
            *n += 1;
            if *n > 1 {
                out.insert(turn);
            }
        }
    }
    out
}

#[cfg(test)]
mod own_bytes_mut_tests;
