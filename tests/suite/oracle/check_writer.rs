//! Which writer recorded a turn, through the command line (the oracle's
//! reading of it is tested beside the oracle, in
//! `src/check/oracle/check_writer.rs`).

use crate::binary;

/// Rule: CHECK-ID-FORMAT — the smallest reproduction, through the command
/// line: `sanitize spec/examples/legacy-backend-answered.jsonl | check -`
/// exits 0 (it exited 1 with CHECK-ID-FORMAT), and so does `check --profile
/// rfd082 -`.
#[test]
fn sanitized_legacy_example_checks_clean_through_the_cli() {
    let sanitized = binary::run(&["sanitize", "spec/examples/legacy-backend-answered.jsonl"]);
    assert!(!sanitized.stdout.is_empty());
    for profile in ["auto", "rfd082"] {
        let out = binary::run_stdin(&["check", "--profile", profile, "-"], &sanitized.stdout);
        let text = binary::stdout(&out);
        assert_eq!(binary::code(&out), 0, "{profile}: {text}");
        assert!(!text.contains("CHECK-"), "{text}");
    }
}
