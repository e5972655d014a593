//! No command prints a secret answer (RFD 082 "Secret questions": the
//! answer of a `secret` question never touches disk; `docs/decisions/cli.md`
//! "Secrets: masked where the answer sits").
//!
//! Every command that prints stream content is run on streams that hold a
//! persisted secret answer (the tagged form an RFD 082 writer with the
//! secret-persisting bug writes, the flat form of a pre-082 writer, an
//! object answer) — which `check` reports — and every command that prints a
//! run is run on a scenario whose tool asks a secret question under every
//! profile; the secret string appears nowhere in stdout, stderr or a
//! written file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SECRET: &str = "hunter2-zq7";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("inquiry-model-no-secret-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A one-turn stream: a tool asks a `secret` question and the response
/// carries `answer` (`flat`: the pre-082 `{id, answer}` form with a
/// two-segment ID).
fn stream(answer: &str, flat: bool) -> String {
    let (id, outcome) = if flat {
        ("toolu_01.password", "")
    } else {
        ("toolu_01.password.1", r#""outcome":"answered","#)
    };
    [
        r#"{"type":"turn_start","timestamp":"2026-03-05 21:00:00.000000"}"#.to_owned(),
        r#"{"type":"chat_request","timestamp":"2026-03-05 21:00:00.000001","content":"Log in."}"#.to_owned(),
        r#"{"type":"tool_call_request","timestamp":"2026-03-05 21:00:01.000000","id":"toolu_01","name":"vault","arguments":{}}"#.to_owned(),
        format!(r#"{{"type":"inquiry_request","timestamp":"2026-03-05 21:00:01.500000","id":"{id}","source":{{"source":"tool","name":"vault"}},"question":{{"text":"Password?","answer_type":{{"type":"secret"}}}}}}"#),
        format!(r#"{{"type":"inquiry_response","timestamp":"2026-03-05 21:00:03.000000",{outcome}"id":"{id}","answer":{answer}}}"#),
        r#"{"type":"tool_call_response","timestamp":"2026-03-05 21:00:03.100000","id":"toolu_01","content":"b2s=","is_error":false}"#.to_owned(),
        r#"{"type":"chat_response","timestamp":"2026-03-05 21:00:04.000000","message":"Done."}"#.to_owned(),
    ]
    .join("\n")
        + "\n"
}

fn assert_no_secret(what: &str, o: &Output) {
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !out.contains(SECRET) && !err.contains(SECRET),
        "{what} prints the secret:\n--- stdout\n{out}\n--- stderr\n{err}"
    );
}

fn write(path: &Path, text: &str) -> String {
    std::fs::write(path, text).expect("writes");
    path.to_str().expect("utf-8 path").to_owned()
}

/// Rule: CLI-NO-SECRET — `summary`, `check` (every format, every profile)
/// and `sanitize` (both reports, both layouts, stdout and `--out`) never
/// print a persisted secret answer; `check` still reports it, `summary`
/// still lists the pair, and `sanitize` writes the response `redacted`.
#[test]
fn no_stream_command_prints_a_persisted_secret() {
    let d = dir();
    let quoted = format!("\"{SECRET}\"");
    let object = format!("{{\"pw\":\"{SECRET}\"}}");
    let files = [
        write(&d.join("tagged.jsonl"), &stream(&quoted, false)),
        write(&d.join("flat.jsonl"), &stream(&quoted, true)),
        write(&d.join("object.jsonl"), &stream(&object, false)),
    ];
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.contains(SECRET), "the input holds the secret");

        let o = run(&["summary", f]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_no_secret("summary", &o);
        assert!(
            String::from_utf8_lossy(&o.stdout)
                .contains("answered (the answer to a secret question, not shown)")
        );

        for format in ["text", "json", "sarif"] {
            for profile in ["auto", "legacy", "rfd082", "rfd083"] {
                let o = run(&["check", f, "--format", format, "--profile", profile]);
                assert_ne!(o.status.code(), Some(2), "{f} {format} {profile}: {o:?}");
                assert_no_secret(&format!("check --format {format} --profile {profile}"), &o);
            }
        }
        let o = run(&["check", f]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "check reports the persisted secret"
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("CHECK-SECRET-NOT-ANSWERED"));

        for report in ["text", "json"] {
            for format in ["jsonl", "array"] {
                let o = run(&["sanitize", f, "--report", report, "--format", format]);
                assert_eq!(o.status.code(), Some(1), "redacting is a repair: {o:?}");
                assert_no_secret(&format!("sanitize --report {report} --format {format}"), &o);
                assert!(
                    String::from_utf8_lossy(&o.stdout).contains("\"outcome\":\"redacted\"")
                        || String::from_utf8_lossy(&o.stdout).contains("\"outcome\": \"redacted\"")
                );
            }
        }
        let out = d.join("repaired.jsonl");
        let o = run(&["sanitize", f, "--out", out.to_str().unwrap()]);
        assert_no_secret("sanitize --out", &o);
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(!written.contains(SECRET), "{written}");
        // The repaired stream is what an RFD 082 writer records.
        let o = run(&["check", out.to_str().unwrap(), "--profile", "rfd082"]);
        assert!(!String::from_utf8_lossy(&o.stdout).contains("CHECK-SECRET-NOT-ANSWERED"));
    }
}

/// Rule: CLI-NO-SECRET — `run` (trace JSON and Mermaid diagram) never prints the
/// answer a tool received for a secret question, under every profile
/// (legacy persists it as plain text: the printed trace still does not show
/// it); the answer to a plain question is printed as before.
#[test]
fn run_never_prints_a_secret_answer() {
    let d = dir();
    let scenario = format!(
        r#"{{"tools":{{"vault":{{"source":{{"kind":"local"}},"run": "unattended", "program":{{"kind":"script","asks":[
            {{"question":{{"id":"pw","text":"Password?","answer_type":{{"type":"secret"}}}}}},
            {{"question":{{"id":"user","text":"User?","answer_type":{{"type":"text"}}}}}}],
            "finish":{{"with":"succeed"}}}}}}}},
          "turns":[{{"user":"go","cycles":[[{{"id":"call_1","tool":"vault"}}]]}}],
          "prompter":[{{"reply":"answer","value":"{SECRET}","remember":false}},
                      {{"reply":"answer","value":"plain-user-name","remember":false}}]}}"#
    );
    let f = write(&d.join("scenario.json"), &scenario);
    for profile in ["legacy", "rfd082", "rfd083"] {
        for format in ["json", "mermaid"] {
            let o = run(&["run", &f, "--profile", profile, "--format", format]);
            assert_eq!(o.status.code(), Some(0), "{o:?}");
            assert_no_secret(&format!("run --profile {profile} --format {format}"), &o);
            assert!(
                String::from_utf8_lossy(&o.stdout).contains("plain-user-name"),
                "{profile} {format}: a plain answer is still printed"
            );
        }
    }
}

