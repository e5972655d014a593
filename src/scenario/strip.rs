//! The pass that makes a failing scenario minimal for a reader: it drops
//! what the failure does not need — tools no call uses, whole turns, and
//! single replies, schedule picks and calls — keeping each removal only if
//! a judge says the scenario still fails the same way.
//!
//! The judge is the caller's: the conformance runner re-runs the
//! implementation under test and compares the kind of the first difference
//! (rule `CONF-SHRINK-KEEPS-KIND`); the amendment reports re-run the model
//! and look for the same class of difference between two profiles, or the
//! same violated invariant (rule `AMEND-MINIMAL`). Removals are never
//! assumed harmless: every candidate is judged.

use std::collections::BTreeSet;

use super::{Scenario, Trace};

/// `s` without what nothing uses: the parts whose removal leaves the
/// model's run of it exactly as it was (the same [`Trace`]) — tools no call
/// names, a tool's configuration (question, assistant-target, `run`,
/// `result` and `enable` entries), backend replies by ID, the dedicated
/// inquiry model, toggles, and the prompter, backend, permission, delivery
/// and schedule entries past the last one the run consumes. Each candidate
/// is judged by the model alone (no implementation is run); a scenario the
/// model refuses comes back unchanged. Returns the scenario and what went,
/// as a reader names it (rule `CONF-SHRINK-UNUSED-FIRST`).
pub fn without_unused(s: &Scenario) -> (Scenario, Vec<String>) {
    let Ok(base) = super::run(s) else {
        return (s.clone(), Vec::new());
    };
    without_unused_by(s, &|c: &Scenario| {
        super::run(c).is_ok_and(|t: Trace| t == base)
    })
}

/// [`without_unused`] with the caller's test of "unused": a candidate is
/// kept when `same` holds for it (the amendment reports ask for the same
/// runs under both rule sets, rule `AMEND-MINIMAL`).
pub(crate) fn without_unused_by(
    s: &Scenario,
    same: &dyn Fn(&Scenario) -> bool,
) -> (Scenario, Vec<String>) {
    let mut best = s.clone();
    let mut gone = Vec::new();
    let mut attempt = |best: &mut Scenario, what: String, edit: &dyn Fn(&mut Scenario)| {
        let mut c = best.clone();
        edit(&mut c);
        if c != *best && same(&c) {
            *best = c;
            gone.push(what);
        }
    };
    let unused = unused_tools(&best);
    if unused.len() > 1 {
        let all = unused.clone();
        attempt(&mut best, format!("tools {}", all.join(", ")), &|c| {
            c.tools.retain(|t, _| !all.contains(t))
        });
    }
    for t in unused_tools(&best) {
        attempt(&mut best, format!("tool {t}"), &|c| {
            c.tools.shift_remove(&t);
        });
    }
    let tools: Vec<String> = best.tools.keys().cloned().collect();
    for t in &tools {
        let questions: Vec<String> = best.tools[t].questions.keys().cloned().collect();
        for q in questions {
            attempt(&mut best, format!("tools.{t}.questions.{q}"), &|c| {
                if let Some(x) = c.tools.get_mut(t) {
                    std::sync::Arc::make_mut(&mut x.questions).shift_remove(&q);
                }
            });
        }
        let assistant: Vec<String> = best.tools[t].assistant.keys().cloned().collect();
        for q in assistant {
            attempt(&mut best, format!("tools.{t}.assistant.{q}"), &|c| {
                if let Some(x) = c.tools.get_mut(t) {
                    x.assistant.shift_remove(&q);
                }
            });
        }
        attempt(&mut best, format!("tools.{t}.run"), &|c| {
            if let Some(x) = c.tools.get_mut(t) {
                x.run = None;
            }
        });
        attempt(&mut best, format!("tools.{t}.result"), &|c| {
            if let Some(x) = c.tools.get_mut(t) {
                x.result = None;
            }
        });
        attempt(&mut best, format!("tools.{t}.enable"), &|c| {
            if let Some(x) = c.tools.get_mut(t) {
                x.enable = None;
            }
        });
    }
    let by_id: Vec<String> = best.backend_by_id.keys().cloned().collect();
    for id in by_id {
        attempt(&mut best, format!("backend_by_id.{id}"), &|c| {
            c.backend_by_id.shift_remove(&id);
        });
    }
    attempt(&mut best, "inquiry_model".to_owned(), &|c| {
        c.inquiry_model = None
    });
    for k in (0..best.toggles.len()).rev() {
        attempt(&mut best, format!("toggles[{k}]"), &|c| {
            c.toggles.remove(k);
        });
    }
    for list in [
        List::Prompter,
        List::Backend,
        List::Permissions,
        List::Deliveries,
        List::Schedule,
    ] {
        let from = list.len(&best);
        let mut k = from;
        while k > 0 {
            let mut c = best.clone();
            list.remove(&mut c, k - 1);
            if !same(&c) {
                break;
            }
            best = c;
            k -= 1;
        }
        if k < from {
            gone.push(format!("{} from #{k}", list.name()));
        }
    }
    (best, gone)
}

