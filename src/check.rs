//! The oracle: judges a persisted stream against every `CHECK-*` rule and
//! reports each violation with its rule ID and position.
//!
//! The checker reads one event at a time ([`Checker::push_raw`] for events
//! read from disk, [`Checker::push_event`] for typed events such as the
//! model's traces). Its memory is what the current turn holds open: the open
//! tool calls, the waiting requests, the IDs seen in the turn, and the
//! findings not yet flushed. Findings are flushed, in event order, when their
//! turn ends; nothing of a finished turn is kept except a bounded list of its
//! unanswered requests (for `CHECK-TURN-SCOPED`).
//!
//! What each rule demands is in [`rules`] (pure functions, reusable on
//! traces); what an event shows on disk is in [`shape`]. The rule catalog is
//! `spec/RULES.md`, section "Oracle checks".
//!
//! # Profiles
//!
//! A stream is judged as written by the writer of one RFD stage
//! ([`Profile`]). [`ProfileMode::Fixed`] judges every turn as written by that
//! writer: use it to test an implementation's own output. [`ProfileMode::Auto`]
//! judges each turn by the stage its own events show ([`shape::Shape::evidence`]),
//! because a real stream heals one turn at a time (RFD 082: "the on-disk shape
//! heals one event at a time") and may hold legacy turns before tagged ones.
//! See spec/DECISIONS.md, "Oracle checks: auto profile per turn".

use std::fmt;
use std::io::BufRead;

use serde::{Serialize, Serializer};

use crate::profile::tables::Tables;
use crate::wire::{Event, EventReader, ReadError, ReadErrorKind};

mod checker;
mod diagnostic;
mod plain;
pub mod rules;
pub mod shape;

pub use checker::Checker;
use diagnostic::Positions;
#[cfg(feature = "testkit")] // the fuzz targets' comparison (`fuzzing`)
pub(crate) use diagnostic::one_line;
pub use diagnostic::{Diagnostic, Position};

pub use crate::rule::Rule;
pub use rules::Severity;

/// The writer of one RFD stage, as the oracle judges it: the same
/// profiles the model runs under ([`crate::profile::ProfileName`]), so what
/// the oracle accepts of a stage and what the model writes under it come from
/// one set of rule switches.
pub use crate::profile::ProfileName as Profile;

/// How a stream's profile is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ProfileMode {
    /// Each turn by what its own events show; a turn that shows nothing
    /// takes the previous turn's profile (the first, `legacy`).
    #[default]
    Auto,
    /// Every turn as written by this profile's writer.
    Fixed(Profile),
}

impl ProfileMode {
    /// The profile the per-event rules run under: the fixed one, or under
    /// auto the most permissive (every shape a turn shows lifts the turn to
    /// the stage that has it, so no shape is out of profile).
    fn event_profile(self) -> Profile {
        match self {
            ProfileMode::Auto => Profile::Rfd083,
            ProfileMode::Fixed(p) => p,
        }
    }
}

impl fmt::Display for ProfileMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileMode::Auto => f.write_str("auto"),
            ProfileMode::Fixed(p) => p.fmt(f),
        }
    }
}

impl std::str::FromStr for ProfileMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ProfileMode::Auto),
            other => other.parse().map(ProfileMode::Fixed).map_err(|_| {
                format!("unknown profile `{other}`; expected auto, legacy, rfd082 or rfd083")
            }),
        }
    }
}

impl Serialize for ProfileMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// How many turns were judged under each profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TurnsByProfile {
    /// Judged as a legacy writer's.
    pub legacy: usize,
    /// Judged as an RFD 082 writer's.
    pub rfd082: usize,
    /// Judged as an RFD 083 writer's.
    pub rfd083: usize,
}

impl TurnsByProfile {
    fn add(&mut self, p: Profile) {
        match p {
            Profile::Legacy => self.legacy += 1,
            Profile::Rfd082 => self.rfd082 += 1,
            Profile::Rfd083 => self.rfd083 += 1,
        }
    }

    /// The turns judged under `p`.
    fn get(&self, p: Profile) -> usize {
        match p {
            Profile::Legacy => self.legacy,
            Profile::Rfd082 => self.rfd082,
            Profile::Rfd083 => self.rfd083,
        }
    }
}

