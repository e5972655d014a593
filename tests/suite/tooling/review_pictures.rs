//! Pictures where reviewers look (rule `AMEND-MERMAID`) on the command
//! line: `run --format mermaid` prints the library's Mermaid sequence
//! diagram. The diagrams themselves, and `diff-profiles --format
//! markdown`'s report, are unit tests beside the module
//! (`src/review/mermaid/review_pictures_tests.rs`, with their snapshots).

use crate::binary;

use binary::{code, run, stderr, stdout};
use inquiry_model::profile::ProfileName::{self, Rfd082};
use inquiry_model::review::mermaid;
use inquiry_model::scenario::Scenario;

fn vector(name: &str) -> Scenario {
    let path = format!("{}/spec/vectors/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("vector")).expect("JSON");
    serde_json::from_value(v["scenario"].clone()).expect("a scenario")
}

fn under(s: &Scenario, p: ProfileName) -> Scenario {
    Scenario {
        profile: p,
        ..s.clone()
    }
}

fn draw(s: &Scenario) -> String {
    mermaid::sequence(s, s.profile.rules()).expect("runs")
}

/// Rule: AMEND-MERMAID — `run --format mermaid` prints the library's
/// diagram, `--profile FILE` included.
#[test]
fn run_format_mermaid_on_the_command_line() {
    let v = "spec/vectors/guard-exclusive-no-tty.json";
    let o = run(&["run", "--format", "mermaid", "--profile", "rfd082", v]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        draw(&under(&vector("guard-exclusive-no-tty"), Rfd082))
    );
    let o = run(&[
        "run",
        "--format",
        "mermaid",
        "--profile",
        "spec/profiles/rfd082.json",
        v,
    ]);
    assert_eq!(
        stdout(&o),
        draw(&under(&vector("guard-exclusive-no-tty"), Rfd082))
    );
}