/// The first secret answer of the explored scope (`secret-<slot>-marker`,
/// the slot a letter and a number: src/explore.rs) in `text`, if any.
fn explored_secret(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find("secret-") {
        let tail = &rest[i + "secret-".len()..];
        let slot = tail.chars().take_while(char::is_ascii_alphanumeric).count();
        if slot > 0 && tail[slot..].starts_with("-marker") {
            return Some(format!("secret-{}-marker", &tail[..slot]));
        }
        rest = tail;
    }
    None
}

/// `text` without the printed scenarios: a scenario is input the user (or
/// the generator) wrote, printed as given so that it replays (decision
/// "Secrets: masked where the answer sits"); every line that
/// holds one (`"turns":`) is dropped, and in JSON every `smallest` field.
fn without_scenarios(text: &str) -> String {
    if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) {
        fn drop(v: &mut serde_json::Value) {
            match v {
                serde_json::Value::Object(m) => {
                    m.remove("smallest");
                    m.values_mut().for_each(drop);
                }
                serde_json::Value::Array(items) => items.iter_mut().for_each(drop),
                _ => {}
            }
        }
        drop(&mut v);
        return v.to_string();
    }
    text.lines()
        .filter(|l| !l.contains("\"turns\":"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_no_explored_secret(what: &str, o: &Output) {
    let out = without_scenarios(&String::from_utf8_lossy(&o.stdout));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        explored_secret(&out).is_none() && explored_secret(&err).is_none(),
        "{what} prints a secret ({:?}):\n--- stdout\n{out}\n--- stderr\n{err}",
        explored_secret(&out).or(explored_secret(&err))
    );
}

/// Rule: CLI-NO-SECRET — `diff-profiles` (text, Markdown, JSON) from
/// `legacy`, which persists a secret answer as text, to `rfd082`: the
/// traces side by side, the evidence and the diagrams show `<secret n>`, and
/// only the printed scenarios (input) hold the answer. (The report of one
/// given scenario whose secret `legacy` persists is the unit test
/// `a_diff_report_masks_the_secret_answer_its_traces_hold`, beside the
/// reviewer's diff.)
#[test]
fn diff_profiles_never_prints_a_secret_answer() {
    let mut masked = false;
    // Legacy to RFD 082, and RFD 082 to the amendment that drops the secret
    // type, whose broken invariant's counterexample persists a secret answer
    // (the scenarios are minimal: one that a difference does not need gone).
    let pairs = [
        ("legacy", "rfd082"),
        ("rfd082", "spec/profiles/examples/secret-type-dropped.json"),
    ];
    for ((from, to), format) in pairs
        .into_iter()
        .flat_map(|p| ["text", "markdown", "json"].map(|f| (p, f)))
    {
        let o = run(&[
            "diff-profiles",
            "--from",
            from,
            "--to",
            to,
            "--stride",
            "997",
            "--sample",
            "0",
            "--format",
            format,
        ]);
        assert_ne!(o.status.code(), Some(2), "{o:?}");
        // The run does meet a secret question: a printed scenario asks one.
        let out: String = String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .collect();
        assert!(out.contains(r#""answer_type":{"type":"secret"}"#));
        masked |= String::from_utf8_lossy(&o.stdout).contains("#lt;secret 1#gt;");
        assert_no_explored_secret(&format!("diff-profiles {from} {to} --format {format}"), &o);
    }
    assert!(masked, "a secret answer is shown masked");
}

/// A one-call scenario under `profile` whose tool asks a `secret` question
/// the prompter answers with [`SECRET`] (`backend`: no terminal, the
/// inquiry backend answers it, which `legacy` records).
fn secret_scenario(profile: &str, backend: bool) -> String {
    let (tty, prompter, backend) = if backend {
        (
            false,
            r#"{"reply":"ctrl_c"}"#.to_owned(),
            format!(r#"{{"reply":"answer","value":"{SECRET}"}}"#),
        )
    } else {
        (
            true,
            format!(r#"{{"reply":"answer","value":"{SECRET}","remember":false}}"#),
            String::new(),
        )
    };
    format!(
        r#"{{"profile":"{profile}","tty":{tty},"tools":{{"vault":{{"source":{{"kind":"local"}},"run": "unattended", "program":{{"kind":"script","asks":[
            {{"question":{{"id":"pw","text":"Password?","answer_type":{{"type":"secret"}}}}}}],
            "finish":{{"with":"succeed"}}}}}}}},
          "turns":[{{"user":"go","cycles":[[{{"id":"call_1","tool":"vault"}}]]}}],
          "prompter":[{prompter}],"backend":[{backend}]}}"#
    )
}