/// What the checker learned about a whole stream (or the part of it read
/// before an error).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileSummary {
    /// The input's name.
    pub(crate) origin: String,
    /// The mode asked for.
    pub(crate) requested_profile: ProfileMode,
    /// The profile the stream was judged under: the fixed one, or under auto
    /// the newest stage any turn was judged as (`legacy` for a stream with
    /// no inquiry shapes).
    pub profile: Profile,
    /// Under auto: some turns were judged legacy and others RFD 082 or later
    /// (a stream written before and after an upgrade).
    pub mixed: bool,
    /// Events read.
    pub events: usize,
    /// Turns read.
    pub turns: usize,
    /// Turns per judged profile.
    pub turns_by_profile: TurnsByProfile,
    /// Diagnostics reported.
    pub diagnostics: usize,
    /// Of which errors.
    pub errors: usize,
    /// Of which warnings.
    pub warnings: usize,
}

/// The result of checking one input.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// What was learned.
    pub summary: FileSummary,
    /// Every diagnostic, in the order reported.
    pub diagnostics: Vec<Diagnostic>,
    /// Why the input could not be read to its end, if it could not.
    pub error: Option<ReadError>,
}

/// Checks a stream read from `reader` (JSON array or JSON Lines), handing
/// each diagnostic to `sink` as soon as its turn ends. Memory is bounded by
/// the largest turn, not by the stream.
///
/// An event that cannot be read or typed is a `CHECK-EVENT-WELL-FORMED`
/// finding at the line and column where reading it failed; reading resumes
/// past it (`crate::wire::reader`'s `resume`: the next line under JSON
/// Lines, the next event object under the array layout) and the rest of the
/// stream is judged, the bad event taken as absent. The input is unusable
/// (the error is returned with the summary of what was read, and the
/// diagnostics found before it are still reported) only when it cannot be
/// read as a stream at all: no layout (`[` or `{`) at its start, reading it
/// failed, or not one of its events reads as an event.
pub fn check_reader<R: BufRead>(
    reader: R,
    origin: &str,
    mode: ProfileMode,
    sink: &mut dyn FnMut(Diagnostic),
) -> (FileSummary, Option<ReadError>) {
    check_reader_in(reader, origin, mode, Tables::RFD, sink)
}

/// [`check_reader`] of a writer that follows `tables` (an amendment's rows
/// over the profile's switches; [`Checker::with_tables`]).
pub(crate) fn check_reader_in<R: BufRead>(
    reader: R,
    origin: &str,
    mode: ProfileMode,
    tables: Tables,
    sink: &mut dyn FnMut(Diagnostic),
) -> (FileSummary, Option<ReadError>) {
    let mut checker = Checker::new(origin, mode).with_tables(tables);
    let mut error = None;
    let mut first_malformed: Option<ReadError> = None;
    let mut good = 0usize;
    // The input ended inside an event or the array: the last turn's unpaired
    // events are not judged (the rest was never written or read).
    let mut cut_short = false;
    let mut events = EventReader::new(crate::wire::Rewind::new(reader), origin);
    let positions = std::cell::RefCell::new(Positions::new());
    let mut located = |mut d: Diagnostic| {
        d.position = positions.borrow().get(d.event_index);
        sink(d);
    };
    while let Some(item) = events.next_with_plain(|fields, plain, line, column| {
        positions.borrow_mut().push(line, column);
        checker.push_fields(fields, plain, &mut located)
    }) {
        match item {
            Ok((Ok(()), _, _)) => good += 1,
            Ok((Err(message), line, column)) => {
                // Read whole but not an event: its position is recorded.
                let e = ReadError::new(
                    ReadErrorKind::Shape,
                    origin,
                    Some(checker.events()),
                    line,
                    column,
                    message,
                );
                checker.push_malformed(malformed_message(&e));
                first_malformed.get_or_insert(e);
            }
            Err(e) => match events.resume(e.kind()) {
                crate::wire::Resume::Unusable => {
                    error = Some(e);
                    break;
                }
                resume @ (crate::wire::Resume::Next | crate::wire::Resume::End) => {
                    // An event left open is placed where it starts.
                    let (line, column) = events
                        .unterminated_start()
                        .unwrap_or((e.line(), e.column()));
                    positions.borrow_mut().push(line, column);
                    checker.push_malformed(malformed_message(&e));
                    let kind = e.kind();
                    first_malformed.get_or_insert(e);
                    if resume == crate::wire::Resume::End {
                        cut_short = kind == ReadErrorKind::UnexpectedEnd;
                        break;
                    }
                }
            },
        }
    }
    if error.is_none()
        && good == 0
        && let Some(e) = first_malformed
    {
        // Not one event read as an event: this is no stream.
        return (Checker::new(origin, mode).summary(), Some(e));
    }
    match (&error, cut_short) {
        (None, false) => checker.finish_into(&mut located),
        (Some(_), _) | (None, true) => checker.abandon_into(&mut located),
    }
    (checker.summary(), error)
}

