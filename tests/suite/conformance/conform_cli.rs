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
        .find_map(|l| l.strip_prefix("vectors (built-in): "))
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
        "--no-vectors",
        "--shrink-budget",
        "2000",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let size: usize = out
        .lines()
        .find_map(|l| l.split(" to size ").nth(1))
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("a shrunk generated failure");
    assert!(size <= 3, "{out}");
    assert!(
        out.contains("size counts calls"),
        "size is explained:\n{out}"
    );
    let side = |who: &str, is_error: bool| {
        out.lines().any(|l| {
            l.starts_with(&format!("  {who}"))
                && l.contains(r#"{"type":"tool_call_response","id":"c"#)
                && l.ends_with(&format!(r#""is_error":{is_error}}}"#))
        })
    };
    assert!(
        side("model:", false) && side("implementation:", true),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("* ")),
        "no marked line:\n{out}"
    );
    // The run went on after the first failure: every case ran and each
    // failing one is listed by profile, seed and index.
    assert!(out.contains("generated rfd083: 300 of 300 run"), "{out}");
    let listed = out
        .lines()
        .filter(|l| l.starts_with("  generated rfd083 seed 3 case "))
        .count();
    assert!(listed > 1, "{out}");
    assert!(out.contains(&format!("FAILED: {listed}")), "{out}");
    // A listed case is replayed alone by its index: it fails alone, and
    // the case before it (not listed) passes alone.
    let first = out
        .lines()
        .find_map(|l| l.strip_prefix("  generated rfd083 seed 3 case "))
        .and_then(|l| l.split(':').next())
        .expect("a listed case");
    let k: u32 = first.parse().unwrap();
    let replay = |k: u32| {
        conform(&[
            "--adapter",
            "python3 examples/conform_adapter_broken.py",
            "--seed",
            "3",
            "--profile",
            "rfd083",
            "--case",
            &k.to_string(),
            "--no-shrink",
        ])
    };
    let o = replay(k);
    let (again, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{again}");
    assert!(
        again.contains(&format!("  generated rfd083 seed 3 case {k}: diverged:")),
        "{again}"
    );
    assert!(again.contains("not shrunk"), "{again}");
    let before = (0..k)
        .rev()
        .find(|j| !out.contains(&format!("  generated rfd083 seed 3 case {j}: ")))
        .expect("a passing case before the first failing one");
    let o = replay(before);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
}

/// The broken Python adapter with a second, independent fault: its
/// presentations say every prompt echoes (a password prompt too).
const TWO_FAULTS: &str = "CONFORM_BREAK=cancel_is_error python3 examples/conform_adapter.py \
     | sed -u 's/\"echo\": false/\"echo\": true/g'";

fn two_fault_run(format: &str) -> (Output, String) {
    let o = conform(&[
        "--adapter",
        TWO_FAULTS,
        "--generated",
        "20",
        "--seed",
        "3",
        "--profile",
        "rfd083",
        "--shrink-budget",
        "50",
        "--format",
        format,
    ]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    (o, out)
}

const KINDS: [&str; 2] = ["diverged:stream/tool_call_response", "diverged:prompts"];

/// Rule: CONF-RUN-TO-THE-END — an adapter with two independent faults:
/// one run reports both kinds of failure, each with its count, in text,
/// JSON (version 1: summary, groups, failing list) and JUnit XML (read by
/// an XML parser independent of the writer: one test case per vector,
/// skipped vector or generated scenario, one `<failure>` per failing case
/// typed by its kind).
#[test]
fn two_kinds_of_failure_are_reported_in_text_json_and_junit() {
    if !python3() {
        return;
    }
    let (o, out) = two_fault_run("text");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("2 kinds of failure"), "{out}");
    for kind in KINDS {
        let head = out
            .lines()
            .find(|l| l.starts_with(&format!("== {kind}: ")))
            .unwrap_or_else(|| panic!("no group {kind}:\n{out}"));
        let n: usize = head
            .split(": ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .expect("a count");
        let listed = out
            .lines()
            .filter(|l| l.starts_with("  ") && l.ends_with(&format!(": {kind}")))
            .count();
        assert_eq!(n, listed, "{kind}:\n{out}");
    }

    let (o, out) = two_fault_run("json");
    assert_eq!(o.status.code(), Some(1), "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["version"], 1);
    let summary = &doc["summary"];
    let failed = summary["failed"].as_u64().unwrap();
    assert_eq!(
        summary["run"].as_u64().unwrap(),
        summary["passed"].as_u64().unwrap() + failed
    );
    let groups = doc["groups"].as_array().unwrap();
    let kinds: Vec<&str> = groups.iter().map(|g| g["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    for kind in KINDS {
        assert!(kinds.contains(&kind), "{kinds:?}");
    }
    let mut sum = 0;
    for g in groups {
        let n = g["count"].as_u64().unwrap();
        assert!(n > 0);
        assert_eq!(g["cases"].as_array().unwrap().len() as u64, n);
        assert!(g["example"]["scenario"]["tools"].is_object(), "{g}");
        assert_eq!(g["example"]["verdict"]["verdict"], "diverged", "{g}");
        sum += n;
    }
    assert_eq!(sum, failed);
    assert_eq!(doc["failing"].as_array().unwrap().len() as u64, failed);

    let (o, out) = two_fault_run("junit");
    assert_eq!(o.status.code(), Some(1), "{out}");
    let xml = roxmltree::Document::parse(&out).expect("well-formed XML");
    let root = xml.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let cases: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(
        cases.len(),
        summary["run"].as_u64().unwrap() as usize
            + doc["vectors"]["skipped_profile"].as_array().unwrap().len()
            + doc["vectors"]["skipped_language"].as_array().unwrap().len()
    );
    assert_eq!(
        root.attribute("tests"),
        Some(cases.len().to_string().as_str())
    );
    let failures: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len() as u64, failed);
    for kind in KINDS {
        let n = failures
            .iter()
            .filter(|f| f.attribute("type") == Some(kind))
            .count();
        let g = groups.iter().find(|g| g["kind"] == kind).unwrap();
        assert_eq!(n as u64, g["count"].as_u64().unwrap(), "{kind}");
    }
    // A failure carries the scenario as JSON.
    let body = failures[0].text().unwrap_or_default();
    assert!(body.contains("scenario: {"), "{body}");
    assert!(
        cases.iter().any(
            |c| c.attribute("classname") == Some("generated rfd083 seed 3")
                && c.attribute("name") == Some("case 0")
        ),
        "generated cases are test cases"
    );
}

/// Rule: CONF-RUN-TO-THE-END — the JUnit writer's escaper: hostile text
/// (markup characters, quotes, controls XML cannot carry) read back by an
/// XML parser as an attribute and as text, every character XML allows
/// unchanged.
#[test]
fn the_xml_escaper_survives_hostile_text() {
    use inquiry_model::cli::conform_command::xml_escape;
    let hostile =
        "<a href=\"x\">&amp; 'q' ]]> </testcase>\u{0}\u{1b}[2K\ttab\r\nline é 🦀 \u{FFFE}";
    let doc = format!(
        "<r a=\"{}\" b='{}'>{}</r>",
        xml_escape(hostile),
        xml_escape(hostile),
        xml_escape(hostile)
    );
    let xml = roxmltree::Document::parse(&doc).expect("well-formed");
    let r = xml.root_element();
    let allowed: String = hostile
        .chars()
        .map(|c| match c {
            '\u{0}' => "U+0000".to_owned(),
            '\u{1b}' => "U+001B".to_owned(),
            '\u{FFFE}' => "U+FFFE".to_owned(),
            c => c.to_string(),
        })
        .collect();
    // Attribute values normalise tab, CR and LF to spaces (XML 1.0 §3.3.3).
    let in_attribute: String = allowed
        .replace("\r\n", "\n")
        .chars()
        .map(|c| if matches!(c, '\t' | '\n') { ' ' } else { c })
        .collect();
    assert_eq!(r.attribute("a"), Some(in_attribute.as_str()));
    assert_eq!(r.attribute("b"), Some(in_attribute.as_str()));
    assert_eq!(r.text(), Some(allowed.replace("\r\n", "\n").as_str()));
}

/// Rule: CLI-CONFORM — the committed vectors are built into the binary:
/// `conform` run from an empty directory (no `spec/vectors` there) runs
/// every built-in vector; `--vectors DIR` still overrides.
#[test]
fn conform_runs_from_any_directory() {
    let empty = std::env::temp_dir().join(format!("conform-anywhere-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(["conform", "--adapter", ANSWERS_GARBAGE, "--timeout", "5"])
        .current_dir(&empty)
        .output()
        .expect("the binary runs");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let committed = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors"))
        .unwrap()
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name() != "index.json"))
        .count();
    assert!(
        out.contains(&format!(
            "vectors (built-in): {committed} run, {committed} failed"
        )),
        "{out}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(["conform", "--adapter", ANSWERS_GARBAGE, "--timeout", "5"])
        .args(["--vectors", "."])
        .current_dir(&empty)
        .output()
        .expect("the binary runs");
    let (out, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "an empty --vectors DIR runs nothing: {out}\n{err}"
    );
    std::fs::remove_dir_all(&empty).ok();
}

/// Rule: CLI-CONFORM — every committed vector file is in the built-in set,
/// byte for byte, and nothing else is.
#[test]
fn every_committed_vector_is_built_in() {
    use inquiry_model::cli::conform_command::BUILTIN_VECTORS;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .map(|n| {
            let text = std::fs::read_to_string(format!("{dir}/{n}")).unwrap();
            (n.trim_end_matches(".json").to_owned(), text)
        })
        .collect();
    files.sort();
    let mut built: Vec<(String, String)> = BUILTIN_VECTORS
        .iter()
        .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
        .collect();
    built.sort();
    assert_eq!(files.len(), built.len());
    assert!(
        files == built,
        "the built-in vectors differ from spec/vectors/"
    );
}

/// Rule: CLI-CONFORM — no progress line when stderr is not a terminal
/// (CI logs stay clean).
#[test]
fn no_progress_line_off_a_terminal() {
    let o = conform(&["--adapter", ANSWERS_GARBAGE, "--timeout", "5"]);
    let (_, err) = text(&o);
    assert!(!err.contains("conform: scenario"), "{err}");
}

const INIT_ONLY: &str = r#"read l; echo '{"type":"init_ok","in_reply_to":1}'"#;

/// An adapter that answers every run with something that is not an
/// observation.
const ANSWERS_GARBAGE: &str =
    r#"read l; echo '{"type":"init_ok","in_reply_to":1}'; while read l; do echo nope; done"#;

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

/// Rule: CLI-VECTORS — `vectors --profile P --language core` writes only
/// the vectors of profile `P` inside the core scenario language: exactly
/// the committed ones that are, and an index listing them.
#[test]
fn vectors_writes_only_the_profile_and_language_asked() {
    use inquiry_model::conformance::{Vector, core_scenario};
    use inquiry_model::profile::ProfileName;
    let dir = std::env::temp_dir().join(format!("vectors-core-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(["vectors", "--out", dir.to_str().unwrap()])
        .args(["--profile", "rfd083", "--language", "core"])
        .output()
        .expect("the binary runs");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let read = |d: &std::path::Path| -> Vec<Vector> {
        inquiry_model::cli::conform_command::read_vectors(d).unwrap()
    };
    let written = read(&dir);
    let committed: Vec<Vector> =
        read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/vectors"))
            .into_iter()
            .filter(|v| v.scenario.profile == ProfileName::Rfd083 && core_scenario(&v.scenario))
            .collect();
    assert!(!written.is_empty());
    assert_eq!(written, committed);
    let index: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let listed: Vec<&str> = index.iter().map(|e| e["name"].as_str().unwrap()).collect();
    let names: Vec<&str> = written.iter().map(|v| v.name.as_str()).collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, names);
    std::fs::remove_dir_all(&dir).ok();
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

/// Rule: CLI-CONFORM — `--profile` naming only profiles the adapter does
/// not run is a usage error (exit 2) naming the profiles it runs, not a
/// run of nothing reported as "profiles: ;".
#[test]
fn a_profile_the_adapter_does_not_run_is_refused_by_name() {
    let o = conform(&[
        "--adapter",
        r#"read l; echo '{"type":"init_ok","in_reply_to":1,"profiles":["rfd083"]}'"#,
        "--profile",
        "legacy",
        "--timeout",
        "5",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(!out.contains("profiles: ;"), "{out}");
    assert!(
        err.contains("the adapter runs rfd083; --profile names legacy"),
        "{err}"
    );
}

/// Rule: CONF-NOT-COMPARED — every format states what was not compared
/// and why: the free Python adapter leaves `turn_ended` out of `observes`,
/// and the text header, the JSON `not_compared` field and every JUnit
/// suite's properties say so; the adapter observing everything has no such
/// line.
#[test]
fn every_format_says_what_was_not_compared() {
    if !python3() {
        return;
    }
    let free = "python3 examples/conform_adapter.py --free";
    let args = |format: &'static str| {
        [
            "--adapter",
            free,
            "--profile",
            "rfd083",
            "--generated",
            "2",
            "--format",
            format,
        ]
    };
    let o = conform(&args("text"));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("not compared: "))
        .unwrap_or_else(|| panic!("no not-compared line:\n{out}"));
    assert!(
        line.contains("remembered") && line.contains("`turn_ended`"),
        "{line}"
    );
    assert!(out.trim_end().ends_with("PASS"), "{out}");

    let o = conform(&args("json"));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let items = doc["not_compared"].as_array().expect("a list");
    assert_eq!(items.len(), 1, "{out}");
    assert!(
        items[0]["why"].as_str().unwrap().contains("`turn_ended`"),
        "{out}"
    );

    let o = conform(&args("junit"));
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let xml = roxmltree::Document::parse(&out).expect("well-formed");
    let suites: Vec<_> = xml
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert!(!suites.is_empty(), "{out}");
    for s in suites {
        let said = s
            .descendants()
            .filter(|n| n.has_tag_name("property"))
            .any(|p| {
                p.attribute("name") == Some("not_compared")
                    && p.attribute("value")
                        .is_some_and(|v| v.contains("turn_ended"))
            });
        assert!(
            said,
            "suite {:?} does not say it:\n{out}",
            s.attribute("name")
        );
    }

    let o = conform(&[
        "--adapter",
        "python3 examples/conform_adapter.py",
        "--profile",
        "rfd083",
        "--generated",
        "2",
    ]);
    let (out, _) = text(&o);
    assert!(!out.contains("not compared:"), "{out}");
}
