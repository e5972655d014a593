//! Pictures where reviewers look (rule `AMEND-MERMAID`) on the command
//! line: `run --format mermaid` prints the library's Mermaid sequence
//! diagram, as its reviewed snapshot holds it. The diagrams themselves, and `diff-profiles --format
//! markdown`'s report, are unit tests beside the module
//! (`src/review/mermaid/review_pictures_tests.rs`, with their snapshots).

use crate::binary;

use binary::{code, run, stderr, stdout};

/// The reviewed diagram of `guard-exclusive-no-tty` under `rfd082`: the
/// library's own snapshot (`src/review/mermaid/snapshots/`), its insta
/// header left out.
fn reviewed_diagram() -> String {
    let path = format!(
        "{}/src/review/mermaid/snapshots/\
         inquiry_model__review__mermaid__review_pictures_tests__guard_exclusive_no_tty_rfd082.snap",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the snapshot");
    let body = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(_, body)| body)
        .expect("an insta snapshot");
    body.to_owned()
}

/// Rule: AMEND-MERMAID — `run --format mermaid` prints the library's
/// diagram (the reviewed snapshot the unit tests hold it to), `--profile
/// FILE` included.
#[test]
fn run_format_mermaid_on_the_command_line() {
    let v = "spec/vectors/guard-exclusive-no-tty.json";
    let o = run(&["run", "--format", "mermaid", "--profile", "rfd082", v]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o).trim_end(), reviewed_diagram().trim_end());
    let o = run(&[
        "run",
        "--format",
        "mermaid",
        "--profile",
        "spec/profiles/rfd082.json",
        v,
    ]);
    assert_eq!(stdout(&o).trim_end(), reviewed_diagram().trim_end());
}
