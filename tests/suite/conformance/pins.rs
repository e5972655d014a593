//! `conform --rfd-only` and `--skip-pin` as the command line runs them (the
//! pins themselves are tested beside the runner, in
//! `src/conformance/pins_tests.rs`).

use std::process::Command;

use inquiry_model::conformance::PINS;

/// Rule: CONF-PINS — `conform --rfd-only` runs every committed vector (pins
/// cover fields, not vectors) and says what it did not compare, naming
/// every pin; `--skip-pin` names one, an unknown ID is a usage error.
#[test]
fn conform_rfd_only_runs_every_vector_and_says_what_it_left_uncompared() {
    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED: python3 is not available; the --rfd-only CLI test did not run");
        return;
    }
    // An adapter of every profile that cannot run anything: each vector it
    // is given fails as `implementation_failed`, so the counts show which
    // ran.
    let adapter = r#"python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = "init_ok" if m["type"] == "init" else "error"
    print(json.dumps({"type": t, "in_reply_to": m["id"], "text": "no"}), flush=True)
'"#;
    let run = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["conform", "--adapter", adapter])
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, all, _) = run(&[]);
    assert_eq!(code, Some(1), "{all}");
    assert!(!all.contains("not compared:"), "{all}");
    let (code, out, _) = run(&["--rfd-only"]);
    assert_eq!(code, Some(1), "{out}");
    let line: String = out
        .lines()
        .filter(|l| l.starts_with("not compared:"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!line.is_empty(), "no not-compared line in:\n{out}");
    for p in PINS {
        assert!(
            line.contains(&format!("because pin {}", p.pin.id())),
            "{line}"
        );
    }
    let ran = |text: &str| -> usize {
        // `vectors (built-in): N run, ...`
        let l = text.lines().find(|l| l.contains(" run, ")).unwrap();
        l.split_once("): ")
            .map_or(l, |(_, rest)| rest)
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(ran(&out), ran(&all));
    let (code, _, err) = run(&["--skip-pin", "no-such-pin"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("restart-reruns-tool"), "{err}");
    let (_, one, _) = run(&["--skip-pin", "restart-reruns-tool"]);
    let line = one.lines().find(|l| l.contains("not compared:")).unwrap();
    assert!(line.contains("because pin restart-reruns-tool"), "{line}");
    assert!(!line.contains("because pin hard-quit-aftermath"), "{line}");
    assert_eq!(ran(&one), ran(&all));
}
