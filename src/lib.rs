//! # inquiry-model
//!
//! An executable, property-tested reference model of the tool-inquiry
//! recording lifecycle specified by RFD 082 ("Unified inquiry event
//! recording") and RFD 083 ("Built-in `ask_user` tool"), on top of RFD 028
//! (the inquiry backend) and the RFD 004/005 draft (first-class inquiry
//! events).
//!
//! # Entry points
//!
//! What a library user needs, one line each:
//!
//! 1. [`wire::Stream::read`] / [`wire::Stream::from_slice`]: read a stream
//!    file (a JSON array or JSON Lines) into typed [`wire::Event`]s.
//! 2. [`wire::Stream::write_json_lines`] / [`wire::Stream::write_array`]:
//!    write it back (a second write is byte-identical to the first).
//! 3. [`check::check_bytes`], [`check::check_events`], [`check::check_reader`]:
//!    judge a stream with the oracle (`CHECK-*` rules); a [`check::Checked`]
//!    with its [`check::Diagnostic`]s.
//! 4. [`check::Checker`]: the same oracle fed one event at a time.
//! 5. [`stream::sanitize`](mod@stream::sanitize): turn-scoped repair of a
//!    stream.
//! 6. [`stream::turns`](mod@stream::turns) and [`stream::pair`]: a
//!    stream's turns and its inquiry request/response pairs.
//! 7. [`stream::provider_view`]: what the provider sees of a stream.
//! 8. [`scenario::run`]: run a [`scenario::Scenario`] through the model; a
//!    [`scenario::Trace`] with the persisted stream.
//! 9. [`invariants::check_trace`]: the model's invariants (`INV-*`) on a trace.
//! 10. [`conformance::Implementation`]: the trait an implementation or its
//!     adapter implements for the conformance runner.
//! 11. [`conformance::check_vectors`] over [`conformance::curated`] vectors:
//!     the conformance runner; a [`conformance::Failure`] per divergence.
//! 12. [`profile::ProfileName`] and [`check::ProfileMode`]: the rule set of
//!     each RFD stage, and how the oracle picks one.
//! 13. [`rule::Rule`]: every rule ID (`CHECK-*`, `INV-*`) as one type.
//!
//! # Layout
//!
//! The spec core stands apart from the tooling around it, bottom up:
//!
//! - The vocabulary both sides share: [`wire`] (the persisted event
//!   vocabulary and its serde, RFD 082 "`InquiryResponse` serialization",
//!   RFD 083 step 5, and the streaming reader and writer of whole stream
//!   files), [`profile`] (the rule set of each RFD stage, as values),
//!   [`rule`] (the `CHECK-*` and `INV-*` rule IDs as one type) and
//!   [`predicates`] (what the model and the oracle both decide: an answer
//!   fits its question, `ask_user`'s question shape).
//! - [`model`]: the normative model and nothing else (the recording
//!   lifecycle, routing, `ask_user`, the inquiry backend, the prompter's
//!   presentation, configuration, the built-ins, the turn cache's keys);
//!   `src/model/README.md` maps each file to its RFD sections.
//! - [`stream`]: turns (the boundary decided once, `stream::turns`),
//!   inquiry pairing, turn-scoped `sanitize`, the provider view (RFD 082
//!   Phase 3, RFD 004/005 draft).
//! - The tooling on top: [`scenario`] (the input language and
//!   `scenario::run(&Scenario) -> Trace`), [`check`] (the oracle over
//!   persisted streams, `CHECK-*`; it never needs the model, so it judges
//!   any implementation's streams), [`invariants`] (the invariants of the
//!   model's runs, `INV-*`), [`conformance`] (the conformance runner and
//!   vectors) and [`masks`] (how commands print secrets). The reviewer's
//!   tools (RFD amendments as profile files, the RFD text check, profile
//!   diffs and their pictures) are the command line's (`rfd-check`,
//!   `diff-profiles`, `invariants`, `run --format mermaid`), not library
//!   API; a scenario's `amendment` is read by the same profile-file reader.
//!
//! Behind the `testkit` feature (on by default through `cli`):
//!
//! - [`generate`]: the generators, written once against one choice
//!   interface, with four drivers (proptest, fuzz bytes, seeded sampling,
//!   exhaustive enumeration), and a seeded corpus of streams in the on-disk
//!   shape of real pre-082 conversations. Not `gen`: a reserved word in
//!   Rust 2024.
//! - `conformance::check_generated` and the generated vectors (the rest of
//!   [`conformance`], the runner and the vector format, is always there).
//! - [`testkit`]: wrong implementations (the coordinator's faults, a
//!   faulty repair), kept out of the spec core, for the fault matrix and
//!   the wrong-implementation suites.
//! - `fuzzing`: the cargo-fuzz entry points (hidden from the docs: they are
//!   for `fuzz/`, not for library users).
//!
//! Behind the `cli` feature (the default): `cli`, the command line, the only
//! module that does I/O (hidden from the docs: the binary's, not an API),
//! and [`explore`], whose one public item is [`explore::scenarios`]: every
//! `stride`-th scenario of the small scope and drawn ones, the corpus the
//! reviewer's commands run; the searches over it are the `explore`,
//! `diff-profiles` and `invariants` commands.
//! A library user who turns default features off builds serde, serde_json,
//! indexmap, hashbrown and memchr only.
//!
//! What is public is what a user of the library needs: the wire types and
//! the stream reader and writer, the oracle's checker and its diagnostics,
//! the model's scenario runner and its trace, the profiles, the rule IDs
//! (one [`rule::Rule`] type), and the conformance runner with the
//! `Implementation` trait an external implementation or adapter drives.
//! Helpers that only the crate itself uses are `pub(crate)`; what only
//! tests and fuzzers use sits behind `testkit` (decision "Code: the public
//! surface is what a library user needs").
//!
//! # Examples
//!
//! Read a stream (a JSON array or JSON Lines), judge it with the oracle,
//! and repair it with `sanitize`: here a turn whose inquiry request was
//! never answered.
//!
//! ```
//! use inquiry_model::check::{self, ProfileMode};
//! use inquiry_model::stream;
//! use inquiry_model::wire::Stream;
//!
//! let bytes = br#"
//! {"type":"turn_start"}
//! {"type":"tool_call_request","id":"call_1","name":"fs_modify_file"}
//! {"type":"inquiry_request","id":"call_1.confirm.1","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"Apply?","answer_type":{"type":"boolean"}}}
//! {"type":"tool_call_response","id":"call_1","content":"ZG9uZQ==","is_error":false}
//! "#;
//! let stream = Stream::from_slice(bytes, "example.jsonl")?;
//! assert_eq!(stream.events.len(), 4);
//!
//! // The oracle: the request is left unanswered.
//! let checked = check::check_bytes(bytes, "example.jsonl", ProfileMode::Auto);
//! assert!(checked.error.is_none());
//! assert!(checked.diagnostics.iter().any(|d| d.rule == "CHECK-PAIRED"));
//!
//! // Turn-scoped repair: the orphan request goes, the rest stays in order.
//! let repaired = stream::sanitize(stream.events);
//! assert_eq!(repaired.removed.len(), 1);
//! assert_eq!(repaired.events.len(), 3);
//! assert!(check::check_events(&repaired.events, "repaired", ProfileMode::Auto)
//!     .diagnostics
//!     .iter()
//!     .all(|d| d.rule != "CHECK-PAIRED"));
//! # Ok::<(), inquiry_model::wire::ReadError>(())
//! ```
//!
//! Run a scenario through the model and check the stream it writes:
//!
//! ```
//! use inquiry_model::check::{self, ProfileMode};
//! use inquiry_model::scenario::{self, Scenario};
//! use inquiry_model::wire::InquiryResponse;
//!
//! // One local tool asks one boolean question; the user answers `true`.
//! let s: Scenario = serde_json::from_str(r#"{
//!   "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
//!     {"question": {"id": "q", "text": "Apply?", "answer_type": {"type": "boolean"}}}]}}},
//!   "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}],
//!   "prompter": [{"reply": "answer", "value": true}]
//! }"#)?;
//! let trace = scenario::run(&s)?;
//! let kinds: Vec<&str> = trace.stream.iter().map(|e| e.kind.tag()).collect();
//! // RFD 082: the inquiry pair is recorded inside its tool call.
//! assert_eq!(
//!     kinds,
//!     [
//!         "turn_start", "chat_request", "tool_call_request", "inquiry_request",
//!         "inquiry_response", "tool_call_response", "chat_response",
//!     ]
//! );
//! assert!(matches!(
//!     trace.stream[4].as_inquiry_response(),
//!     Some(InquiryResponse::Answered { answer, .. }) if *answer == serde_json::json!(true)
//! ));
//! // Eat your own output: the oracle finds nothing to report.
//! assert!(check::check_events(&trace.stream, "trace", ProfileMode::Auto).diagnostics.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The core does no I/O and no randomness of its own: the same input gives the
//! same output, byte for byte. Every rule has a stable ID listed in
//! `spec/RULES.md`.

#![deny(missing_docs)]

#[cfg(test)]
mod alloc_count;
// Test helpers shared with the integration suite name the crate by its name.
#[cfg(test)]
extern crate self as inquiry_model;
pub mod check;
pub mod conformance;
#[cfg(feature = "cli")]
pub mod explore;
/// Where unit tests find stream files and the RFD texts: the integration
/// suite's helper, one file for both test trees.
#[cfg(test)]
#[path = "../tests/suite/external/mod.rs"]
#[allow(dead_code)] // each test tree uses its own part of it
mod external;
#[cfg(feature = "testkit")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "testkit")]
pub mod generate;
pub mod invariants;
pub mod masks;
pub mod model;
pub mod predicates;
pub mod profile;
mod review;
pub mod rule;
pub mod scenario;
pub mod stream;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod wire;
mod words;

#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
