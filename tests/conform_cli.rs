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

/// Rule: CONF-WITNESS — the Python adapter in its `--free` mode (its own
/// order of parallel work, prompts without call IDs, no `turn_ended`)
/// passes every vector and generated scenarios through the witness
/// search; with a witness budget of one schedule (the scenario's own) it
/// fails some as "no witness", so the search is what passes it; a broken
/// free adapter fails "under every schedule".
#[test]
fn the_free_python_adapter_passes_by_witness_search() {
    if !python3() {
        return;
    }
    let free = "python3 examples/conform_adapter.py --free";
    let o = conform(&["--adapter", free, "--generated", "150", "--seed", "5"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("scheduler: free"), "{out}");
    assert!(out.contains("generated rfd083: 150 passed"), "{out}");
    assert!(out.contains("generated rfd082: 150 passed"), "{out}");
    let o = conform(&[
        "--adapter",
        free,
        "--no-vectors",
        "--generated",
        "150",
        "--seed",
        "5",
        "--witness-budget",
        "1",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("no witness within 1 schedules"), "{out}");
    let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args([
            "conform",
            "--adapter",
            free,
            "--profile",
            "rfd083",
            "--generated",
            "0",
        ])
        .env("CONFORM_BREAK", "cancel_is_error")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("FAIL reason-user-ctrl-c: diverged under every schedule of the model"),
        "{out}"
    );
}

/// Rule: CONF-CAPABILITIES — capability values `conform` does not know
/// make the adapter unusable (exit 2), naming the field and what is
/// allowed; `observes` without `persisted` too.
#[test]
fn unknown_capabilities_make_the_adapter_unusable() {
    for (init_ok, says) in [
        (
            r#"{"type":"init_ok","in_reply_to":1,"scheduler":"tokio"}"#,
            "`scheduler` is \"steered\" or \"free\"",
        ),
        (
            r#"{"type":"init_ok","in_reply_to":1,"observes":["persisted","thoughts"]}"#,
            "`observes` holds \"thoughts\"",
        ),
        (
            r#"{"type":"init_ok","in_reply_to":1,"observes":"persisted"}"#,
            "`observes` is a list",
        ),
        (
            r#"{"type":"init_ok","in_reply_to":1,"observes":["invoked"]}"#,
            "must hold \"persisted\"",
        ),
    ] {
        let o = conform(&[
            "--adapter",
            &format!("read l; echo '{init_ok}'; cat > /dev/null"),
            "--timeout",
            "5",
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{init_ok}: {out}\n{err}");
        assert!(
            err.contains("unusable adapter") && err.contains(says),
            "{init_ok}: {err}"
        );
    }
}

/// Whether process `pid` still exists (a zombie counts as gone: it holds
/// no pipe and runs nothing).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

/// Rule: CONF-ADAPTER-LIFETIME — a silent adapter that started a child
/// (`sleep 600` in the background, holding the output pipes) is killed
/// with its whole process group at the reply time limit: a caller that
/// captures `conform`'s output gets exit 2 within a few seconds and no
/// process of the adapter is left.
#[test]
fn a_silent_adapter_is_killed_with_everything_it_started() {
    let dir = std::env::temp_dir().join(format!("conform-lifetime-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pids = dir.join("pids");
    let adapter = format!(
        "sleep 600 & echo $! > {p}; echo $$ >> {p}; exec sleep 600",
        p = pids.display()
    );
    let started = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(["conform", "--adapter", &adapter, "--timeout", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output() // pipes: returns only when every holder of them is gone
        .expect("the binary runs");
    let took = started.elapsed();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(took.as_secs() < 10, "took {took:?}");
    let pids = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<&str> = pids.split_whitespace().collect();
    assert_eq!(pids.len(), 2, "{pids:?}");
    for pid in pids {
        assert!(!alive(pid), "adapter process {pid} outlived conform");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: CONF-ADAPTER-LIFETIME — SIGINT to `conform` while its adapter
/// hangs kills the adapter's whole group at once (not at the time limit):
/// `conform` exits 2 saying it was interrupted, and nothing of the
/// adapter is left.
#[test]
fn sigint_kills_the_adapter_group() {
    let dir = std::env::temp_dir().join(format!("conform-sigint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pids = dir.join("pids");
    let adapter = format!(
        "read l; echo '{{\"type\":\"init_ok\",\"in_reply_to\":1}}'; sleep 600 & echo $! > {p}; echo $$ >> {p}; wait",
        p = pids.display()
    );
    let started = std::time::Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args([
            "conform",
            "--adapter",
            &adapter,
            "--timeout",
            "300",
            "--generated",
            "1",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Wait until the adapter has started its child.
    while std::fs::read_to_string(&pids).map_or(true, |s| s.lines().count() < 2) {
        assert!(
            started.elapsed().as_secs() < 30,
            "the adapter did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let interrupt = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(interrupt.success());
    let o = child.wait_with_output().expect("conform ends");
    let (out, err) = text(&o);
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("interrupted"), "{err}");
    for pid in std::fs::read_to_string(&pids).unwrap().split_whitespace() {
        assert!(!alive(pid), "adapter process {pid} outlived conform");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
