//! # inquiry-model
//!
//! An executable, property-tested reference model of the tool-inquiry
//! recording lifecycle specified by RFD 082 ("Unified inquiry event
//! recording") and RFD 083 ("Built-in `ask_user` tool"), on top of RFD 028
//! (the inquiry backend) and the RFD 004/005 draft (first-class inquiry
//! events).
//!
//! The modules mirror the spec's concepts:
//!
//! - [`wire`]: the persisted event vocabulary and its serde (RFD 082
//!   "`InquiryResponse` serialization", RFD 083 step 5), and the streaming
//!   reader and writer of whole stream files.
//! - [`stream`]: turns, inquiry pairing, turn-scoped `sanitize`, the
//!   provider view (RFD 082 Phase 3, RFD 004/005 draft).
//! - [`tool`]: in-flight tool types and provenance resolution (RFD 028,
//!   082, 083).
//! - [`routing`]: the RFDs' decision tables as pure functions
//!   (`spec/tables/`).
//! - [`inquiry`]: the RFD 028 inquiry backend as the trace sees it.
//! - [`coordinator`]: the recording lifecycle as a state machine.
//! - [`profile`]: the rule set of each RFD stage, as values.
//! - [`ask_user`], [`prompt`], [`config`]: RFD 083's built-in, the
//!   prompter's presentation, tool configuration.
//! - [`scenario`]: the input language and `scenario::run(&Scenario) -> Trace`.
//! - [`check`]: the oracle over persisted streams (`CHECK-*`) and the
//!   invariants of the model's runs (`INV-*`).
//! - [`explore`], [`amend`], [`conformance`]: exhaustive small-scope
//!   exploration, profile diffs and the invariant matrix, the conformance
//!   runner and vectors.
//! - [`strategy`]: proptest strategies for the wire types.
//! - [`corpus`]: a seeded corpus of streams in the on-disk shape of real
//!   pre-082 conversations (`tests/corpus/jp-like/`).
//! - [`cli`]: the command line, the only module that does I/O.
//!
//! The core does no I/O and no randomness of its own: the same input gives the
//! same output, byte for byte. Every rule has a stable ID listed in
//! `spec/RULES.md`.

#![deny(missing_docs)]

pub mod amend;
pub mod ask_user;
pub mod check;
pub mod config;
pub mod conformance;
pub mod coordinator;
pub mod corpus;
pub mod explore;
pub mod fuzzing;
pub mod inquiry;
pub mod mermaid;
pub mod profile;
pub mod profile_file;
pub mod prompt;
pub mod rfd_check;
pub mod routing;
pub mod scenario;
pub mod strategy;
pub mod stream;
pub mod tool;
pub mod wire;

pub mod cli;
