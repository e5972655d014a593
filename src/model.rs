//! The normative model: the recording lifecycle of RFD 082 and the built-in
//! `ask_user` of RFD 083, over the inquiry backend of RFD 028, and nothing
//! else. `src/model/README.md` maps each file to the RFD sections it
//! implements.
//!
//! The model does no I/O and no randomness: the same input gives the same
//! effects, byte for byte (its maps' hash seeds never reach them, rule
//! `PERF-MODEL-MAPS`). It carries no test hooks, no hashing or state
//! keys and no secret walks; the explorer, the testkit and the scenario
//! driver read it through the named accessors of [`coordinator`].

pub mod ask_user;
pub mod builtins;
pub(crate) mod cache_key;
pub mod config;
pub mod coordinator;
pub mod inquiry;
pub mod prompt;
pub mod routing;
pub mod tool;
