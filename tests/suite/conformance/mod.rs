//! The conformance harness: vectors, the runner and its CLI, exact marks,
//! pins and the witness search.

mod conform_cli;
mod conform_run;
mod exact_marks;
mod own_bytes;
mod parallel;
mod pins;
mod runner;
mod witness;
