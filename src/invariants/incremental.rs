//! The invariants made fast for exploration: `StepChecker` judges each
//! step of one run by what the step added, `StreamMemo` remembers the
//! stream invariants by their input (hashed with `FastHash`). The
//! predicates they judge are the parent module's, stated once there.

use super::*;
use crate::wire::Exact;

/// [`check_step`] made incremental for one run: the same invariants after
/// every step, each step paying only for what it added.
///
/// - The secret answers are collected from the new invocations only (they
///   only grow: the stream and the invocations are append-only).
/// - The stream is scanned for secrets only once a secret is known: each
///   event is serialized once, scanned against every secret known when it
///   is first seen, and the earlier events are scanned again only against
///   secrets learnt since. A match is reported once, at the step it is first
///   seen (the stateless [`check_step`] reports it again at every later step).
/// - The coordinator's state is walked only while a secret is known: its
///   moving texts (`state_texts::moving_texts`) at every such step, its
///   fixed texts (`state_texts::fixed_texts`, set at construction) once
///   per newly learnt secret. The two walks visit every text of the state
///   outside the places a secret may live in memory, so a secret there at a
///   step is found at that step or, for the fixed part, at an earlier one.
///
/// - `recorded_before_routed` and `human_only_never_backend` judge the
///   prompts, backend calls and invocations added by the step only: each
///   record is judged by the stream before its own position, which later
///   steps never change, so each violation is reported once, at its step.
///   The invocations are grouped by call instance as they come (rule
///   `PERF-STEP-GROUPED`): a new invocation is judged against its
///   instance's previous one, a new backend call against its instance's
///   latest invocations.
///
/// `cache_hygiene` judges the coordinator's current state at every step, as
/// in [`check_step`], when the turn cache remembers anything (an empty one
/// has no entry to judge). Rule: INV-SECRET-NEVER-PERSISTED.
#[derive(Debug, Default, Clone)]
pub struct StepChecker {
    /// Invocations already read for secrets.
    pub(super) invocations_seen: usize,
    /// Secret answers of at least 6 characters, in the order learnt.
    pub(super) secrets: Vec<String>,
    /// The serialized stream events, kept once a secret is known.
    pub(super) texts: Vec<String>,
    /// How many secrets `texts` has been scanned against.
    pub(super) texts_scanned_for: usize,
    /// How many secrets the fixed part of the coordinator was scanned for.
    pub(super) fixed_scanned_for: usize,
    /// The records `recorded_before_routed` and `human_only_never_backend`
    /// have judged.
    pub(super) seen: Seen,
    /// The inquiry requests of the stream so far.
    pub(super) requests: RequestIndex,
    /// The call instances of the invocations read so far (rule
    /// `PERF-STEP-GROUPED`).
    pub(super) calls: CallChains,
    /// Whether a step reported an `INV-RECORDED-BEFORE-ROUTED` or
    /// `INV-HUMAN-ONLY-NEVER-BACKEND` finding (rule `PERF-END-AFTER-STEPS`).
    pub(super) routed_found: bool,
}

/// The invocations of a run grouped by call instance as they are recorded
/// (rule `PERF-STEP-GROUPED`): each invocation's previous one of its
/// call instance, and each instance's latest, by invocation index.
///
/// A run's first [`CallChains::SCANNED_UP_TO`] invocations find their
/// instance's previous one by a scan back over the invocations (a run
/// explored has a handful); past them, by a table of each instance's
/// latest, filled when the run grows past them.
#[derive(Debug, Default, Clone)]
pub(super) struct CallChains {
    /// Per invocation read, the index of the previous invocation of its
    /// call instance (`None` for the instance's first).
    pub(super) prev: Vec<Option<usize>>,
    /// Per call instance `(turn, cycle, call_index)`, its latest
    /// invocation; empty while at most `SCANNED_UP_TO` invocations are read.
    pub(super) latest: HashMap<(usize, usize, usize), usize, Fast>,
}

/// The call instance an invocation belongs to.
fn instance(i: &InvocationRecord) -> (usize, usize, usize) {
    (i.at.turn, i.at.cycle, i.call_index)
}

