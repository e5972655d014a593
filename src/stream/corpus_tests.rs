//! The committed realistic corpus (`tests/corpus/jp-like/`) is what the
//! generator writes from its committed seed, and it has the on-disk shape of
//! the real pre-082 streams it stands in for.

use crate::external;

use crate::generate::corpus::{COMMITTED_SEED, jp_like};
use serde_json::Value;

/// Rule: WIRE-CORPUS — the committed files are byte for byte what
/// `crate::generate::corpus` writes from `COMMITTED_SEED` (`make corpus`
/// rewrites them), and there are no others.
#[test]
fn committed_corpus_is_the_generators_output() {
    let generated = jp_like(COMMITTED_SEED);
    let on_disk = external::corpus_files();
    let names: Vec<String> = on_disk
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let want: Vec<String> = generated.iter().map(|f| f.name.clone()).collect();
    assert_eq!(names, want, "run `make corpus` and review the diff");
    for (path, file) in on_disk.iter().zip(&generated) {
        let bytes = std::fs::read(path).unwrap();
        assert!(
            bytes == file.bytes,
            "{} differs from the generator's output; run `make corpus` and review the diff",
            path.display()
        );
    }
}

/// Rule: WIRE-CORPUS — the corpus has every feature of the real streams'
/// on-disk shape that the tests rely on, checked on the plain JSON:
/// two-segment inquiry IDs, untagged `{id, answer}` responses, base64 tool
/// arguments and contents, an event kind the model does not know, a question
/// asked twice in one turn, and one turn of at least 300 tool calls.
#[test]
fn corpus_has_the_real_streams_shape() {
    let mut two_segment = 0;
    let mut untagged = 0;
    let mut base64_fields = 0;
    let mut unknown_kinds = 0;
    let mut reasked = 0;
    let mut longest_turn = 0;
    const KNOWN: [&str; 8] = [
        "config_delta",
        "turn_start",
        "chat_request",
        "chat_response",
        "tool_call_request",
        "tool_call_response",
        "inquiry_request",
        "inquiry_response",
    ];
    let is_base64 = |v: &Value| {
        v.as_str().is_some_and(|s| {
            !s.is_empty()
                && s.len() % 4 == 0
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
        })
    };
    for path in external::corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("[\n  {\n"),
            "{}: a pretty array",
            path.display()
        );
        let events: Vec<Value> = serde_json::from_str(&text).unwrap();
        let mut calls_in_turn = 0;
        let mut ids_in_turn = std::collections::HashSet::new();
        for e in &events {
            let kind = e["type"].as_str().expect("every event has a type");
            match kind {
                "turn_start" => {
                    calls_in_turn = 0;
                    ids_in_turn.clear();
                }
                "tool_call_request" => {
                    calls_in_turn += 1;
                    longest_turn = longest_turn.max(calls_in_turn);
                    let args = e["arguments"].as_object().unwrap();
                    base64_fields += args.values().filter(|v| is_base64(v)).count();
                }
                "tool_call_response" => {
                    assert!(is_base64(&e["content"]), "{e}");
                    base64_fields += 1;
                }
                "inquiry_request" => {
                    let id = e["id"].as_str().unwrap();
                    if id.split('.').count() == 2 {
                        two_segment += 1;
                    }
                    if !ids_in_turn.insert(id.to_owned()) {
                        reasked += 1;
                    }
                }
                "inquiry_response" if e.get("outcome").is_none() && e.get("answer").is_some() => {
                    untagged += 1;
                }
                other if !KNOWN.contains(&other) => unknown_kinds += 1,
                _ => {}
            }
        }
    }
    assert!(two_segment > 20, "{two_segment} two-segment IDs");
    assert!(untagged > 20, "{untagged} untagged responses");
    assert!(base64_fields > 500, "{base64_fields} base64 fields");
    assert!(unknown_kinds > 0, "no unknown event kind");
    assert!(reasked > 0, "no question asked twice in a turn");
    assert!(longest_turn >= 300, "longest turn: {longest_turn} calls");
}
