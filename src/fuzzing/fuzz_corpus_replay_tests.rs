//! The fuzz corpus on stable Rust: every committed input under
//! `fuzz/corpus/<target>/` is replayed through the same entry function the
//! cargo-fuzz target calls (`crate::fuzzing`), so an input that once
//! found a bug keeps guarding it in `make test`. Also checks that the fuzz
//! crate, the corpus, the generated seeds and the dictionary agree with
//! `fuzzing::TARGETS`, and the independent RFD 082 response decision the
//! differential target relies on.

use std::collections::BTreeSet;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use crate::fuzzing::response_oracle::{self as oracle, Expected, Rejection};
use crate::fuzzing::{self, TARGETS, seeds};
use crate::generate;
use crate::model::tool::{AnswerType, ToolSource};
use crate::profile::ProfileName;
use crate::scenario::{self, BackendReply, Program};
use crate::stream;
use crate::wire::{CancellationReason, EventKind, InquiryId, InquiryResponse, Stream};
use arbitrary::Unstructured;
use serde_json::{Value, json};

const CORPUS: &str = "fuzz/corpus";

fn sorted_dir(path: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    out.sort();
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// Runs `entry` on `bytes`, turning a panic into its message.
fn replay(entry: fn(&[u8]), bytes: &[u8]) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| entry(bytes))).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "non-string panic".to_owned())
    })
}

/// Rules: FUZZ-NO-PANIC, FUZZ-ROUNDTRIP, FUZZ-READER-CHUNKING,
/// FUZZ-ORACLE-TOTAL, FUZZ-MODEL-INVARIANTS, FUZZ-RESPONSE-DIFFERENTIAL —
/// every committed corpus input, seeds and past crashes alike, passes
/// through its target's entry without a property violation.
#[test]
fn every_corpus_file_replays_through_its_target() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for dir in sorted_dir(Path::new(CORPUS)) {
        let Some(target) = fuzzing::target(&file_name(&dir)) else {
            continue; // reported by the folder test
        };
        for file in sorted_dir(&dir) {
            let bytes = fs::read(&file).expect("corpus file");
            replayed += 1;
            if let Err(msg) = replay(target.replay, &bytes) {
                failures.push(format!("{}: {msg}", file.display()));
            }
        }
    }
    assert!(replayed >= TARGETS.len(), "only {replayed} inputs replayed");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Where inputs that found a still-open bug in another module are kept.
const FINDINGS: &str = "fuzz/findings";

/// Rule: FUZZ-NO-PANIC — every open finding (`fuzz/findings/<target>/`: an
/// input on which a target found a property violation, reported and not yet
/// fixed) still fails its target, and its folder names a target. When one
/// passes, the bug is fixed: move the file into `fuzz/corpus/<target>/` as
/// `regression-<name>` so it stays fixed.
#[test]
fn open_findings_still_fail_their_target() {
    let Ok(dirs) = fs::read_dir(FINDINGS) else {
        return; // no open finding
    };
    let mut dirs: Vec<PathBuf> = dirs.map(|e| e.expect("entry").path()).collect();
    dirs.sort();
    let mut fixed = Vec::new();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        let target = fuzzing::target(&file_name(dir))
            .unwrap_or_else(|| panic!("{} names no target", dir.display()));
        for file in sorted_dir(dir) {
            let bytes = fs::read(&file).expect("finding");
            if replay(target.replay, &bytes).is_ok() {
                fixed.push(file.display().to_string());
            }
        }
    }
    assert!(
        fixed.is_empty(),
        "fixed, move into fuzz/corpus/<target>/ as regression-*: {fixed:?}"
    );
}

/// Rule: FUZZ-CORPUS-REPLAY — every corpus folder names a known target and
/// every target has a non-empty corpus folder.
#[test]
fn every_corpus_folder_names_a_target_and_every_target_has_one() {
    let folders: BTreeSet<String> = sorted_dir(Path::new(CORPUS))
        .iter()
        .filter(|p| p.is_dir())
        .map(|p| file_name(p))
        .collect();
    let targets: BTreeSet<String> = TARGETS.iter().map(|t| t.name.to_owned()).collect();
    let unknown: Vec<_> = folders.difference(&targets).collect();
    let missing: Vec<_> = targets.difference(&folders).collect();
    assert!(
        unknown.is_empty(),
        "corpus folders naming no target: {unknown:?}"
    );
    assert!(
        missing.is_empty(),
        "targets without a corpus folder: {missing:?}"
    );
    for t in &targets {
        let n = sorted_dir(&Path::new(CORPUS).join(t)).len();
        assert!(n > 0, "fuzz/corpus/{t} is empty");
    }
}