/// The index of the last of `invs` of the call instance `key`.
fn last_of(invs: &[InvocationRecord], key: (usize, usize, usize)) -> Option<usize> {
    invs.iter().rposition(|i| instance(i) == key)
}

impl CallChains {
    /// Up to how many invocations a run's chains are found by scanning.
    const SCANNED_UP_TO: usize = 16;

    /// Reads the invocations of `trace` not read yet.
    fn extend(&mut self, trace: &Trace) {
        let invs = &trace.invocations;
        for k in self.prev.len()..invs.len() {
            let key = instance(&invs[k]);
            let prev = if k < Self::SCANNED_UP_TO {
                last_of(&invs[..k], key)
            } else {
                if k == Self::SCANNED_UP_TO {
                    for (j, i) in invs[..k].iter().enumerate() {
                        self.latest.insert(instance(i), j);
                    }
                }
                self.latest.insert(key, k)
            };
            self.prev.push(prev);
        }
    }

    /// The invocations of the call instance `key` recorded so far, latest
    /// first.
    fn latest_first<'t>(
        &'t self,
        trace: &'t Trace,
        key: (usize, usize, usize),
    ) -> impl Iterator<Item = &'t InvocationRecord> + 't {
        let read = self.prev.len();
        let latest = if read <= Self::SCANNED_UP_TO {
            last_of(&trace.invocations[..read], key)
        } else {
            self.latest.get(&key).copied()
        };
        std::iter::successors(latest, |&k| self.prev[k]).map(|k| &trace.invocations[k])
    }
}

impl StepChecker {
    /// A checker for a new run.
    pub fn new() -> Self {
        StepChecker::default()
    }

    /// Makes this a checker for a new run, as [`StepChecker::new`] gives,
    /// keeping the room its tables grew to: a caller that checks runs one
    /// after another allocates them once.
    pub fn restart(&mut self) {
        // Destructured so that a new field must be reset here.
        let StepChecker {
            invocations_seen,
            secrets,
            texts,
            texts_scanned_for,
            fixed_scanned_for,
            seen,
            requests:
                RequestIndex {
                    at,
                    indexed,
                    tracker,
                    turn,
                },
            calls: CallChains { prev, latest },
            routed_found,
        } = self;
        *invocations_seen = 0;
        secrets.clear();
        texts.clear();
        *texts_scanned_for = 0;
        *fixed_scanned_for = 0;
        *seen = Seen::default();
        at.clear();
        *indexed = 0;
        *tracker = stream::turns::Tracker::default();
        *turn = 0;
        prev.clear();
        latest.clear();
        *routed_found = false;
    }

    /// Hashes the checker's state structurally, for a state search's key
    /// (the request index's map in sorted order, its own order being
    /// arbitrary).
    #[cfg(feature = "cli")]
    pub(crate) fn state_key<H: std::hash::Hasher>(&self, h: &mut H) {
        use std::hash::Hash;
        // Destructured so that a new field must be placed here.
        let StepChecker {
            invocations_seen,
            secrets,
            texts,
            texts_scanned_for,
            fixed_scanned_for,
            seen:
                Seen {
                    prompts,
                    backend_calls,
                    invocations,
                },
            requests:
                RequestIndex {
                    at,
                    indexed,
                    tracker,
                    turn,
                },
            calls: CallChains { prev, latest },
            routed_found,
        } = self;
        (invocations_seen, secrets, texts).hash(h);
        (texts_scanned_for, fixed_scanned_for).hash(h);
        (prompts, backend_calls, invocations).hash(h);
        at.sorted().hash(h);
        (indexed, tracker, turn).hash(h);
        (prev, routed_found).hash(h);
        let mut latest: Vec<_> = latest.iter().collect();
        latest.sort_unstable();
        latest.hash(h);
    }