/// The `CHECK-EVENT-WELL-FORMED` message for a read or typing error: its
/// kind and message (its position is the diagnostic's).
fn malformed_message(e: &ReadError) -> String {
    format!(
        "malformed event ({}): {}; reading resumed past it",
        e.kind(),
        e.message()
    )
}

/// Checks a stream held in memory, collecting the diagnostics.
///
/// # Examples
///
/// An inquiry request whose response never came is unpaired (rule
/// `CHECK-PAIRED`), and the diagnostic says where:
///
/// ```
/// use inquiry_model::check::{check_bytes, ProfileMode};
///
/// let stream = br#"[
///   {"type": "turn_start", "timestamp": "2026-01-01T00:00:00Z"},
///   {"type": "tool_call_request", "timestamp": "2026-01-01T00:00:01Z", "id": "c1", "name": "fs", "arguments": {}},
///   {"type": "inquiry_request", "timestamp": "2026-01-01T00:00:02Z", "id": "c1.confirm.1",
///    "source": {"source": "tool", "name": "fs"},
///    "question": {"text": "Apply?", "answer_type": {"type": "boolean"}}},
///   {"type": "tool_call_response", "timestamp": "2026-01-01T00:00:03Z", "id": "c1", "content": "done", "is_error": false}
/// ]"#;
/// let checked = check_bytes(stream, "events.json", ProfileMode::Auto);
/// assert!(checked.error.is_none(), "the bytes read");
/// let rules: Vec<&str> = checked.diagnostics.iter().map(|d| d.rule.id()).collect();
/// assert!(rules.contains(&"CHECK-PAIRED"), "{rules:?}");
/// ```
pub fn check_bytes(bytes: &[u8], origin: &str, mode: ProfileMode) -> Checked {
    check_bytes_in(bytes, origin, mode, Tables::RFD)
}

/// [`check_bytes`] of a writer that follows `tables`
/// ([`Checker::with_tables`]).
pub(crate) fn check_bytes_in(
    bytes: &[u8],
    origin: &str,
    mode: ProfileMode,
    tables: Tables,
) -> Checked {
    let mut diagnostics = Vec::new();
    let (summary, error) =
        check_reader_in(bytes, origin, mode, tables, &mut |d| diagnostics.push(d));
    Checked {
        summary,
        diagnostics,
        error,
    }
}

/// Whether this crate's writer writes `event` without its `outcome` under
/// a `flat` response form: an answered response, in the legacy `{id,
/// answer}` form (every other event is written the same under both forms).
pub(crate) fn written_without_outcome(event: &Event, flat: bool) -> bool {
    flat && matches!(
        event.kind,
        crate::wire::EventKind::InquiryResponse(crate::wire::InquiryResponse::Answered { .. })
    )
}

/// The on-disk shape of `event` as this crate's writer writes it:
/// [`shape::Shape::of_event`]'s, untagged where the writer leaves the
/// `outcome` out ([`written_without_outcome`]).
pub(crate) fn written_shape(event: &Event, flat: bool) -> shape::Shape {
    let mut shape = shape::Shape::of_event(event);
    if written_without_outcome(event, flat) {
        shape.tagged = false;
    }
    shape
}

