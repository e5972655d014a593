//! The oracle `check`: its rules, severities, memory bound, writer output
//! and adversarial input.

mod check_adversarial;
mod check_contract;
mod check_memory;
mod check_recovery;
mod check_rules;
mod check_sanitized;
mod check_severity;
mod check_tool_calls;
mod check_writer;