    /// Every invariant [`check_step`] judges, after one more step of the
    /// run, appended to `out` (a caller that gathers a run's findings pays
    /// for no vector of its own per step).
    pub fn step(&mut self, coordinator: &Coordinator, trace: &Trace, out: &mut Vec<Diagnostic>) {
        // Reads the new invocations into the call chains too.
        self.secrets(coordinator, trace, out);
        // An empty turn cache holds nothing to judge (rule
        // `PERF-STEP-GROUPED`).
        if coordinator
            .turn_state()
            .is_some_and(|s| holds_entries(&s.cache))
        {
            out.extend(cache_hygiene(coordinator, trace));
        }
        if self.seen != Seen::of(trace) {
            let before = out.len();
            self.requests.extend(&trace.stream);
            routed_before_recorded(trace, self.seen, &self.requests.at, out);
            // A new invocation is judged against its call instance's
            // previous one.
            for k in self.seen.invocations..trace.invocations.len() {
                let next = &trace.invocations[k];
                match self.calls.prev[k] {
                    None if !next.answers.is_empty() => out.push(answers_on_first_invocation(next)),
                    None => {}
                    Some(p) => out.extend(reinvoked_before_recorded(
                        trace,
                        &trace.invocations[p],
                        next,
                    )),
                }
            }
            let rules = trace.profile.rules();
            for b in &trace.backend_calls[self.seen.backend_calls..] {
                let key = (b.at.turn, b.at.cycle, b.call_index);
                out.extend(sent_to_backend(
                    b,
                    self.calls.latest_first(trace, key),
                    &rules,
                ));
            }
            self.routed_found |= out.len() > before;
        }
        self.seen = Seen::of(trace);
    }

    /// Whether this checker has read every record of `trace`: then what
    /// it judged for good at the steps is the whole run's judgement.
    fn read_all(&self, trace: &Trace) -> bool {
        self.seen == Seen::of(trace) && self.invocations_seen == trace.invocations.len()
    }

    /// Whether the end-of-run pass need not judge `INV-RECORDED-BEFORE-ROUTED`
    /// and `INV-HUMAN-ONLY-NEVER-BACKEND` in `trace` again (rule
    /// `PERF-END-AFTER-STEPS`): this checker read all of its records and
    /// no step found either. Each record is judged for good at its step,
    /// against the stream before its position, which later steps never
    /// change: the whole run's check finds none either.
    pub(super) fn routed_judged(&self, trace: &Trace) -> bool {
        self.read_all(trace) && !self.routed_found
    }

    /// The run's `INV-SECRET-NEVER-PERSISTED` findings in the stream, in
    /// the end-of-run pass's order, if this checker read all of `trace`'s
    /// records and, when a secret is known, holds every event's text (rule
    /// `PERF-END-AFTER-STEPS`): the secrets of 6 characters or more are
    /// those the run's invocations received (learnt as they came, searched
    /// here in sorted order), and each text is the one `serde_json` writes.
    pub(super) fn secrets_in_order(&self, trace: &Trace) -> Option<Vec<Diagnostic>> {
        if !self.read_all(trace) {
            return None;
        }
        if self.secrets.is_empty() {
            return Some(Vec::new());
        }
        if self.texts.len() != trace.stream.len() {
            return None;
        }
        let mut secrets = self.secrets.clone();
        secrets.sort();
        let texts = self
            .texts
            .iter()
            .map(|t| std::borrow::Cow::Borrowed(t.as_str()));
        Some(secrets_in_texts(trace, texts, &[], &secrets))
    }

    pub(super) fn learn_secrets(&mut self, trace: &Trace) {
        self.calls.extend(trace);
        let invs = &trace.invocations;
        for k in self.invocations_seen..invs.len() {
            let next = &invs[k];
            let prev = self.calls.prev[k].map(|p| &invs[p]);
            if let Some(q) = prev.and_then(asked).filter(|q| q.is_secret())
                && let Some(Value::String(s)) = next.answers.get(&q.id)
                && s.len() >= 6
                && !self.secrets.contains(s)
            {
                self.secrets.push(s.clone());
            }
        }
        self.invocations_seen = invs.len();
    }

