//! Stream operations on real streams: every stream of the committed
//! corpus and the real pre-082 streams pair completely and sanitize to
//! themselves (rules `STREAM-*` in `spec/RULES.md`). The hand-built streams'
//! tests are `src/stream/stream_ops_tests.rs`.

use crate::external;

use std::path::Path;

use crate::stream::{pair, pair_tool_calls, sanitize, turns};
use crate::wire::Stream;
use serde_json::Value;

/// Reads `path` and asserts that it pairs every inquiry and every tool call
/// (no orphan on either side), with the counts given, and sanitizes to
/// itself.
fn assert_pairs_completely_and_sanitizes_to_itself(
    path: &Path,
    (n_events, n_turns, n_inquiries, n_tools): (usize, usize, usize, usize),
) {
    let name = path.display().to_string();
    let name = name.as_str();
    let bytes = std::fs::read(path).unwrap();
    let s = Stream::from_slice(&bytes, name).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.events.len(), n_events, "{name}");
    assert_eq!(turns(&s.events).len(), n_turns, "{name}");

    let p = pair(&s.events);
    assert!(p.is_complete(), "{name}: {p:?}");
    assert_eq!(p.pairs.len(), n_inquiries, "{name}");
    for pr in &p.pairs {
        let req = s.events[pr.request].as_inquiry_request().unwrap();
        let resp = s.events[pr.response].as_inquiry_response().unwrap();
        assert_eq!(&req.id, resp.id(), "{name}");
        assert!(pr.request < pr.response, "{name}");
    }
    let t = pair_tool_calls(&s.events);
    assert!(t.is_complete(), "{name}: {t:?}");
    assert_eq!(t.pairs.len(), n_tools, "{name}");

    let out = sanitize(s.events.clone());
    assert!(
        out.is_unchanged(),
        "{name}: {:?} {:?}",
        out.removed,
        out.injected
    );
    assert_eq!(out.events, s.events, "{name}");
    assert_eq!(
        out.origin,
        (0..n_events).map(Some).collect::<Vec<_>>(),
        "{name}"
    );
}

/// Rules: STREAM-SANITIZE-CLEAN-IDENTITY, STREAM-PAIR-ORDER — every stream
/// of the committed corpus pairs every inquiry and every tool call and
/// sanitizes to itself. The expected counts come from a plain walk over the
/// JSON, not from the stream module: events, turns (markers, plus the
/// implicit leading turn when the first event is not a marker), inquiry
/// requests, tool calls.
#[test]
fn corpus_streams_sanitize_to_themselves_and_pair_completely() {
    for path in external::corpus_files() {
        let plain: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let count = |kind: &str| plain.iter().filter(|e| e["type"] == kind).count();
        let leading = usize::from(plain.first().is_some_and(|e| e["type"] != "turn_start"));
        let counts = (
            plain.len(),
            count("turn_start") + leading,
            count("inquiry_request"),
            count("tool_call_request"),
        );
        assert!(counts.2 > 0 || path.to_string_lossy().contains("chat-only"));
        assert_pairs_completely_and_sanitizes_to_itself(&path, counts);
    }
}

/// Rules: STREAM-SANITIZE-CLEAN-IDENTITY, STREAM-PAIR-ORDER — every real
/// pre-082 stream pairs every inquiry and every tool call (no orphan on
/// either side) and sanitizes to itself. The expected counts were taken
/// from the files with an independent script (python `json`): events,
/// turns (markers, plus the implicit leading turn), inquiry requests, tool
/// calls.
#[test]
fn fixture_streams_sanitize_to_themselves_and_pair_completely() {
    let Some(dir) = external::real_streams(
        "stream_ops::fixture_streams_sanitize_to_themselves_and_pair_completely",
    ) else {
        return;
    };
    let expected: [(&str, usize, usize, usize, usize); 7] = [
        ("17673969718-iana-reference-site.json", 4, 1, 0, 0),
        (
            "17727391057-managing-jp-conversations-in-git-worktrees.json",
            118,
            9,
            3,
            35,
        ),
        (
            "17727484633-preventing-rfd-summary-regeneration-churn.json",
            29,
            2,
            2,
            7,
        ),
        (
            "17727496665-rfd-index-mobile-responsiveness.json",
            36,
            4,
            2,
            7,
        ),
        (
            "17727523543-vitepress-syntax-highlighting-for-wit-and-abnf.json",
            120,
            7,
            4,
            35,
        ),
        (
            "17738500500-jp-cli-cold-start-workflow-issues.json",
            328,
            6,
            18,
            108,
        ),
        (
            "17758406187-missing-date-in-version-string.json",
            29,
            2,
            0,
            10,
        ),
    ];
    let mut on_disk: Vec<String> = external::json_files(&dir)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk,
        expected.iter().map(|e| e.0.to_owned()).collect::<Vec<_>>()
    );
    for (name, n_events, n_turns, n_inquiries, n_tools) in expected {
        assert_pairs_completely_and_sanitizes_to_itself(
            &dir.join(name),
            (n_events, n_turns, n_inquiries, n_tools),
        );
    }
}
