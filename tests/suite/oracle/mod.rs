//! The oracle `check` through the command line (severities and SARIF,
//! recovery past a malformed event, sanitized streams, the writer a turn's
//! IDs name) and its memory bound per turn (the rules themselves are tested in the crate,
//! `src/check/oracle/`).

mod check_memory;
mod check_recovery;
mod check_sanitized;
mod check_severity;
mod check_writer;