/// [`check_bytes_in`] of the one-line array `[e0,e1,...]` this crate's
/// writer writes of `events` (answered responses without their `outcome`
/// if `flat`), judged from the typed events without writing or reading
/// that array (rule `PERF-ORACLE-TYPED`). The caller vouches that each
/// event's written text reads back as the event in the shape
/// [`written_shape`] gives it: that is what the reader would read, and
/// what the checker judges of a typed event and its shape is what it
/// judges of the same event read ([`check_events`]). Each diagnostic is
/// placed where the reader would place it: on line 1 at the column where
/// its event starts, from `written_len(i)`, the length of event `i`'s
/// text, asked only for the events before a placed one.
pub(crate) fn check_written_events(
    events: &[Event],
    flat: bool,
    origin: &'static str,
    mode: ProfileMode,
    tables: Tables,
    written_len: &mut dyn FnMut(usize) -> usize,
) -> Checked {
    let mut checker = Checker::named(origin, mode).with_tables(tables);
    // Each diagnostic with the number of events read when it was reported.
    let mut found: Vec<(Diagnostic, usize)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        checker.push_shaped_into(e, &written_shape(e, flat), &mut |d| found.push((d, i + 1)));
    }
    let read = events.len();
    checker.finish_into(&mut |d| found.push((d, read)));
    // Where each event starts: after `[`, and after each earlier event and
    // its `,` (a compact text holds no newline).
    let mut starts = vec![2usize];
    let diagnostics = found
        .into_iter()
        .map(|(mut d, read)| {
            if diagnostic::in_window(d.event_index, read) {
                while starts.len() <= d.event_index {
                    let i = starts.len() - 1;
                    let next = starts[i].saturating_add(written_len(i)).saturating_add(1);
                    starts.push(next);
                }
                let column = starts[d.event_index];
                // The reader records no position past `u32` (`Positions::push`).
                d.position = u32::try_from(column)
                    .is_ok()
                    .then_some(Position { line: 1, column });
            }
            d
        })
        .collect();
    Checked {
        summary: checker.summary(),
        diagnostics,
        error: None,
    }
}