    pub(super) fn secrets(
        &mut self,
        coordinator: &Coordinator,
        trace: &Trace,
        out: &mut Vec<Diagnostic>,
    ) {
        self.learn_secrets(trace);
        if self.secrets.is_empty() {
            return;
        }
        let in_stream = |i: usize, out: &mut Vec<Diagnostic>| {
            out.push(diag(
                Rule::InvSecretNeverPersisted,
                turn_of(trace, i),
                i,
                vec![],
                "a secret answer is in the persisted stream",
            ))
        };
        // Earlier events against the secrets learnt since they were scanned.
        let fresh = &self.secrets[self.texts_scanned_for..];
        for (i, text) in self.texts.iter().enumerate() {
            for s in fresh {
                if text.contains(s.as_str()) {
                    in_stream(i, out);
                }
            }
        }
        // New events against every secret.
        for i in self.texts.len()..trace.stream.len() {
            let text = serde_json::to_string(&trace.stream[i]).unwrap_or_default();
            for s in &self.secrets {
                if text.contains(s.as_str()) {
                    in_stream(i, out);
                }
            }
            self.texts.push(text);
        }
        self.texts_scanned_for = self.secrets.len();
        let in_state = |out: &mut Vec<Diagnostic>| {
            out.push(diag(
                Rule::InvSecretNeverPersisted,
                0,
                trace.stream.len(),
                vec![],
                IN_COORDINATOR_STATE,
            ))
        };
        for s in &self.secrets {
            if holds(|v| moving_texts(coordinator, v), s) {
                in_state(out);
            }
        }
        if self.fixed_scanned_for < self.secrets.len() {
            for s in &self.secrets[self.fixed_scanned_for..] {
                if holds(|v| fixed_texts(coordinator, v), s) {
                    in_state(out);
                }
            }
            self.fixed_scanned_for = self.secrets.len();
        }
    }
}

/// Whether a turn cache remembers anything: `cache_hygiene` judges each
/// remembered entry, so an empty cache has no finding.
fn holds_entries(cache: &TurnCache) -> bool {
    match cache {
        TurnCache::Split {
            remembered_tool_answers,
            remembered_permission_decisions,
        } => !remembered_tool_answers.is_empty() || !remembered_permission_decisions.is_empty(),
        TurnCache::Combined {
            persisted_inquiry_responses,
        } => !persisted_inquiry_responses.is_empty(),
    }
}

/// The stream invariants of [`check_trace`] ([`stream_rules`] and
/// [`wire_round_trip`]) remembered by their input, for an exploration that
/// meets the same stream many times (rule `PERF-MEMO-BY-STREAM`).
///
/// An entry is a stream: found by its events' keys and taken only when its
/// events are the same exactly (rule `PERF-MEMO-SAME-EXACTLY`: every field
/// of each event, so streams whose persisted texts differ are told apart
/// whatever their keys). Its stream is the places of its events among the
/// events the memo keeps, each kept once for all the streams that hold it
/// (rule `PERF-MEMO-EVENTS-ONCE`): the streams an exploration meets share
/// most of their events, and a hit compares the trace's events with fewer,
/// oftener read, kept ones. It holds the stream's
/// `wire_round_trip` and `always_paired` findings, functions of the stream
/// alone, once for every profile (rule `PERF-MEMO-PAIRED`); and, per profile and rules met with it, the stream
/// oracle's findings before the waivers ([`StreamFindings`]), a function of
/// the persisted bytes (the stream and the rules' response form), the
/// profile and the rules' tables alone. The waivers, which read the
/// trace's prompts and whether it was interrupted, are applied to each
/// trace. A new stream's round trip is judged event by event, each
/// event's remembered (rule `PERF-ROUND-TRIP-BY-EVENT`). Bounded: it
/// forgets everything past [`StreamMemo::CAPACITY`] judged (stream,
/// profile, rules).
#[derive(Debug, Default)]
pub struct StreamMemo {
    pub(super) entries: HashMap<u64, Vec<MemoEntry>, Fast>,
    /// The (stream, profile, rules) judged.
    pub(super) len: usize,
    /// Entries kept before it forgets them all (`None`:
    /// [`StreamMemo::CAPACITY`]).
    capacity: Option<usize>,
    /// Lookups answered from memory.
    pub hits: usize,
    /// Lookups computed.
    pub misses: usize,
    /// Of the lookups computed, those whose oracle judged the events
    /// without their bytes (rule `PERF-ORACLE-TYPED`).
    pub(super) from_events: usize,
    /// The keys of the events of the stream looked up last.
    pub(super) keys: Vec<u64>,
    /// Every event of the streams remembered, each once (rule
    /// `PERF-MEMO-EVENTS-ONCE`): an entry's stream is the places of its
    /// events here.
    pub(super) events: Vec<KeptEvent>,
    /// The places in `events` by the events' keys.
    pub(super) places: HashMap<u64, Vec<usize>, Fast>,
}