/// Rule: FUZZ-CORPUS-REPLAY — the fuzz crate declares exactly the targets of
/// `fuzzing::TARGETS`, each a one-line wrapper around its entry function.
#[test]
fn fuzz_crate_declares_exactly_the_targets() {
    let manifest = fs::read_to_string("fuzz/Cargo.toml").expect("fuzz/Cargo.toml");
    assert!(
        manifest.contains("\n[workspace]"),
        "the fuzz crate has its own workspace"
    );
    assert!(
        manifest.contains(
            "inquiry-model = { path = \"..\", default-features = false, features = [\"testkit\"] }"
        ),
        "the fuzz crate builds the library with `testkit` and without the CLI"
    );
    let bins: BTreeSet<String> = manifest
        .split("[[bin]]")
        .skip(1)
        .map(|b| {
            let line = b
                .lines()
                .find(|l| l.starts_with("name = "))
                .expect("bin name");
            line.trim_start_matches("name = ")
                .trim_matches('"')
                .to_owned()
        })
        .collect();
    let targets: BTreeSet<String> = TARGETS.iter().map(|t| t.name.to_owned()).collect();
    assert_eq!(bins, targets, "[[bin]] entries vs fuzzing::TARGETS");
    let files: BTreeSet<String> = sorted_dir(Path::new("fuzz/fuzz_targets"))
        .iter()
        .map(|p| file_name(p).trim_end_matches(".rs").to_owned())
        .collect();
    assert_eq!(files, targets, "fuzz/fuzz_targets/*.rs vs fuzzing::TARGETS");
    for t in TARGETS {
        let src = fs::read_to_string(format!("fuzz/fuzz_targets/{}.rs", t.name)).expect("target");
        let call = format!(
            "fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::{}(data));",
            t.name
        );
        assert!(
            src.contains(&call),
            "{} does not call its entry: {src}",
            t.name
        );
    }
}

/// Rule: FUZZ-CORPUS-REPLAY — the committed `seed-*` files are exactly the
/// generated seeds (`make fuzz-corpus` writes them), so the corpus cannot
/// drift from the generator unnoticed.
#[test]
fn committed_seeds_are_the_generated_ones() {
    let want: BTreeSet<(String, String)> = seeds::generated()
        .into_iter()
        .map(|s| (s.target.to_owned(), s.name))
        .collect();
    let mut have = BTreeSet::new();
    for dir in sorted_dir(Path::new(CORPUS)) {
        for f in sorted_dir(&dir) {
            if file_name(&f).starts_with("seed-") {
                have.insert((file_name(&dir), file_name(&f)));
            }
        }
    }
    let missing: Vec<_> = want.difference(&have).collect();
    let stale: Vec<_> = have.difference(&want).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "run `make fuzz-corpus`: missing {missing:?}, stale {stale:?}"
    );
    for s in seeds::generated() {
        let path = Path::new(CORPUS).join(s.target).join(&s.name);
        let bytes = fs::read(&path).expect("seed file");
        assert!(
            bytes == s.bytes,
            "{} differs from the generator; run `make fuzz-corpus`",
            path.display()
        );
    }
}

/// Rule: FUZZ-CORPUS-REPLAY — the committed corpus stays small: at most 64
/// files per target and 512 KiB in all.
#[test]
fn corpus_stays_small() {
    let mut total = 0u64;
    for dir in sorted_dir(Path::new(CORPUS)) {
        let files = sorted_dir(&dir);
        assert!(
            files.len() <= 64,
            "{} holds {} files",
            dir.display(),
            files.len()
        );
        for f in files {
            total += fs::metadata(&f).expect("metadata").len();
        }
    }
    assert!(total <= 512 * 1024, "the corpus holds {total} bytes");
}

