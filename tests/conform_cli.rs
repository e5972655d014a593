//! `inquiry-model conform` as a real process: adapters in another language
//! (Python, shell) over the JSON Lines protocol of
//! `spec/conform-protocol.md`; exit 0 pass, 1 failure, 2 unusable adapter
//! or usage. The Python tests skip, saying so, when `python3` is absent.

use std::process::{Command, Output};

fn conform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .arg("conform")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn python3() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: python3 is not available; the Python adapter tests did not run");
    }
    ok
}

/// Rule: CLI-CONFORM — the standard-library Python adapter passes every
/// vector of the profiles it implements and generated scenarios of each,
/// and `conform` exits 0.
#[test]
fn the_python_adapter_passes() {
    if !python3() {
        return;
    }
    let o = conform(&[
        "--adapter",
        "python3 examples/conform_adapter.py",
        "--generated",
        "150",
        "--seed",
        "5",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("profiles: rfd082, rfd083"), "{out}");
    let run: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("vectors: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(run >= 30, "only {run} vectors ran:\n{out}");
    assert!(out.contains("generated rfd083: 150 passed"), "{out}");
    assert!(out.contains("generated rfd082: 150 passed"), "{out}");
}

/// Rule: CLI-CONFORM — the broken Python adapter (a cancelled prompt
/// answered with an error response) fails: exit 1, the divergence printed
/// with both sides, and the generated counterexample shrunk to size ≤ 3.
#[test]
fn the_broken_python_adapter_fails_with_a_shrunk_scenario() {
    if !python3() {
        return;
    }
    let o = conform(&[
        "--adapter",
        "python3 examples/conform_adapter_broken.py",
        "--generated",
        "300",
        "--seed",
        "3",
        "--profile",
        "rfd083",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("FAIL reason-user-ctrl-c"), "{out}");
    let size: usize = out
        .lines()
        .find_map(|l| l.split("shrunk to size ").nth(1))
        .and_then(|s| s.trim_end_matches(':').parse().ok())
        .expect("a shrunk generated failure");
    assert!(size <= 3, "{out}");
    assert!(
        out.contains(
            r#"model:          {"type":"tool_call_response","id":"call_1","is_error":false}"#
        ) && out.contains(
            r#"implementation: {"type":"tool_call_response","id":"call_1","is_error":true}"#
        ),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("* ")),
        "no marked line:\n{out}"
    );
}

const INIT_ONLY: &str = r#"read l; echo '{"type":"init_ok","in_reply_to":1}'"#;

/// Rule: CLI-CONFORM — an adapter that answers runs with something that is
/// not an observation fails every scenario as an implementation failure
/// (exit 1), told apart from a divergence.
#[test]
fn an_adapter_that_answers_garbage_fails_as_implementation_failed() {
    let o = conform(&[
        "--adapter",
        &format!("{INIT_ONLY}; while read l; do echo nope; done"),
        "--timeout",
        "5",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("the implementation failed to run"), "{out}");
    assert!(!out.contains("diverged"), "{out}");
}

/// Rule: CLI-CONFORM — unusable adapters and usage errors exit 2 with a
/// clear message: an adapter that exits, one that does not answer `init`
/// with `init_ok`, vectors that cannot be read, no `--adapter`.
#[test]
fn unusable_adapters_and_usage_errors_exit_2() {
    for adapter in ["false", "cat", "echo garbage"] {
        let o = conform(&["--adapter", adapter, "--timeout", "5"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{adapter}: {out}\n{err}");
        assert!(err.contains("unusable adapter"), "{adapter}: {err}");
    }
    let o = conform(&[
        "--adapter",
        &format!("{INIT_ONLY}; cat > /dev/null"),
        "--vectors",
        "no/such/dir",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("no/such/dir"), "{err}");
    let o = conform(&[]);
    assert_eq!(o.status.code(), Some(2));
}
