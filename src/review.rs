//! The reviewer's tools: RFD amendments as profile files, the check of an
//! RFD's tables and examples against the model, profile diffs and their
//! pictures. They read the model; the model never reads them.
//!
//! Only the command line uses them (behind `cli`); the profile-file reader
//! is always there, because a scenario's `amendment` is read by it.

#[cfg(feature = "cli")]
pub(crate) mod amend;
#[cfg(feature = "cli")]
pub(crate) mod mermaid;
pub(crate) mod profile_file;
#[cfg(feature = "cli")]
pub(crate) mod rfd_check;
