//! The reviewer's tools: RFD amendments as profile files, the check of an
//! RFD's tables and examples against the model, profile diffs and their
//! pictures. They read the model; the model never reads them.

#[cfg(feature = "testkit")]
pub mod amend;
pub mod mermaid;
pub mod profile_file;
pub mod rfd_check;
