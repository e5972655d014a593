//! `inquiry-model conform` as a real process: adapters in another language
//! (Python, shell) over the JSON Lines protocol of
//! `spec/conform-protocol.md`; exit 0 pass, 1 failure, 2 unusable adapter
//! or usage. The Python tests skip, saying so, when `python3` is absent.

use std::collections::BTreeSet;
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

/// Rule: CLI-CONFORM-GITHUB — `conform --format github` writes one
/// `::error` annotation per root cause of failure, titled with its
/// signature, then the text report; a passing adapter gets no annotation.
#[test]
fn conform_writes_github_annotations_per_root_cause() {
    if !python3() {
        return;
    }
    let run = |adapter: &str| {
        conform(&[
            "--adapter",
            adapter,
            "--generated",
            "60",
            "--seed",
            "3",
            "--profile",
            "rfd083",
            "--no-vectors",
            "--format",
            "github",
        ])
    };
    let o = run("python3 examples/conform_adapter_broken.py");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("::error ")).collect();
    let groups = out.lines().filter(|l| l.starts_with("== ")).count();
    assert!(!errors.is_empty(), "{out}");
    assert_eq!(
        errors.len(),
        groups,
        "one annotation per root cause:\n{out}"
    );
    assert!(
        errors
            .iter()
            .all(|l| l.starts_with("::error title=conform%3A ") && l.contains("::")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("FAILED: ")),
        "the text report follows:\n{out}"
    );
    let o = run("python3 examples/conform_adapter.py");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(!out.contains("::error"), "{out}");
    assert!(out.lines().any(|l| l == "PASS"), "{out}");
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
        again.lines().any(
            |l| l.starts_with(&format!("  generated rfd083 seed 3 case {k}: "))
                && l.ends_with(")")
                && l.contains(" (diverged:")
        ),
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

