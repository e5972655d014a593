//! The conformance harness: vectors, the runner and its CLI, exact marks,
//! pins and the witness search.

mod conform_cli;
mod exact_marks;
mod pins;
mod runner;
