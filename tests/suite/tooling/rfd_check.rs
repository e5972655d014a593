//! `rfd-check` (rule `AMEND-RFD-CHECK`) on the command line. The library's
//! checks of an RFD's decision tables and JSON examples against a profile
//! are unit tests beside the module (`src/review/rfd_check/rfd_check_tests.rs`);
//! this file keeps what runs the binary.

use crate::binary;

use binary::{code, run, stderr, stdout};

const RFD083: &str = "tests/rfd/rfd083-excerpt.md";

/// Rule: AMEND-RFD-CHECK — on the command line: exit 1 with the rows and
/// their rule IDs, 0 when clean, 2 for an unreadable file.
#[test]
fn rfd_check_on_the_command_line() {
    let o = run(&["rfd-check", RFD083, "--profile", "rfd082"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("routing precedence row 4")
            && out.contains("DISAGREES (LIFE-ROUTE, LIFE-GUARD-EXCLUSIVE)"),
        "{out}"
    );
    let o = run(&[
        "rfd-check",
        RFD083,
        "--profile",
        "spec/profiles/rfd083.json",
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = run(&["rfd-check", "tests/rfd/missing.md"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("tests/rfd/missing.md"));
}