/// Parses a libFuzzer dictionary: `name="value"` or `"value"` lines with
/// `\\`, `\"` and `\xAB` escapes; comments and blank lines skipped.
fn parse_dict(text: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let q = line
            .find('"')
            .ok_or(format!("line {}: no quoted value", n + 1))?;
        let name = &line[..q];
        if !name.is_empty()
            && !name
                .trim_end_matches('=')
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(format!("line {}: bad name `{name}`", n + 1));
        }
        let body = line[q + 1..]
            .strip_suffix('"')
            .ok_or(format!("line {}: unterminated", n + 1))?;
        let mut value = Vec::new();
        let mut bytes = body.bytes();
        while let Some(b) = bytes.next() {
            match b {
                b'\\' => match bytes.next() {
                    Some(b'\\') => value.push(b'\\'),
                    Some(b'"') => value.push(b'"'),
                    Some(b'x') => {
                        let hex: String = [bytes.next(), bytes.next()]
                            .iter()
                            .flatten()
                            .map(|b| *b as char)
                            .collect();
                        value.push(
                            u8::from_str_radix(&hex, 16)
                                .map_err(|e| format!("line {}: {e}", n + 1))?,
                        );
                    }
                    other => return Err(format!("line {}: bad escape {other:?}", n + 1)),
                },
                b'"' => return Err(format!("line {}: unescaped quote", n + 1)),
                _ => value.push(b),
            }
        }
        out.push(value);
    }
    Ok(out)
}

/// Rule: FUZZ-CORPUS-REPLAY — the dictionary parses as libFuzzer reads it
/// and holds the format's keys and tags as JSON strings: every event type,
/// outcome, reason tag the RFDs name, source, answer type and persistence.
#[test]
fn dictionary_has_the_format_vocabulary() {
    let text = fs::read_to_string("fuzz/inquiry.dict").expect("fuzz/inquiry.dict");
    let entries = parse_dict(&text).unwrap_or_else(|e| panic!("fuzz/inquiry.dict: {e}"));
    let words: Vec<&str> = [
        "type",
        "timestamp",
        "id",
        "name",
        "arguments",
        "content",
        "is_error",
        "outcome",
        "answer",
        "reason",
        "source",
        "question",
        "text",
        "answer_type",
        "options",
        "value",
        "description",
        "default",
        "context",
        "exclusive",
        "persistence",
        "turn_start",
        "chat_request",
        "chat_response",
        "tool_call_request",
        "tool_call_response",
        "inquiry_request",
        "inquiry_response",
        "answered",
        "cancelled",
        "redacted",
        "tool",
        "assistant",
        "boolean",
        "select",
        "secret",
        "none",
        "turn",
    ]
    .into_iter()
    .chain(oracle::RFD_REASON_TAGS)
    .chain(
        CancellationReason::KNOWN
            .iter()
            .map(CancellationReason::as_str),
    )
    .collect();
    for w in words {
        let quoted = format!("\"{w}\"").into_bytes();
        assert!(entries.contains(&quoted), "the dictionary lacks \"{w}\"");
    }
    assert!(
        entries.iter().all(|e| !e.is_empty()),
        "an empty dictionary entry"
    );
}

fn decide(s: &str) -> oracle::Decision {
    oracle::decide(s.as_bytes())
}

fn answered(id: &str, answer: Value) -> oracle::Decision {
    Ok(Expected::Answered {
        id: id.to_owned(),
        answer,
    })
}

fn cancelled(id: &str, reason: &str, known: bool) -> oracle::Decision {
    Ok(Expected::Cancelled {
        id: id.to_owned(),
        reason: reason.to_owned(),
        known,
    })
}

/// Rule: FUZZ-RESPONSE-DIFFERENTIAL — the independent decision reads RFD
/// 082's own examples as the RFD describes them (values written here from
/// the RFD text), and the typed reader agrees on each.
#[test]
fn oracle_decides_the_rfd082_examples_as_the_rfd_says() {
    let want = [
        answered("call_1.confirm.1", json!(true)),
        cancelled("call_1.confirm.1", "user", true),
        cancelled("call_1.confirm.1", "backend_error", true),
        cancelled("call_1.passphrase.1", "no_prompt_backend", true),
        cancelled("call_1.passphrase.1", "assistant_routing_denied", true),
        cancelled("call_1.confirm.1", "some_future_variant", false),
        Ok(Expected::Redacted {
            id: "call_1.passphrase.1".to_owned(),
        }),
    ];
    for (text, want) in seeds::RFD082_TAGGED.iter().zip(want) {
        assert_eq!(decide(text), want, "{text}");
        let typed = serde_json::from_str::<InquiryResponse>(text);
        assert_eq!(oracle::compare(&typed, &want), Ok(()), "{text}");
    }
    // "Legacy events without an `outcome` field deserialize as Answered."
    assert_eq!(
        decide(seeds::RFD082_LEGACY),
        answered("call_1.answer", json!(true))
    );
}