/// The groups of a JSON report: signature, count, kinds.
fn json_groups(doc: &serde_json::Value) -> Vec<(String, u64, Vec<String>)> {
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["signature"].as_str().unwrap().to_owned(),
                g["count"].as_u64().unwrap(),
                g["kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k["kind"].as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect()
}

/// Every group of the JSON report is in the text report (`== <signature>:
/// <count> failures`, and as many failing lines naming it) and in the
/// JUnit report (as many `<failure type="<signature>">`); what shrinking
/// spent is in all three and at most the run's own adapter runs.
fn groups_agree(text: &str, doc: &serde_json::Value, junit: &str) {
    let groups = json_groups(doc);
    assert!(
        text.contains(&format!(
            "{} groups of failure, one per root cause",
            groups.len()
        )),
        "{text}"
    );
    for (sig, n, _) in &groups {
        let head = format!("== {sig}: {n} failure");
        assert!(text.lines().any(|l| l.starts_with(&head)), "{head}\n{text}");
        let listed = text
            .lines()
            .filter(|l| l.starts_with("  ") && l.contains(&format!(": {sig} (")))
            .count();
        assert_eq!(*n, listed as u64, "{sig}:\n{text}");
    }
    let spent = doc["shrinking"]["adapter_runs"].as_u64().unwrap();
    let ran = doc["summary"]["adapter_runs"].as_u64().unwrap();
    assert!(spent <= ran, "{spent} > {ran}");
    assert!(
        text.contains(&format!("shrinking spent {spent} adapter run")),
        "{text}"
    );
    let xml = roxmltree::Document::parse(junit).expect("well-formed XML");
    let root = xml.root_element();
    let failures: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    for (sig, n, _) in &groups {
        let typed = failures
            .iter()
            .filter(|f| f.attribute("type") == Some(sig.as_str()))
            .count();
        assert_eq!(typed as u64, *n, "{sig}");
    }
    assert_eq!(
        failures.len() as u64,
        groups.iter().map(|(_, n, _)| n).sum::<u64>()
    );
    let property = |name: &str| {
        root.descendants()
            .find(|n| n.has_tag_name("property") && n.attribute("name") == Some(name))
            .and_then(|n| n.attribute("value").map(str::to_owned))
    };
    assert_eq!(property("shrinking.adapter_runs"), Some(spent.to_string()));
    assert_eq!(property("run.adapter_runs"), Some(ran.to_string()));
}

/// Rule: CONF-RUN-TO-THE-END — an adapter with two independent faults:
/// one run reports both root causes, each with its count, in text,
/// JSON (version 1: summary, groups, failing list) and JUnit XML (read by
/// an XML parser independent of the writer: one test case per vector,
/// skipped vector or generated scenario, one `<failure>` per failing case
/// typed by its signature).
#[test]
fn two_kinds_of_failure_are_reported_in_text_json_and_junit() {
    if !python3() {
        return;
    }
    let (o, text) = two_fault_run("text");
    assert_eq!(o.status.code(), Some(1), "{text}");
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
    let kinds: BTreeSet<String> = json_groups(&doc)
        .into_iter()
        .flat_map(|(_, _, k)| k)
        .collect();
    for kind in ["diverged:stream/tool_call_response", "diverged:prompts"] {
        assert!(kinds.contains(kind), "{kinds:?}");
    }
    assert_eq!(groups.len(), 2, "{:?}", json_groups(&doc));
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
    groups_agree(&text, &doc, &out);
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

/// The Python adapter with two unrelated bugs that both first show in
/// `stream/inquiry_response`: it persists a `user` cancellation as
/// `backend_error`, and a `no_prompt_backend` one as `user`.
const TWO_REASON_BUGS: &str = "python3 examples/conform_adapter.py \
     | sed -u -e 's/\"reason\": \"user\"/\"reason\": \"backend_error\"/g' \
     -e 's/\"reason\": \"no_prompt_backend\"/\"reason\": \"user\"/g'";

/// Rule: CONF-GROUP-SIGNATURE, CONF-SHRINK-BUDGET — two unrelated bugs in
/// the same kind of first difference are two groups, named by their
/// differing reasons, in text, JSON and JUnit alike (grouped by kind, the
/// wrong grouping, they would be one: both groups show the kind); what
/// shrinking spent is reported in all three and is at most the run's own
/// adapter runs.
#[test]
fn two_bugs_in_one_kind_are_two_groups_in_text_json_and_junit() {
    if !python3() {
        return;
    }
    let run = |format: &str| {
        let o = conform(&[
            "--adapter",
            TWO_REASON_BUGS,
            "--generated",
            "20",
            "--seed",
            "3",
            "--profile",
            "rfd083",
            "--format",
            format,
        ]);
        assert_eq!(o.status.code(), Some(1));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let text = run("text");
    let doc: serde_json::Value = serde_json::from_str(&run("json")).expect("one JSON document");
    let junit = run("junit");
    let groups = json_groups(&doc);
    for sig in [
        "inquiry_response reason: user → backend_error",
        "inquiry_response reason: no_prompt_backend → user",
    ] {
        let (_, _, kinds) = groups
            .iter()
            .find(|(s, _, _)| s == sig)
            .unwrap_or_else(|| panic!("no group {sig}: {groups:?}"));
        assert!(
            kinds
                .iter()
                .any(|k| k == "diverged:stream/inquiry_response"),
            "{kinds:?}"
        );
    }
    groups_agree(&text, &doc, &junit);
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
        .filter(|n| n.ends_with(".json"))
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
    // One file per vector, named by it, and nothing else: the folder is
    // its own index.
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut names: Vec<String> = written.iter().map(|v| format!("{}.json", v.name)).collect();
    names.sort();
    assert_eq!(files, names);
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
        // SIGKILL is delivered asynchronously: a process of the group not
        // reaped by `conform` (the background `sleep`) may take a moment
        // to go on a loaded machine.
        let killed = std::time::Instant::now();
        while alive(pid) && killed.elapsed().as_secs() < 2 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
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

/// The `(suite, case)` of every `<testcase>` of a JUnit report, and
/// whether it failed.
fn junit_cases(xml: &str) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    for part in xml.split("<testcase").skip(1) {
        let attr = |name: &str| {
            let from = part.find(&format!(" {name}=\"")).expect("attribute") + name.len() + 3;
            let len = part[from..].find('"').expect("closed");
            part[from..from + len].to_owned()
        };
        let head = part.split("</testcase>").next().unwrap_or_default();
        out.push((attr("classname"), attr("name"), head.contains("<failure")));
    }
    out
}

/// Rule: CONF-SHARD — `--shard 0/2` and `--shard 1/2` run disjoint sets
/// of cases (vectors and generated) that together are exactly the whole
/// run's, each case with the whole run's verdict.
#[test]
fn two_shards_are_the_whole_run() {
    if !python3() {
        return;
    }
    let run = |shard: Option<&str>| {
        let mut args = vec![
            "--adapter",
            TWO_FAULTS,
            "--generated",
            "12",
            "--no-shrink",
            "--format",
            "junit",
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let o = conform(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{shard:?}: {err}");
        out
    };
    let whole = run(None);
    let (a, b) = (run(Some("0/2")), run(Some("1/2")));
    // The shards' reports merged by the documented script are the whole
    // run's cases, each once.
    let dir = std::env::temp_dir().join(format!("conform-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (pa, pb) = (dir.join("shard-0.xml"), dir.join("shard-1.xml"));
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, &b).unwrap();
    let merged = Command::new("python3")
        .arg("scripts/merge-junit.py")
        .args([&pa, &pb])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs");
    assert!(merged.status.success(), "{}", text(&merged).1);
    let mut merged = junit_cases(&text(&merged).0);
    let mut all = junit_cases(&whole);
    merged.sort();
    all.sort();
    assert_eq!(merged, all);
    let _ = std::fs::remove_dir_all(&dir);
    let (whole, a, b) = (junit_cases(&whole), junit_cases(&a), junit_cases(&b));
    // Skipped vectors are listed in every shard: compare the cases run.
    let ran = |cases: &[(String, String, bool)]| -> std::collections::BTreeSet<_> {
        cases.iter().cloned().collect()
    };
    let (whole, a, b) = (ran(&whole), ran(&a), ran(&b));
    let skipped: std::collections::BTreeSet<_> = a.intersection(&b).cloned().collect();
    assert!(
        skipped
            .iter()
            .all(|(suite, _, failed)| suite == "vectors" && !failed),
        "{skipped:?}"
    );
    let union: std::collections::BTreeSet<_> = a.union(&b).cloned().collect();
    assert_eq!(union, whole);
    assert!(a.len() > skipped.len() + 20 && b.len() > skipped.len() + 20);
    assert!(whole.iter().any(|(_, _, failed)| *failed));
}

/// The JSON document with every `seconds` field zeroed.
fn without_seconds(mut v: serde_json::Value) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "seconds" {
                        *x = serde_json::json!(0);
                    } else {
                        walk(x);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

/// Rule: CONF-JOBS — `--jobs 2` gives the report of `--jobs 1`: the same
/// JSON document (wall times aside), failures, groups and examples in the
/// same order.
#[test]
fn two_jobs_give_the_verdicts_of_one() {
    if !python3() {
        return;
    }
    let run = |jobs: &str| {
        let o = conform(&[
            "--adapter",
            TWO_FAULTS,
            "--generated",
            "40",
            "--no-shrink",
            "--format",
            "json",
            "--jobs",
            jobs,
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        without_seconds(serde_json::from_str(&out).expect("JSON"))
    };
    let one = run("1");
    assert!(one["summary"]["failed"].as_u64().unwrap_or(0) > 0);
    assert_eq!(one, run("2"));
}

/// An adapter that answers `init` and then never answers a `run`.
const SILENT_AFTER_INIT: &str = "python3 -c \"import json, sys\nfor l in sys.stdin:\n    m = json.loads(l)\n    if m['type'] == 'init':\n        print(json.dumps({'type': 'init_ok', 'in_reply_to': m['id'], 'profiles': ['rfd083']}), flush=True)\"";

/// Rule: CONF-GIVE-UP — an adapter that answers `init` and then stops
/// answering is given up on after `--give-up-after` (3) consecutive
/// timeouts: exit 2 after a few timeouts (3 or 4 cases failed as
/// implementation failures, every other case reported as not run; text,
/// JSON, JUnit). Without giving up (the wrong harness, `--give-up-after`
/// large) every case waits out its timeout (4 cases, at least 12 s). The
/// timeout is 3 s, not 1: on a loaded machine a Python adapter can take
/// over a second to answer `init`, and the count of cases, not the clock,
/// shows that the run gave up.
#[test]
fn a_silent_adapter_is_given_up_on() {
    if !python3() {
        return;
    }
    for format in ["json", "junit"] {
        let o = conform(&[
            "--adapter",
            SILENT_AFTER_INIT,
            "--timeout",
            "3",
            "--generated",
            "20",
            "--jobs",
            "2",
            "--format",
            format,
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
        assert!(err.contains("gave up on the adapter"), "{err}");
        if format == "json" {
            let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
            let failed = doc["summary"]["failed"].as_u64().unwrap_or(0);
            let not_run = doc["summary"]["not_run"].as_u64().unwrap_or(0);
            assert!((3..=4).contains(&failed), "{failed}");
            assert!(not_run > 30, "{not_run}");
            assert!(
                doc["not_run"]["why"]
                    .as_str()
                    .is_some_and(|w| w.contains("given up")),
                "{doc}"
            );
        } else {
            assert!(
                out.contains("not run: the run gave up on the adapter"),
                "{out}"
            );
        }
    }
    let started = std::time::Instant::now();
    let o = conform(&[
        "--adapter",
        SILENT_AFTER_INIT,
        "--timeout",
        "3",
        "--no-vectors",
        "--generated",
        "4",
        "--give-up-after",
        "1000",
        "--no-shrink",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        started.elapsed().as_secs() >= 12,
        "without giving up every case waits"
    );
}

/// Rule: CONF-INTERRUPT-NOT-A-VERDICT — SIGINT to `conform` in the middle
/// of a run of a slow adapter, four times (text, JSON, JUnit; one and two
/// jobs; at different moments), never records a failing case: exit 2,
/// "interrupted", no failure in the report, the cases left not run.
#[test]
fn sigint_never_records_a_failing_case() {
    if !python3() {
        return;
    }
    let tries = [
        ("text", "1", 0),
        ("json", "2", 120),
        ("junit", "1", 270),
        ("json", "2", 410),
    ];
    let dir = std::env::temp_dir().join(format!("conform-sigint-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (format, jobs, after_ms)) in tries.into_iter().enumerate() {
        // The adapter's replies are copied to a file: the signal is sent
        // once it has answered a few runs, mid-run.
        let replies = dir.join(format!("replies-{k}"));
        let adapter = format!(
            "python3 examples/conform_adapter.py | tee -a {}",
            replies.display()
        );
        let started = std::time::Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .args([
                "conform",
                "--adapter",
                &adapter,
                "--generated",
                "500",
                "--format",
                format,
                "--jobs",
                jobs,
            ])
            .env("CONFORM_DELAY", "0.05")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        while std::fs::read_to_string(&replies).map_or(true, |r| r.lines().count() < 4) {
            assert!(started.elapsed().as_secs() < 60, "the adapter did not run");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(after_ms));
        let interrupt = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(interrupt.success());
        let o = child.wait_with_output().expect("conform ends");
        let (out, err) = text(&o);
        let what = format!("{format} jobs {jobs} after {after_ms} ms");
        assert_eq!(o.status.code(), Some(2), "{what}: {out}\n{err}");
        assert!(err.contains("interrupted"), "{what}: {err}");
        match format {
            "text" => {
                assert!(!out.contains("FAIL"), "{what}: {out}");
                assert!(out.contains("not run:"), "{what}: {out}");
            }
            "json" => {
                let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
                assert_eq!(doc["summary"]["failed"], 0, "{what}: {out}");
                assert_eq!(doc["summary"]["harness_errors"], 0, "{what}: {out}");
                assert!(doc["summary"]["run"].as_u64().unwrap_or(0) > 0, "{what}");
                assert!(
                    doc["summary"]["not_run"].as_u64().unwrap_or(0) > 0,
                    "{what}"
                );
            }
            _ => {
                assert!(!out.contains("<failure"), "{what}: {out}");
                assert!(!out.contains("<error"), "{what}: {out}");
                assert!(out.contains("not run: the run was stopped"), "{what}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: CONF-UNSUPPORTED — a vector the adapter's environment cannot set
/// up, answered `unsupported`, is counted as skipped and never as passed,
/// in text, JSON and JUnit; generated scenarios are fitted to the declared
/// environment, so none of them is declined.
#[test]
fn unsupported_is_counted_as_skipped() {
    if !python3() {
        return;
    }
    let run = |format: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .args([
                "conform",
                "--adapter",
                "python3 examples/conform_adapter.py",
                "--generated",
                "100",
                "--format",
                format,
            ])
            .env("CONFORM_ENVIRONMENT", "{}")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("the binary runs");
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
        out
    };
    let out = run("text");
    assert!(
        out.contains(
            "SKIP vector reason-user-cancellation-token: this backend cannot raise 'cancelled'"
        ),
        "{out}"
    );
    assert!(out.contains("1 skipped (unsupported)"), "{out}");
    assert!(out.contains("generated rfd083: 100 passed"), "{out}");
    let doc: serde_json::Value = serde_json::from_str(&run("json")).expect("JSON");
    let s = &doc["summary"];
    assert_eq!(s["unsupported"], 1, "{doc}");
    assert_eq!(
        s["passed"].as_u64().unwrap_or(0) + 1,
        s["run"].as_u64().unwrap_or(0),
        "{doc}"
    );
    assert_eq!(
        doc["unsupported"][0]["case"]["name"],
        "reason-user-cancellation-token"
    );
    let xml = run("junit");
    let case = xml
        .split("<testcase ")
        .find(|c| c.contains("name=\"reason-user-cancellation-token\""))
        .expect("the vector's testcase");
    assert!(
        case.contains("<skipped message=\"unsupported by the adapter&apos;s environment"),
        "{case}"
    );
}

/// Rule: CONF-UNSUPPORTED — a run whose every case is declined is no
/// verdict: exit 2, never a pass.
#[test]
fn a_run_of_only_declined_cases_is_no_pass() {
    let o = conform(&[
        "--adapter",
        r#"read l; echo '{"type":"init_ok","in_reply_to":1,"profiles":["rfd083"]}'; i=2; while read l; do echo "{\"type\":\"unsupported\",\"in_reply_to\":$i,\"text\":\"no\"}"; i=$((i+1)); done"#,
        "--no-vectors",
        "--generated",
        "3",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(out.contains("NO VERDICT"), "{out}");
    assert!(!out.contains("PASS"), "{out}");
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
