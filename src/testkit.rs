//! Wrong implementations, kept apart from the spec core so that it carries
//! no fault switch: each commits one fault the invariant checks, the oracle
//! or the conformance vectors exist to catch (rule `INV-FAULTS-CAUGHT`).
//!
//! - [`faults`]: the coordinator's faults ([`Faults`]), committed by a
//!   wrapper around [`crate::model::coordinator::Coordinator`] that edits its
//!   inputs, its effects and its turn state between steps.
//! - [`sanitize`]: a faulty repair ([`sanitize_across_turns`]), the
//!   pre-082 repair RFD 082 Phase 3 replaces.

pub(crate) mod faults;
pub(crate) mod sanitize;

// Unit tests of model modules that drive scenarios, which needs the
// generators: they live here, where the feature is, so that the model
// folder holds no feature switch.
#[cfg(test)]
mod ask_user_tests;
#[cfg(all(test, feature = "cli"))]
mod coordinator_protocol_tests;
#[cfg(all(test, feature = "cli"))]
mod delivery_and_abort_tests;
#[cfg(all(test, feature = "cli"))]
mod hard_quit_tests;
#[cfg(test)]
mod inquiry_backend_tests;
#[cfg(all(test, feature = "cli"))]
mod lifecycle_rfd082_tests;
#[cfg(all(test, feature = "cli"))]
mod lifecycle_rfd083_tests;
#[cfg(test)]
mod spec_common_tests;
#[cfg(all(test, feature = "cli"))]
mod trace_snapshots_tests;

pub use faults::Faults;
pub use sanitize::sanitize_across_turns;