/// Rule: CLI-NO-SECRET — `invariants --profile legacy` (text, Markdown,
/// JSON): the counterexample of INV-SECRET-NEVER-PERSISTED (its diagram
/// draws the persisted secret answer) shows `<secret n>`; only the printed
/// scenarios (input) hold the answer.
#[test]
fn invariants_never_prints_a_secret_answer() {
    for format in ["text", "markdown", "json"] {
        let o = run(&[
            "invariants",
            "--profile",
            "legacy",
            "--stride",
            "997",
            "--sample",
            "0",
            "--format",
            format,
        ]);
        // Legacy violates invariants: exit 1 (a finding).
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("INV-SECRET-NEVER-PERSISTED"));
        assert!(
            explored_secret(&out).is_some(),
            "a counterexample asks a secret"
        );
        assert_no_explored_secret(&format!("invariants --format {format}"), &o);
    }
}

/// An implementation that persists the secret answer: the model's own
/// `rfd082` run with every `redacted` response written `answered` with
/// the answer the prompter gave.
struct PersistsSecret;

impl inquiry_model::conformance::Implementation for PersistsSecret {
    fn run(
        &mut self,
        scenario: &inquiry_model::scenario::Scenario,
    ) -> Result<inquiry_model::conformance::Observed, inquiry_model::conformance::ImplementationError>
    {
        let t = inquiry_model::scenario::run(scenario).expect("the model runs it");
        let mut o = inquiry_model::conformance::Observed::of(&t);
        for e in &mut o.stream {
            if e.get("outcome").and_then(|v| v.as_str()) == Some("redacted") {
                e["outcome"] = "answered".into();
                e["answer"] = SECRET.into();
            }
        }
        Ok(o)
    }
}

