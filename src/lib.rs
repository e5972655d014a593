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
//! - [`wire`]: the persisted event vocabulary and its serde.
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
pub mod explore;
pub mod fuzzing;
pub mod inquiry;
pub mod profile;
pub mod prompt;
pub mod routing;
pub mod scenario;
pub mod strategy;
pub mod stream;
pub mod tool;
pub mod wire;

pub mod cli;