/// `best` (a failure, carrying its scenario: `scenario_of` reads it) without
/// the tools no call uses, if `judge` still accepts it without them (all at
/// once, else one at a time); then without each turn, and each prompter,
/// backend, permission and delivery reply, schedule pick and call, one at a
/// time from the last, where `judge` still accepts the scenario without it;
/// then without the tools only the removed calls used. `judge` returns the
/// failure of a candidate if it fails the same way. Returns the smallest
/// failure accepted and the tools dropped.
pub(crate) fn strip<T>(
    best: T,
    scenario_of: impl Fn(&T) -> &Scenario,
    mut judge: impl FnMut(&Scenario) -> Option<T>,
) -> (T, Vec<String>) {
    let mut dropped = Vec::new();
    let mut best = drop_unused_tools(best, &scenario_of, &mut judge, &mut dropped);
    for list in List::ALL {
        let mut k = list.len(scenario_of(&best));
        while k > 0 {
            k -= 1;
            let mut s = scenario_of(&best).clone();
            list.remove(&mut s, k);
            if let Some(f) = judge(&s) {
                best = f;
            }
        }
    }
    best = drop_unused_tools(best, &scenario_of, &mut judge, &mut dropped);
    (best, dropped)
}

/// `best` without its unused tools where `judge` accepts it without them:
/// all at once, else one at a time; each tool dropped is added to
/// `dropped`.
fn drop_unused_tools<T>(
    mut best: T,
    scenario_of: &impl Fn(&T) -> &Scenario,
    judge: &mut impl FnMut(&Scenario) -> Option<T>,
    dropped: &mut Vec<String>,
) -> T {
    let unused = unused_tools(scenario_of(&best));
    let mut attempts: Vec<Vec<String>> = vec![unused.clone()];
    if unused.len() > 1 {
        attempts.extend(unused.iter().map(|t| vec![t.clone()]));
    }
    let mut gone: Vec<String> = Vec::new();
    for tools in attempts {
        if tools.is_empty() || tools.iter().any(|t| gone.contains(t)) {
            continue;
        }
        let mut s = scenario_of(&best).clone();
        s.tools.retain(|t, _| !tools.contains(t));
        if let Some(f) = judge(&s) {
            best = f;
            gone.extend(tools);
        }
    }
    dropped.extend(gone);
    best
}

/// The lists of a scenario the pass removes items from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Turns,
    Prompter,
    Backend,
    Permissions,
    Deliveries,
    Schedule,
    Calls,
}

impl List {
    /// Whole turns first: one judgement can drop a turn's every call.
    const ALL: [List; 7] = [
        List::Turns,
        List::Prompter,
        List::Backend,
        List::Permissions,
        List::Deliveries,
        List::Schedule,
        List::Calls,
    ];

    /// The list's name in a scenario.
    fn name(self) -> &'static str {
        match self {
            List::Turns => "turns",
            List::Prompter => "prompter",
            List::Backend => "backend",
            List::Permissions => "permissions",
            List::Deliveries => "deliveries",
            List::Schedule => "schedule",
            List::Calls => "calls",
        }
    }

    fn len(self, s: &Scenario) -> usize {
        match self {
            List::Turns => s.turns.len(),
            List::Prompter => s.prompter.len(),
            List::Backend => s.backend.len(),
            List::Permissions => s.permissions.len(),
            List::Deliveries => s.deliveries.len(),
            List::Schedule => s.schedule.len(),
            List::Calls => s.turns.iter().flat_map(|t| &t.cycles).map(Vec::len).sum(),
        }
    }

    /// Removes item `k`; a cycle left without calls, and a turn left
    /// without cycles, go too.
    fn remove(self, s: &mut Scenario, k: usize) {
        match self {
            List::Turns => drop(s.turns.remove(k)),
            List::Prompter => drop(s.prompter.remove(k)),
            List::Backend => drop(s.backend.remove(k)),
            List::Permissions => drop(s.permissions.remove(k)),
            List::Deliveries => drop(s.deliveries.remove(k)),
            List::Schedule => drop(s.schedule.remove(k)),
            List::Calls => {
                let mut k = k;
                let mut at = None;
                for (ti, t) in s.turns.iter().enumerate() {
                    for (ci, c) in t.cycles.iter().enumerate() {
                        if at.is_none() {
                            if k < c.len() {
                                at = Some((ti, ci, k));
                            } else {
                                k -= c.len();
                            }
                        }
                    }
                }
                if let Some((ti, ci, k)) = at {
                    s.turns[ti].cycles[ci].remove(k);
                    s.turns[ti].cycles.retain(|c| !c.is_empty());
                    s.turns.retain(|t| !t.cycles.is_empty());
                }
            }
        }
    }
}

/// How many candidates the strip pass ([`strip`]) judges at most for `s`:
/// one per turn, reply, schedule pick and call, and one per unused tool
/// (with the removal of all of them at once).
pub(crate) fn strip_candidates(s: &Scenario) -> usize {
    let unused = unused_tools(s).len();
    List::ALL.iter().map(|l| l.len(s)).sum::<usize>() + unused + usize::from(unused > 1)
}

/// The tools of `s` no call names, in the scenario's order.
pub fn unused_tools(s: &Scenario) -> Vec<String> {
    let called: BTreeSet<&str> = s
        .turns
        .iter()
        .flat_map(|t| t.cycles.iter().flatten())
        .map(|c| c.tool.as_str())
        .collect();
    s.tools
        .keys()
        .filter(|name| !called.contains(name.as_str()))
        .cloned()
        .collect()
}
