//! The model's rules: the lifecycle of RFD 082 and RFD 083, routing,
//! `ask_user`, configuration, prompts, and the invariants over generated and
//! faulty runs.

mod coordinator_protocol;
mod delivery_and_abort;
mod hard_quit;
mod lifecycle_rfd082;
mod lifecycle_rfd083;
mod no_secret_printed;
mod trace_snapshots;