/// Rule: FUZZ-RESPONSE-DIFFERENTIAL — the decision at the edges the RFD
/// names and the ones decided in docs/decisions/fuzzing.md ("Fuzzing: the
/// independent `InquiryResponse` decision").
#[test]
fn oracle_decides_the_edges_as_decided() {
    let cases: [(&str, oracle::Decision); 17] = [
        (r#"{"id":"x","answer":null}"#, answered("x", Value::Null)),
        (
            r#"{"outcome":"answered","id":"x","answer":null}"#,
            answered("x", Value::Null),
        ),
        (
            r#"{"outcome":"cancelled","id":"x"}"#,
            cancelled("x", "user", true),
        ),
        (
            r#"{"outcome":"cancelled","id":"x","reason":"invalid_static_answer"}"#,
            cancelled("x", "invalid_static_answer", true),
        ),
        (
            r#"{"outcome":"redacted","id":"x","answer":"hunter2"}"#,
            Ok(Expected::Redacted { id: "x".to_owned() }),
        ),
        (r#"{"id":"x"}"#, Err(Rejection::NeitherOutcomeNorAnswer)),
        (
            r#"{"outcome":"answered","id":"x"}"#,
            Err(Rejection::AnsweredWithoutAnswer),
        ),
        (
            r#"{"outcome":"deferred","id":"x","answer":1}"#,
            Err(Rejection::UnknownOutcome),
        ),
        (
            r#"{"outcome":"cancelled","id":"x","reason":null}"#,
            cancelled("x", "user", true),
        ),
        (
            r#"{"outcome":"answered","id":"x","answer":1,"reason":7}"#,
            Err(Rejection::ReasonNotString),
        ),
        (
            r#"{"id":"x","outcome":null,"answer":1}"#,
            answered("x", json!(1)),
        ),
        (
            r#"{"id":"x","outcome":7,"answer":1}"#,
            Err(Rejection::OutcomeNotString),
        ),
        (r#"{"id":7,"answer":1}"#, Err(Rejection::IdNotString)),
        (r#"{"answer":1}"#, Err(Rejection::MissingId)),
        (
            r#"{"id":"a","answer":1,"id":"a"}"#,
            Err(Rejection::DuplicateField),
        ),
        (r#"["x",null,1]"#, Err(Rejection::NotObject)),
        (r#"{"id":"x","answer":1"#, Err(Rejection::NotJson)),
    ];
    for (text, want) in cases {
        assert_eq!(decide(text), want, "{text}");
    }
    // Fields the response does not define are ignored, duplicates included.
    assert_eq!(
        decide(r#"{"id":"a","answer":1,"x":1,"x":{"y":1e400}}"#),
        answered("a", json!(1))
    );
}

/// Rule: FUZZ-RESPONSE-DIFFERENTIAL — `compare` reports any disagreement:
/// on accept/reject, on the value, on the known/unknown reading of a tag.
#[test]
fn differential_flags_every_disagreement() {
    let typed = |text: &str| serde_json::from_str::<InquiryResponse>(text);
    let one = typed(r#"{"id":"x","answer":1}"#);
    assert!(oracle::compare(&one, &answered("x", json!(2))).is_err());
    assert!(oracle::compare(&one, &answered("y", json!(1))).is_err());
    assert!(oracle::compare(&one, &Err(Rejection::NotObject)).is_err());
    assert!(oracle::compare(&one, &answered("x", json!(1))).is_ok());
    let rejected = typed(r#"{"id":"x"}"#);
    assert!(oracle::compare(&rejected, &answered("x", json!(1))).is_err());
    assert!(oracle::compare(&rejected, &Err(Rejection::MissingId)).is_ok());
    let future = typed(r#"{"outcome":"cancelled","id":"x","reason":"some_future_variant"}"#);
    assert!(oracle::compare(&future, &cancelled("x", "some_future_variant", true)).is_err());
    assert!(oracle::compare(&future, &cancelled("x", "some_future_variant", false)).is_ok());
}

/// Rule: FUZZ-RESPONSE-DIFFERENTIAL — the three disagreements the
/// differential target found between `wire` and RFD 082 (an array read as a
/// response; a present `null` `outcome` or `reason` read as absent) are
/// settled: both sides reject the array, and both read a `null` `outcome`
/// or `reason` as absent (decision "Wire: a null reason or outcome reads as
/// absent"), to the same value.
#[test]
fn typed_reader_agrees_with_the_rfd_on_the_former_divergences() {
    for (text, want) in [
        (
            r#"{"id":"call_1.confirm.1","outcome":null,"answer":true}"#,
            answered("call_1.confirm.1", json!(true)),
        ),
        (
            r#"{"outcome":"cancelled","id":"call_1.confirm.1","reason":null}"#,
            cancelled("call_1.confirm.1", "user", true),
        ),
    ] {
        let typed = serde_json::from_str::<InquiryResponse>(text);
        assert_eq!(decide(text), want, "the oracle reads {text}");
        assert!(oracle::compare(&typed, &want).is_ok(), "{text}: {typed:?}");
    }
    {
        let text = r#"["call_1.confirm.1", null, true]"#;
        let typed = serde_json::from_str::<InquiryResponse>(text);
        assert!(decide(text).is_err(), "the oracle rejects {text}");
        assert!(typed.is_err(), "the typed reader rejects {text}: {typed:?}");
        let event = format!(r#"{{"type":"inquiry_response","id":"e","answer":1,"x":{text}}}"#);
        assert!(
            serde_json::from_str::<crate::wire::Event>(&event).is_ok(),
            "only as a response"
        );
    }
}

/// Rule: FUZZ-REASON-TAG-VERBATIM — RFD 082's "Unknown `reason` round-trips
/// through `Unknown(String)`" test, on the exact on-disk shape, and on tags
/// with escapes, through the `reason_tag` and `cancellation_reason` entries.
#[test]
fn unknown_reason_tags_survive_byte_for_byte() {
    let input = r#"{"outcome":"cancelled","id":"call_1.confirm.1","reason":"some_future_variant"}"#;
    let read: InquiryResponse = serde_json::from_str(input).expect("reads");
    assert_eq!(
        read,
        InquiryResponse::Cancelled {
            id: InquiryId::from_opaque("call_1.confirm.1"),
            reason: CancellationReason::Unknown("some_future_variant".to_owned()),
        }
    );
    assert_eq!(serde_json::to_string(&read).expect("writes"), input);
    for tag in [
        &b"some_future_variant"[..],
        b"quo\"te\\",
        b"x\0tab\there",
        "\u{1f600}".as_bytes(),
    ] {
        replay(fuzzing::reason_tag, tag).unwrap_or_else(|m| panic!("{m}"));
    }
    for text in [
        r#""user""#,
        r#""some_future_variant""#,
        r#""us\u0065r""#,
        "7",
        "null",
    ] {
        replay(fuzzing::cancellation_reason, text.as_bytes()).unwrap_or_else(|m| panic!("{m}"));
    }
}

/// Rules: FUZZ-READER-CHUNKING, FUZZ-ORACLE-TOTAL, FUZZ-ROUNDTRIP — the
/// project's example streams read alike through every buffer size, are
/// judged by the oracle under every mode, and round-trip in both layouts.
#[test]
fn example_streams_pass_the_stream_entries() {
    for path in sorted_dir(Path::new("spec/examples")) {
        let bytes = fs::read(&path).expect("example");
        let s = Stream::from_slice(&bytes, "example").expect("examples read");
        assert!(!s.events.is_empty(), "{}", path.display());
        for entry in [
            fuzzing::stream_reader,
            fuzzing::check_bytes,
            fuzzing::roundtrip_stream,
        ] {
            replay(entry, &bytes).unwrap_or_else(|m| panic!("{}: {m}", path.display()));
        }
    }
}

/// Rule: FUZZ-ROUNDTRIP — the round-trip entries actually exercise RFD
/// 082's examples (each reads, so the write/read checks run on it).
#[test]
fn rfd_examples_survive_every_roundtrip_entry() {
    for text in seeds::RFD082_TAGGED.iter().chain([&seeds::RFD082_LEGACY]) {
        assert!(
            serde_json::from_str::<InquiryResponse>(text).is_ok(),
            "{text}"
        );
        for entry in [
            fuzzing::inquiry_response,
            fuzzing::roundtrip_response,
            fuzzing::response_differential,
        ] {
            replay(entry, text.as_bytes()).unwrap_or_else(|m| panic!("{text}: {m}"));
        }
        let event = format!(
            "{{\"type\":\"inquiry_response\",{}",
            text.trim_start().trim_start_matches('{')
        );
        assert!(
            serde_json::from_str::<crate::wire::Event>(&event).is_ok(),
            "{event}"
        );
        for entry in [fuzzing::event, fuzzing::roundtrip_event] {
            replay(entry, event.as_bytes()).unwrap_or_else(|m| panic!("{event}: {m}"));
        }
    }
}

/// Rule: FUZZ-MODEL-INVARIANTS — the sanitize seeds decode to the streams
/// they are written for: RFD 082 Phase 3's cross-turn collision is a legacy
/// request in turn 1 and a response with the same ID in turn 2, which
/// sanitize leaves unpaired in neither turn.
#[test]
fn sanitize_encoding_decodes_the_cross_turn_collision() {
    let bytes = fs::read(format!("{CORPUS}/sanitize/seed-cross-turn-collision.bin")).expect("seed");
    let events = generate::stream::flat_from_bytes(&mut Unstructured::new(&bytes));
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.tag()).collect();
    assert_eq!(
        kinds,
        [
            "turn_start",
            "tool_call_request",
            "inquiry_request",
            "tool_call_response",
            "turn_start",
            "tool_call_request",
            "inquiry_response",
            "tool_call_response"
        ]
    );
    let id = InquiryId::legacy("call_a", "apply_changes");
    assert_eq!(events[2].as_inquiry_request().map(|r| &r.id), Some(&id));
    assert_eq!(events[6].as_inquiry_response().map(|r| r.id()), Some(&id));
    let out = stream::sanitize(events);
    assert_eq!(
        out.removed.len(),
        2,
        "both halves of the collision are orphans"
    );
    assert!(out.events.iter().all(|e| !matches!(
        e.kind,
        EventKind::InquiryRequest(_) | EventKind::InquiryResponse(_)
    )));
}

/// Rule: FUZZ-MODEL-INVARIANTS — decoded scenarios are valid and, over a few
/// hundred inputs, cover what `generate::scenario` covers: every profile,
/// TTY on and off, every tool kind, every answer type, `exclusive`,
/// `ask_user` calls, two-call cycles, two turns, raw backend replies.
#[test]
fn decoded_scenarios_are_valid_and_cover_the_strategy_shapes() {
    let mut profiles = BTreeSet::new();
    let mut ttys = BTreeSet::new();
    let mut sources = BTreeSet::new();
    let mut types = BTreeSet::new();
    let (mut exclusive, mut ask_user, mut parallel, mut two_turns, mut raw) =
        (false, false, false, false, false);
    for seed in 0..300u64 {
        let bytes = seeds::lcg_bytes(seed, 200);
        let s = generate::scenario::from_bytes(&mut Unstructured::new(&bytes));
        scenario::validate(&s).expect("valid");
        profiles.insert(s.profile);
        ttys.insert(s.tty);
        for (name, t) in &s.tools {
            let kind = t.executor(name);
            if let Ok(k) = &kind {
                sources.insert(format!("{k:?}"));
            }
            if let Program::Script { asks, .. } = &t.program {
                for a in asks {
                    types.insert(match a.question.answer_type {
                        AnswerType::Boolean => "boolean",
                        AnswerType::Select { .. } => "select",
                        AnswerType::Text => "text",
                        AnswerType::Secret => "secret",
                    });
                    exclusive |= a.question.exclusive;
                }
                assert!(
                    asks.is_empty() || !matches!(kind, Ok(ToolSource::Mcp)),
                    "an MCP tool asks"
                );
            }
        }
        let calls: Vec<_> = s.turns.iter().flat_map(|t| &t.cycles).collect();
        ask_user |= calls
            .iter()
            .flat_map(|c| c.iter())
            .any(|c| c.tool == "ask_user");
        parallel |= calls.iter().any(|c| c.len() == 2);
        two_turns |= s.turns.len() == 2;
        raw |= s
            .backend
            .iter()
            .any(|b| matches!(b, BackendReply::Raw { .. }));
    }
    assert_eq!(profiles.len(), ProfileName::ALL.len(), "{profiles:?}");
    assert_eq!(ttys.len(), 2);
    assert_eq!(sources.len(), 4, "{sources:?}");
    assert_eq!(types.len(), 4, "{types:?}");
    assert!(exclusive && ask_user && parallel && two_turns && raw);
}

/// Rule: FUZZ-RESPONSE-DIFFERENTIAL — the response oracle's own list of the
/// tags the RFDs name (written independently of the typed reader) and the
/// reader's `CancellationReason::KNOWN` are the same set: a reason added to
/// one side only would make every fuzz run of that tag a false finding, or
/// hide a real one.
#[test]
fn oracle_reason_tags_are_the_known_reasons() {
    let oracle: BTreeSet<&str> = oracle::RFD_REASON_TAGS.into_iter().collect();
    let known: BTreeSet<&str> = CancellationReason::KNOWN
        .iter()
        .map(CancellationReason::as_str)
        .collect();
    assert_eq!(oracle, known);
}
