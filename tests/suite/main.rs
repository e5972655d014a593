//! The integration tests, one binary: a module per area, the shared helpers
//! compiled once. `cargo test --test suite -- wire::` runs one area,
//! `cargo test --test suite -- spec::lifecycle_rfd082` one file.
//!
//! Repository checks that run cargo themselves (the lean library's
//! dependency set and build) are not here: `make test` runs them from
//! `.ci/` (see the Makefile's `repo-checks`).

mod binary;
#[path = "../../src/check/check_support_tests.rs"]
#[allow(dead_code)] // the crate's oracle tests use the rest of it
mod check_support;
mod external;
mod second_implementation;

mod conformance;
mod oracle;
mod spec;
mod tooling;
mod wire;