/// Rule: CLI-NO-SECRET — `conform`'s failure report (the verdict's
/// expected/actual texts and the streams side by side, which `conform`
/// prints in text, JSON and JUnit) shows `<secret n>` for an answer an
/// implementation persists for a secret question; the scenario (input) is
/// printed as given.
#[test]
fn conform_failure_never_prints_a_secret_answer() {
    let scenario: inquiry_model::scenario::Scenario =
        serde_json::from_str(&secret_scenario("rfd082", false)).expect("a scenario");
    let f = inquiry_model::conformance::check_one(&mut PersistsSecret, "persists", &scenario)
        .expect("persisting a secret answer diverges");
    let report = format!(
        "{}\n{}\n{}",
        f.verdict,
        f.side_by_side,
        serde_json::to_string(&f.verdict).unwrap()
    );
    assert!(f.verdict.kind().contains("inquiry_response"), "{report}");
    assert!(!report.contains(SECRET), "{report}");
    assert!(report.contains("<secret 1>"), "{report}");
}

/// Rule: CLI-NO-SECRET — `conform` (text, JSON, JUnit) against the example
/// adapter with a bug: it persists every secret answer (`answered` with
/// [`SECRET`] where it writes `redacted`). The failures it reports (the
/// divergence and the streams side by side, whose columns cut long events
/// short) show `<secret n>`, never the answer.
#[test]
fn conform_cli_never_prints_a_persisted_secret() {
    let adapter = format!(
        "python3 examples/conform_adapter.py | sed -u 's/\"outcome\": \"redacted\"/\"outcome\": \"answered\", \"answer\": \"{SECRET}\"/g'"
    );
    for format in ["text", "json", "junit"] {
        let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .args(["conform", "--adapter", &adapter, "--generated", "0"])
            .args(["--profile", "rfd083", "--format", format])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(1), "the bug fails the run: {o:?}");
        assert_no_secret(&format!("conform --format {format}"), &o);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("<secret ") || out.contains("&lt;secret "),
            "{format}: {out}"
        );
    }
}

/// Two calls of one tool, one cycle each, asking a `secret` question `pw`
/// and a select `env` whose options are `a` and `b`; the prompter types the
/// secrets `first` and `second` (asking to remember them, which no
/// profile offers for a secret) and picks `env` `a` twice (`first` may be
/// `a`: a secret equal to another question's option).
fn two_secrets(first: &str, second: &str) -> String {
    format!(
        r#"{{"tools":{{"vault":{{"source":{{"kind":"local"}},"run":"unattended","program":{{"kind":"script","asks":[
            {{"question":{{"id":"pw","text":"Password?","answer_type":{{"type":"secret"}}}}}},
            {{"question":{{"id":"env","text":"Env?","answer_type":{{"type":"select","options":["a","b"]}}}}}}],
            "finish":{{"with":"succeed"}}}}}}}},
          "turns":[{{"user":"go","cycles":[[{{"id":"call_1","tool":"vault"}}],[{{"id":"call_2","tool":"vault"}}]]}}],
          "prompter":[{{"reply":"answer","value":"{first}","remember":true}},{{"reply":"answer","value":"a"}},
                      {{"reply":"answer","value":"{second}","remember":true}},{{"reply":"answer","value":"a"}}]}}"#
    )
}

/// What each call's last invocation received for `pw`, in call order.
fn received_pw(trace: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out: Vec<(String, serde_json::Value)> = Vec::new();
    for inv in trace["invocations"].as_array().expect("invocations") {
        let call = inv["tool_call_id"].as_str().expect("an ID").to_owned();
        let pw = inv["answers"]["pw"].clone();
        match out.iter_mut().find(|(c, _)| *c == call) {
            Some(slot) => slot.1 = pw,
            None => out.push((call, pw)),
        }
    }
    out.into_iter().map(|(_, pw)| pw).collect()
}