/// An event the stream memo keeps, once for every stream that holds it.
#[derive(Debug)]
pub(super) struct KeptEvent {
    pub(super) event: crate::wire::Event,
    /// Its round trip as the only element of a pretty array, once judged
    /// (rule `PERF-ROUND-TRIP-BY-EVENT`): the length of its compact text
    /// where it round-trips (rule `PERF-ORACLE-TYPED`), `None` where it
    /// does not.
    pub(super) alone: Option<Option<usize>>,
    /// For an answered response, its flat text's length once judged, if
    /// that text reads back as the response in the flat shape (rule
    /// `PERF-ORACLE-TYPED`).
    pub(super) flat: Option<Option<usize>>,
}

#[derive(Debug)]
pub(super) struct MemoEntry {
    /// The stream: its events' places in [`StreamMemo::events`].
    pub(super) stream: Vec<usize>,
    /// `wire_round_trip` of the stream.
    pub(super) wire: Vec<Diagnostic>,
    /// `always_paired` of the stream (rule `PERF-MEMO-PAIRED`).
    pub(super) paired: Vec<Diagnostic>,
    /// Where every event of the stream round-trips alone and none holds an
    /// extra field that repeats a name, the events' compact written
    /// lengths: the oracle then judges the events as they are, under a
    /// flat response form once each answered response's flat text is
    /// trusted too (rule `PERF-ORACLE-TYPED`).
    pub(super) written_as_is: Option<Vec<usize>>,
    /// The oracle's findings per profile and rules.
    pub(super) judged: Vec<Judged>,
}

#[derive(Debug)]
pub(super) struct Judged {
    pub(super) profile: crate::profile::ProfileName,
    pub(super) rules: crate::profile::Rules,
    pub(super) found: StreamFindings,
}

/// A multiply-rotate hash over 8-byte words. Not collision-resistant, and
/// need not be: a memo hit is confirmed by comparing the events, and the
/// invariants' tables compare their keys.
#[derive(Default)]
pub(super) struct FastHash(u64);

