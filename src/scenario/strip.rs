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

use super::Scenario;

/// `best` (a failure, carrying its scenario: `scenario_of` reads it) without
/// the tools no call uses, if `judge` still accepts it without them (all at
/// once, else one at a time); then without each turn, and each prompter,
/// backend, permission and delivery reply, schedule pick and call, one at a
/// time from the last, where `judge` still accepts the scenario without it;
/// then without the tools only the removed calls used. `judge` returns the
/// failure of a candidate if it fails the same way. Returns the smallest
/// failure accepted and the tools dropped.
pub fn strip<T>(
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