/// Checks typed events as this crate's writer would write them (the
/// model's traces, or a [`crate::wire::Stream`]'s events).
pub fn check_events<'a, I>(events: I, origin: &str, mode: ProfileMode) -> Checked
where
    I: IntoIterator<Item = &'a Event>,
{
    let mut checker = Checker::new(origin, mode);
    let mut diagnostics = Vec::new();
    for e in events {
        diagnostics.extend(checker.push_event(e));
    }
    diagnostics.extend(checker.finish());
    Checked {
        summary: checker.summary(),
        diagnostics,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::diagnostic::POSITION_WINDOW;
    use super::*;
    use crate::wire::Stream;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// The checker fed the owned way: every event read whole by the public
    /// reader and judged by [`Checker::push_raw`] (what `check_reader` did
    /// before it borrowed its events), reading past a malformed event the
    /// same way.
    fn reference(bytes: &[u8], origin: &str, mode: ProfileMode) -> Checked {
        let mut checker = Checker::new(origin, mode);
        let mut diagnostics = Vec::new();
        let mut error = None;
        let mut first_malformed = None;
        let (mut good, mut cut_short) = (0usize, false);
        // Every event's position, kept whole (the streaming check keeps a
        // window of them).
        let mut at = Vec::new();
        let mut reader = EventReader::new(crate::wire::Rewind::new(bytes), origin);
        while let Some(item) = reader.next() {
            let e = match item {
                Ok((raw, line, column)) => {
                    at.push(Position { line, column });
                    match checker.push_raw(raw) {
                        Ok(found) => {
                            good += 1;
                            diagnostics.extend(found);
                            continue;
                        }
                        Err(message) => ReadError::new(
                            ReadErrorKind::Shape,
                            origin,
                            Some(checker.events()),
                            line,
                            column,
                            message,
                        ),
                    }
                }
                Err(e) => match reader.resume(e.kind()) {
                    crate::wire::Resume::Unusable => {
                        error = Some(e);
                        break;
                    }
                    crate::wire::Resume::Next => {
                        let (line, column) = reader
                            .unterminated_start()
                            .unwrap_or((e.line(), e.column()));
                        at.push(Position { line, column });
                        e
                    }
                    crate::wire::Resume::End => {
                        let (line, column) = reader
                            .unterminated_start()
                            .unwrap_or((e.line(), e.column()));
                        at.push(Position { line, column });
                        checker.push_malformed(malformed_message(&e));
                        cut_short = e.kind() == ReadErrorKind::UnexpectedEnd;
                        first_malformed.get_or_insert(e);
                        break;
                    }
                },
            };
            checker.push_malformed(malformed_message(&e));
            first_malformed.get_or_insert(e);
        }
        if error.is_none()
            && good == 0
            && let Some(e) = first_malformed
        {
            return Checked {
                summary: Checker::new(origin, mode).summary(),
                diagnostics: vec![],
                error: Some(e),
            };
        }
        diagnostics.extend(match (&error, cut_short) {
            (None, false) => checker.finish(),
            (Some(_), _) | (None, true) => checker.abandon(),
        });
        for d in &mut diagnostics {
            d.position = at.get(d.event_index).copied();
        }
        Checked {
            summary: checker.summary(),
            diagnostics,
            error,
        }
    }

    /// Lines as other writers write them: legacy and stray-answer responses,
    /// RFD 083 fields at their defaults, escaped tags, typing errors.
    fn raw_line() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            r#"{"type":"turn_start","timestamp":"t"}"#,
            r#"{"type":"tool_call_request","id":"call_a","name":"fs_modify_file","arguments":"e30="}"#,
            r#"{"type":"tool_call_response","id":"call_a","content":"b2s=","is_error":false}"#,
            r#"{"type":"inquiry_request","id":"call_a.apply_changes","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"Apply?","answer_type":{"type":"boolean"}}}"#,
            r#"{"type":"inquiry_request","id":"call_a.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"secret"},"exclusive":false,"persistence":"turn"}}"#,
            r#"{"type":"inquiry_response","id":"call_a.apply_changes","answer":true}"#,
            r#"{"type":"inquiry_response","outcome":"redacted","id":"call_a.q.1","answer":"leak"}"#,
            r#"{"type":"inquiry_response","outcome":"cancelled","id":"call_a.q.1","reason":"invalid_static_answer","answer":1}"#,
            r#"{"type":"inquiry_\u0072esponse","outcome":"answered","id":"call_a.q.1","answer":null}"#,
            r#"{"type":"chat_response","timestamp":"2026","message":"h\u00e9","extra":[1,{"k":2.5e-3}]}"#,
            r#"{"type":"tool_call_response","id":"call_a","is_error":"no"}"#,
            r#"{"type":"tool_call_request","name":"x"}"#,
            r#"{"type":7}"#,
            r#"{"type":"x","timestamp":1}"#,
        ])
        .prop_map(str::to_owned)
    }

    fn stream_bytes() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            3 => crate::generate::wire::event().prop_map(|e| serde_json::to_string(&e).expect("writes")),
            3 => crate::generate::stream::loose_event().prop_map(|e| serde_json::to_string(&e).expect("writes")),
            2 => raw_line(),
        ];
        (vec(line, 1..30), any::<bool>()).prop_map(|(lines, array)| {
            if array {
                format!("[\n  {}\n]\n", lines.join(",\n  ")).into_bytes()
            } else {
                (lines.join("\n") + "\n").into_bytes()
            }
        })
    }

    /// `events` with an extra field kept on some inquiry events (drawn by
    /// `extra`): an unknown `content` on a response, an `answer` on a
    /// request, where a secret leaks.
    pub(in crate::check) fn with_extra_fields(
        mut events: Vec<Event>,
        extra: &[bool],
    ) -> Vec<Event> {
        use crate::wire::EventKind;
        for (k, e) in events.iter_mut().enumerate() {
            if !extra[k % extra.len()] {
                continue;
            }
            let field = match e.kind {
                EventKind::InquiryResponse(_) => ("content", serde_json::json!("x")),
                EventKind::InquiryRequest(_) => ("answer", serde_json::json!("leak")),
                EventKind::TurnStart
                | EventKind::ChatRequest
                | EventKind::ChatResponse
                | EventKind::ToolCallRequest(_)
                | EventKind::ToolCallResponse(_)
                | EventKind::Other(_) => continue,
            };
            e.extra.push((
                field.0.to_owned(),
                crate::wire::Opaque::from_value(&field.1),
            ));
        }
        events
    }

    fn mode() -> impl Strategy<Value = ProfileMode> {
        prop_oneof![
            Just(ProfileMode::Auto),
            Just(ProfileMode::Fixed(Profile::Legacy)),
            Just(ProfileMode::Fixed(Profile::Rfd082)),
            Just(ProfileMode::Fixed(Profile::Rfd083)),
        ]
    }

    /// Rule: CLI-CHECK-POSITIONS — the window keeps the positions of the
    /// last `POSITION_WINDOW` events and forgets older ones, so memory stays
    /// bounded and an old event gets no position rather than a wrong one.
    #[test]
    fn position_window_forgets_only_what_fell_out() {
        let mut p = Positions::new();
        assert_eq!(p.get(0), None, "nothing read yet");
        let n = POSITION_WINDOW + 10;
        for i in 0..n {
            p.push(i + 1, 3);
        }
        assert_eq!(p.ring.len(), POSITION_WINDOW);
        assert_eq!(p.get(9), None, "fell out of the window");
        assert_eq!(p.get(n), None, "not read yet");
        for i in [10, n / 2, n - 1] {
            assert_eq!(
                p.get(i),
                Some(Position {
                    line: i + 1,
                    column: 3
                })
            );
        }
    }

    /// Rule: CLI-CHECK-POSITIONS — a line or column past `u32` is not
    /// recorded, so its event gets no position rather than a wrong one
    /// (line and column count from 1: a 0 is never a real place).
    #[test]
    fn a_position_past_u32_is_not_given() {
        let past = u32::MAX as usize + 1;
        let mut p = Positions::new();
        p.push(past, 3);
        p.push(5, past);
        p.push(past, past);
        p.push(5, 3);
        assert_eq!([p.get(0), p.get(1), p.get(2)], [None, None, None]);
        assert_eq!(p.get(3), Some(Position { line: 5, column: 3 }));
    }

    proptest! {
        /// Rule: PERF-CHECK-SAME — `check_reader` judges events borrowed
        /// from the input, without copying the opaque values it never reads,
        /// exactly as `push_raw` judges the owned events: the same
        /// diagnostics, summary and error, for every writer's shapes and for
        /// streams holding events that do not type.
        #[test]
        fn lean_check_agrees_with_push_raw(bytes in stream_bytes(), mode in mode()) {
            prop_assert_eq!(check_bytes(&bytes, "s", mode), reference(&bytes, "s", mode));
        }

        /// Rule: PERF-CHECK-SAME — the same for structured streams (orphans,
        /// repeated IDs, turns), written as a pretty array.
        #[test]
        fn lean_check_agrees_on_structured_streams(events in crate::generate::stream::stream(), mode in mode()) {
            let bytes = Stream::new(events).to_array_string().into_bytes();
            prop_assert_eq!(check_bytes(&bytes, "s", mode), reference(&bytes, "s", mode));
        }

        /// Rule: PERF-CHECK-SAME — `Checker::push_event`, given typed events
        /// (kept extra fields included), finds what checking their written
        /// text finds, but for the positions only text has. Before the
        /// shape of a typed event counted its extra fields, a `redacted`
        /// response carrying one was a secret leak in the text and clean
        /// as an event.
        #[test]
        fn push_event_agrees_with_checking_the_written_text(
            events in prop_oneof![
                vec(
                    prop_oneof![
                        2 => crate::generate::wire::event(),
                        1 => crate::generate::stream::loose_event(),
                    ],
                    1..30,
                ),
                (crate::generate::stream::stream(), vec(any::<bool>(), 64))
                    .prop_map(|(events, extra)| with_extra_fields(events, &extra)),
            ],
            mode in mode(),
        ) {
            let stream = Stream::new(events);
            let bytes = stream.to_array_string().into_bytes();
            let mut text = check_bytes(&bytes, "s", mode);
            prop_assert_eq!(text.error, None);
            let mut c = Checker::new("s", mode);
            let mut typed = Vec::new();
            for e in &stream.events {
                typed.extend(c.push_event(e));
            }
            typed.extend(c.finish());
            for d in &mut text.diagnostics {
                d.position = None;
            }
            prop_assert_eq!(typed, text.diagnostics);
            prop_assert_eq!(c.summary(), text.summary);
        }
    }

    /// `ProfileMode` reads the four names `check --profile` documents
    /// (hand-written here, not taken from `Display`), and refuses any other
    /// with the list of them.
    #[test]
    fn profile_modes_read_by_their_documented_names() {
        let cases = [
            ("auto", ProfileMode::Auto),
            ("legacy", ProfileMode::Fixed(Profile::Legacy)),
            ("rfd082", ProfileMode::Fixed(Profile::Rfd082)),
            ("rfd083", ProfileMode::Fixed(Profile::Rfd083)),
        ];
        for (name, mode) in cases {
            assert_eq!(name.parse::<ProfileMode>(), Ok(mode), "{name}");
            assert_eq!(mode.to_string(), name);
        }
        for bad in ["", "Auto", "rfd084", "auto "] {
            let e = bad.parse::<ProfileMode>().unwrap_err();
            assert!(
                e.contains("expected auto, legacy, rfd082 or rfd083"),
                "{bad:?}: {e}"
            );
        }
    }
}

#[cfg(all(test, feature = "cli"))]
mod check_adversarial_tests;
#[cfg(all(test, feature = "cli"))]
mod check_contract_tests;
#[cfg(all(test, feature = "cli"))]
mod check_rules_tests;
#[cfg(all(test, feature = "cli"))]
mod check_severity_tests;
#[cfg(all(test, feature = "cli"))]
mod check_support_tests;
#[cfg(all(test, feature = "cli"))]
mod check_tool_calls_tests;
#[cfg(all(test, feature = "cli"))]
mod check_writer_tests;