/// The check a reader makes from a printed trace (RFD 082: secrets are
/// never cached): the two calls received different secrets, each the one
/// typed for it (the prompt's reply shows the same mask as the answer the
/// call then received).
fn each_call_received_its_own_secret(trace: &serde_json::Value) -> bool {
    let typed: Vec<serde_json::Value> = trace["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .filter(|p| p["presentation"]["echo"] == false)
        .map(|p| p["reply"]["value"].clone())
        .collect();
    let received = received_pw(trace);
    received.len() == 2 && received[0] != received[1] && typed == received
}

/// The persisted `stream` of a printed trace.
fn printed_stream(o: &Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON trace");
    v["stream"].clone()
}

/// A wrong masking (the string-replacing one this rule forbids): every
/// string equal to a typed secret, wherever it is, replaced by `<secret>`.
fn replaced_everywhere(v: &mut serde_json::Value, secrets: &[&str]) {
    match v {
        serde_json::Value::String(s) if secrets.contains(&s.as_str()) => *s = "<secret>".to_owned(),
        serde_json::Value::Array(items) => items
            .iter_mut()
            .for_each(|i| replaced_everywhere(i, secrets)),
        serde_json::Value::Object(m) => {
            m.values_mut().for_each(|i| replaced_everywhere(i, secrets))
        }
        _ => {}
    }
}

/// Rule: CLI-NO-SECRET — `run` masks a secret where the answer sits: with
/// a secret answer `a` equal to another question's select option, the
/// printed `stream` (the persisted stream as the profile's writer puts it
/// on disk) is the stream `run --reveal-secrets` prints, option `a` and
/// the plain answer `a` included, under every profile whose writer keeps
/// the secret off the disk; the masks keep identity (`<secret 1>` for the
/// first call, `<secret 2>` for the second, on the prompt's reply and on
/// the answer the call received); `--reveal-secrets` prints what each tool
/// received, in both formats. The string-replacing masking fails the
/// first check.
#[test]
fn run_masks_where_the_answer_sits() {
    let d = dir();
    let f = write(&d.join("two-secrets.json"), &two_secrets("a", SECRET));
    for profile in ["rfd082", "rfd083"] {
        let masked = run(&["run", &f, "--profile", profile]);
        let revealed = run(&["run", &f, "--profile", profile, "--reveal-secrets"]);
        assert_eq!(masked.status.code(), Some(0), "{masked:?}");
        assert_eq!(revealed.status.code(), Some(0), "{revealed:?}");
        assert_no_secret(&format!("run --profile {profile}"), &masked);
        let stream = printed_stream(&masked);
        assert_eq!(stream, printed_stream(&revealed), "{profile}");
        assert!(
            stream
                .to_string()
                .contains(r#"[{"value":"a"},{"value":"b"}]"#),
            "{stream}"
        );
        assert!(stream.to_string().contains(r#""answer":"a""#), "{stream}");
        // The wrong masking changes the stream it prints.
        let mut wrong: serde_json::Value = serde_json::from_slice(&revealed.stdout).unwrap();
        replaced_everywhere(&mut wrong, &["a", SECRET]);
        assert_ne!(wrong["stream"], printed_stream(&revealed), "{profile}");

        let m: serde_json::Value = serde_json::from_slice(&masked.stdout).unwrap();
        assert_eq!(
            received_pw(&m),
            [
                serde_json::json!("<secret 1>"),
                serde_json::json!("<secret 2>")
            ]
        );
        assert!(each_call_received_its_own_secret(&m), "{m}");
        // One mask for every secret: the check cannot be made.
        assert!(!each_call_received_its_own_secret(&wrong));
        let r: serde_json::Value = serde_json::from_slice(&revealed.stdout).unwrap();
        assert_eq!(
            received_pw(&r),
            [serde_json::json!("a"), serde_json::json!(SECRET)]
        );
        let diagram = run(&[
            "run",
            &f,
            "--profile",
            profile,
            "--format",
            "mermaid",
            "--reveal-secrets",
        ]);
        let diagram = String::from_utf8_lossy(&diagram.stdout);
        assert!(
            diagram.contains(&format!(r#"answers {{"pw":"{SECRET}","env":"a"}}"#)),
            "{diagram}"
        );
        let masked = run(&["run", &f, "--profile", profile, "--format", "mermaid"]);
        assert_no_secret("run --format mermaid", &masked);
        assert!(
            String::from_utf8_lossy(&masked.stdout)
                .contains(r##"answers {"pw":"#lt;secret 2#gt;","env":"a"}"##)
        );
    }
}

/// Rule: CLI-NO-SECRET — the masks show a cached secret: a run in which
/// the second call receives the first call's secret (the model's run with
/// that one answer changed, as a model that served a secret from the turn
/// cache would hand it) prints `<secret 1>` for both calls, which the
/// reader's check rejects; the model as specified passes it, and neither
/// prints the secret.
#[test]
fn masks_show_a_cached_secret() {
    let s: inquiry_model::scenario::Scenario =
        serde_json::from_str(&two_secrets("first-secret", "second-secret")).expect("a scenario");
    let t = inquiry_model::scenario::run(&s).expect("runs");
    let good = inquiry_model::masks::mask(&t).to_json();
    assert!(each_call_received_its_own_secret(&good), "{good}");
    let mut cached = t.clone();
    for inv in cached
        .invocations
        .iter_mut()
        .filter(|i| i.tool_call_id == "call_2")
    {
        if let Some(pw) = inv.answers.get_mut("pw") {
            *pw = serde_json::json!("first-secret");
        }
    }
    let cached = inquiry_model::masks::mask(&cached).to_json();
    assert_eq!(
        received_pw(&cached),
        [
            serde_json::json!("<secret 1>"),
            serde_json::json!("<secret 1>")
        ],
        "{cached}"
    );
    assert!(!each_call_received_its_own_secret(&cached));
    for printed in [&good, &cached] {
        assert!(!printed.to_string().contains("-secret"), "{printed}");
    }
}

/// Rule: CLI-NO-SECRET — under a profile that persists a `Secret` question
/// as text (the amendment `secret-type-dropped.json`), `run` masks its
/// answer where the request the tool asked as `Secret` was recorded, even
/// when the value is shorter than the scan looks for (so only the structure
/// can find it); the plain question's answer beside it is printed as typed.
#[test]
fn a_short_secret_is_masked_where_a_writer_persists_it_as_text() {
    let d = dir();
    let short = "zq9";
    let scenario = format!(
        r#"{{"tools":{{"vault":{{"source":{{"kind":"local"}},"run": "unattended", "program":{{"kind":"script","asks":[
            {{"question":{{"id":"pw","text":"Password?","answer_type":{{"type":"secret"}}}}}},
            {{"question":{{"id":"user","text":"User?","answer_type":{{"type":"text"}}}}}}],
            "finish":{{"with":"succeed"}}}}}}}},
          "turns":[{{"user":"go","cycles":[[{{"id":"call_1","tool":"vault"}}]]}}],
          "prompter":[{{"reply":"answer","value":"{short}","remember":false}},
                      {{"reply":"answer","value":"plain-user-name","remember":false}}]}}"#
    );
    let f = write(&d.join("short-secret.json"), &scenario);
    let dropped = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("spec/profiles/examples/secret-type-dropped.json");
    let o = run(&[
        "run",
        &f,
        "--profile",
        dropped.to_str().expect("a UTF-8 path"),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let stream = printed_stream(&o);
    let events = stream.as_array().expect("a persisted stream");
    let asked = |text: &str| {
        events
            .iter()
            .find(|e| e["type"] == "inquiry_request" && e["question"]["text"] == text)
            .map(|e| e["id"].clone())
            .expect("the request")
    };
    let answer_of = |id: &serde_json::Value| {
        events
            .iter()
            .find(|e| e["type"] == "inquiry_response" && e["id"] == *id)
            .map(|e| e["answer"].clone())
            .expect("its response")
    };
    assert_eq!(answer_of(&asked("Password?")), "<secret 1>", "{stream:#}");
    assert_eq!(answer_of(&asked("User?")), "plain-user-name", "{stream:#}");
    assert!(
        !stream.to_string().contains(&format!("\"{short}\"")),
        "{stream:#}"
    );
}