impl FastHash {
    /// Mixes one word in.
    pub(super) fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// The 1 to 7 bytes of `tail` as a little-endian number, read in at most
/// two loads: from 4 bytes on, the first four and the last four (the bytes
/// they share are the same, so or-ing them places every byte once); below,
/// the first, middle and last byte, which are every byte of 1 to 3.
fn tail_word(tail: &[u8]) -> u64 {
    let n = tail.len();
    let at = |i: usize| u64::from(tail[i]) << (8 * i);
    let four = |i: usize| {
        u64::from(u32::from_le_bytes(
            tail[i..i + 4].try_into().unwrap_or_default(),
        )) << (8 * i)
    };
    match n {
        0 => 0,
        1..=3 => at(0) | at(n / 2) | at(n - 1),
        _ => four(0) | four(n - 4),
    }
}

impl std::hash::Hasher for FastHash {
    /// Every 8 bytes as one word, then the 1 to 7 bytes left over as one
    /// word with their count in its top byte, so that the words stand for
    /// the bytes and no two tails of one call make the same word.
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            self.word(tail_word(tail) | (tail.len() as u64) << 56);
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.word(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.word(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.word(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl StreamMemo {
    /// Entries kept before the memo forgets them all.
    pub(crate) const CAPACITY: usize = 50_000;

    /// An empty memo.
    pub fn new() -> Self {
        StreamMemo::default()
    }

    /// An empty memo that forgets everything past `capacity` entries (at
    /// least 1).
    #[cfg(any(test, feature = "cli"))]
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        StreamMemo {
            capacity: Some(capacity.max(1)),
            ..StreamMemo::default()
        }
    }

    /// `(stream_rules(trace), wire_round_trip(trace), always_paired(trace))`,
    /// from memory when the same stream was judged before (under the same
    /// profile and rules, for the first).
    pub(super) fn stream_invariants(
        &mut self,
        trace: &Trace,
    ) -> (Vec<Diagnostic>, &[Diagnostic], &[Diagnostic]) {
        self.keys.clear();
        self.keys.extend(trace.stream.iter().map(event_key));
        let key = stream_key(&self.keys);
        let same_rules = |j: &&Judged| j.profile == trace.profile && j.rules == trace.rules;
        let known = self.entries.get(&key).and_then(|v| {
            v.iter()
                .position(|e| self.is_kept(&e.stream, &trace.stream))
        });
        if let Some(k) = known
            && let Some(j) = self.entries[&key][k]
                .judged
                .iter()
                .position(|j| same_rules(&j))
        {
            self.hits += 1;
            let e = &self.entries[&key][k];
            return (
                kept_stream_findings(trace, &e.judged[j].found),
                &e.wire,
                &e.paired,
            );
        }
        self.misses += 1;
        let mut known = known;
        if self.len >= self.capacity.unwrap_or(Self::CAPACITY) {
            self.entries.clear();
            self.events.clear();
            self.places.clear();
            self.len = 0;
            known = None;
        }
        self.len += 1;
        let k = match known {
            Some(k) => k,
            None => {
                let stream = self.keep(&trace.stream);
                let (wire, lengths) = self.round_trip(trace, &stream);
                let written_as_is = lengths.filter(|_| !trace.stream.iter().any(repeats_a_name));
                let bucket = self.entries.entry(key).or_default();
                bucket.push(MemoEntry {
                    stream,
                    wire,
                    paired: always_paired(trace),
                    written_as_is,
                    judged: Vec::new(),
                });
                bucket.len() - 1
            }
        };
        let entry = &self.entries[&key][k];
        let lengths = match (entry.written_as_is.as_deref(), writes_flat(trace)) {
            (Some(tagged), false) => Some(std::borrow::Cow::Borrowed(tagged)),
            (Some(tagged), true) => flat_lengths(&mut self.events, trace, &entry.stream, tagged)
                .map(std::borrow::Cow::Owned),
            (None, _) => None,
        };
        let found = match lengths {
            Some(lengths) => {
                self.from_events += 1;
                written_stream_findings(trace, &lengths)
            }
            None => {
                let mut bytes = Vec::new();
                write_persisted(trace, &mut bytes);
                stream_findings(&bytes, trace)
            }
        };
        let kept = kept_stream_findings(trace, &found);
        let e = &mut self.entries.get_mut(&key).expect("the entry is in place")[k];
        e.judged.push(Judged {
            profile: trace.profile,
            rules: trace.rules,
            found,
        });
        (kept, &e.wire, &e.paired)
    }

    /// Whether the events at `places` are `stream`'s, each the same
    /// exactly (rule `PERF-MEMO-SAME-EXACTLY`).
    fn is_kept(&self, places: &[usize], stream: &[crate::wire::Event]) -> bool {
        places.len() == stream.len()
            && places
                .iter()
                .zip(stream)
                .all(|(&k, e)| self.events[k].event.same(e))
    }

    /// The places of `stream`'s events, whose keys are `self.keys`, in
    /// `self.events`, each kept there once (rule `PERF-MEMO-EVENTS-ONCE`):
    /// an event the same exactly as one kept is not kept again.
    pub(super) fn keep(&mut self, stream: &[crate::wire::Event]) -> Vec<usize> {
        let events = &mut self.events;
        let places = &mut self.places;
        stream
            .iter()
            .zip(&self.keys)
            .map(|(e, &h)| {
                let same_key = places.entry(h).or_default();
                match same_key.iter().find(|&&k| events[k].event.same(e)) {
                    Some(&k) => k,
                    None => {
                        events.push(KeptEvent {
                            event: e.clone(),
                            alone: None,
                            flat: None,
                        });
                        same_key.push(events.len() - 1);
                        events.len() - 1
                    }
                }
            })
            .collect()
    }

    /// [`wire_round_trip`] of `trace`, whose events are kept at `places`
    /// ([`StreamMemo::keep`]), judged event by event (rule
    /// `PERF-ROUND-TRIP-BY-EVENT`): the pretty array's reader reads each
    /// element by its own text and the writer writes each element the same
    /// wherever it stands, so a stream whose every event round-trips as
    /// the only element of a pretty array round-trips; each kept event's
    /// round trip is remembered with it. A stream with an event that does
    /// not (or an empty one) takes the plain path, which words the
    /// finding. Also returns, for a stream that is not empty and whose
    /// every event round-trips alone, the lengths of the events' compact
    /// texts.
    fn round_trip(
        &mut self,
        trace: &Trace,
        places: &[usize],
    ) -> (Vec<Diagnostic>, Option<Vec<usize>>) {
        let events = &mut self.events;
        let mut lengths = Vec::with_capacity(trace.stream.len());
        let every_event_clean = trace.stream.iter().zip(places).all(|(e, &k)| {
            let judged = *events[k].alone.get_or_insert_with(|| {
                round_trip_findings(std::slice::from_ref(e))
                    .is_empty()
                    .then(|| compact_length(e))
            });
            lengths.extend(judged);
            judged.is_some()
        });
        if every_event_clean && !trace.stream.is_empty() {
            return (vec![], Some(lengths));
        }
        (wire_round_trip(trace), None)
    }
}

/// The written lengths of `trace`'s events under a flat response form,
/// from `tagged`, their lengths under a tagged one (only an event written
/// without its `outcome`, [`check::written_without_outcome`], differs):
/// each answered response's flat text judged alone by [`flat_text_length`],
/// remembered with the response as the memo keeps it at `places`
/// ([`StreamMemo::keep`]). `None` if one does not read back.
fn flat_lengths(
    kept: &mut [KeptEvent],
    trace: &Trace,
    places: &[usize],
    tagged: &[usize],
) -> Option<Vec<usize>> {
    trace
        .stream
        .iter()
        .zip(places)
        .zip(tagged)
        .map(|((e, &k), &n)| {
            if !check::written_without_outcome(e, true) {
                return Some(n);
            }
            *kept[k].flat.get_or_insert_with(|| flat_text_length(e))
        })
        .collect()
}

/// The length of the flat text `write_events` writes of `event`, if that
/// text reads back as `event` in the shape [`check::written_shape`] gives
/// it under a flat response form: what the reader would read of it.
fn flat_text_length(event: &crate::wire::Event) -> Option<usize> {
    let mut text = Vec::new();
    write_events(std::slice::from_ref(event), true, &mut text);
    let inner = text.get(1..text.len().saturating_sub(1))?;
    let raw: crate::wire::RawEvent = serde_json::from_slice(inner).ok()?;
    let shape = check::shape::Shape::of_raw(&raw);
    let back = raw.into_event().ok()?;
    (back == *event && shape == check::written_shape(event, true)).then_some(inner.len())
}

/// The length of `event`'s compact JSON text (what `write_events` writes of
/// an event written straight from its `Serialize`), counted without
/// keeping the text.
fn compact_length(event: &crate::wire::Event) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    match serde_json::to_writer(&mut n, event) {
        Ok(()) => n.0,
        Err(_) => "null".len(),
    }
}

/// An event's memo key (rule `PERF-MEMO-SAME-EXACTLY`): a hash of the
/// fields that tell explored events apart, which only decides what is
/// compared.
pub(super) fn event_key(event: &crate::wire::Event) -> u64 {
    let mut h = FastHash::default();
    crate::wire::memo_key(event, &mut h);
    h.0
}

/// A stream's memo key: its events' keys, in order, with their count.
fn stream_key(keys: &[u64]) -> u64 {
    let mut h = FastHash::default();
    h.word(keys.len() as u64);
    for &w in keys {
        h.word(w);
    }
    h.0
}

/// [`check_trace`] with its stream invariants remembered in `memo`: the same
/// diagnostics in the same order. `steps` is the [`StepChecker`] that
/// judged every step of `trace`'s run, if one did: what it judged for good
/// is not judged again (rule `PERF-END-AFTER-STEPS`).
pub(crate) fn check_trace_memo(
    trace: &Trace,
    scenario: &Scenario,
    memo: &mut StreamMemo,
    steps: Option<&StepChecker>,
) -> Vec<Diagnostic> {
    let (mut out, wire, paired) = memo.stream_invariants(trace);
    out.extend_from_slice(paired);
    out.extend(beyond_the_stream(trace, scenario, steps));
    out.extend_from_slice(wire);
    out
}

/// How many runs [`check_runs`] runs, each judged at its steps, before it
/// judges their ends (rule `PERF-END-BATCHED`). The end-of-run invariants
/// and the oracle behind the memo are more code than the first-level
/// instruction cache holds beside the model's: judged after every run, each
/// run's end loads them again after the model's steps pushed them out.
/// Sixteen keeps them loaded across the batch's ends in callgrind's cache
/// simulation (a sixth fewer instruction misses), and the batch's traces
/// in memory (a few kilobytes each in the exploration's families); the
/// clock on the host's CPU shows no gain (docs/decisions/performance.md,
/// "Performance: the ends of runs are judged in batches").
pub(crate) const RUN_BATCH: usize = 16;

/// Runs each of `scenarios` with every invariant after every step and at
/// the end, as `explore` checks its scenarios, and hands each, in order, to
/// `done` with its steps and its findings (or why it could not run).
///
/// The runs go in batches of 16 (rule `PERF-END-BATCHED`): each run
/// judged at every step by a [`StepChecker`] of its own, then the batch's
/// runs judged at their ends, in order, with `memo` and the run's own step
/// checker (what it judged for good is not judged again). What
/// `done` receives for a run is what checking it alone right after its run
/// gives: the step findings in step order, then the end's.
pub fn check_runs<S: std::borrow::Borrow<Scenario>>(
    scenarios: impl IntoIterator<Item = S>,
    memo: &mut StreamMemo,
    mut done: impl FnMut(S, usize, Result<Vec<Diagnostic>, crate::scenario::ScenarioError>),
) {
    let mut checkers: Vec<StepChecker> = Vec::new();
    let mut batch: Vec<Ran<S>> = Vec::with_capacity(RUN_BATCH);
    let mut scenarios = scenarios.into_iter();
    loop {
        for (k, scenario) in scenarios.by_ref().take(RUN_BATCH).enumerate() {
            if checkers.len() == k {
                checkers.push(StepChecker::new());
            }
            let checker = &mut checkers[k];
            let mut found = Vec::new();
            let mut steps = 0usize;
            checker.restart();
            let run = crate::scenario::run_observed(
                scenario.borrow(),
                crate::scenario::RunOptions::default(),
                &mut |c, t| {
                    steps += 1;
                    checker.step(c, t, &mut found);
                },
            );
            batch.push(Ran {
                scenario,
                steps,
                run: run.map(|t| (t, found)),
            });
        }
        if batch.is_empty() {
            return;
        }
        for (ran, checker) in batch.drain(..).zip(&checkers) {
            let result = ran.run.map(|(trace, mut found)| {
                found.extend(check_trace_memo(
                    &trace,
                    ran.scenario.borrow(),
                    memo,
                    Some(checker),
                ));
                found
            });
            done(ran.scenario, ran.steps, result);
        }
    }
}

/// One run of a [`check_runs`] batch, judged at its steps, awaiting its end.
struct Ran<S> {
    scenario: S,
    steps: usize,
    /// The trace and the step findings, or why the run failed.
    run: Result<(Trace, Vec<Diagnostic>), crate::scenario::ScenarioError>,
}

#[cfg(test)]
mod incremental_tests;
